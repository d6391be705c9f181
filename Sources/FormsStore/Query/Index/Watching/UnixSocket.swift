import Foundation

/// The few calls the index watcher's socket needs: a Unix stream socket at a path, the peer's
/// user, and line I/O bounded by a deadline.
enum UnixSocket {
  /// `path` as a socket address; nil when it is too long for one (108 bytes on Linux).
  static func address(_ path: FilePath) -> sockaddr_un? {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.string.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      raw.copyBytes(from: bytes)
      raw[bytes.count] = 0
    }
    return address
  }

  static func make() -> Int32 { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }

  /// Calls `body` (a `bind` or `connect`) with `path` as the `sockaddr` the system calls take.
  /// A path longer than an address holds (a store deep in the tree) is named through its
  /// directory, opened for the call (`/proc/self/fd/N/NAME`, not following a link): -1 with errno
  /// set when even that cannot be.
  static func withAddress(of path: FilePath, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
    func call(_ address: sockaddr_un) -> Int32 {
      var address = address
      return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
      }
    }
    if let address = address(path) { return call(address) }
    let directory = open(path.parent.string, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    guard directory >= 0 else { return -1 }
    defer { close(directory) }
    guard let address = address(FilePath("/proc/self/fd/\(directory)") / path.name) else {
      errno = ENAMETOOLONG
      return -1
    }
    return call(address)
  }

  /// A socket connected to `path`; -1 with errno set when none could be.
  static func connect(_ path: FilePath) -> Int32 {
    let fd = make()
    guard fd >= 0 else { return -1 }
    let connected = withAddress(of: path) { Foundation.connect(fd, $0, $1) }
    guard connected == 0 else {
      let code = errno
      close(fd)
      errno = code
      return -1
    }
    return fd
  }

  /// The user id of the process at the other end; nil when the system does not say.
  static func peerUser(_ fd: Int32) -> uid_t? {
    #if os(Linux)
      // struct ucred: pid, uid, gid (32 bits each).
      var credentials: (Int32, UInt32, UInt32) = (0, 0, 0)
      var length = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
      guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0, length == 12 else { return nil }
      return uid_t(credentials.1)
    #else
      var user = uid_t()
      var group = gid_t()
      return getpeereid(fd, &user, &group) == 0 ? user : nil
    #endif
  }

  /// Waits until `fd` is ready for `events` or `deadline` passes; false on the deadline or an error.
  static func wait(_ fd: Int32, for events: Int16, until deadline: ContinuousClock.Instant) -> Bool {
    while true {
      let left = deadline - .now
      guard left > .zero else { return false }
      var polled = pollfd(fd: fd, events: events, revents: 0)
      let ready = poll(&polled, 1, Int32(clamping: max(1, left.nanoseconds / 1_000_000)))
      if ready > 0 { return true }
      if ready < 0 && errno != EINTR { return false }
    }
  }

  /// Writes all of `bytes` before `deadline`; false when it could not.
  static func send(_ fd: Int32, _ bytes: [UInt8], until deadline: ContinuousClock.Instant) -> Bool {
    var offset = 0
    while offset < bytes.count {
      guard wait(fd, for: Int16(POLLOUT), until: deadline) else { return false }
      let written = bytes[offset...].withUnsafeBytes {
        Foundation.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      if written < 0 {
        if errno == EINTR || errno == EAGAIN { continue }
        return false
      }
      offset += written
    }
    return true
  }

  /// Reads one line (without its newline) of at most `limit` bytes before `deadline`, the bytes
  /// read past it kept in `buffer`; nil at the end, on the deadline, past the limit, or on an error.
  static func line(_ fd: Int32, _ buffer: inout [UInt8], limit: Int, until deadline: ContinuousClock.Instant)
    -> [UInt8]?
  {
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
        let line = Array(buffer[..<newline])
        buffer.removeSubrange(...newline)
        return line
      }
      guard buffer.count <= limit, wait(fd, for: Int16(POLLIN), until: deadline) else { return nil }
      let count = chunk.withUnsafeMutableBytes { Foundation.recv(fd, $0.baseAddress, $0.count, 0) }
      if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
      guard count > 0 else { return nil }
      buffer += chunk[..<count]
    }
  }
}
