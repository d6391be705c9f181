import FormsTestSupport
import Testing

@testable import FormsCore

/// The validator's byte path (`QuickCheck`) and the full validator must never disagree:
/// whatever the byte path calls valid, the full validator finds nothing in, and what it captures
/// is what the document holds. Descriptors and documents are generated from a seed, so a failure
/// names the seed and the descriptor and reproduces.
struct QuickPathTests {
  /// Every stored property of `SchemaType` is either a constraint (`SchemaType.Constraint`) or
  /// structure. A property added later fails here until it is classified; once it is a
  /// constraint, `QuickPath` leaves types carrying it to the full validator.
  @Test func everyPropertyOfATypeIsClassified() {
    let type = SchemaType(kind: .string)
    let properties = Set(Mirror(reflecting: type).children.compactMap(\.label))
    let named = Set(SchemaType.Constraint.allCases.map(\.rawValue)).union(SchemaType.structuralProperties)
    #expect(
      properties.subtracting(named).isEmpty,
      "classify \(properties.subtracting(named).sorted()) as a SchemaType.Constraint or a structural property")
    #expect(named.subtracting(properties).isEmpty, "no such property: \(named.subtracting(properties).sorted())")
  }

  /// The properties of a field the validator reads are the ones the byte path reads too; a new
  /// one must be taught to `ByteCheck.object` (or make it refuse) before it is added here.
  @Test func everyPropertyOfAFieldIsKnown() {
    let field = Field(name: "f", type: SchemaType(kind: .string))
    #expect(
      Mirror(reflecting: field).children.compactMap(\.label).sorted()
        == [
          "declassified", "defaultValue", "description", "immutable", "immutableWhen", "name", "nullable", "optional",
          "sensitive", "type",
        ])
  }

  /// A constraint the byte path does not decide sends the type to the full validator's code.
  @Test func aConstraintOutsideTheTableIsNeverJudgedOnBytes() throws {
    let schema = try compile(
      """
      kind: t
      version: 1.0.0
      fields:
        id: string
        plain: string
        patterned: {type: string, pattern: '^a'}
        short: {type: string, max_length: 3}
        count: {type: integer, min: 0}
        either: {one_of: {by: id, cases: {x: o}}, optional: true}
        text: {type: json_string, of: o, optional: true}
      types:
        o: {fields: {a: string?}}
      """)
    let path = { (name: String) in schema.root.fields[name]!.type.quickPath }
    #expect(path("plain") == .bytes)
    #expect(path("patterned") == .scalar)
    #expect(path("short") == .scalar)
    #expect(path("count") == .scalar)
    #expect(path("either") == .none)
    #expect(path("text") == .none)
    #expect(schema.root.quickPath == .bytes)
    for kind in [SchemaType.Kind.string, .date, .datetime, .enumeration, .object, .list, .map, .any] {
      #expect(QuickPath.decided[kind] != nil)
    }
    // A kind the table does not list is never judged on bytes, whatever it carries.
    #expect(QuickPath.of(.uuid, constraints: [], frozen: true) == .scalar)
    #expect(QuickPath.of(.object, constraints: [.fields, .minLength], frozen: true) == .none)
    #expect(QuickPath.of(.object, constraints: [.fields], frozen: false) == .none)
  }

  /// Integers with bounds and strings with a length or a pattern are decided on their bytes when
  /// in their plainest form (`QuickCheck.Plain`), and by the full path's code otherwise: either
  /// way, the answer is the validator's, at every edge.
  @Test func plainScalarsAreJudgedAsTheValidatorJudgesThem() throws {
    let schema = try compile(
      """
      kind: t
      version: 1.0.0
      fields:
        id: string
        small: {type: integer, min: 0, max: 10}
        count: {type: integer, min: -5, max: 1000000000000000000}
        note: {type: string, max_length: 3}
        code: {type: string, pattern: '^[A-Z]{3}$', min_length: 3}
      """)
    let quick = try #require(QuickCheck(schema: schema, capturing: ["id"]))
    let plain = { (name: String) -> QuickCheck.Plain in
      let member = quick.plan.nodes[0].members.first { quick.plan.names[quick.plan.members[$0].id] == name }
      return quick.plan.nodes[quick.plan.members[member!].node].plain
    }
    #expect(plain("small") == .integer(minimum: 0, maximum: 10))
    #expect(plain("count") == .none, "a bound of 19 digits is not an Int64 the byte path compares")
    #expect(plain("note") == .string(minLength: 0, maxLength: 3, pattern: -1))
    #expect(plain("code") == .string(minLength: 3, maxLength: .max, pattern: 0))
    let values: [String: [String]] = [
      "small": [
        "0", "10", "11", "-0", "-1", "1e1", "1E0", "10.0", "1.5", "01", "-", "123456789012345678",
        "1234567890123456789", "\"1\"", "null", "[]",
      ],
      "count": ["-5", "-6", "999999999999999999", "1000000000000000000", "1000000000000000001", "-0.0"],
      "note": [
        "\"abc\"", "\"abcd\"", "\"\"", "\"éèê\"", "\"éèêë\"", "\"e\u{301}e\"", "\"\\u00e9\"",
        "\"a\\nb\"", "3", "null",
      ],
      "code": ["\"ABC\"", "\"abc\"", "\"ABCD\"", "\"AB\"", "\"ÀBC\"", "\"\\u0041BC\"", "\"A C\"", "7"],
    ]
    let base = ["code": "\"ABC\"", "count": "0", "id": "\"a\"", "note": "\"ab\"", "small": "5"]
    var decided = 0
    for (field, candidates) in values {
      for candidate in candidates {
        var members = base
        members[field] = candidate
        let text =
          "{\"_schema\":\"t@1.0.0\","
          + members.keys.sorted().map { "\"\($0)\":\(members[$0]!)" }.joined(separator: ",") + "}"
        let bytes = Array(text.utf8)
        let findings = (try? JSONParser().parse(bytes)).map { Validator(schema: schema).validate($0) }
        let valid = findings?.isEmpty == true
        #expect((quick.check(bytes) != nil) == valid, "\(text): the validator says \(findings as Any)")
        if valid { decided += 1 }
      }
    }
    #expect(decided >= 12)
  }

  @Test(arguments: 0..<12) func bytePathAndValidatorAgree(seed: Int) throws {
    var generator = DocumentGenerator(seed: UInt64(seed) &* 7919 &+ 17)
    var tally = Tally()
    for round in 0..<8 {
      let text = generator.descriptor()
      let schema: Schema
      do {
        schema = try compile(text)
      } catch {
        Issue.record("seed \(seed) round \(round): the generated descriptor does not compile: \(error)\n\(text)")
        continue
      }
      let validator = Validator(schema: schema)
      let quickCheck = QuickCheck(schema: schema, capturing: ["id"])
      for _ in 0..<60 {
        var document = generator.object(schema.root, depth: 0)
        if generator.chance(0.5) { document = generator.mutated(document) }
        for bytes in generator.encodings(of: document) {
          let parsed = try? JSONParser().parse(bytes)  // a generated encoding may be invalid JSON on purpose
          let findings = parsed.map { validator.validate($0) }
          let quick = quickCheck?.check(bytes)
          tally.count(valid: findings?.isEmpty == true, quick: quick != nil)
          guard let quick else { continue }
          let context = "seed \(seed) round \(round)\n\(text)\n\(String(decoding: bytes, as: UTF8.self))"
          guard let parsed, let findings else {
            Issue.record("the byte path called text valid that does not parse: \(context)")
            continue
          }
          #expect(findings.isEmpty, "the byte path called valid what the validator faults: \(findings) \(context)")
          for name in quickCheck?.captures ?? [] {
            #expect(quick[name] == parsed[name], "captured \(name) differs: \(context)")
          }
        }
      }
    }
    // Not vacuous: invalid documents were generated, and most valid ones took the byte path.
    #expect(tally.invalid > 50, "\(tally)")
    #expect(tally.quick * 2 > tally.valid, "\(tally)")
  }

  struct Tally: CustomStringConvertible {
    var valid = 0
    var invalid = 0
    var quick = 0

    mutating func count(valid isValid: Bool, quick isQuick: Bool) {
      if isValid { valid += 1 } else { invalid += 1 }
      if isQuick { quick += 1 }
    }

    var description: String { "\(valid) valid, \(invalid) invalid, \(quick) decided on bytes" }
  }
}

/// Random descriptors and documents for them: mostly valid, with values near every constraint's
/// edge, strings that need escapes or are canonically equivalent to an enum value, and encodings
/// with escapes, keys out of order, duplicate keys and trailing bytes.
struct DocumentGenerator {
  var rng: SeededGenerator

  init(seed: UInt64) { rng = SeededGenerator(state: seed) }

  mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < p }
  mutating func pick<T>(_ options: [T]) -> T { options.randomElement(using: &rng)! }
  mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }

  static let scalarTypes = [
    "string", "{type: string, pattern: '^[A-Z]+$'}", "{type: string, min_length: 1, max_length: 4}",
    "integer", "{type: integer, min: 0, max: 9}", "{type: decimal, min: 0, scale: 2}", "number", "boolean",
    "date", "datetime", "uuid", "{type: enum, values: [open, 'é', closed]}",
  ]

  /// A descriptor of kind `t` with an `id`, scalar fields, lists, maps and objects of named types,
  /// and sometimes a rule over two top-level scalars.
  mutating func descriptor() -> String {
    var lines = ["kind: t", "version: 1.0.0", "fields:", "  id: string"]
    var scalars: [String] = []
    for index in 0..<int(1...6) {
      let name = "f\(index)"
      var type = pick(Self.scalarTypes + ["{type: list, of: item, unique: [k]}", "o", "any"])
      if chance(0.15) {
        type = pick(["{type: list, of: string, min_items: 1, max_items: 3}", "{type: map, of: integer}"])
      }
      if chance(0.1) { type = "{one_of: {by: id, cases: {a: o}}}" }
      if Self.scalarTypes.contains(type) { scalars.append(name) }
      var spec = type.hasPrefix("{") ? String(type.dropLast()) : "{type: \(type)"
      if chance(0.3) { spec += ", optional: true" }
      if chance(0.2) { spec += ", nullable: true" }
      lines.append("  \(name): \(spec)}")
    }
    lines += [
      "types:", "  item:", "    fields:", "      k: integer", "      v: \(pick(Self.scalarTypes))",
      "      w: {type: string, optional: true}", "  o:", "    additional: \(chance(0.3))", "    fields:",
      "      a: \(pick(Self.scalarTypes))", "      b: {type: list, of: item, optional: true}",
    ]
    if scalars.count >= 2 {
      lines += [
        "rules:", "  - when: '\(scalars[0]) exists'", "    require: '\(scalars[1]) exists'",
      ]
    }
    return lines.joined(separator: "\n") + "\n"
  }

  static let strings = [
    "", "a", "AB", "ABCDE", "abc", "open", "closed", "é", "e\u{301}", "tab\tq", "quote\"", "back\\slash", "🙂",
    "\u{0}", "\u{7F}", "2026-11-24", "2024-02-29", "2026-02-29", "2026-11-24T10:00:00Z", "2026-11-24T10:00:00+01:00",
    "2026-11-24T25:00:00Z", "2026-11-24t10:00:00z", "0adc90c4-92fd-5e2a-9b1c-3f4d5e6f7a8b",
    "0ADC90C4-92FD-5E2A-9B1C-3F4D5E6F7A8B", "0adc90c4-92fd-5e2a-9b1c-3f4d5e6f7a8", String(repeating: "x", count: 300),
  ]
  static let numbers = [
    "0", "-0", "1", "-1", "9", "10", "1.5", "1.25", "1.255", "1e2", "1E+2", "0.10", "3.0",
    "123456789012345678901234567890",
  ]

  mutating func scalar() -> JSONValue {
    switch int(0...5) {
    case 0, 1: return .string(pick(Self.strings))
    case 2, 3: return .number(JSONNumber(pick(Self.numbers))!)
    case 4: return .bool(chance(0.5))
    default: return .null
    }
  }

  /// A value for `type`: one that passes the full validator most of the time.
  mutating func value(_ type: SchemaType, depth: Int = 0) -> JSONValue {
    switch type.kind {
    case .object: return object(type, depth: depth)
    case .oneOf: return type.cases.values.first.map { object($0, depth: depth) } ?? .null
    case .list:
      guard let element = type.element else { return .array([]) }
      var elements = (0..<int(0...3)).map { _ in value(element, depth: depth + 1) }
      if type.unique != nil {
        for index in elements.indices where !chance(0.1) {
          elements[index] = elements[index].replacing("k", with: .number(JSONNumber(index)))
        }
      }
      return .array(elements)
    case .map:
      let element = type.element ?? SchemaType(kind: .any)
      return .object(JSONObject((0..<int(0...2)).map { .init(key: "m\($0)", value: value(element, depth: depth + 1)) }))
    case .any:
      return depth < 2 && chance(0.3) ? .array([scalar(), scalar()]) : scalar()
    default:
      for _ in 0..<20 {
        let candidate = scalar()
        if Validator.check(candidate, against: type).isEmpty || chance(0.03) { return candidate }
      }
      return scalar()
    }
  }

  mutating func object(_ type: SchemaType, depth: Int) -> JSONValue {
    var members: [JSONObject.Member] = []
    for name in type.fieldOrder {
      let field = type.fields[name]!
      if field.optional && chance(0.3) { continue }
      if field.nullable && chance(0.2) {
        members.append(.init(key: name, value: .null))
        continue
      }
      if depth > 2 && field.optional { continue }
      members.append(.init(key: name, value: value(field.type, depth: depth + 1)))
    }
    if depth == 0 {
      members.append(.init(key: "_schema", value: .string("t@1.0.0")))
      members.removeAll { $0.key == "id" }
      members.append(.init(key: "id", value: .string(pick(["a", "x-1", "é"]))))
    }
    if chance(0.05) { members.append(.init(key: "zz", value: scalar())) }
    return .object(JSONObject(members))
  }

  /// The document with one value somewhere replaced, removed or doubled.
  mutating func mutated(_ document: JSONValue) -> JSONValue {
    let pointers = allPointers(document)
    let pointer = pick(pointers)
    var changed = document
    switch int(0...2) {
    case 0 where pointer != .root:
      changed.replace(at: pointer, with: scalar())
    case 1 where pointer.tokens.count > 0:
      let parent = JSONPointer(tokens: Array(pointer.tokens.dropLast()))
      switch document[pointer: parent] {
      case .object(var object)?:
        object[pointer.tokens.last!] = nil
        changed.replace(at: parent, with: .object(object))
      case .array(var elements)?:
        elements.append(elements[Int(pointer.tokens.last!)!])
        changed.replace(at: parent, with: .array(elements))
      default: break
      }
    default:
      changed.replace(at: pointer, with: chance(0.5) ? .array([scalar()]) : .object(JSONObject()))
    }
    return changed
  }

  /// The canonical bytes, the compact text, and one text written here with escapes, keys out of
  /// order, a duplicate key or trailing bytes.
  mutating func encodings(of document: JSONValue) -> [[UInt8]] {
    var odd: [UInt8] = []
    write(document, into: &odd)
    if chance(0.05) { odd += Array(pick([" x", "}", "\n\n", "\u{0}"]).utf8) }
    return [JSONWriter.canonical(document), Array(JSONWriter.compact(document).utf8), odd]
  }

  mutating func write(_ value: JSONValue, into out: inout [UInt8]) {
    switch value {
    case .string(let text):
      guard chance(0.15) else { return JSONWriter.writeString(text, into: &out) }
      out += Array("\"".utf8)
      for scalar in text.unicodeScalars {
        if scalar.value < 0x80 && scalar != "\"" && scalar != "\\" && scalar.value >= 0x20 && !chance(0.3) {
          out.append(UInt8(scalar.value))
        } else if scalar.value > 0xFFFF {
          JSONWriter.writeString(String(scalar), into: &out)
          out.removeFirst()
          out.removeLast()
        } else {
          out += Array(("\\u" + String(scalar.value, radix: 16).leftPadded(to: 4)).utf8)
        }
      }
      out += Array("\"".utf8)
    case .array(let elements):
      out.append(UInt8(ascii: "["))
      for (index, element) in elements.enumerated() {
        if index > 0 { out += Array((chance(0.5) ? ", " : ",").utf8) }
        write(element, into: &out)
      }
      out.append(UInt8(ascii: "]"))
    case .object(let object):
      var members = object.members
      if members.count > 1 && chance(0.05) { members.swapAt(0, members.count - 1) }
      if let last = members.last, chance(0.03) { members.append(last) }
      out.append(UInt8(ascii: "{"))
      for (index, member) in members.enumerated() {
        if index > 0 { out.append(UInt8(ascii: ",")) }
        write(.string(member.key), into: &out)
        out += Array(": ".utf8)
        write(member.value, into: &out)
      }
      out.append(UInt8(ascii: "}"))
    default:
      JSONWriter.writeValue(value, indent: 0, into: &out)
    }
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

extension JSONValue {
  /// An object with member `key` set to `value`; anything else as it is.
  fileprivate func replacing(_ key: String, with value: JSONValue) -> JSONValue {
    guard case .object(var object) = self else { return self }
    object[key] = value
    return .object(object)
  }
}
