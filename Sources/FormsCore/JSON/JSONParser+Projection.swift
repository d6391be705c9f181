/// The parts of a document a query reads: members by name, each kept whole or narrowed further.
/// Lists are transparent (a projection of `items` applies to each element), so `items[].quantity`
/// keeps `items` with only the `quantity` of each element.
public struct JSONProjection: Sendable, Equatable {
  struct Member: Sendable, Equatable {
    let name: [UInt8]
    let key: String
    /// What to keep of the value; nil: all of it.
    var child: JSONProjection?
  }

  var members: [Member] = []

  /// The projection keeping what `paths` reach; nil when one of them is the whole document.
  public init?(paths: [FilterExpression.Path]) {
    for path in paths {
      let names = path.steps.compactMap { step -> String? in if case .member(let name) = step { name } else { nil } }
      guard !names.isEmpty else { return nil }
      add(names[...])
    }
  }

  private init() {}

  private mutating func add(_ names: ArraySlice<String>) {
    guard let first = names.first else { return }
    let rest = names.dropFirst()
    if let index = members.firstIndex(where: { $0.key == first }) {
      // Already kept whole, or now kept whole: nothing narrower is needed.
      guard var child = members[index].child else { return }
      if rest.isEmpty {
        members[index].child = nil
      } else {
        child.add(rest)
        members[index].child = child
      }
      return
    }
    var child: JSONProjection?
    if !rest.isEmpty {
      var narrower = JSONProjection()
      narrower.add(rest)
      child = narrower
    }
    members.append(Member(name: Array(first.utf8), key: first, child: child))
  }
}

extension JSONParser {
  /// Parses a document building only what `projection` keeps, and checking the rest as strictly
  /// as `parse` does without building it. Returns nil, so the caller parses the whole document,
  /// whenever the two could differ: any error, an object whose keys are not in canonical order or
  /// hold escapes (`parse` sorts them, or names a duplicate).
  public func parse(_ bytes: [UInt8], keeping projection: JSONProjection) -> JSONValue? {
    bytes.withUnsafeBufferPointer { parse($0, keeping: projection) }
  }

  /// `parse(_:keeping:)` of bytes in place (a slice of a larger buffer).
  public func parse(_ buffer: UnsafeBufferPointer<UInt8>, keeping projection: JSONProjection) -> JSONValue? {
    var reader = ByteReader(bytes: buffer, maxDepth: maxDepth, recorder: nil)
    do throws(ByteError) {
      guard reader.i < buffer.count, buffer[0] == UInt8(ascii: "{") else { return nil }
      let value = try reader.projectObject(projection)
      reader.skipWhitespace()
      return reader.i == buffer.count ? value : nil
    } catch {
      return nil
    }
  }
}

extension ByteReader {
  /// The value at `i`, narrowed by `projection` (nil: built whole).
  mutating func project(_ projection: JSONProjection?) throws(ByteError) -> JSONValue {
    guard let projection, i < bytes.count else { return try parseValue() }
    switch bytes[i] {
    case UInt8(ascii: "{"): return try projectObject(projection)
    case UInt8(ascii: "["):
      try enter()
      i += 1
      var elements: [JSONValue] = []
      guard try !closesEmpty(UInt8(ascii: "]")) else { return .array(elements) }
      repeat {
        skipWhitespace()
        elements.append(try project(projection))
      } while try another(UInt8(ascii: "]"))
      return .array(elements)
    default: return try parseValue()
    }
  }

  mutating func projectObject(_ projection: JSONProjection) throws(ByteError) -> JSONValue {
    try enter()
    i += 1
    var members: [JSONObject.Member] = []
    guard try !closesEmpty(UInt8(ascii: "}")) else { return .object(JSONObject()) }
    var previous: Range<Int>?
    repeat {
      let key = try nextKey(after: previous)
      previous = key
      var wanted: JSONProjection.Member?
      for member in projection.members where equal(key, member.name) {
        wanted = member
        break
      }
      if let wanted {
        members.append(JSONObject.Member(key: wanted.key, value: try project(wanted.child)))
      } else {
        try skipValue()
      }
    } while try another(UInt8(ascii: "}"))
    return .object(JSONObject(sortedUniqueMembers: members))
  }

  /// Checks the value at `i` as `parseValue` would, building nothing.
  mutating func skipValue() throws(ByteError) {
    guard i < bytes.count else { throw ByteError(message: "", offset: i) }
    switch bytes[i] {
    case UInt8(ascii: "{"):
      try enter()
      i += 1
      guard try !closesEmpty(UInt8(ascii: "}")) else { return }
      var previous: Range<Int>?
      repeat {
        previous = try nextKey(after: previous)
        try skipValue()
      } while try another(UInt8(ascii: "}"))
    case UInt8(ascii: "["):
      try enter()
      i += 1
      guard try !closesEmpty(UInt8(ascii: "]")) else { return }
      repeat {
        skipWhitespace()
        try skipValue()
      } while try another(UInt8(ascii: "]"))
    case UInt8(ascii: "\""): _ = try skipString()
    case UInt8(ascii: "t"): try literal("true")
    case UInt8(ascii: "f"): try literal("false")
    case UInt8(ascii: "n"): try literal("null")
    default:
      let end = scanNumber(bytes, from: i)
      guard end > i else { throw ByteError(message: "", offset: i) }
      i = end
    }
  }

  /// Passes over a string, checking it; returns the range of its raw bytes and whether it holds escapes.
  mutating func skipString() throws(ByteError) -> (range: Range<Int>, escaped: Bool) {
    let start = i + 1
    i = start
    var escaped = false
    while i < bytes.count {
      i = plainRun(from: i)
      guard i < bytes.count else { break }
      let byte = bytes[i]
      if byte == UInt8(ascii: "\"") {
        i += 1
        return (start..<i - 1, escaped)
      }
      if byte == UInt8(ascii: "\\") {
        escaped = true
        scratch.removeAll(keepingCapacity: true)
        try parseEscape()
      } else if byte < 0x20 {
        throw controlCharacter(byte)
      } else if byte < 0x80 {
        i += 1
      } else {
        try skipUTF8Sequence()
      }
    }
    throw ByteError(message: "unterminated string", offset: start - 1)
  }

  /// Just after `{` or `[`: passes the closing bracket of an empty container and says so.
  mutating func closesEmpty(_ close: UInt8) throws(ByteError) -> Bool {
    skipWhitespace()
    guard i < bytes.count, bytes[i] == close else { return false }
    i += 1
    depth -= 1
    return true
  }

  /// The next key of a canonical object and its colon; the key's raw bytes, which must be
  /// escape-free and greater than `previous` (UTF-8 byte order is code-point order).
  mutating func nextKey(after previous: Range<Int>?) throws(ByteError) -> Range<Int> {
    skipWhitespace()
    guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw ByteError(message: "", offset: i) }
    let (key, escaped) = try skipString()
    if escaped { throw ByteError(message: "", offset: i) }
    if let previous, !less(previous, key) { throw ByteError(message: "", offset: i) }
    skipWhitespace()
    guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw ByteError(message: "", offset: i) }
    i += 1
    skipWhitespace()
    return key
  }

  /// After a member or element: true when a comma says another follows, false at `close`.
  mutating func another(_ close: UInt8) throws(ByteError) -> Bool {
    skipWhitespace()
    guard i < bytes.count else { throw ByteError(message: "", offset: i) }
    if bytes[i] == UInt8(ascii: ",") {
      i += 1
      return true
    }
    guard bytes[i] == close else { throw ByteError(message: "", offset: i) }
    i += 1
    depth -= 1
    return false
  }

  func equal(_ range: Range<Int>, _ name: [UInt8]) -> Bool {
    guard range.count == name.count else { return false }
    var k = 0
    for index in range {
      if bytes[index] != name[k] { return false }
      k += 1
    }
    return true
  }

  func less(_ a: Range<Int>, _ b: Range<Int>) -> Bool {
    var (x, y) = (a.lowerBound, b.lowerBound)
    while x < a.upperBound && y < b.upperBound {
      if bytes[x] != bytes[y] { return bytes[x] < bytes[y] }
      x += 1
      y += 1
    }
    return a.count < b.count
  }
}

extension JSONParser {
  /// `parse(_:keeping:)` for the compact JSON of an object of scalars, as `JSONWriter.compact`
  /// writes it (an index entry's projection): the members `projection` keeps are parsed as
  /// strictly as ever; the others are passed over by finding where they end, and the scan stops
  /// once every kept member is found, which is all a query needs (the bytes are this library's
  /// own writing, checked when they were written). Nil, so the caller parses the strict way,
  /// whenever what is scanned is not of that shape: whitespace, a container, a key with an
  /// escape, kept keys out of order.
  public func parseCompactScalars(_ buffer: UnsafeBufferPointer<UInt8>, keeping projection: JSONProjection)
    -> JSONValue?
  {
    let last = buffer.count - 1
    guard last >= 1, buffer[0] == UInt8(ascii: "{"), buffer[last] == UInt8(ascii: "}") else { return nil }
    let reader = ByteReader(bytes: buffer, maxDepth: maxDepth, recorder: nil)
    // The quote closing the string whose contents start at `start` (escapes passed over when
    // allowed, other bytes left to the strict parse of a kept value); nil when it does not close.
    func closingQuote(from start: Int, escapes: Bool) -> Int? {
      var k = start
      while true {
        k = reader.plainRun(from: k)
        guard k < last else { return nil }
        switch buffer[k] {
        case UInt8(ascii: "\""): return k
        case UInt8(ascii: "\\"):
          guard escapes else { return nil }
          k += 2
        default: k += 1
        }
      }
    }
    let kept = projection.members
    var members: [JSONObject.Member] = []
    var i = 1
    while i < last && members.count < kept.count {
      // A key: escape-free, so its raw bytes are its name.
      guard buffer[i] == UInt8(ascii: "\""), let keyEnd = closingQuote(from: i + 1, escapes: false),
        keyEnd + 2 < last, buffer[keyEnd + 1] == UInt8(ascii: ":")
      else { return nil }
      let key = (i + 1)..<keyEnd
      i = keyEnd + 2
      let value = i
      switch buffer[i] {
      case UInt8(ascii: "\""):
        guard let end = closingQuote(from: i + 1, escapes: true) else { return nil }
        i = end + 1
      case UInt8(ascii: "{"), UInt8(ascii: "["): return nil
      default:
        while i < last && buffer[i] != UInt8(ascii: ",") { i += 1 }
      }
      if let wanted = kept.first(where: { reader.equal(key, $0.name) }) {
        guard members.last.map({ codePointLess($0.key, wanted.key) }) ?? true,
          let parsed = try? parse(UnsafeBufferPointer(rebasing: buffer[value..<i]))
        else { return nil }
        members.append(JSONObject.Member(key: wanted.key, value: parsed))
      }
      if i < last {
        guard buffer[i] == UInt8(ascii: ","), i + 1 < last else { return nil }
        i += 1
      }
    }
    return .object(JSONObject(sortedUniqueMembers: members))
  }
}
