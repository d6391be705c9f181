import Foundation
import Testing

/// rsync, which `snapshot push` and `pull` copy with.
public enum Rsync {
  /// Why rsync tests cannot run here, or nil when they can. In CI (`CI=true`) they must.
  public static var unavailable: String? {
    let found = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").contains {
      FileManager.default.isExecutableFile(atPath: $0 + "/rsync")
    }
    return found ? nil : "rsync is not installed; apt-get install rsync to run the snapshot push and pull tests"
  }

  /// The trait that runs a suite where rsync is, and always in CI (where its absence fails).
  public static var enabled: ConditionTrait {
    .enabled(
      if: unavailable == nil || ProcessInfo.processInfo.environment["CI"] == "true",
      Comment(rawValue: unavailable ?? ""))
  }
}
