import FormsStore
import Foundation

/// The one progress line: `migrate: checking [#####     ] 12000/40032  9521/s` on stderr, redrawn
/// at most ten times a second, only on a terminal and never with --quiet. A new phase replaces
/// the line; any other output clears it first (`FileHandleOutput.write`).
final class ProgressLine: @unchecked Sendable {
  /// The line of this process, if one is drawn.
  nonisolated(unsafe) static var active: ProgressLine?

  private let command: String
  private let lock = NSLock()
  private var phase = ""
  private var started = Date()
  private var lastDrawn = Date.distantPast
  private var drawn = false

  init(command: String) { self.command = command }

  /// A handler for the store's long operations, or nil when nothing should be drawn.
  static func handler(quiet: Bool) -> ProgressHandler? {
    guard !quiet, FileHandleOutput.standardError.isTerminal else { return nil }
    let line = ProgressLine(command: CommandLine.arguments.dropFirst().first ?? "formsctl")
    active = line
    return { phase, done, total in line.update(phase, done, total) }
  }

  func update(_ phase: String, _ done: Int, _ total: Int) {
    lock.lock()
    defer { lock.unlock() }
    let now = Date()
    if phase != self.phase {
      self.phase = phase
      started = now
      lastDrawn = .distantPast
    }
    guard done == total || now.timeIntervalSince(lastDrawn) > 0.1, total > 0 else { return }
    lastDrawn = now
    let width = 24
    let filled = width * min(done, total) / total
    let rate = Double(done) / max(now.timeIntervalSince(started), 0.001)
    FileHandleOutput.standardError.writeRaw(
      "\r\u{1B}[K\(command): \(phase) [\(String(repeating: "#", count: filled))"
        + "\(String(repeating: " ", count: width - filled))] \(done)/\(total)  \(Int(rate))/s")
    drawn = true
  }

  /// Clears the line.
  func finish() {
    lock.lock()
    defer { lock.unlock() }
    if drawn { FileHandleOutput.standardError.writeRaw("\r\u{1B}[K") }
    drawn = false
  }
}
