/// The canonical writer of docs/design.md §4: keys in code-point order, two-space indent, one member or
/// element per line, `{}`/`[]` when empty, minimal escapes, numbers as read, LF, one final newline.
///
/// The output matches `jq -S --indent 2 .` in key order and layout.
public enum JSONWriter {
  /// The canonical bytes of a document, ending with a newline.
  public static func canonical(_ value: JSONValue) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(4096)
    write(value, into: &out)
    return out
  }

  /// The canonical text of a document, ending with a newline.
  public static func canonicalString(_ value: JSONValue) -> String {
    String(decoding: canonical(value), as: UTF8.self)
  }

  /// Appends the canonical bytes of `value` and a final newline to `out`.
  public static func write(_ value: JSONValue, into out: inout [UInt8]) {
    writeValue(value, indent: 0, into: &out)
    out.append(0x0A)
  }

  /// One line of JSON without whitespace (`{"a":1}`), for NDJSON output; keys in canonical order.
  public static func compact(_ value: JSONValue) -> String {
    var out: [UInt8] = []
    writeCompact(value, into: &out)
    return String(decoding: out, as: UTF8.self)
  }

  private static func writeCompact(_ value: JSONValue, into out: inout [UInt8]) {
    switch value {
    case .array(let elements):
      out.append(UInt8(ascii: "["))
      for (k, element) in elements.enumerated() {
        if k > 0 { out.append(UInt8(ascii: ",")) }
        writeCompact(element, into: &out)
      }
      out.append(UInt8(ascii: "]"))
    case .object(let object):
      out.append(UInt8(ascii: "{"))
      for (k, member) in object.members.enumerated() {
        if k > 0 { out.append(UInt8(ascii: ",")) }
        writeString(member.key, into: &out)
        out.append(UInt8(ascii: ":"))
        writeCompact(member.value, into: &out)
      }
      out.append(UInt8(ascii: "}"))
    default:
      writeValue(value, indent: 0, into: &out)
    }
  }

  private static func newline(_ indent: Int, into out: inout [UInt8]) {
    out.append(0x0A)
    for _ in 0..<indent { out.append(0x20) }
  }

  /// Appends the canonical bytes of `value` as it appears nested `indent` spaces deep (no final
  /// newline), for writers that lay out a large document themselves.
  public static func writeValue(_ value: JSONValue, indent: Int, into out: inout [UInt8]) {
    switch value {
    case .null: out.append(contentsOf: "null".utf8)
    case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
    case .number(let n): out.append(contentsOf: n.text.utf8)
    case .string(let s): writeString(s, into: &out)
    case .array(let elements):
      guard !elements.isEmpty else { return out.append(contentsOf: "[]".utf8) }
      out.append(UInt8(ascii: "["))
      for (k, element) in elements.enumerated() {
        if k > 0 { out.append(UInt8(ascii: ",")) }
        newline(indent + 2, into: &out)
        writeValue(element, indent: indent + 2, into: &out)
      }
      newline(indent, into: &out)
      out.append(UInt8(ascii: "]"))
    case .object(let object):
      guard !object.isEmpty else { return out.append(contentsOf: "{}".utf8) }
      out.append(UInt8(ascii: "{"))
      for (k, member) in object.members.enumerated() {
        if k > 0 { out.append(UInt8(ascii: ",")) }
        newline(indent + 2, into: &out)
        writeString(member.key, into: &out)
        out.append(UInt8(ascii: ":"))
        out.append(UInt8(ascii: " "))
        writeValue(member.value, indent: indent + 2, into: &out)
      }
      newline(indent, into: &out)
      out.append(UInt8(ascii: "}"))
    }
  }

  private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

  /// Appends `string` quoted and escaped as the canonical form writes it.
  public static func writeString(_ string: String, into out: inout [UInt8]) {
    var string = string
    string.withUTF8 { writeString(utf8: $0, into: &out) }
  }

  /// `writeString` of text given as its UTF-8 bytes (valid UTF-8).
  public static func writeString(utf8 bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    var runStart = 0
    for k in 0..<bytes.count {
      let byte = bytes[k]
      // Control characters, and DEL as jq writes it (`\u007f`).
      guard byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F else { continue }
      out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<k]))
      runStart = k + 1
      out.append(0x5C)
      switch byte {
      case 0x22: out.append(0x22)
      case 0x5C: out.append(0x5C)
      case 0x08: out.append(UInt8(ascii: "b"))
      case 0x0C: out.append(UInt8(ascii: "f"))
      case 0x0A: out.append(UInt8(ascii: "n"))
      case 0x0D: out.append(UInt8(ascii: "r"))
      case 0x09: out.append(UInt8(ascii: "t"))
      default:
        out.append(contentsOf: "u00".utf8)
        out.append(hexDigits[Int(byte >> 4)])
        out.append(hexDigits[Int(byte & 0xF)])
      }
    }
    out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
    out.append(UInt8(ascii: "\""))
  }
}
