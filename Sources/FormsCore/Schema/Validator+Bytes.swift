// Validation straight from a file's bytes, building no tree: the way `validate` checks a large
// store, where nearly every document is valid. It only ever answers "valid": anything it finds,
// or cannot decide alone (a syntax error, keys out of canonical order, a type whose `quickPath`
// is `none`, a rule that reads more than a top-level scalar), sends the caller to the full path
// (`parse`, then `validate`), which finds and places every problem. What it judges alone is the
// data in `QuickPath.decided` and, in their plainest form, the integers and strings of
// `QuickCheck.Plain`; every other scalar is checked by the code the full path runs.
//
// `QuickCheck` compiles a schema for it once; `ByteCheck` below walks one document.

extension SchemaType {
  /// A type whose values are single JSON scalars.
  public var isScalar: Bool { kind.isScalar }
}

/// One quick check over a document's bytes. Each function returns false as soon as the value is
/// not certainly valid (and may stop reading there); a `ByteError` means the same.
struct ByteCheck {
  var reader: ByteReader
  let plan: QuickCheck.Plan
  /// Runs the full path's checks of scalars; any finding ends the quick check.
  var walk = Walk()

  init(reader: ByteReader, plan: QuickCheck.Plan) {
    self.reader = reader
    self.plan = plan
  }

  static let schemaKey = Array("_schema".utf8)

  mutating func value(_ index: Int) throws(ByteError) -> Bool {
    guard reader.i < reader.bytes.count else { return false }
    let node = plan.nodes[index]
    switch node.path {
    case .none: return false
    case .scalar:
      if let answer = try plainScalar(node) { return answer }
      return try scalar(index) != nil
    case .bytes: break
    }
    let byte = reader.bytes[reader.i]
    switch node.kind {
    case .any:
      try reader.skipValue()
      return true
    case .object:
      var ignored: [JSONObject.Member] = []
      return byte == UInt8(ascii: "{") ? try object(index, isRoot: false, capturing: -1, into: &ignored) : false
    case .list:
      return byte == UInt8(ascii: "[") ? try list(index) : false
    case .map:
      guard byte == UInt8(ascii: "{") else { return false }
      try reader.enter()
      reader.i += 1
      guard try !reader.closesEmpty(UInt8(ascii: "}")) else { return true }
      var previous: Range<Int>?
      repeat {
        previous = try reader.nextKey(after: previous)
        if node.element >= 0 {
          guard try value(node.element) else { return false }
        } else {
          try reader.skipValue()
        }
      } while try reader.another(UInt8(ascii: "}"))
      return true
    case .string, .date, .datetime, .enumeration:
      guard byte == UInt8(ascii: "\"") else { return false }
      // A string judged on its bytes when it holds no escape (then they are its UTF-8).
      let start = reader.i
      let (range, escaped) = try reader.skipString()
      guard escaped else { return plainString(range, node) }
      reader.i = start
      return try scalar(index) != nil
    case .integer, .decimal, .number, .boolean, .uuid, .oneOf, .jsonString:
      // `QuickPath.of` never makes these `bytes`.
      return false
    }
  }

  /// What the full path's `checkString` says of an escape-free string of a node whose path is
  /// `bytes` (no constraint beyond its kind's, in `QuickPath.decided`).
  func plainString(_ range: Range<Int>, _ node: QuickCheck.Node) -> Bool {
    let text = UnsafeBufferPointer(rebasing: reader.bytes[range])
    switch node.kind {
    case .datetime: return Instant.parseDateTime(bytes: text) != nil
    case .date: return text.count == 10 && CalendarDate(bytes: text) != nil
    // Equal bytes are equal strings; anything else (even a canonically equivalent spelling) goes to the full path.
    case .enumeration: return node.values.contains { same(plan.spans[$0], range) }
    default: return true
    }
  }

  /// What the byte path decides alone of a scalar (`QuickCheck.Plain`); nil, with the reader where
  /// it was, when the value is not in the form it decides.
  mutating func plainScalar(_ node: QuickCheck.Node) throws(ByteError) -> Bool? {
    let start = reader.i
    switch node.plain {
    case .none:
      return nil
    case .integer(let minimum, let maximum):
      guard let value = plainInteger() else {
        reader.i = start
        return nil
      }
      return value >= minimum && value <= maximum
    case .string(let minLength, let maxLength, let pattern):
      guard reader.bytes[reader.i] == UInt8(ascii: "\"") else { return false }
      let (range, escaped) = try reader.skipString()
      guard !escaped else {
        reader.i = start
        return nil
      }
      // Escape-free and checked UTF-8: every byte but a continuation byte starts a scalar.
      var length = 0
      for k in range where reader.bytes[k] & 0xC0 != 0x80 { length += 1 }
      guard length >= minLength && length <= maxLength else { return false }
      guard pattern >= 0 else { return true }
      let text = UnsafeBufferPointer(rebasing: reader.bytes[range])
      guard let answer = plan.patterns[pattern]._withUnsafeGuaranteedRef({ $0.matches(bytes: text) }) else {
        reader.i = start
        return nil
      }
      return answer
    }
  }

  /// A literal `-?(0|[1-9][0-9]*)` of at most 18 digits that no fraction or exponent follows, read
  /// as an `Int64` and passed; nil for any other number (the reader is then anywhere).
  mutating func plainInteger() -> Int64? {
    let bytes = reader.bytes
    var i = reader.i
    let negative = i < bytes.count && bytes[i] == UInt8(ascii: "-")
    if negative { i += 1 }
    let first = i
    var value: Int64 = 0
    while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 {
      guard i - first < 18 else { return nil }
      value = value * 10 + Int64(bytes[i] - 48)
      i += 1
    }
    guard i > first, i - first == 1 || bytes[first] != 48 else { return nil }
    if i < bytes.count, bytes[i] == UInt8(ascii: ".") || bytes[i] | 0x20 == UInt8(ascii: "e") { return nil }
    reader.i = i
    return negative ? -value : value
  }

  /// A scalar, checked as the full path checks it; the value when it passes.
  mutating func scalar(_ index: Int) throws(ByteError) -> JSONValue? {
    guard reader.i < reader.bytes.count, reader.bytes[reader.i] != UInt8(ascii: "{"),
      reader.bytes[reader.i] != UInt8(ascii: "[")
    else {
      return nil
    }
    let value = try reader.parseValue()
    plan.types[index]._withUnsafeGuaranteedRef { walk.check(value, against: $0, parent: nil) }
    return walk.findings.isEmpty ? value : nil
  }

  /// An object against its node, walking its members and the node's fields side by side. The
  /// members named in the set `capturing` of `Plan.captureSets` (-1: none) are appended to `captured`.
  mutating func object(_ index: Int, isRoot: Bool, capturing: Int, into captured: inout [JSONObject.Member])
    throws(ByteError) -> Bool
  {
    let node = plan.nodes[index]
    try reader.enter()
    reader.i += 1
    var seen: UInt64 = 0
    if try !reader.closesEmpty(UInt8(ascii: "}")) {
      var next = node.members.lowerBound
      var previous: Range<Int>?
      repeat {
        let key = try reader.nextKey(after: previous)
        previous = key
        var found = -1
        while next < node.members.upperBound {
          let order = compare(plan.members[next].name, key)
          if order > 0 { break }
          next += 1
          if order == 0 {
            found = next - 1
            break
          }
        }
        guard found >= 0 else {
          // Not a field: `_schema` at the root, or any member of an open type; anything else is unknown.
          let schemaKey = isRoot && reader.equal(key, Self.schemaKey)
          guard schemaKey || node.additional else { return false }
          if schemaKey && keeps(capturing, plan.schemaName) {
            captured.append(JSONObject.Member(key: "_schema", value: try reader.parseValue()))
          } else {
            try reader.skipValue()
          }
          continue
        }
        let member = plan.members[found]
        if member.required >= 0 { seen |= 1 << UInt64(member.required) }
        let capture = keeps(capturing, member.id)
        if member.nullable, reader.i < reader.bytes.count, reader.bytes[reader.i] == UInt8(ascii: "n") {
          try reader.literal("null")
          if capture { captured.append(JSONObject.Member(key: plan.names[member.id], value: .null)) }
          continue
        }
        if capture, plan.nodes[member.node].kind.isScalar {
          guard let value = try scalar(member.node) else { return false }
          captured.append(JSONObject.Member(key: plan.names[member.id], value: value))
        } else {
          guard try value(member.node) else { return false }
        }
      } while try reader.another(UInt8(ascii: "}"))
    }
    return seen.nonzeroBitCount == node.required
  }

  mutating func list(_ index: Int) throws(ByteError) -> Bool {
    let node = plan.nodes[index]
    try reader.enter()
    reader.i += 1
    var count = 0
    var keys: [[JSONValue]] = []
    let unique = node.unique >= 0 ? plan.captureSets[node.unique] : nil
    if try !reader.closesEmpty(UInt8(ascii: "]")) {
      repeat {
        reader.skipWhitespace()
        count += 1
        guard node.element >= 0 else {
          // Untyped elements with unique keys: the full path compares them.
          guard unique == nil else { return false }
          try reader.skipValue()
          continue
        }
        guard let unique else {
          guard try value(node.element) else { return false }
          continue
        }
        // The element's unique keys, read as the full path reads them (a missing one is null).
        let element = plan.nodes[node.element]
        guard element.kind == .object, element.path == .bytes, reader.i < reader.bytes.count,
          reader.bytes[reader.i] == UInt8(ascii: "{")
        else {
          return false
        }
        var captured: [JSONObject.Member] = []
        guard try object(node.element, isRoot: false, capturing: node.unique, into: &captured) else { return false }
        // The keys' names are the plan's own strings: each comparison is of identical strings.
        keys.append(
          unique.map { k in
            let name = plan.names[plan.captureIDs[k]]
            return captured.first { $0.key == name }?.value ?? .null
          })
      } while try reader.another(UInt8(ascii: "]"))
    }
    if count < node.minItems || count > node.maxItems { return false }
    return Self.distinct(keys)
  }

  /// True when no two key tuples are equal (pairwise for the short lists documents hold).
  static func distinct(_ keys: [[JSONValue]]) -> Bool {
    guard keys.count > 16 else {
      for a in keys.indices { for b in keys.indices where b > a && keys[a] == keys[b] { return false } }
      return true
    }
    return Set(keys).count == keys.count
  }

  /// Code-point order of a field name and a key's raw bytes (escape-free, so UTF-8 order).
  func compare(_ name: Range<Int>, _ key: Range<Int>) -> Int {
    let (names, bytes) = (plan.bytes, reader.bytes)
    var (x, y) = (name.lowerBound, key.lowerBound)
    while x < name.upperBound && y < key.upperBound {
      if names[x] != bytes[y] { return names[x] < bytes[y] ? -1 : 1 }
      x += 1
      y += 1
    }
    return name.count == key.count ? 0 : (name.count < key.count ? -1 : 1)
  }

  /// True when the plan's text at `text` is the document's bytes at `range`.
  func same(_ text: Range<Int>, _ range: Range<Int>) -> Bool {
    text.count == range.count && compare(text, range) == 0
  }

  /// True when the set `capturing` of `Plan.captureSets` (-1: none) holds the name numbered `name`.
  func keeps(_ capturing: Int, _ name: Int) -> Bool {
    guard capturing >= 0 else { return false }
    for k in plan.captureSets[capturing] where plan.captureIDs[k] == name { return true }
    return false
  }
}
