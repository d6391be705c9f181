/// Why a JSON text was refused, and where: 1-based line and column (columns count characters).
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What is wrong, in words.
  public let message: String
  /// Where the problem starts.
  public let location: SourcePosition
  /// A second place the message refers to (the first of two duplicate keys).
  public let related: SourcePosition?

  public init(message: String, location: SourcePosition, related: SourcePosition? = nil) {
    self.message = message
    self.location = location
    self.related = related
  }

  public var description: String { "\(location): \(message)" }
}

/// A 1-based line and column in a text file. Columns count Unicode scalars, not bytes.
public struct SourcePosition: Sendable, Hashable, Comparable, CustomStringConvertible {
  public let line: Int
  public let column: Int

  public init(line: Int, column: Int) {
    self.line = line
    self.column = column
  }

  public var description: String { "\(line):\(column)" }

  public static func < (lhs: SourcePosition, rhs: SourcePosition) -> Bool {
    (lhs.line, lhs.column) < (rhs.line, rhs.column)
  }

  /// The position of byte `offset` of a UTF-8 text.
  public static func of(offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> SourcePosition {
    var line = 1
    var column = 1
    var i = 0
    let end = min(offset, bytes.count)
    while i < end {
      let byte = bytes[i]
      if byte == UInt8(ascii: "\n") {
        line += 1
        column = 1
      } else if byte & 0xC0 != 0x80 {
        column += 1
      }
      i += 1
    }
    return SourcePosition(line: line, column: column)
  }
}
