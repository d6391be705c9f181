import FormsTestSupport
import Testing

@testable import FormsCore

struct ValidatorTests {
  static let schema = try! compile(
    """
    kind: sample
    version: 1.0.0
    directory: samples
    fields:
      id: {type: string, pattern: '^S-[0-9]+$'}
      name: {type: string, min_length: 2, max_length: 5}
      count: {type: integer, min: 0, max: 10}
      price: {type: decimal, min: 0, scale: 2}
      ratio: number?
      flag: boolean?
      day: date?
      at: datetime?
      ref: uuid?
      color: {type: enum, values: [red, green], default: red}
      tags: {type: list, of: string, min_items: 1, max_items: 2, optional: true}
      lines: {type: list, of: line, unique: [sku], optional: true}
      extra: {type: map, of: integer, optional: true}
      blob: any?
      note: {type: string, optional: true, nullable: true}
      open: {type: object, fields: {a: string?}, additional: true, optional: true}
      kind_of: {type: enum, values: [A, B], optional: true}
      body: {one_of: {by: kind_of, cases: {A: a_body, B: b_body}}, optional: true}
    types:
      line:
        fields:
          sku: string
          quantity: {type: integer, min: 1}
      a_body:
        fields:
          a: integer
      b_body:
        fields:
          b: string
    rules:
      - when: 'flag == true'
        require: 'day exists'
        message: a flagged sample needs a day
    """)

  static let valid = #"{"_schema": "sample@1.0.0", "id": "S-1", "name": "abc", "count": 3, "price": 1.25}"#

  /// Replaces or adds `member` (JSON text) in the valid document.
  static func with(_ member: String) -> String {
    String(valid.dropLast()) + ", " + member + "}"
  }

  /// A document with its problem's place marked by `‸` (see `Marked`), and what the validator says there.
  struct Case: Sendable, CustomTestStringConvertible {
    let document: Marked
    let rule: String
    let pointer: String
    let message: String
    var testDescription: String { "\(rule) \(pointer)" }

    init(document: String, rule: String, pointer: String, message: String) {
      self.document = Marked(document)
      (self.rule, self.pointer, self.message) = (rule, pointer, message)
    }
  }

  static let cases: [Case] = [
    Case(
      document: #"‸{"_schema": "sample@1.0.0", "id": "S-1", "count": 3, "price": 1}"#, rule: "required", pointer: "",
      message: "missing required field \"name\""),
    Case(
      document: with(#"‸"qty": 1"#), rule: "unknown-field", pointer: "/qty", message: "unknown field \"qty\""),
    Case(
      document: with(#""ratio": ‸"x""#), rule: "type", pointer: "/ratio",
      message: "expected a number, found the string \"x\""),
    Case(
      document: with(#""count": ‸-3"#).replacingOccurrences(of: #""count": 3, "#, with: ""), rule: "min",
      pointer: "/count", message: "-3 is less than the minimum 0"),
    Case(
      document: with(#""color": ‸"blue""#), rule: "enum", pointer: "/color",
      message: "\"blue\" is not one of \"red\", \"green\""),
    Case(
      document: with(#""day": ‸"2026-02-30""#), rule: "date", pointer: "/day", message: "\"2026-02-30\" is not a date"),
    Case(
      document: with(#""at": ‸"2026-02-01T10:00:00""#), rule: "datetime", pointer: "/at",
      message: "not an RFC 3339 datetime with an offset"),
    Case(document: with(#""ref": ‸"not-a-uuid""#), rule: "uuid", pointer: "/ref", message: "is not a UUID"),
    Case(
      document: with(#""flag": ‸"yes""#), rule: "type", pointer: "/flag", message: "expected true or false"),
    Case(
      document: with(#""tags": ‸[]"#), rule: "min_items", pointer: "/tags", message: "at least 1 required"),
    Case(
      document: with(#""tags": ‸["a", "b", "c"]"#), rule: "max_items", pointer: "/tags", message: "at most 2 allowed"),
    Case(
      document: with(#""lines": [{"sku": "x", "quantity": 1}, {"sku": ‸"x", "quantity": 0}]"#), rule: "unique",
      pointer: "/lines/1/sku", message: "duplicate sku=\"x\" (also at lines[0])"),
    Case(
      document: with(#""extra": {"k": ‸1.5}"#), rule: "type", pointer: "/extra/k",
      message: "expected an integer, found 1.5"),
    Case(document: with(#""note": ‸5"#), rule: "type", pointer: "/note", message: "expected a string"),
    Case(
      document: with(#""kind_of": "A", "body": {‸"b": "x"}"#), rule: "unknown-field", pointer: "/body/b",
      message: "unknown field \"b\""),
    Case(
      document: with(#""kind_of": ‸"C", "body": {}"#), rule: "enum", pointer: "/kind_of",
      message: "\"C\" is not one of \"A\", \"B\""),
    Case(
      document: with(#""body": ‸{"a": 1}"#), rule: "one_of", pointer: "/body", message: "kind_of is missing"),
    Case(
      document: with(#""flag": ‸true"#), rule: "rule", pointer: "/flag", message: "a flagged sample needs a day"),
  ]

  @Test(arguments: cases)
  func findsTheExactProblem(_ c: Case) throws {
    let (value, map) = try JSONParser().parseWithSourceMap(Array(c.document.text.utf8))
    let findings = Validator(schema: Self.schema).validate(value)
    let finding = try #require(findings.first { $0.rule == c.rule }, "\(findings)")
    #expect(finding.pointer.description == c.pointer)
    #expect(finding.message.contains(c.message), "\(finding.message)")
    let position = finding.atKey ? map.keyPosition(finding.pointer) : map.valuePosition(finding.pointer)
    #expect(position == c.document.positions.first)
  }

  @Test func priceScaleAndValidDocument() throws {
    #expect(Validator(schema: Self.schema).validate(try JSONParser().parse(Self.valid)).isEmpty)
    let findings = Validator(schema: Self.schema).validate(
      try JSONParser().parse(Self.valid.replacingOccurrences(of: "1.25", with: "1.255")))
    #expect(findings.map(\.rule) == ["scale"])
    let all =
      #"{"_schema": "sample@1.0.0", "id": "S-1", "name": "abcdef", "count": 11, "price": -1, "note": null, "open": {"z": 1}, "lines": [{"sku": "a", "quantity": 2}], "kind_of": "A", "body": {"a": 1}}"#
    #expect(
      Validator(schema: Self.schema).validate(try JSONParser().parse(all)).map(\.rule).sorted() == [
        "max", "max_length", "min",
      ])
  }
}

/// Diagnostics are placed through one index of the text (`SourcePositionIndex`), not a scan from
/// the start per diagnostic: every position must still be the one a scan finds.
struct DiagnosticPositionTests {
  static let schema = try! compile(
    """
    kind: crowd
    version: 1.0.0
    directory: crowds
    fields:
      id: string
      items: {type: list, of: item}
      text: {type: json_string, of: {type: list, of: {type: integer, min: 0}}, optional: true}
    types:
      item:
        fields:
          label: string
          quantity: {type: integer, min: 1}
    """)

  /// A document with `count` items each `quantity: 0` and a json_string with `count` findings
  /// inside its text (written with escapes), each finding's place marked; on one line or many.
  static func document(count: Int, oneLine: Bool) -> Marked {
    let separator = oneLine ? ", " : ",\n  "
    let items = (0..<count).map { i in
      #"{"label": "é😀\u00e9 \#(i)", "quantity": ‸0}"#
    }
    let inner = (0..<count).map { i in
      [#"‸-\#(i + 1)"#, #"‸\"\\u00e9\""#, #"‸\"\u00e9😀\""#, "\(i)"][i % 4]
    }
    return Marked(
      #"{"_schema": "crowd@1.0.0", "id": "C-1","# + (oneLine ? " " : "\n  ") + #""items": ["#
        + items.joined(separator: separator) + "]," + (oneLine ? " " : "\n  ") + #""text": "["#
        + inner.joined(separator: ", ") + #"]"}"# + "\n")
  }

  @Test(arguments: [false, true])
  func manyDiagnosticsAreEachWhereTheirValueIs(oneLine: Bool) throws {
    let marked = Self.document(count: 600, oneLine: oneLine)
    let bytes = Array(marked.text.utf8)
    let findings = Validator(schema: Self.schema).validate(try JSONParser().parse(bytes))
    #expect(findings.count == marked.positions.count)
    let placed = Diagnostic.placed(findings, in: bytes, file: "c.json")
    let positions = placed.compactMap(\.position)
    #expect(positions.count == findings.count)
    #expect(positions.sorted() == marked.positions.sorted())
  }

  /// The index answers exactly as a scan from the start does, at every offset of texts with line
  /// breaks, multi-byte scalars and lines longer than its blocks.
  @Test func indexAnswersAsAScanDoes() {
    var rng = SeededGenerator(state: 7)
    let pieces = ["a", "\n", "é", "😀", "\r\n", "    ", String(repeating: "x", count: 70), "\u{7FF}"]
    for _ in 0..<40 {
      let text = (0..<Int.random(in: 0...40, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
      let bytes = Array(text.utf8)
      let index = SourcePositionIndex(bytes)
      var scalars = 0
      for offset in 0...(bytes.count + 2) {
        let scanned = bytes.withUnsafeBufferPointer { SourcePosition.of(offset: offset, in: $0) }
        #expect(index.position(of: offset) == scanned, "offset \(offset) of \(text.debugDescription)")
        #expect(index.scalarIndex(of: offset) == scalars, "offset \(offset) of \(text.debugDescription)")
        if offset < bytes.count, bytes[offset] & 0xC0 != 0x80 { scalars += 1 }
      }
    }
  }
}

extension String {
  func replacingOccurrences(of target: String, with replacement: String) -> String {
    components(separatedBy: target).joined(separator: replacement)
  }

  func components(separatedBy separator: String) -> [String] {
    var parts: [String] = []
    var rest = Substring(self)
    while let range = rest.firstRange(of: separator) {
      parts.append(String(rest[..<range.lowerBound]))
      rest = rest[range.upperBound...]
    }
    parts.append(String(rest))
    return parts
  }
}
