import FormsStore
import Foundation

/// Reads `Content-Length`-framed messages from a file handle (the server's input; the
/// benchmark's and the tests' client read the server's output with it too). Every header is
/// checked and bounded: a frame whose length is missing, not a number or negative is reported and
/// skipped (the next header follows its blank line); one longer than `maxBody` is reported and
/// its bytes dropped as they arrive, never held; a header that never ends is unreadable.
package struct FrameReader {
  /// What the input holds next.
  package enum Frame: Sendable, Equatable {
    case message([UInt8])
    /// A frame that cannot be read, skipped: the reader goes on after it.
    case invalid(String)
    /// Nothing after this can be framed (a header longer than `maxHeader`).
    case unreadable(String)
  }

  /// The longest body read (a document of 64 MiB, escaped as a JSON string, fits).
  package static let maxBody = 192 << 20
  /// The longest header (its lines and the blank line that ends it).
  package static let maxHeader = 8 << 10

  let handle: FileHandle
  var buffer: [UInt8] = []
  /// Bytes of a too long body still to drop.
  var dropping = 0
  /// After a header without a usable length: dropping bytes up to the next `Content-Length`.
  var resyncing = false

  package init(_ handle: FileHandle) { self.handle = handle }

  /// The next message's body, skipping frames that cannot be read; nil when the input ends.
  package mutating func next() -> [UInt8]? {
    while let frame = nextFrame() {
      switch frame {
      case .message(let body): return body
      case .invalid: continue
      case .unreadable: return nil
      }
    }
    return nil
  }

  /// The next frame; nil when the input ends.
  package mutating func nextFrame() -> Frame? {
    while true {
      if dropping > 0 {
        let dropped = min(dropping, buffer.count)
        buffer.removeFirst(dropped)
        dropping -= dropped
      }
      if dropping == 0, resyncing { resync() }
      if dropping == 0, !resyncing, let end = Self.headerEnd(in: buffer) {
        let header = buffer[..<end.header]
        switch Self.contentLength(header) {
        case .failure(let problem):
          // What follows has no known length: skip to the next `Content-Length`, which starts the next frame.
          buffer.removeFirst(end.body)
          resyncing = true
          return .invalid(problem.reason)
        case .success(let length) where length > Self.maxBody:
          buffer.removeFirst(end.body)
          dropping = length
          return .invalid("a message of \(length) bytes, more than the limit of \(Self.maxBody); skipped")
        case .success(let length):
          if buffer.count - end.body >= length {
            let body = Array(buffer[end.body..<(end.body + length)])
            buffer.removeFirst(end.body + length)
            return .message(body)
          }
        }
      } else if dropping == 0, !resyncing, buffer.count > Self.maxHeader, Self.headerEnd(in: buffer) == nil {
        buffer = []
        return .unreadable("no message header ends within \(Self.maxHeader) bytes")
      }
      let data = handle.availableData
      guard !data.isEmpty else { return nil }
      buffer += data
    }
  }

  /// Drops what comes before the next `Content-Length` (any case), keeping a tail that may be
  /// the start of one still arriving.
  mutating func resync() {
    let name = Array("content-length".utf8)
    if buffer.count >= name.count {
      for start in 0...(buffer.count - name.count)
      where zip(buffer[start...], name).allSatisfy({ ((0x41...0x5A).contains($0) ? $0 | 0x20 : $0) == $1 }) {
        buffer.removeFirst(start)
        resyncing = false
        return
      }
    }
    buffer.removeFirst(max(0, buffer.count - (name.count - 1)))
  }

  /// Where the header at the start of `bytes` ends (before its blank line) and its body starts:
  /// the blank line is `\r\n\r\n` or, from clients that end lines with a bare line feed, `\n\n`.
  static func headerEnd(in bytes: [UInt8]) -> (header: Int, body: Int)? {
    let lf = UInt8(ascii: "\n")
    let cr = UInt8(ascii: "\r")
    var index = 0
    while let found = bytes[index...].firstIndex(of: lf) {
      let next = found + 1
      if next < bytes.count, bytes[next] == lf {
        return (found > 0 && bytes[found - 1] == cr ? found - 1 : found, next + 1)
      }
      if next + 1 < bytes.count, bytes[next] == cr, bytes[next + 1] == lf {
        return (found > 0 && bytes[found - 1] == cr ? found - 1 : found, next + 2)
      }
      index = next
    }
    return nil
  }

  struct HeaderProblem: Error { let reason: String }

  /// The length a header gives: exactly one `Content-Length` of decimal digits.
  static func contentLength(_ header: ArraySlice<UInt8>) -> Result<Int, HeaderProblem> {
    var lengths: [Substring] = []
    // Lines end with `\r\n` or a bare `\n`.
    for line in String(decoding: header, as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
      let line = line.hasSuffix("\r") ? line.dropLast() : line
      let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
      guard parts.count == 2 else {
        return .failure(HeaderProblem(reason: "a header line without a colon: \(line.prefix(80).debugDescription)"))
      }
      if parts[0].lowercased() == "content-length" { lengths.append(parts[1]) }
    }
    guard let text = lengths.first?.trimmingCharacters(in: .whitespaces) else {
      return .failure(HeaderProblem(reason: "a message header without Content-Length"))
    }
    guard lengths.count == 1 else { return .failure(HeaderProblem(reason: "a message header with two Content-Length")) }
    // Digits only (no sign), and few enough that the number is no overflow.
    guard !text.isEmpty, text.count <= 18, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let length = Int(text)
    else {
      return .failure(
        HeaderProblem(reason: "Content-Length \(text.prefix(40).debugDescription) is not a length in bytes"))
    }
    return .success(length)
  }
}
