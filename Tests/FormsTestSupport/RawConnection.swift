import Foundation

/// A TCP connection to a server on 127.0.0.1 made with the system's calls, for what an HTTP client
/// never does: stay idle, send half a request, go away in the middle of an answer.
public final class RawConnection: @unchecked Sendable {
  public private(set) var fd: Int32

  public init(port: Int) throws {
    fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw FixtureError("socket: \(String(cString: strerror(errno)))") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else {
      let reason = String(cString: strerror(errno))
      close(fd)
      throw FixtureError("connect: \(reason)")
    }
  }

  deinit { hangUp() }

  /// Closes the connection without a word, as a browser tab that goes away does.
  public func hangUp() {
    if fd >= 0 { close(fd) }
    fd = -1
  }

  public func send(_ text: String) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { Foundation.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
  }

  /// A request of `path` with `header` (a cookie, a token) that closes the connection once answered.
  public func request(_ path: String, method: String = "GET", header: String) {
    send("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(header)\r\nConnection: close\r\n\r\n")
  }

  /// What arrives within `seconds`, until the server closes the connection: the text and whether
  /// it was closed (false: still open when the time was up).
  public func receive(within seconds: Double) -> (text: String, closed: Bool) {
    var text: [UInt8] = []
    let deadline = Date().addingTimeInterval(seconds)
    while true {
      let left = deadline.timeIntervalSinceNow
      guard left > 0 else { return (String(decoding: text, as: UTF8.self), false) }
      var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      guard poll(&ready, 1, Int32(left * 1000) + 1) > 0 else { continue }
      var buffer = [UInt8](repeating: 0, count: 65536)
      let n = recv(fd, &buffer, buffer.count, 0)
      if n <= 0 { return (String(decoding: text, as: UTF8.self), true) }
      text += buffer.prefix(n)
    }
  }

  /// Waits up to `seconds` for the first bytes of an answer (nil: none came).
  public func firstBytes(within seconds: Double) -> String? {
    var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    guard poll(&ready, 1, Int32(seconds * 1000)) > 0 else { return nil }
    var buffer = [UInt8](repeating: 0, count: 65536)
    let n = recv(fd, &buffer, buffer.count, 0)
    return n > 0 ? String(decoding: buffer.prefix(n), as: UTF8.self) : nil
  }
}

/// Runs `body` (blocking system calls) on a thread of its own, never one of the pool the server's
/// own tasks run on.
public func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    Thread { continuation.resume(with: Result { try body() }) }.start()
  }
}
