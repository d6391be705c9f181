/// A CSV file read per RFC 4180: a header row, then rows of as many fields.
///
/// Fields are separated by commas; a field may be quoted (`"..."`, a quote inside doubled), and
/// a quoted field may hold commas, quotes and line breaks. Rows end with LF or CRLF. A UTF-8 byte
/// order mark at the start is skipped (spreadsheets write one); blank lines are skipped. Every
/// error names the line and column where it was found.
public struct CSVTable: Sendable, Equatable {
  /// One field of the file: its text, whether it was quoted, and where it starts.
  public struct Cell: Sendable, Equatable {
    public var text: String
    /// A quoted empty field (`""`) is empty text; an unquoted empty one is no value.
    public var quoted: Bool
    public var position: SourcePosition
    public init(_ text: String, quoted: Bool = false, at position: SourcePosition = SourcePosition(line: 1, column: 1))
    {
      self.text = text
      self.quoted = quoted
      self.position = position
    }
    /// An unquoted empty field: no value.
    public var isAbsent: Bool { !quoted && text.isEmpty }
  }

  /// The first row: the column names.
  public var header: [Cell]
  /// The other rows, each as many cells as the header.
  public var rows: [[Cell]]

  public init(header: [Cell], rows: [[Cell]]) {
    self.header = header
    self.rows = rows
  }

  /// Reads `bytes` as CSV; throws the first problem (invalid UTF-8, an unterminated quote, a stray
  /// quote, a row with another number of fields than the header, an empty file).
  public static func parse(_ bytes: [UInt8]) throws(CSVError) -> CSVTable {
    var reader = Reader(bytes: bytes)
    return try reader.table()
  }
}

/// A problem in a CSV file, at a 1-based line and column (columns count characters).
public struct CSVError: Error, Sendable, Equatable, CustomStringConvertible {
  public let position: SourcePosition
  public let message: String
  public init(_ message: String, at position: SourcePosition) {
    self.message = message
    self.position = position
  }
  public var description: String { "\(position): \(message)" }
}

extension CSVTable {
  /// The byte-level reader; delimiters are ASCII, so fields are cut on bytes and decoded after.
  struct Reader {
    let bytes: [UInt8]
    var i = 0
    var line = 1
    /// Where the current line starts, and the last position whose column is known on it.
    var known = (offset: 0, column: 1)

    init(bytes: [UInt8]) { self.bytes = bytes }

    static let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","), cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")

    /// A comma or a line end: what ends a field outside quotes.
    @inline(__always) static func endsField(_ byte: UInt8) -> Bool { byte == comma || byte == cr || byte == lf }

    /// The position of byte `offset` on the current line.
    mutating func position(_ offset: Int) -> SourcePosition {
      var column = known.column
      var k = known.offset
      while k < offset {
        if bytes[k] & 0xC0 != 0x80 { column += 1 }
        k += 1
      }
      known = (offset, column)
      return SourcePosition(line: line, column: column)
    }

    mutating func newLine(at offset: Int) {
      line += 1
      known = (offset, 1)
    }

    mutating func table() throws(CSVError) -> CSVTable {
      try Self.checkUTF8(bytes)
      if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
        i = 3
        known = (3, 1)
      }
      var rows: [[Cell]] = []
      while i < bytes.count {
        let row = try self.row()
        // A blank line is one unquoted empty field: skipped, as spreadsheets and Python's csv do.
        if row.count == 1 && row[0].isAbsent { continue }
        rows.append(row)
      }
      guard let header = rows.first else {
        throw CSVError("the file is empty: a CSV feed starts with a header row naming its columns", at: position(i))
      }
      var seen: [String: SourcePosition] = [:]
      for cell in header {
        guard !cell.text.isEmpty else { throw CSVError("a column of the header has no name", at: cell.position) }
        if let first = seen.updateValue(cell.position, forKey: cell.text) {
          throw CSVError(
            "the column \(quoted(cell.text)) appears twice in the header (also at \(first))", at: cell.position)
        }
      }
      for row in rows.dropFirst() where row.count != header.count {
        let at = row.count > header.count ? row[header.count].position : row[row.count - 1].position
        throw CSVError(
          "this row has \(row.count) field\(row.count == 1 ? "" : "s"), the header \(header.count)"
            + (row.count > header.count ? " (an unquoted comma inside a value? quote the value)" : ""), at: at)
      }
      return CSVTable(header: header, rows: Array(rows.dropFirst()))
    }

    /// One row, up to and past its line end.
    mutating func row() throws(CSVError) -> [Cell] {
      var cells: [Cell] = []
      while true {
        cells.append(try field())
        guard i < bytes.count else { return cells }
        switch bytes[i] {
        case Self.comma:
          i += 1
        case Self.cr:
          i += i + 1 < bytes.count && bytes[i + 1] == Self.lf ? 2 : 1
          newLine(at: i)
          return cells
        default:  // LF
          i += 1
          newLine(at: i)
          return cells
        }
      }
    }

    /// One field, leaving `i` at the comma, the line end or the end of the file after it.
    mutating func field() throws(CSVError) -> Cell {
      let start = position(i)
      if i < bytes.count && bytes[i] == Self.quote {
        i += 1
        var text: [UInt8] = []
        while true {
          guard i < bytes.count else {
            throw CSVError("a quoted field is not closed: no quote ends the one here", at: start)
          }
          let byte = bytes[i]
          if byte == Self.quote {
            if i + 1 < bytes.count && bytes[i + 1] == Self.quote {
              text.append(Self.quote)
              i += 2
              continue
            }
            i += 1
            break
          }
          text.append(byte)
          i += 1
          // A line break inside quotes is part of the value; positions after it are on the next line.
          if byte == Self.lf || (byte == Self.cr && (i == bytes.count || bytes[i] != Self.lf)) { newLine(at: i) }
        }
        if i < bytes.count && !Self.endsField(bytes[i]) {
          throw CSVError(
            "text after a closing quote; inside a quoted field write a quote as two (\"\")", at: position(i))
        }
        return Cell(String(decoding: text, as: UTF8.self), quoted: true, at: start)
      }
      let from = i
      while i < bytes.count && !Self.endsField(bytes[i]) {
        if bytes[i] == Self.quote {
          throw CSVError(
            "a quote inside an unquoted field; quote the whole field and write the quote as two (\"\")",
            at: position(i))
        }
        i += 1
      }
      return Cell(String(decoding: bytes[from..<i], as: UTF8.self), at: start)
    }

    /// Throws at the first byte that is not UTF-8.
    static func checkUTF8(_ bytes: [UInt8]) throws(CSVError) {
      // The standard library's validation is fast; the scalar walk below only finds where it failed.
      if String(validating: bytes, as: UTF8.self) != nil { return }
      var parser = Unicode.UTF8.ForwardParser()
      var iterator = bytes.makeIterator()
      var offset = 0
      while true {
        switch parser.parseScalar(from: &iterator) {
        case .valid(let scalar): offset += scalar.count
        case .emptyInput: return
        case .error:
          let at = bytes.withUnsafeBufferPointer { SourcePosition.of(offset: offset, in: $0) }
          throw CSVError(
            "invalid UTF-8 (byte 0x\(String(bytes[offset], radix: 16, uppercase: true))); "
              + "save the spreadsheet as \"CSV UTF-8\"", at: at)
        }
      }
    }
  }
}
