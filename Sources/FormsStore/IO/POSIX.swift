import Foundation

/// The system calls formsctl makes on the store's files, each through the fault seam
/// (`FaultInjection`): a call it fails returns -1 (or nil) with `errno` set, as the kernel's would.
/// Calls on a descriptor name the path it was opened from, which is what the seam matches.
enum POSIX {
  private static func fault(_ call: FaultInjection.Call, _ path: FilePath) -> Bool {
    guard let code = FaultInjection.check(call, path) else { return false }
    errno = code
    return true
  }

  static func open(_ path: FilePath, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
    fault(.open, path) ? -1 : Foundation.open(path.string, flags, mode)
  }

  /// `openat` of `name` (inside `path`'s C string) relative to `directory`.
  static func openat(
    _ directory: Int32, _ name: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t = 0, path: FilePath
  ) -> Int32 {
    fault(.open, path) ? -1 : Foundation.openat(directory, name, flags, mode)
  }

  static func read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int, path: FilePath) -> Int {
    fault(.read, path) ? -1 : Platform.read(fd, buffer, count)
  }

  static func pread(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int, _ offset: off_t, path: FilePath)
    -> Int
  {
    fault(.read, path) ? -1 : Foundation.pread(fd, buffer, count, offset)
  }

  /// `count` bytes of `fd` mapped read-only and private (a read: it fails as one), or nil.
  static func mmap(_ count: Int, _ fd: Int32, path: FilePath) -> UnsafeRawPointer? {
    guard !fault(.read, path) else { return nil }
    let start = Foundation.mmap(nil, count, PROT_READ, MAP_PRIVATE, fd, 0)
    return start == MAP_FAILED ? nil : start.map { UnsafeRawPointer($0) }
  }

  static func write(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int, path: FilePath) -> Int {
    fault(.write, path) ? -1 : Platform.write(fd, buffer, count)
  }

  static func fsync(_ fd: Int32, path: FilePath) -> Int32 {
    fault(.fsync, path) ? -1 : Platform.fsync(fd)
  }

  /// `Platform.startWriteback` (0 where there is none).
  static func startWriteback(_ fd: Int32, path: FilePath) -> Int32 {
    fault(.writeback, path) ? -1 : Platform.startWriteback?(fd) ?? 0
  }

  /// Linux `syncfs` (looked up at run time: `Platform.syncfs`), counted as an fsync.
  static func syncfs(_ call: @convention(c) (Int32) -> Int32, _ fd: Int32, path: FilePath) -> Int32 {
    fault(.fsync, path) ? -1 : call(fd)
  }

  static func ftruncate(_ fd: Int32, _ length: off_t, path: FilePath) -> Int32 {
    fault(.truncate, path) ? -1 : Foundation.ftruncate(fd, length)
  }

  static func rename(_ from: FilePath, _ to: FilePath) -> Int32 {
    fault(.rename, to) ? -1 : Foundation.rename(from.string, to.string)
  }

  static func unlink(_ path: FilePath) -> Int32 {
    fault(.unlink, path) ? -1 : Foundation.unlink(path.string)
  }

  static func rmdir(_ path: FilePath) -> Int32 {
    fault(.unlink, path) ? -1 : Foundation.rmdir(path.string)
  }

  static func mkdir(_ path: FilePath, _ mode: mode_t) -> Int32 {
    fault(.mkdir, path) ? -1 : Foundation.mkdir(path.string, mode)
  }

  static func link(_ from: FilePath, _ to: FilePath) -> Int32 {
    fault(.link, to) ? -1 : Foundation.link(from.string, to.string)
  }

  /// `linkat` of `name` from one open directory to another; `path` is the new link's path.
  static func linkat(_ from: Int32, _ name: String, _ to: Int32, path: FilePath) -> Int32 {
    fault(.link, path) ? -1 : Foundation.linkat(from, name, to, name, 0)
  }

  /// `open` of a directory to list (then `fdopendir`), counted as a readdir.
  static func openDirectory(_ path: FilePath, _ flags: Int32) -> Int32 {
    fault(.readdir, path) ? -1 : Foundation.open(path.string, flags)
  }
}
