/// Validation straight from a file's bytes, building no tree: the way `validate` checks a large
/// store, where nearly every document is valid. It only ever answers "valid": anything it finds,
/// or cannot decide alone (a syntax error, keys out of canonical order, a type whose `quickPath`
/// is `none`, a rule that reads more than a top-level scalar), sends the caller to the full path
/// (`parse`, then `validate`), which finds and places every problem. What it judges alone is the
/// data in `QuickPath.decided`; every other scalar is checked by the code the full path runs.
extension Validator {
  /// The names of top-level members a quick check keeps: what the rules read plus `capture`; nil
  /// when a rule reads anything else (then there is no quick check for this schema).
  public func quickCaptures(_ capture: [String]) -> [String]? {
    // References and derived fields read values the byte path does not build (lists, a
    // json_string's text): such kinds take the full path.
    guard schema.references.isEmpty && schema.derived.isEmpty else { return nil }
    var names = Set(capture)
    for rule in schema.rules {
      for path in rule.require.paths + (rule.when?.paths ?? []) {
        guard path.steps.count == 1, case .member(let name) = path.steps[0], let field = schema.root.fields[name],
          field.type.isScalar
        else { return nil }
        names.insert(name)
      }
    }
    return names.sorted()
  }

  /// The document's top-level members named by `captures` (from `quickCaptures`) as an object,
  /// when the document is certainly valid against the schema and its rules; nil otherwise.
  public func quickCheck(_ bytes: [UInt8], captures: [String]) -> JSONValue? {
    bytes.withUnsafeBufferPointer { buffer -> JSONValue? in
      guard buffer.first == UInt8(ascii: "{"), schema.root.kind == .object, schema.root.quickPath == .bytes,
        schema.references.isEmpty, schema.derived.isEmpty
      else {
        return nil
      }
      var check = ByteCheck(reader: ByteReader(bytes: buffer, maxDepth: JSONParser.defaultMaxDepth, recorder: nil))
      var captured: [JSONObject.Member] = []
      do throws(ByteError) {
        guard try check.object(schema.root, isRoot: true, capturing: captures, into: &captured),
          check.walk.findings.isEmpty
        else { return nil }
        check.reader.skipWhitespace()
        guard check.reader.i == buffer.count else { return nil }
      } catch {
        return nil
      }
      let document = JSONValue.object(JSONObject(captured))
      for rule in schema.rules where rule.when?.evaluate(document) ?? true {
        if !rule.require.evaluate(document) { return nil }
      }
      return document
    }
  }
}

extension SchemaType {
  /// A type whose values are single JSON scalars.
  public var isScalar: Bool { kind.isScalar }
}

/// One quick check over a document's bytes. Each function returns false as soon as the value is
/// not certainly valid (and may stop reading there); a `ByteError` means the same.
struct ByteCheck {
  var reader: ByteReader
  /// Runs the full path's checks of scalars; any finding ends the quick check.
  var walk = Walk()

  init(reader: ByteReader) { self.reader = reader }

  mutating func value(_ type: SchemaType) throws(ByteError) -> Bool {
    guard reader.i < reader.bytes.count else { return false }
    switch type.quickPath {
    case .none: return false
    case .scalar: return try scalar(type) != nil
    case .bytes: break
    }
    let byte = reader.bytes[reader.i]
    switch type.kind {
    case .any:
      try reader.skipValue()
      return true
    case .object:
      var ignored: [JSONObject.Member] = []
      return byte == UInt8(ascii: "{") ? try object(type, isRoot: false, capturing: [], into: &ignored) : false
    case .list:
      return byte == UInt8(ascii: "[") ? try list(type) : false
    case .map:
      guard byte == UInt8(ascii: "{") else { return false }
      try reader.enter()
      reader.i += 1
      guard try !reader.closesEmpty(UInt8(ascii: "}")) else { return true }
      var previous: Range<Int>?
      repeat {
        previous = try reader.nextKey(after: previous)
        if let element = type.element {
          guard try value(element) else { return false }
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
      guard escaped else { return plainString(range, type) }
      reader.i = start
      return try scalar(type) != nil
    case .integer, .decimal, .number, .boolean, .uuid, .oneOf, .jsonString:
      // `QuickPath.of` never makes these `bytes`.
      return false
    }
  }

  /// What the full path's `checkString` says of an escape-free string of a type whose `quickPath`
  /// is `bytes` (no constraint beyond its kind's, in `QuickPath.decided`).
  func plainString(_ range: Range<Int>, _ type: SchemaType) -> Bool {
    let text = UnsafeBufferPointer(rebasing: reader.bytes[range])
    switch type.kind {
    case .datetime: return Instant.parseDateTime(bytes: text) != nil
    case .date: return text.count == 10 && CalendarDate(bytes: text) != nil
    // Equal bytes are equal strings; anything else (even a canonically equivalent spelling) goes to the full path.
    case .enumeration: return type.values.contains { $0.utf8.elementsEqual(text) }
    default: return true
    }
  }

  /// A scalar, checked as the full path checks it; the value when it passes.
  mutating func scalar(_ type: SchemaType) throws(ByteError) -> JSONValue? {
    guard reader.i < reader.bytes.count, reader.bytes[reader.i] != UInt8(ascii: "{"),
      reader.bytes[reader.i] != UInt8(ascii: "[")
    else {
      return nil
    }
    let value = try reader.parseValue()
    walk.check(value, against: type, parent: nil)
    return walk.findings.isEmpty ? value : nil
  }

  /// An object against its type, walking its members and the type's fields side by side. The
  /// members named in `capturing` (a few names: compared, not hashed) are appended to `captured`.
  mutating func object(_ type: SchemaType, isRoot: Bool, capturing: [String], into captured: inout [JSONObject.Member])
    throws(ByteError) -> Bool
  {
    let table = type.sortedFields
    try reader.enter()
    reader.i += 1
    var seen: UInt64 = 0
    if try !reader.closesEmpty(UInt8(ascii: "}")) {
      var next = 0
      var previous: Range<Int>?
      repeat {
        let key = try reader.nextKey(after: previous)
        previous = key
        var field: SchemaType.SortedField?
        while next < table.count {
          let order = compare(table[next].utf8, key)
          if order > 0 { break }
          next += 1
          if order == 0 {
            field = table[next - 1]
            break
          }
        }
        guard let field else {
          // Not a field: `_schema` at the root, or any member of an open type; anything else is unknown.
          let schemaKey = isRoot && reader.equal(key, Array("_schema".utf8))
          guard schemaKey || type.additional else { return false }
          if schemaKey && !capturing.isEmpty && capturing.contains("_schema") {
            captured.append(JSONObject.Member(key: "_schema", value: try reader.parseValue()))
          } else {
            try reader.skipValue()
          }
          continue
        }
        if field.required >= 0 { seen |= 1 << UInt64(field.required) }
        let capture = !capturing.isEmpty && capturing.contains(field.name)
        if field.nullable, reader.i < reader.bytes.count, reader.bytes[reader.i] == UInt8(ascii: "n") {
          try reader.literal("null")
          if capture { captured.append(JSONObject.Member(key: field.name, value: .null)) }
          continue
        }
        if capture && field.type.isScalar {
          guard let value = try scalar(field.type) else { return false }
          captured.append(JSONObject.Member(key: field.name, value: value))
        } else {
          guard try value(field.type) else { return false }
        }
      } while try reader.another(UInt8(ascii: "}"))
    }
    return seen.nonzeroBitCount == type.requiredFields.count
  }

  mutating func list(_ type: SchemaType) throws(ByteError) -> Bool {
    try reader.enter()
    reader.i += 1
    var count = 0
    var keys: [[JSONValue]] = []
    let uniqueNames = type.unique ?? []
    if try !reader.closesEmpty(UInt8(ascii: "]")) {
      repeat {
        reader.skipWhitespace()
        count += 1
        guard let element = type.element else {
          // Untyped elements with unique keys: the full path compares them.
          guard type.unique == nil else { return false }
          try reader.skipValue()
          continue
        }
        guard let unique = type.unique else {
          guard try value(element) else { return false }
          continue
        }
        // The element's unique keys, read as the full path reads them (a missing one is null).
        guard element.kind == .object, element.quickPath == .bytes, reader.i < reader.bytes.count,
          reader.bytes[reader.i] == UInt8(ascii: "{")
        else {
          return false
        }
        var captured: [JSONObject.Member] = []
        guard try object(element, isRoot: false, capturing: uniqueNames, into: &captured) else { return false }
        let found = JSONObject(captured)
        keys.append(unique.map { found[$0] ?? .null })
      } while try reader.another(UInt8(ascii: "]"))
    }
    if let minItems = type.minItems, count < minItems { return false }
    if let maxItems = type.maxItems, count > maxItems { return false }
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
  func compare(_ name: UnsafeMutableBufferPointer<UInt8>, _ key: Range<Int>) -> Int {
    let bytes = reader.bytes
    var (x, y) = (0, key.lowerBound)
    while x < name.count && y < key.upperBound {
      if name[x] != bytes[y] { return name[x] < bytes[y] ? -1 : 1 }
      x += 1
      y += 1
    }
    return name.count == key.count ? 0 : (name.count < key.count ? -1 : 1)
  }

}
