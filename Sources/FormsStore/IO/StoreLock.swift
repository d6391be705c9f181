import Foundation

/// The store's single-writer lock: `flock` on `.formsctl/lock`, released when this is deinitialized
/// or the process ends (so a killed writer never leaves a stale lock).
extension StoreLayout {
  /// Runs `body` holding the store lock, after checking no interrupted operation waits. Needs no
  /// compiled schemas, so snapshots and recovery work even while a descriptor is broken.
  package func withWriteLock<T>(_ command: String, wait: Double, _ body: () throws(StoreError) -> T) throws(StoreError)
    -> T
  {
    let lock = try StoreLock(store: self, command: command, wait: wait)
    defer { withExtendedLifetime(lock) {} }
    try Journal(layout: self).requireNone()
    return try body()
  }
}

package final class StoreLock {
  private let fd: Int32

  /// Takes the store lock, waiting up to `wait` seconds; names the holder's pid and command when it cannot.
  package convenience init(store: StoreLayout, command: String, wait: Double) throws(StoreError) {
    try self.init(store: store, path: store.lockPath, command: command, wait: wait)
  }

  /// Takes the sync lock (`.formsctl/sync/lock`): one sync of a store at a time, whatever the
  /// database, while writers still take the store lock for each write inside it.
  package static func sync(_ store: StoreLayout, command: String, wait: Double) throws(StoreError) -> StoreLock {
    try StoreLock(store: store, path: store.syncLockPath, command: command, wait: wait)
  }

  private init(store: StoreLayout, path: FilePath, command: String, wait: Double) throws(StoreError) {
    // formsctl's own directories are never followed out of the store: a checkout may carry links.
    let parent = path.parent
    for directory in [store.state, store.journalDirectory, store.snapshotsDirectory, parent] {
      let found = FileIO.entry(directory)
      guard found == .directory || found == .missing else {
        throw StoreError.wrongFileType(directory.string, found: FileIO.describe(directory), expected: "a directory")
      }
    }
    try FileIO.makeDirectories(parent)
    // Never through a symbolic link: a checkout could carry one pointing at any file.
    fd = POSIX.open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw StoreError.io(path.string, operation: "open", errno: Errno(errno)) }
    // A monotonic clock: a wall clock set back (NTP, a person) would stretch the wait.
    let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int64(wait * 1000)))
    while flock(fd, LOCK_EX | LOCK_NB) != 0 {
      let failure = errno  // read before close, which may set errno itself
      guard failure == EWOULDBLOCK || failure == EINTR else {
        close(fd)
        throw StoreError.io(path.string, operation: "flock", errno: Errno(failure))
      }
      if ContinuousClock.now >= deadline {
        // The holder's note only makes the message precise; unreadable, it names "formsctl".
        let note: [UInt8]
        do throws(StoreError) { note = try FileIO.read(path, limit: 4096) } catch { note = [] }
        let holder = String(decoding: note, as: UTF8.self)
        close(fd)
        let parts = holder.split(separator: " ", maxSplits: 1)
        let pid = parts.first.flatMap { Int32($0) }
        let what = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespacesAndNewlines) : "formsctl"
        throw StoreError.locked(pid: pid, command: what, waited: wait)
      }
      usleep(50_000)
    }
    // Who holds the lock, for the message of a writer that waits: a note, not the lock (flock is);
    // when it cannot be written, that writer names "another process" instead.
    _ = ftruncate(fd, 0)
    let note = Array("\(getpid()) formsctl \(command)\n".utf8)
    _ = note.withUnsafeBytes { pwrite(fd, $0.baseAddress, note.count, 0) }
    DebugPause.at("after-lock")
  }

  deinit {
    ftruncate(fd, 0)
    flock(fd, LOCK_UN)
    close(fd)
  }
}
