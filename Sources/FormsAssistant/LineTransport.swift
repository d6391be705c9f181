import Foundation
import Logging
import MCP

#if canImport(Glibc)
  import Glibc
  private let systemWrite = Glibc.write
#elseif canImport(Darwin)
  import Darwin
  private let systemWrite = Darwin.write
#endif

/// Newline-delimited JSON-RPC messages over two file descriptors (stdin and stdout), each line
/// read with a bound: a line longer than ``lineLimit`` is not buffered past it; it is skipped to
/// its newline and answered with a JSON-RPC error (id null: the id is in the part not kept),
/// and the lines after it are read as usual. Reading is linear in the input (each byte is
/// looked at once), where the SDK's `StdioTransport` searches its whole buffer again after every
/// read of 4 KiB (a message of megabytes took minutes) and buffers without a limit.
public actor LineTransport: Transport {
  /// The longest line read: the largest tool arguments and room for the request around them.
  public static let lineLimit = Assistant.argumentLimit + 64 * 1024

  let input: Int32
  let output: Int32
  let lineLimit: Int
  var connected = false
  let messages: AsyncThrowingStream<Data, any Error>
  let continuation: AsyncThrowingStream<Data, any Error>.Continuation

  public nonisolated let logger: Logger

  public init(
    input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO, lineLimit: Int = LineTransport.lineLimit,
    logger: Logger = Logger(label: "formsctl.mcp", factory: { _ in SwiftLogNoOpLogHandler() })
  ) {
    self.input = input
    self.output = output
    self.lineLimit = lineLimit
    self.logger = logger
    (messages, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
  }

  public func connect() async throws {
    guard !connected else { return }
    connected = true
    let input = self.input
    let limit = self.lineLimit
    let continuation = self.continuation
    // A thread of its own: a blocking read holds up none of the tasks that answer requests.
    Thread.detachNewThread { [self] in
      var lines = LineReader(limit: limit)
      var buffer = [UInt8](repeating: 0, count: 64 * 1024)
      while true {
        let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
        if count == 0 { break }
        if count < 0 {
          if errno == EINTR { continue }
          if errno == EAGAIN || errno == EWOULDBLOCK {
            var waiting = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            _ = poll(&waiting, 1, -1)
            continue
          }
          continuation.finish(throwing: MCPError.transportError(POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)))
          return
        }
        for line in lines.feed(buffer[..<count]) {
          switch line {
          case .message(let data): continuation.yield(data)
          case .tooLong(let size): Task { await self.refuse(size: size) }
          }
        }
      }
      continuation.finish()
    }
  }

  public func disconnect() async {
    guard connected else { return }
    connected = false
    continuation.finish()
  }

  public nonisolated func receive() -> AsyncThrowingStream<Data, any Error> { messages }

  public func send(_ data: Data) async throws {
    var bytes = [UInt8](data)
    bytes.append(UInt8(ascii: "\n"))
    try Self.write(bytes, to: output)
  }

  /// Answers a line too long to read: a JSON-RPC invalid request, with no id.
  func refuse(size: Int) {
    let message =
      "the message is longer than \(lineLimit) bytes (\(size) read before it was cut off); "
      + "it was skipped: send a smaller one"
    let answer = "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"\(message)\"}}\n"
    do {
      try Self.write(Array(answer.utf8), to: output)
    } catch {
      logger.error("could not answer an oversized message: \(error)")
    }
  }

  /// Writes all of `bytes` to `fd`, waiting while it is full.
  static func write(_ bytes: [UInt8], to fd: Int32) throws {
    var offset = 0
    while offset < bytes.count {
      let written = bytes[offset...].withUnsafeBytes { systemWrite(fd, $0.baseAddress, $0.count) }
      if written < 0 {
        if errno == EINTR { continue }
        if errno == EAGAIN || errno == EWOULDBLOCK {
          var waiting = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
          _ = poll(&waiting, 1, -1)
          continue
        }
        throw MCPError.transportError(POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO))
      }
      offset += written
    }
  }
}

/// Splits bytes read into lines, each byte looked at once; a line longer than `limit` is not
/// kept past it, only counted until its newline.
public struct LineReader: Sendable {
  public enum Line: Sendable, Equatable {
    /// A line within the limit, without its newline (empty lines are skipped).
    case message(Data)
    /// A line longer than the limit: how many bytes it had.
    case tooLong(Int)
  }

  public let limit: Int
  var pending: [UInt8] = []
  /// The length of the line being skipped, when it is over the limit.
  var skipping: Int?

  public init(limit: Int) { self.limit = limit }

  /// The lines that `bytes` completes.
  public mutating func feed(_ bytes: some Collection<UInt8>) -> [Line] {
    var lines: [Line] = []
    var rest = bytes[...]
    while !rest.isEmpty {
      let newline = rest.firstIndex(of: UInt8(ascii: "\n"))
      let part = rest[..<(newline ?? rest.endIndex)]
      if let skipped = skipping {
        skipping = skipped + part.count
      } else if pending.count + part.count > limit {
        skipping = pending.count + part.count
        pending = []
      } else {
        pending.append(contentsOf: part)
      }
      guard let newline else { break }
      rest = rest[rest.index(after: newline)...]
      if let skipped = skipping {
        lines.append(.tooLong(skipped))
      } else if !pending.isEmpty {
        lines.append(.message(Data(pending)))
      }
      pending = []
      skipping = nil
    }
    return lines
  }
}
