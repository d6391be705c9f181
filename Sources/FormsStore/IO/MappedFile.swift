import Foundation

/// A file's bytes in memory, read only: mapped (`mmap`) when they come from a file, so a large
/// cache such as the index is neither copied nor zeroed before it is read, and its pages are the
/// page cache's own. The mapping goes with the last reference. The files mapped are replaced by
/// rename, never rewritten in place, so a mapping keeps the bytes it was made with.
final class MappedFile: @unchecked Sendable {
  /// The bytes (empty for an empty file).
  let bytes: UnsafeBufferPointer<UInt8>
  private let mapped: Bool

  /// A copy of `array` (an index made in memory, in tests).
  init(copying array: [UInt8]) {
    let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, array.count))
    _ = buffer.initialize(from: array)
    bytes = UnsafeBufferPointer(rebasing: buffer[0..<array.count])
    mapped = false
  }

  /// The regular file at `path` (a symbolic link is refused), or nil when there is none.
  init?(_ path: FilePath) throws(StoreError) {
    let fd = POSIX.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    guard fd >= 0 else {
      if errno == ENOENT { return nil }
      throw StoreError.io(path.string, operation: "open", errno: Errno(errno))
    }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw StoreError.io(path.string, operation: "stat", errno: Errno(errno)) }
    guard info.st_mode & S_IFMT == S_IFREG else {
      throw StoreError.wrongFileType(
        path.string, found: FileIO.describe(mode: info.st_mode), expected: "a regular file")
    }
    let size = Int(info.st_size)
    guard size > 0 else {
      bytes = UnsafeBufferPointer(start: UnsafeMutablePointer<UInt8>.allocate(capacity: 1), count: 0)
      mapped = false
      return
    }
    guard let start = POSIX.mmap(size, fd, path: path) else {
      throw StoreError.io(path.string, operation: "read", errno: Errno(errno))
    }
    bytes = UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: size)
    mapped = true
  }

  deinit {
    if mapped {
      munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count)
    } else {
      bytes.baseAddress.map { UnsafeMutablePointer(mutating: $0).deallocate() }
    }
  }
}
