import FormsCore
import FormsStore

/// Where each line of a UTF-8 text starts, to turn byte offsets into the positions editors use
/// (0-based line and character, characters counted in UTF-16 code units or in bytes, as the
/// language server's client negotiated) and formsctl's 1-based line and column (Unicode scalars)
/// into byte offsets.
public struct LineIndex: Sendable {
  /// How a position's character counts: UTF-16 code units (LSP's default) or UTF-8 bytes.
  public enum Encoding: String, Sendable {
    case utf16 = "utf-16"
    case utf8 = "utf-8"
  }

  let text: [UInt8]
  /// Where each line starts as LSP counts lines: after `\n`, `\r\n` or a lone `\r`.
  let starts: [Int]
  /// Where each line starts as formsctl's JSON diagnostics count lines: after `\n` only.
  let lineFeedStarts: [Int]

  public init(_ text: [UInt8]) {
    self.text = text
    var starts = [0]
    var lineFeedStarts = [0]
    text.withUnsafeBufferPointer { bytes in
      for offset in 0..<bytes.count {
        let byte = bytes[offset]
        if byte == UInt8(ascii: "\n") {
          lineFeedStarts.append(offset + 1)
          starts.append(offset + 1)
        } else if byte == UInt8(ascii: "\r"), offset + 1 == bytes.count || bytes[offset + 1] != UInt8(ascii: "\n") {
          starts.append(offset + 1)
        }
      }
    }
    self.starts = starts
    self.lineFeedStarts = lineFeedStarts
  }

  /// True for the bytes that end a line in LSP's count.
  static func isLineEnd(_ byte: UInt8) -> Bool { byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") }

  /// The byte offset of a 1-based line and column in Unicode scalars (the end of the line when
  /// the column is past it), lines counted as formsctl's diagnostics count them (line feeds).
  public func offset(of position: SourcePosition) -> Int {
    guard position.line >= 1, position.line <= lineFeedStarts.count else { return text.count }
    var offset = lineFeedStarts[position.line - 1]
    var column = 1
    while column < position.column, offset < text.count, text[offset] != UInt8(ascii: "\n") {
      offset += 1
      while offset < text.count, text[offset] & 0xC0 == 0x80 { offset += 1 }
      column += 1
    }
    return offset
  }

  /// The 0-based line and character of byte `offset`.
  public func position(of offset: Int, encoding: Encoding) -> (line: Int, character: Int) {
    let offset = min(max(offset, 0), text.count)
    var low = 0
    var high = starts.count - 1
    while low < high {
      let middle = (low + high + 1) / 2
      if starts[middle] <= offset { low = middle } else { high = middle - 1 }
    }
    let bytes = text[starts[low]..<offset]
    switch encoding {
    case .utf8: return (low, bytes.count)
    case .utf16: return (low, String(decoding: bytes, as: UTF8.self).utf16.count)
    }
  }

  /// The byte offset of a 0-based line and character (clamped to the line's end).
  public func offset(line: Int, character: Int, encoding: Encoding) -> Int {
    guard line >= 0 else { return 0 }
    let character = max(character, 0)
    guard line < starts.count else { return text.count }
    let start = starts[line]
    var end = start
    while end < text.count, !Self.isLineEnd(text[end]) { end += 1 }
    switch encoding {
    case .utf8: return character >= end - start ? end : start + character  // no overflow for a huge character
    case .utf16:
      var units = 0
      var offset = start
      for scalar in String(decoding: text[start..<end], as: UTF8.self).unicodeScalars {
        guard units < character else { break }
        units += scalar.utf16.count
        offset += scalar.utf8.count
      }
      return offset
    }
  }
}
