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
    /// For a scalar whose path is `scalar`: what the byte path decides alone.
    let plain: Plain
  }

  /// What the byte path decides alone of a scalar whose path is `scalar`, when the value is in
  /// its plainest form; any other form, and any other type, goes to the full path's code.
  enum Plain: Equatable {
    case none
    /// An integer whose only constraints are these bounds: a literal `-?(0|[1-9][0-9]*)` of at
    /// most 18 digits is compared as an `Int64`.
    case integer(minimum: Int64, maximum: Int64)
    /// A string whose only constraints are a length in Unicode scalars and a pattern (in
    /// `Plan.patterns`, or -1): an escape-free string is judged on its bytes, the pattern by its
    /// byte matcher when it has an answer.
    case string(minLength: Int, maxLength: Int, pattern: Int)
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
    /// The patterns of `Plain.string`, unretained (their types hold them).
    var patterns: UnsafeMutableBufferPointer<Unmanaged<CompiledPattern>>
  }

  /// The quick check of `schema` keeping the top-level members `capturing` names, or nil when
  /// the schema has none (`captures(of:keeping:)`, or a root the byte path cannot walk).
  public init?(schema: Schema, capturing: [String]) {
    guard schema.root.kind == .object, schema.root.quickPath == .bytes,
      let captures = Self.captures(of: schema, keeping: capturing)
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
      captureIDs: Self.copy(builder.captureIDs), schemaName: schemaName,
      patterns: Self.copy(builder.patterns.map { Unmanaged.passUnretained($0) }))
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
    plan.patterns.deallocate()
  }

  /// The names of top-level members a quick check keeps: what the rules read plus `keeping`; nil
  /// when a rule reads anything else (then there is no quick check for this schema).
  static func captures(of schema: Schema, keeping: [String]) -> [String]? {
    // References and derived fields read values the byte path does not build (lists, a
    // json_string's text): such kinds take the full path.
    guard schema.references.isEmpty && schema.derived.isEmpty else { return nil }
    var names = Set(keeping)
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
    var patterns: [CompiledPattern] = []
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
          maxItems: 0, unique: -1, values: 0..<0, plain: .none))
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
        maxItems: type.maxItems ?? Int.max, unique: unique, values: firstValue..<spans.count, plain: plain(type))
      return index
    }

    mutating func plain(_ type: SchemaType) -> Plain {
      switch type.kind {
      case .integer where type.constraints.isSubset(of: [.minimum, .maximum]):
        guard let minimum = Self.bound(type.minimum, else: .min), let maximum = Self.bound(type.maximum, else: .max)
        else { return .none }
        return .integer(minimum: minimum, maximum: maximum)
      case .string where type.constraints.isSubset(of: [.minLength, .maxLength, .pattern]):
        var pattern = -1
        if let compiled = type.pattern {
          pattern = patterns.count
          patterns.append(compiled)
        }
        return .string(minLength: type.minLength ?? 0, maxLength: type.maxLength ?? .max, pattern: pattern)
      default:
        return .none
      }
    }

    /// A bound as an `Int64` (`otherwise` when there is none); nil when it is not a plain integer.
    static func bound(_ number: JSONNumber?, else otherwise: Int64) -> Int64? {
      guard let number else { return otherwise }
      let text = number.text.utf8
      let digits = text.first == UInt8(ascii: "-") ? text.dropFirst() : text[...]
      guard (1...18).contains(digits.count), digits.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
      return Int64(number.text)
    }

    mutating func text(_ string: String) -> Range<Int> {
      let start = bytes.count
      bytes += string.utf8
      return start..<bytes.count
    }
  }
}
