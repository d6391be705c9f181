/// JSON as text being edited: where a value ends, what a cursor stands on in a document that may
/// not parse yet, and JSON with comments (JSONC) changed in one place with the rest kept as typed.
public enum JSONText {
  /// What the byte at a cursor belongs to, read from the text before it; the text need not parse.
  public struct Context: Sendable, Equatable {
    public enum Role: Sendable, Equatable {
      /// A member's name in the object at `pointer` (or the place where one goes).
      case key
      /// The value at `pointer` (or the place where it goes).
      case value
    }

    public var role: Role
    /// For a key: the object that holds it. For a value: the value itself.
    public var pointer: JSONPointer
    /// The string or literal under the cursor, as byte offsets (quotes included), if any.
    public var token: Range<Int>?
    /// The token's text before the cursor (a string's decoded, without its quote).
    public var prefix: String
    /// The whole token's text (a string's decoded), if the cursor is on one.
    public var text: String?
  }

  /// The offset just after the value that starts at `start` (a string, literal, object or array);
  /// the end of `bytes` for a value left open.
  public static func valueEnd(in bytes: [UInt8], from start: Int) -> Int {
    guard start < bytes.count else { return bytes.count }
    switch bytes[start] {
    case UInt8(ascii: "\""):
      return stringEnd(in: bytes, from: start)
    case UInt8(ascii: "{"), UInt8(ascii: "["):
      var depth = 0
      var i = start
      while i < bytes.count {
        switch bytes[i] {
        case UInt8(ascii: "\""):
          i = stringEnd(in: bytes, from: i)
          continue
        case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
          depth -= 1
          if depth == 0 { return i + 1 }
        default: break
        }
        i += 1
      }
      return bytes.count
    default:
      var i = start
      while i < bytes.count, !isDelimiter(bytes[i]) { i += 1 }
      return i
    }
  }

  /// The offset after the string whose quote is at `start` (its closing quote included).
  static func stringEnd(in bytes: [UInt8], from start: Int) -> Int {
    var i = start + 1
    while i < bytes.count {
      if bytes[i] == UInt8(ascii: "\\") {
        i += 2
        continue
      }
      if bytes[i] == UInt8(ascii: "\"") { return i + 1 }
      if bytes[i] == UInt8(ascii: "\n") { return i }
      i += 1
    }
    return bytes.count
  }

  static func isDelimiter(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"), UInt8(ascii: ","),
      UInt8(ascii: ":"), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "["),
      UInt8(ascii: "\""):
      true
    default: false
    }
  }

  /// The decoded text of a string token (quotes excluded), as far as it can be read.
  static func decoded(_ bytes: ArraySlice<UInt8>) -> String {
    let quoted = [UInt8(ascii: "\"")] + bytes + [UInt8(ascii: "\"")]
    if case .string(let text)? = try? JSONParser().parse(Array(quoted)) { return text }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// What the cursor at `offset` stands on (the byte there, or the place before it).
  public static func context(in bytes: [UInt8], at offset: Int) -> Context {
    enum Frame {
      case object(JSONPointer, key: String?, afterColon: Bool)
      case array(JSONPointer, index: Int)
    }
    var stack: [Frame] = []
    // Where the next value goes.
    func valuePointer() -> JSONPointer {
      switch stack.last {
      case .object(let pointer, let key, _)?: key.map { pointer.appending($0) } ?? pointer
      case .array(let pointer, let index)?: pointer.appending(index: index)
      case nil: .root
      }
    }
    func expectsKey() -> Bool {
      if case .object(_, _, let afterColon)? = stack.last { return !afterColon }
      return false
    }
    func here(_ token: Range<Int>?, prefix: String, text: String?) -> Context {
      if expectsKey(), case .object(let pointer, _, _)? = stack.last {
        return Context(role: .key, pointer: pointer, token: token, prefix: prefix, text: text)
      }
      return Context(role: .value, pointer: valuePointer(), token: token, prefix: prefix, text: text)
    }
    var i = 0
    let limit = min(offset, bytes.count)
    while i < bytes.count {
      let byte = bytes[i]
      // A token that starts at the cursor is the one under it; anything else there is after it.
      if i > limit || (i == limit && isDelimiter(byte) && byte != UInt8(ascii: "\"")) { break }
      switch byte {
      case UInt8(ascii: "{"):
        stack.append(.object(valuePointer(), key: nil, afterColon: false))
      case UInt8(ascii: "["):
        stack.append(.array(valuePointer(), index: 0))
      case UInt8(ascii: "}"), UInt8(ascii: "]"):
        if !stack.isEmpty { stack.removeLast() }
      case UInt8(ascii: ":"):
        if case .object(let pointer, let key, _)? = stack.last {
          stack[stack.count - 1] = .object(pointer, key: key, afterColon: true)
        }
      case UInt8(ascii: ","):
        switch stack.last {
        case .object(let pointer, _, _)?: stack[stack.count - 1] = .object(pointer, key: nil, afterColon: false)
        case .array(let pointer, let index)?: stack[stack.count - 1] = .array(pointer, index: index + 1)
        case nil: break
        }
      case UInt8(ascii: "\""):
        let end = stringEnd(in: bytes, from: i)
        let closed = end > i + 1 && bytes[end - 1] == UInt8(ascii: "\"") && end - 1 > i
        let inner = closed ? end - 1 : end
        if offset >= i && offset <= inner {
          let prefix = offset > i ? decoded(bytes[(i + 1)..<offset]) : ""
          return here(i..<end, prefix: prefix, text: decoded(bytes[(i + 1)..<inner]))
        }
        if expectsKey(), case .object(let pointer, _, _)? = stack.last {
          stack[stack.count - 1] = .object(pointer, key: decoded(bytes[(i + 1)..<inner]), afterColon: false)
        }
        i = end
        continue
      default:
        guard !isDelimiter(byte) else { break }
        let end = valueEnd(in: bytes, from: i)
        if offset >= i && offset <= end {
          let text = String(decoding: bytes[i..<end], as: UTF8.self)
          return here(i..<end, prefix: String(decoding: bytes[i..<offset], as: UTF8.self), text: text)
        }
        i = end
        continue
      }
      i += 1
    }
    return here(nil, prefix: "", text: nil)
  }

  /// `bytes` with its comments (`//` and `/* */`) and trailing commas turned into spaces, every
  /// other byte where it was: JSON that parses, at the offsets of the original.
  public static func blankingComments(_ bytes: [UInt8]) -> [UInt8] {
    var out = bytes
    var i = 0
    var lastComma: Int?
    while i < out.count {
      switch out[i] {
      case UInt8(ascii: "\""):
        lastComma = nil
        i = stringEnd(in: out, from: i)
        continue
      case UInt8(ascii: "/") where i + 1 < out.count && out[i + 1] == UInt8(ascii: "/"):
        while i < out.count && out[i] != UInt8(ascii: "\n") {
          out[i] = UInt8(ascii: " ")
          i += 1
        }
        continue
      case UInt8(ascii: "/") where i + 1 < out.count && out[i + 1] == UInt8(ascii: "*"):
        let start = i
        i += 2
        while i < out.count && !(out[i - 1] == UInt8(ascii: "*") && out[i] == UInt8(ascii: "/") && i - 1 > start + 1) {
          i += 1
        }
        for j in start..<min(i + 1, out.count) where out[j] != UInt8(ascii: "\n") { out[j] = UInt8(ascii: " ") }
        i += 1
        continue
      case UInt8(ascii: ","):
        lastComma = i
      case UInt8(ascii: "}"), UInt8(ascii: "]"):
        if let comma = lastComma { out[comma] = UInt8(ascii: " ") }
        lastComma = nil
      case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
        break
      default:
        lastComma = nil
      }
      i += 1
    }
    return out
  }

  /// The JSONC text `bytes` with the member at `path` (names of nested objects) set to `value`:
  /// only that value's text is replaced (or the missing members inserted into the deepest object
  /// that exists), so comments, order and layout elsewhere stay as they were. An empty text is an
  /// empty object. Throws when the text is not JSON with comments, or a step is not an object.
  public static func setting(_ value: JSONValue, at path: [String], in bytes: [UInt8]) throws(JSONParseError) -> [UInt8]
  {
    let source = bytes.allSatisfy { isDelimiter($0) && $0 != UInt8(ascii: "\"") } ? Array("{}\n".utf8) : bytes
    let blank = blankingComments(source)
    let (document, map) = try JSONParser().parseWithSourceMap(blank)
    var depth = 0
    var node = document
    while depth < path.count, case .object(let members) = node, let next = members[path[depth]] {
      node = next
      depth += 1
    }
    let found = JSONPointer(tokens: Array(path[..<depth]))
    guard let start = map.valueOffset(found), blank[start] == UInt8(ascii: "{") || depth == path.count else {
      throw JSONParseError(
        message: "\(found.path.isEmpty ? "the file" : found.path) is not a JSON object",
        location: map.valuePosition(found))
    }
    let indent = indentation(of: map.keyOffset(found) ?? start, in: source)
    if depth == path.count {
      var text: [UInt8] = []
      JSONWriter.writeValue(value, indent: indent, into: &text)
      return Array(source[..<start]) + text + Array(source[valueEnd(in: blank, from: start)...])
    }
    // Insert `"rest[0]": {"rest[1]": ... value}` as the last member of the object at `found`.
    var inserted = value
    for name in path[(depth + 1)...].reversed() { inserted = .object(JSONObject([name: inserted])) }
    let end = valueEnd(in: blank, from: start) - 1
    var last = end - 1
    while last > start,
      isDelimiter(blank[last]) && blank[last] != UInt8(ascii: "}") && blank[last] != UInt8(ascii: "]")
        && blank[last] != UInt8(ascii: "\"")
    {
      last -= 1
    }
    let empty = last == start
    // After everything before the closing brace (comments included), with a comma after the last
    // member unless one is there already (a trailing comma, which JSONC allows).
    var gapEnd = end
    while gapEnd > last + 1,
      [UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t")].contains(source[gapEnd - 1])
    {
      gapEnd -= 1
    }
    let hasComma = (last + 1..<end).contains { source[$0] == UInt8(ascii: ",") && blank[$0] == UInt8(ascii: " ") }
    var member =
      Array(source[..<(last + 1)]) + Array((empty || hasComma ? "" : ",").utf8) + Array(source[(last + 1)..<gapEnd])
    member += Array("\n".utf8) + Array(repeating: UInt8(ascii: " "), count: indent + 2)
    JSONWriter.writeString(path[depth], into: &member)
    member += Array(": ".utf8)
    JSONWriter.writeValue(inserted, indent: indent + 2, into: &member)
    return member + Array("\n".utf8) + Array(repeating: UInt8(ascii: " "), count: indent) + Array(source[end...])
  }

  /// The spaces that open the line `offset` is on.
  static func indentation(of offset: Int, in bytes: [UInt8]) -> Int {
    var start = offset
    while start > 0 && bytes[start - 1] != UInt8(ascii: "\n") { start -= 1 }
    var count = 0
    while start + count < bytes.count && bytes[start + count] == UInt8(ascii: " ") { count += 1 }
    return count
  }
}
