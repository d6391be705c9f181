import Foundation
import Synchronization

/// The fault seam (as SQLite's I/O-error tests use theirs): a test arms it for a directory, and the
/// system calls `POSIX` makes on paths below that directory are counted, and the Nth one (of one
/// kind, or of any) fails with an errno, once or from then on. Unarmed, each call costs one
/// uncontended lock. Several tests may arm different directories at once.
package final class FaultInjection: Sendable {
  /// The kinds of system call the seam counts.
  package enum Call: String, Sendable, CaseIterable {
    case open, read, write, writeback, fsync, rename, unlink, mkdir, readdir, link, truncate, watch
  }

  /// Which call fails, and how.
  package struct Fault: Sendable, Equatable {
    /// The kind of call counted; nil counts every kind.
    package var call: Call?
    /// The 1-based number of the counted call that fails first.
    package var nth: Int
    /// Every counted call from the Nth on fails (a disk that stays full), not only the Nth.
    package var persistent: Bool
    package var errno: Int32

    package init(call: Call? = nil, nth: Int, persistent: Bool = false, errno: Int32 = EIO) {
      self.call = call
      self.nth = nth
      self.persistent = persistent
      self.errno = errno
    }
  }

  /// The directory whose paths are counted (as given, and its real path).
  package let scopes: [FilePath]
  private let fault: Fault?
  /// The calls seen (every kind), how many of them the fault counted, and how many it failed.
  private let state = Mutex<(calls: [(call: Call, path: FilePath)], counted: Int, failures: Int)>(([], 0, 0))

  private init(scope: FilePath, fault: Fault?) {
    let real = FileIO.realPath(scope) ?? scope
    scopes = real == scope ? [scope] : [scope, real]
    self.fault = fault
  }

  /// Counts (and with `fault`, fails) the calls on paths below `scope` until `disarm`.
  package static func arm(_ scope: FilePath, fault: Fault? = nil) -> FaultInjection {
    let armed = FaultInjection(scope: scope, fault: fault)
    registry.withLock { $0.append(armed) }
    return armed
  }

  /// Stops counting and failing.
  package func disarm() { Self.registry.withLock { $0.removeAll { $0 === self } } }

  /// Every call counted so far, in order.
  package var trace: [(call: Call, path: FilePath)] { state.withLock { $0.calls } }

  /// How many calls the fault failed.
  package var failed: Int { state.withLock { $0.failures } }

  /// The errno `call` on `path` fails with, or nil when it goes ahead.
  static func check(_ call: Call, _ path: FilePath) -> Int32? {
    guard let armed = armed(for: path) else { return nil }
    return armed.count(call, path)
  }

  private func count(_ call: Call, _ path: FilePath) -> Int32? {
    state.withLock { state in
      state.calls.append((call, path))
      guard let fault, fault.call == nil || fault.call == call else { return nil }
      state.counted += 1
      guard state.counted == fault.nth || (fault.persistent && state.counted > fault.nth) else { return nil }
      state.failures += 1
      return fault.errno
    }
  }

  func covers(_ path: FilePath) -> Bool {
    let path = path.string
    return scopes.lazy.map(\.string).contains {
      path == $0 || (path.hasPrefix($0) && path.utf8.dropFirst($0.utf8.count).first == UInt8(ascii: "/"))
    }
  }

  /// Every armed seam.
  private static let registry = Mutex<[FaultInjection]>([])

  private static func armed(for path: FilePath) -> FaultInjection? {
    registry.withLock { armed in armed.isEmpty ? nil : armed.first { $0.covers(path) } }
  }
}
