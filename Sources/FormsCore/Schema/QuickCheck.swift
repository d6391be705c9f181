/// A schema's byte path (`Validator+Bytes.swift`), compiled once: the graph of `SchemaType`s
/// flattened into tables of plain values, which walking a document reads without taking or
/// dropping a reference. Threads checking documents against one shared graph of classes spent a
/// quarter of their time on its reference counts, each count's cache line passing from core to
/// core; these tables are only read.
///
/// `@unchecked Sendable`: the tables are written once, in `init`, and only read after.
public final class QuickCheck: @unchecked Sendable {
  public let schema: Schema
  /// The top-level members `check` keeps: what the rules read and what the caller asked for.
  public let captures: [String]
  let plan: Plan
  /// The types the plan's nodes stand for, held for the scalars the full path's code checks.
  let types: [SchemaType]

  /// A node per type of the graph; node 0 is the document's root.
  struct Node {
    let kind: SchemaType.Kind
    let path: QuickPath
    let additional: Bool
    /// The object's fields (in code-point order), in `Plan.members`.
    let members: Range<Int>
    /// How many of them are required.
    let required: Int
    /// The node of list elements and map values, or -1.
    let element: Int
    let minItems: Int
    let maxItems: Int
    /// The list's `unique` keys: a set in `Plan.captureSets`, or -1.
    let unique: Int
    /// An enumeration's values, in `Plan.spans`.
    let values: Range<Int>
  }

  /// A field of an object node.
  struct Member {
    /// The name's UTF-8, in `Plan.bytes`.
    let name: Range<Int>
    /// The name's number in `Plan.names` (equal names, equal numbers).
    let id: Int
    let node: Int
    let nullable: Bool
    /// The index among the object's required fields, or -1.
    let required: Int
  }

  /// The tables, as buffers: copying or reading them touches no reference count.
  struct Plan {
    var nodes: UnsafeMutableBufferPointer<Node>
    var members: UnsafeMutableBufferPointer<Member>
    /// Field names and enumeration values, one after the other.
    var bytes: UnsafeMutableBufferPointer<UInt8>
    /// Where each enumeration value is in `bytes`.
    var spans: UnsafeMutableBufferPointer<Range<Int>>
    /// The nodes' types, unretained (`QuickCheck.types` holds them).
    var types: UnsafeMutableBufferPointer<Unmanaged<SchemaType>>
    /// Every field name, by number.
    var names: UnsafeMutableBufferPointer<String>
    /// The names an object keeps (sets of name numbers, in `captureIDs`): set 0 is the captures
    /// at the root, the others a list's `unique` keys, kept from each element.
    var captureSets: UnsafeMutableBufferPointer<Range<Int>>
    var captureIDs: UnsafeMutableBufferPointer<Int>
    /// The number of `_schema`, which the root may keep.
    var schemaName: Int
  }

  /// The quick check of `schema` keeping the top-level members `capturing` names, or nil when
  /// the schema has none (`Validator.quickCaptures`, or a root the byte path cannot walk).
  public init?(schema: Schema, capturing: [String]) {
    guard schema.root.kind == .object, schema.root.quickPath == .bytes,
      let captures = Validator(schema: schema).quickCaptures(capturing)
    else { return nil }
    self.schema = schema
    self.captures = captures
    var builder = Builder()
    _ = builder.keep(captures)
    let schemaName = builder.name("_schema")
    _ = builder.node(schema.root)
    types = builder.types
    plan = Plan(
      nodes: Self.copy(builder.nodes), members: Self.copy(builder.members), bytes: Self.copy(builder.bytes),
      spans: Self.copy(builder.spans), types: Self.copy(builder.types.map { Unmanaged.passUnretained($0) }),
      names: Self.copy(builder.names), captureSets: Self.copy(builder.captureSets),
      captureIDs: Self.copy(builder.captureIDs), schemaName: schemaName)
  }

  deinit {
    plan.nodes.deallocate()
    plan.members.deallocate()
    plan.bytes.deallocate()
    plan.spans.deallocate()
    plan.types.deallocate()
    plan.names.deinitialize().deallocate()
    plan.captureSets.deallocate()
    plan.captureIDs.deallocate()
  }

  static func copy<T>(_ items: [T]) -> UnsafeMutableBufferPointer<T> {
    let buffer = UnsafeMutableBufferPointer<T>.allocate(capacity: max(items.count, 1))
    _ = buffer.initialize(from: items)
    return UnsafeMutableBufferPointer(rebasing: buffer[..<items.count])
  }

  /// `body` given the schema without copying it (a copy retains each of its many parts).
  public func withSchema<T>(_ body: (borrowing Schema) throws -> T) rethrows -> T { try body(schema) }

  /// The captured top-level members as an object, when the document is certainly valid against
  /// the schema and its rules; nil otherwise (then the full path decides).
  public func check(_ bytes: [UInt8]) -> JSONValue? {
    bytes.withUnsafeBufferPointer { buffer -> JSONValue? in
      guard buffer.first == UInt8(ascii: "{") else { return nil }
      var check = ByteCheck(
        reader: ByteReader(bytes: buffer, maxDepth: JSONParser.defaultMaxDepth, recorder: nil), plan: plan)
      var captured: [JSONObject.Member] = []
      do throws(ByteError) {
        guard try check.object(0, isRoot: true, capturing: 0, into: &captured), check.walk.findings.isEmpty
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

  /// Builds the tables from the graph, one node per type (shared named types stay shared).
  struct Builder {
    var nodes: [Node] = []
    var members: [Member] = []
    var bytes: [UInt8] = []
    var spans: [Range<Int>] = []
    var types: [SchemaType] = []
    var names: [String] = []
    var captureSets: [Range<Int>] = []
    var captureIDs: [Int] = []
    var numbered: [ObjectIdentifier: Int] = [:]
    var named: [String: Int] = [:]

    /// The number of `text` among the names.
    mutating func name(_ text: String) -> Int {
      if let known = named[text] { return known }
      named[text] = names.count
      names.append(text)
      return names.count - 1
    }

    /// A new set of names to keep; its number.
    mutating func keep(_ keys: [String]) -> Int {
      let first = captureIDs.count
      for key in keys { captureIDs.append(name(key)) }
      captureSets.append(first..<captureIDs.count)
      return captureSets.count - 1
    }

    mutating func node(_ type: SchemaType) -> Int {
      if let known = numbered[ObjectIdentifier(type)] { return known }
      let index = nodes.count
      numbered[ObjectIdentifier(type)] = index
      types.append(type)
      // A placeholder, so the nodes this one points at come after it.
      nodes.append(
        Node(
          kind: type.kind, path: .none, additional: false, members: 0..<0, required: 0, element: -1, minItems: 0,
          maxItems: 0, unique: -1, values: 0..<0))
      let element = type.element.map { node($0) } ?? -1
      // Members after their types' nodes, so that each object's members are one run.
      let fieldNodes = type.sortedFields.map { node($0.type) }
      let firstMember = members.count
      for (field, fieldNode) in zip(type.sortedFields, fieldNodes) {
        members.append(
          Member(
            name: text(field.name), id: name(field.name), node: fieldNode, nullable: field.nullable,
            required: field.required))
      }
      let firstValue = spans.count
      if type.kind == .enumeration { spans += type.values.map { text($0) } }
      let unique = type.unique.map { keep($0) } ?? -1
      nodes[index] = Node(
        kind: type.kind, path: type.quickPath, additional: type.additional, members: firstMember..<members.count,
        required: type.requiredFields.count, element: element, minItems: type.minItems ?? 0,
        maxItems: type.maxItems ?? Int.max, unique: unique, values: firstValue..<spans.count)
      return index
    }

    mutating func text(_ string: String) -> Range<Int> {
      let start = bytes.count
      bytes += string.utf8
      return start..<bytes.count
    }
  }
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
    case .scalar: return try scalar(index) != nil
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
