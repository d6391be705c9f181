import Foundation

/// Crash-test hook: `FORMSCTL_DEBUG_PAUSE=after-lock:30` makes formsctl sleep 30 s at that point,
/// so a test can kill it there with SIGKILL. Points: `after-lock` (holding the store lock),
/// `after-stage` (journal staged, before the commit record), `after-commit` (commit record written,
/// before the renames), `snapshot-before-rename` (a snapshot complete under its temporary name),
/// `sync-pushed` (a row written to the database, its sync record not yet saved) and `sync-pulled`
/// (a row written to the store, its sync record not yet saved).
/// Unset, it costs one environment lookup.
package enum DebugPause {
  static let setting: (point: String, seconds: Double)? = {
    guard let value = ProcessInfo.processInfo.environment["FORMSCTL_DEBUG_PAUSE"],
      let colon = value.lastIndex(of: ":"), let seconds = Double(value[value.index(after: colon)...])
    else { return nil }
    return (String(value[..<colon]), seconds)
  }()

  package static func at(_ point: String) {
    guard let setting, setting.point == point else { return }
    FileHandle.standardError.write(Data("formsctl: paused at \(point) (pid \(getpid()))\n".utf8))
    Thread.sleep(forTimeInterval: setting.seconds)
  }
}
