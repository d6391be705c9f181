/// A strict RFC 8259 parser over UTF-8 bytes.
///
/// Refuses comments, trailing commas, NaN, single quotes, leading zeros, a byte order mark,
/// invalid UTF-8, lone surrogates, control characters in strings, duplicate keys (naming both
/// positions) and nesting deeper than `maxDepth`. Numbers keep their text.
public struct JSONParser: Sendable {
  /// The default nesting limit: far beyond any real document, far below a stack overflow.
  public static let defaultMaxDepth = 512

  /// The deepest nesting of arrays and objects accepted.
  public var maxDepth: Int

  public init(maxDepth: Int = JSONParser.defaultMaxDepth) {
    self.maxDepth = maxDepth
  }

  /// Parses one JSON text.
  public func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
    try bytes.withUnsafeBufferPointer { (buffer) throws(JSONParseError) -> JSONValue in try parse(buffer) }
  }

  /// Parses one JSON text held in a string.
  public func parse(_ text: String) throws(JSONParseError) -> JSONValue {
    try parse(Array(text.utf8))
  }

  /// Parses one JSON text from a buffer the caller owns.
  public func parse(_ buffer: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> JSONValue {
    var reader = ByteReader(bytes: buffer, maxDepth: maxDepth, recorder: nil)
    do throws(ByteError) {
      return try reader.document()
    } catch {
      throw error.resolved(in: buffer)
    }
  }

  /// Parses one JSON text and records where every value (and every member's key) starts.
  public func parseWithSourceMap(_ bytes: [UInt8]) throws(JSONParseError) -> (JSONValue, JSONSourceMap) {
    try bytes.withUnsafeBufferPointer { (buffer) throws(JSONParseError) -> (JSONValue, JSONSourceMap) in
      let recorder = OffsetRecorder()
      var reader = ByteReader(bytes: buffer, maxDepth: maxDepth, recorder: recorder)
      let value: JSONValue
      do throws(ByteError) {
        value = try reader.document()
      } catch {
        throw error.resolved(in: buffer)
      }
      return (value, JSONSourceMap(bytes: bytes, values: recorder.values, keys: recorder.keys))
    }
  }
}

/// An error found at a byte offset; turned into line:column only when thrown out of the parser.
struct ByteError: Error {
  let message: String
  let offset: Int
  var relatedOffset: Int? = nil

  func resolved(in bytes: UnsafeBufferPointer<UInt8>) -> JSONParseError {
    JSONParseError(
      message: message,
      location: .of(offset: offset, in: bytes),
      related: relatedOffset.map { .of(offset: $0, in: bytes) }
    )
  }
}

final class OffsetRecorder {
  var path: [String] = []
  var values: [String: Int] = [:]
  var keys: [String: Int] = [:]

  var pointer: String { path.isEmpty ? "" : "/" + path.joined(separator: "/") }
}

struct ByteReader {
  let bytes: UnsafeBufferPointer<UInt8>
  let maxDepth: Int
  let recorder: OffsetRecorder?
  var i = 0
  var depth = 0
  var scratch: [UInt8] = []
  // Contents of the open containers, reused so each container allocates once, exactly sized.
  var elementStack: [JSONValue] = []
  var memberStack: [JSONObject.Member] = []
  var keyOffsetStack: [Int] = []

  init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, recorder: OffsetRecorder?) {
    self.bytes = bytes
    self.maxDepth = maxDepth
    self.recorder = recorder
  }

  mutating func document() throws(ByteError) -> JSONValue {
    if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF {
      throw ByteError(message: "a byte order mark (BOM) is not allowed; save the file as UTF-8 without BOM", offset: 0)
    }
    if bytes.count >= 2
      && (bytes[0] == 0 || bytes[1] == 0 || (bytes[0] == 0xFF && bytes[1] == 0xFE)
        || (bytes[0] == 0xFE && bytes[1] == 0xFF))
    {
      throw ByteError(message: "the file is not UTF-8 (it looks like UTF-16); save it as UTF-8", offset: 0)
    }
    skipWhitespace()
    if i == bytes.count {
      throw ByteError(message: i == 0 ? "the file is empty; expected a JSON value" : "expected a JSON value", offset: i)
    }
    let value = try parseValue()
    skipWhitespace()
    if i < bytes.count {
      throw ByteError(message: "unexpected \(describe(at: i)) after the end of the JSON value", offset: i)
    }
    return value
  }

  @inline(__always)
  mutating func skipWhitespace() {
    while i < bytes.count {
      switch bytes[i] {
      case 0x20, 0x0A, 0x0D, 0x09: i += 1
      default: return
      }
    }
  }

  func describe(at offset: Int) -> String {
    guard offset < bytes.count else { return "end of file" }
    let byte = bytes[offset]
    switch byte {
    case UInt8(ascii: "/"): return "'/' (comments are not allowed in JSON)"
    case UInt8(ascii: "'"): return "\"'\" (strings take double quotes)"
    case 0x21...0x7E: return "'\(Character(Unicode.Scalar(byte)))'"
    default: return "byte 0x" + String(byte, radix: 16, uppercase: true)
    }
  }

  mutating func parseValue() throws(ByteError) -> JSONValue {
    guard i < bytes.count else { throw ByteError(message: "unexpected end of file; expected a value", offset: i) }
    if let recorder { recorder.values[recorder.pointer] = i }
    switch bytes[i] {
    case UInt8(ascii: "{"): return try parseObject()
    case UInt8(ascii: "["): return try parseArray()
    case UInt8(ascii: "\""): return .string(try parseString())
    case UInt8(ascii: "t"):
      try literal("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      try literal("false")
      return .bool(false)
    case UInt8(ascii: "n"):
      try literal("null")
      return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
    case UInt8(ascii: "N"), UInt8(ascii: "I"):
      throw ByteError(message: "NaN and Infinity are not JSON numbers", offset: i)
    default:
      throw ByteError(message: "unexpected \(describe(at: i)); expected a value", offset: i)
    }
  }

  mutating func literal(_ word: String) throws(ByteError) {
    let start = i
    for expected in word.utf8 {
      guard i < bytes.count, bytes[i] == expected else {
        throw ByteError(message: "invalid literal; expected '\(word)'", offset: start)
      }
      i += 1
    }
  }

  mutating func parseNumber() throws(ByteError) -> JSONNumber {
    let start = i
    let end = scanNumber(bytes, from: i)
    if end < 0 {
      let at = -end - 1
      let leadingZero =
        at > start && bytes[at - 1] == UInt8(ascii: "0") && at < bytes.count
        && bytes[at] >= 48 && bytes[at] <= 57
      throw ByteError(
        message: leadingZero ? "numbers may not have leading zeros" : "invalid number", offset: leadingZero ? start : at
      )
    }
    i = end
    return JSONNumber(unchecked: String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
  }

  mutating func enter() throws(ByteError) {
    depth += 1
    if depth > maxDepth {
      throw ByteError(message: "nesting deeper than \(maxDepth) levels", offset: i)
    }
  }

  mutating func parseArray() throws(ByteError) -> JSONValue {
    try enter()
    i += 1
    skipWhitespace()
    if i < bytes.count && bytes[i] == UInt8(ascii: "]") {
      i += 1
      depth -= 1
      return .array([])
    }
    let base = elementStack.count
    while true {
      skipWhitespace()
      if i < bytes.count && bytes[i] == UInt8(ascii: "]") {
        throw ByteError(message: "trailing comma before ']'", offset: i)
      }
      recorder?.path.append(String(elementStack.count - base))
      let element = try parseValue()
      elementStack.append(element)
      recorder?.path.removeLast()
      skipWhitespace()
      guard i < bytes.count else { throw ByteError(message: "unexpected end of file; expected ',' or ']'", offset: i) }
      if bytes[i] == UInt8(ascii: ",") {
        i += 1
      } else if bytes[i] == UInt8(ascii: "]") {
        i += 1
        depth -= 1
        let elements = Array(elementStack[base...])
        elementStack.removeSubrange(base...)
        return .array(elements)
      } else {
        throw ByteError(message: "unexpected \(describe(at: i)); expected ',' or ']'", offset: i)
      }
    }
  }

  mutating func parseObject() throws(ByteError) -> JSONValue {
    try enter()
    i += 1
    let base = memberStack.count
    skipWhitespace()
    if i < bytes.count && bytes[i] == UInt8(ascii: "}") {
      i += 1
      depth -= 1
      return .object(JSONObject())
    }
    while true {
      skipWhitespace()
      guard i < bytes.count else { throw ByteError(message: "unexpected end of file; expected a key", offset: i) }
      if bytes[i] != UInt8(ascii: "\"") {
        let message =
          bytes[i] == UInt8(ascii: "}")
          ? "trailing comma before '}'" : "unexpected \(describe(at: i)); expected a key in double quotes"
        throw ByteError(message: message, offset: i)
      }
      let keyOffset = i
      let key = try parseString()
      skipWhitespace()
      guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else {
        throw ByteError(message: "unexpected \(describe(at: i)); expected ':' after the key", offset: i)
      }
      i += 1
      skipWhitespace()
      if let recorder {
        recorder.path.append(escapePointerToken(key))
        recorder.keys[recorder.pointer] = keyOffset
      }
      let value = try parseValue()
      recorder?.path.removeLast()
      memberStack.append(JSONObject.Member(key: key, value: value))
      keyOffsetStack.append(keyOffset)
      skipWhitespace()
      guard i < bytes.count else { throw ByteError(message: "unexpected end of file; expected ',' or '}'", offset: i) }
      if bytes[i] == UInt8(ascii: ",") {
        i += 1
      } else if bytes[i] == UInt8(ascii: "}") {
        i += 1
        depth -= 1
        let members = Array(memberStack[base...])
        let offsets = Array(keyOffsetStack[base...])
        memberStack.removeSubrange(base...)
        keyOffsetStack.removeSubrange(base...)
        return .object(try makeObject(members, offsets))
      } else {
        throw ByteError(message: "unexpected \(describe(at: i)); expected ',' or '}'", offset: i)
      }
    }
  }

  /// Sorts members into canonical order (a no-op for canonical files) and refuses duplicate keys.
  func makeObject(_ members: [JSONObject.Member], _ offsets: [Int]) throws(ByteError) -> JSONObject {
    var sorted = true
    var k = 1
    while k < members.count {
      if !codePointLess(members[k - 1].key, members[k].key) {
        sorted = false
        break
      }
      k += 1
    }
    if sorted { return JSONObject(sortedUniqueMembers: members) }
    let order = members.indices.sorted { a, b in
      let (x, y) = (members[a].key, members[b].key)
      let order = codePointCompare(x, y)
      return order == 0 ? offsets[a] < offsets[b] : order < 0
    }
    k = 1
    while k < order.count {
      let (first, second) = (order[k - 1], order[k])
      if codePointCompare(members[first].key, members[second].key) == 0 {
        throw ByteError(
          message:
            "duplicate key \"\(members[first].key)\" (first at \(SourcePosition.of(offset: offsets[first], in: bytes)))",
          offset: offsets[second], relatedOffset: offsets[first])
      }
      k += 1
    }
    return JSONObject(sortedUniqueMembers: order.map { members[$0] })
  }
}
