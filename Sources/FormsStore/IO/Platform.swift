#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Musl)
  @preconcurrency import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The POSIX calls that differ between Glibc, Musl and Darwin, in one place; everything else
/// calls POSIX directly (through `import Foundation`) and never names a C module.
package enum Platform {
  /// `read(2)`, callable inside types that have a `read` of their own.
  package static func read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
      Glibc.read(fd, buffer, count)
    #elseif canImport(Musl)
      Musl.read(fd, buffer, count)
    #else
      Darwin.read(fd, buffer, count)
    #endif
  }

  /// `write(2)`, callable inside types that have a `write` of their own.
  package static func write(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
      Glibc.write(fd, buffer, count)
    #elseif canImport(Musl)
      Musl.write(fd, buffer, count)
    #else
      Darwin.write(fd, buffer, count)
    #endif
  }

  /// Ends the process with `code` (argument-parser's commands have an `exit` of their own).
  package static func exit(_ code: Int32) -> Never {
    #if canImport(Glibc)
      Glibc.exit(code)
    #elseif canImport(Musl)
      Musl.exit(code)
    #else
      Darwin.exit(code)
    #endif
  }

  /// Makes a file's data (or a directory's entries) durable: `fsync`, and on Darwin
  /// `F_FULLFSYNC`, since its `fsync` leaves the data in the drive's cache (falling back to
  /// `fsync` where the file system does not support it).
  static func fsync(_ fd: Int32) -> Int32 {
    #if canImport(Darwin)
      if fcntl(fd, F_FULLFSYNC) == 0 { return 0 }
      return Darwin.fsync(fd)
    #elseif canImport(Musl)
      return Musl.fsync(fd)
    #else
      return Glibc.fsync(fd)
    #endif
  }

  /// Linux `syncfs(2)`: everything written on one file system made durable in one call; looked up
  /// at run time (Swift's Glibc module does not declare it). Nil elsewhere: callers fsync each
  /// file (`syncAll`).
  #if os(Linux)
    static let syncfs: (@convention(c) (Int32) -> Int32)? = {
      guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "syncfs") else { return nil }
      return unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Int32).self)
    }()
  #else
    static let syncfs: (@convention(c) (Int32) -> Int32)? = nil
  #endif

  /// Starts writing a file's dirty pages back without waiting (Linux `sync_file_range` with
  /// `SYNC_FILE_RANGE_WRITE`; looked up at run time like `syncfs`). Started on every file of a
  /// group before the first is fsynced, their blocks are allocated in one transaction of the file
  /// system's journal, which that fsync commits for all of them; the later ones have little left
  /// but the drive's cache flush. Nil elsewhere: each fsync does its own.
  #if os(Linux)
    static let startWriteback: (@Sendable (Int32) -> Int32)? = {
      typealias Call = @convention(c) (Int32, Int64, Int64, UInt32) -> Int32
      guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sync_file_range") else { return nil }
      let call = unsafeBitCast(symbol, to: Call.self)
      return { fd in call(fd, 0, 0, 2) }  // SYNC_FILE_RANGE_WRITE
    }()
  #else
    static let startWriteback: (@Sendable (Int32) -> Int32)? = nil
  #endif

  /// Modification and status-change times of `info`, in nanoseconds since 1970.
  static func times(_ info: stat) -> (modified: Int64, changed: Int64) {
    #if canImport(Darwin)
      let (m, c) = (info.st_mtimespec, info.st_ctimespec)
    #else
      let (m, c) = (info.st_mtim, info.st_ctim)
    #endif
    return (Int64(m.tv_sec) * 1_000_000_000 + Int64(m.tv_nsec), Int64(c.tv_sec) * 1_000_000_000 + Int64(c.tv_nsec))
  }

  /// The process's environment, as `posix_spawn` takes it.
  package static var environment: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
    #if canImport(Darwin)
      _NSGetEnviron().pointee
    #else
      environ
    #endif
  }

  /// `posix_spawn`'s file actions (an opaque pointer on Darwin, a struct elsewhere).
  #if canImport(Darwin)
    package typealias SpawnActions = posix_spawn_file_actions_t?
    package static func spawnActions() -> SpawnActions { nil }
  #else
    package typealias SpawnActions = posix_spawn_file_actions_t
    package static func spawnActions() -> SpawnActions { posix_spawn_file_actions_t() }
  #endif

  /// A connected pair of stream sockets whose writes fail with EPIPE rather than raise SIGPIPE
  /// once the other end is closed (used with `sendFlags`).
  static func socketPair(_ fds: inout [Int32]) -> Bool {
    #if canImport(Glibc)
      let type = Int32(SOCK_STREAM.rawValue)
    #else
      let type = SOCK_STREAM
    #endif
    guard socketpair(AF_UNIX, type, 0, &fds) == 0 else { return false }
    #if canImport(Darwin)
      var on: Int32 = 1
      for fd in fds { _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size)) }
    #endif
    return true
  }

  /// The flags `send` takes on a `socketPair` socket (Linux says "no SIGPIPE" per call).
  static var sendFlags: Int32 {
    #if canImport(Darwin)
      0
    #else
      Int32(MSG_NOSIGNAL)
    #endif
  }
}
