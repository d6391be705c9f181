import Foundation

/// The one way formsctl writes a file (docs/design.md §8): a temporary file created exclusively in the
/// target's directory, written, fsynced, renamed over the target, then the directory fsynced.
/// A reader sees the whole old file or the whole new one, never part of either.
package struct AtomicWriter: Sendable {
  /// The real path of the directory that every write must stay inside (the store root).
  package let boundary: FilePath
  /// Called after the temporary file is durable and before the rename; tests inject failures here.
  var beforeRename: (@Sendable (FilePath) throws(StoreError) -> Void)?
  /// The mode of a file that does not exist yet (a file that exists keeps its own): 0600 for
  /// files that may hold a sensitive value's plain text (`edit`'s copy) or a key.
  package var newFileMode: mode_t = 0o644

  /// A writer confined to `boundary`, which must exist.
  package init(boundary: FilePath) {
    self.boundary = FileIO.realPath(boundary) ?? boundary
  }

  /// Replaces (or creates) `path` with `bytes`, atomically and durably; with `sync` false,
  /// atomically only: the caller makes many such files durable at once (`FileIO.sync`).
  package func write(_ bytes: [UInt8], to path: FilePath, sync: Bool = true) throws(StoreError) {
    let target = try resolveInsideBoundary(path)
    let directory = target.parent
    let (fd, temp) = try createTemporary(nextTo: target)
    var renamed = false
    defer {
      // The write failed, and that error is what the caller hears; a temporary that cannot be
      // removed either is a leftover that `recover` sweeps (`isTemporaryName`).
      if !renamed { _ = POSIX.unlink(temp) }
    }
    do throws(StoreError) {
      try writeAll(fd, bytes, path: temp)
      if sync, POSIX.fsync(fd, path: temp) != 0 {
        throw StoreError.io(temp.string, operation: "fsync", errno: Errno(errno))
      }
      close(fd)
    } catch {
      close(fd)
      throw error
    }
    try beforeRename?(temp)
    if POSIX.rename(temp, target) != 0 { throw StoreError.io(target.string, operation: "rename", errno: Errno(errno)) }
    renamed = true
    if sync { try Self.syncDirectory(directory) }
  }

  /// Makes a directory's entries (creations, renames, deletions) durable.
  package static func syncDirectory(_ directory: FilePath) throws(StoreError) {
    try FileIO.sync([directory])
  }

  /// The real path to write: the target itself, or where a symbolic link inside the boundary leads.
  func resolveInsideBoundary(_ path: FilePath) throws(StoreError) -> FilePath {
    guard let directory = FileIO.realPath(path.parent) else {
      throw StoreError.fileNotFound(path.parent.string)
    }
    guard isInside(directory) else { throw StoreError.pathOutsideStore(path.string) }
    let target = directory / path.name
    guard FileIO.entry(target) == .symlink else { return target }
    guard let resolved = FileIO.realPath(target), isInside(resolved.parent) else {
      throw StoreError.symlinkOutsideStore(path.string)
    }
    return resolved
  }

  /// Creates `directory` and its missing parents, after checking that the nearest existing ancestor
  /// really is inside the boundary (a symlinked directory must not lead creation out of the store).
  package func makeDirectories(_ directory: FilePath) throws(StoreError) {
    var existing = directory
    while !FileIO.exists(existing) {
      let parent = existing.parent
      if parent == existing { break }
      existing = parent
    }
    guard let real = FileIO.realPath(existing), isInside(real) else {
      throw StoreError.pathOutsideStore(directory.string)
    }
    try FileIO.makeDirectories(directory)
  }

  /// True when `realDirectory` is the boundary or below it.
  func isInside(_ realDirectory: FilePath) -> Bool {
    boundary.contains(realDirectory)
  }

  /// True for a name `createTemporary` makes: `.NAME.PID.RANDOM.tmp`.
  static func isTemporaryName(_ name: String) -> Bool {
    guard name.hasPrefix("."), name.hasSuffix(".tmp") else { return false }
    let parts = name.dropLast(4).split(separator: ".")
    return parts.count >= 3
      && parts.suffix(2).allSatisfy { part in !part.isEmpty && part.allSatisfy { ("0"..."9").contains($0) } }
  }

  private func createTemporary(nextTo target: FilePath) throws(StoreError) -> (Int32, FilePath) {
    let directory = target.parent
    var mode = newFileMode
    var info = stat()
    if stat(target.string, &info) == 0 { mode = info.st_mode & 0o7777 }
    for _ in 0..<16 {
      let temp = FilePath("\(directory.string)/.\(target.name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp")
      let fd = POSIX.open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
      if fd >= 0 {
        fchmod(fd, mode)
        return (fd, temp)
      }
      if errno != EEXIST { throw StoreError.io(temp.string, operation: "create", errno: Errno(errno)) }
    }
    throw StoreError.io(directory.string, operation: "create a temporary file", errno: Errno(EEXIST))
  }
}

/// Writes every byte, retrying short writes and EINTR.
func writeAll(_ fd: Int32, _ bytes: [UInt8], path: FilePath) throws(StoreError) {
  var written = 0
  while written < bytes.count {
    let n = bytes.withUnsafeBytes {
      POSIX.write(fd, $0.baseAddress.map { $0 + written }, bytes.count - written, path: path)
    }
    if n < 0 {
      if errno == EINTR { continue }
      throw StoreError.io(path.string, operation: "write", errno: Errno(errno))
    }
    written += n
  }
}
