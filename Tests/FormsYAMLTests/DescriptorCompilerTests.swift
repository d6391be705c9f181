import FormsCore
import FormsTestSupport
import Foundation
import Testing

@testable import FormsYAML

struct DescriptorCompilerTests {
  func problems(_ text: String) throws -> [String] {
    let root = try #require(try YAMLReader().read(text))
    let result = DescriptorCompiler.compile(root, file: "d.yaml") { _ in
      throw YAMLError(message: "no such file", position: SourcePosition(line: 1, column: 1))
    }
    return result.diagnostics.map { "\($0.position!.line):\($0.position!.column): \($0.message)" }
  }

  static let header = "kind: thing\nversion: 1.0.0\n"

  @Test(arguments: [
    ("fields:\n  id: string\n  n: {type: intger}\n", "5:13: unknown type \"intger\"; did you mean \"integer\"?"),
    (
      "fields:\n  id: string\n  n: {type: integer, minimum: 0}\n",
      "5:22: unknown key \"minimum\" in field \"n\" of type integer; did you mean \"min\"?"
    ),
    (
      "fields:\n  id: {type: string, pattern: '([a-z'}\n",
      "4:31: pattern ([a-z is not a valid regular expression (ECMA-262, JSON Schema's dialect): unterminated character class at character 2"
    ),
    (
      "fields:\n  id: {type: string, pattern: '^(a)\\1$'}\n",
      "4:31: pattern ^(a)\\1$ is not supported: a backreference (\\1) at character 5 (formsctl matches patterns exactly as ECMA-262, JSON Schema's dialect, does)"
    ),
    (
      "fields:\n  id: string\n  n: {type: integer, min: 0, default: -1}\n",
      "5:39: the default -1 breaks its own constraints: -1 is less than the minimum 0"
    ),
    (
      "fields:\n  id: string\n  a: one\ntypes:\n  one:\n    fields:\n      b: two\n  two:\n    fields:\n      c: one\n",
      "7:3: named types form a cycle: one → two → one"
    ),
    (
      "fields:\n  id: string\n  t: {type: enum, values: [A]}\n  f: {one_of: {by: t, cases: {A: missing_type}}}\n",
      "6:34: one_of case A names the type \"missing_type\", which is not defined"
    ),
    (
      "fields:\n  id: string\n  s: string\nrules:\n  - require: 's =! \"x\"'\n",
      "7:17: invalid expression in require: unexpected '='; compare with '=='"
    ),
    (
      "fields:\n  id: string\nrelations:\n  - {field: nope, kind: other}\n",
      "6:13: relation field \"nope\" is not among the fields"
    ),
    ("fields:\n  id: string\nfeilds: {}\n", "5:1: unknown key \"feilds\" in the descriptor; did you mean \"fields\"?"),
    ("fields:\n  name: string\n", "1:1: the id field \"id\" is not among the fields"),
    (
      "fields:\n  id: string\nchanges:\n  - rename: {from: a, to: b}\n",
      "6:3: changes need a `from:` version to start from"
    ),
    (
      "fields:\n  id: string\nfrom: 1.0.0\nchanges:\n  - renam: {from: a, to: b}\n",
      "7:5: unknown key \"renam\" in changes; did you mean \"rename\"?"
    ),
    (
      "fields:\n  id: string\ntypes:\n  item: {timestamps: {updated: changed}, fields: {k: integer}}\n",
      "6:32: timestamp field \"changed\" is not among the fields"
    ),
    (
      "fields:\n  id: string\ntypes:\n  item: {timestamps: {updated: k}, fields: {k: integer}}\n",
      "6:32: timestamp field \"k\" must be a datetime or a date"
    ),
    (
      "fields:\n  id: string\ntypes:\n  item: {timestamp: {updated: k}, fields: {k: date}}\n",
      "6:10: unknown key \"timestamp\" in an object type; did you mean \"timestamps\"?"
    ),
    (
      "fields:\n  id: string\n  updated: datetime\norder: -updatd\n",
      "6:8: order: unknown field \"updatd\"; did you mean \"updated\"?"
    ),
    (
      "fields:\n  id: string\norder: [id, {a: 1}]\n",
      "5:13: order takes a field path (-path for descending), or a list of them"
    ),
    (
      "fields:\n  id: string\n  j: {type: json_string}\n",
      "5:6: a json_string needs `of:`, the type of the JSON its text holds"
    ),
    (
      "fields:\n  id: string\n  note: string\neditable: [nte]\n",
      "6:12: editable: unknown field \"nte\"; did you mean \"note\"?"
    ),
    (
      "fields:\n  id: string\n  note: string\neditable: ['note[+]']\n",
      "6:12: editable: note[+] adds to a list, but note is not one"
    ),
    // A type named before it is written is whole when a default or a unique key is checked against it.
    (
      "fields:\n  id: string\ntypes:\n  a: {fields: {m: {type: b, default: -1}}}\n  b: {type: decimal, min: 0}\n",
      "6:38: the default -1 breaks its own constraints: -1 is less than the minimum 0"
    ),
    (
      "fields:\n  id: string\ntypes:\n  a: {fields: {l: {type: list, of: line, unique: sku}}}\n  line: {fields: {code: string}}\n",
      "6:50: unique key \"sku\" is not a field of line"
    ),
  ])
  func reportsWithPosition(_ body: String, _ expected: String) throws {
    let found = try problems(Self.header + body)
    #expect(found.contains(expected), "\(found)")
  }

  @Test func orderCompilesToSortKeys() throws {
    let root = try #require(
      try YAMLReader().read(Self.header + "fields:\n  id: string\n  n: integer\norder: [-n, id]\n"))
    let schema = try #require(
      DescriptorCompiler.compile(root, file: "d.yaml") { _ in
        throw YAMLError(message: "", position: SourcePosition(line: 1, column: 1))
      }.schema)
    #expect(schema.order.map { ($0.descending ? "-" : "") + $0.path.description } == ["-n", "id"])
  }

  @Test func hazardsInDescriptorsAreYAMLErrors() {
    #expect(throws: YAMLError.self) { try YAMLReader().read(Self.header + "fields:\n  id: string\n  id: integer\n") }
  }

  @Test func shorthandIncludeAndOneOf() throws {
    let schema = try compile(
      Self.header + """
        include: shared.yaml
        fields:
          id: uuid
          when: date?
          money: amount
          kind_of: {type: enum, values: [A]}
          body: {one_of: {by: kind_of, cases: {A: a_body}}}
        types:
          a_body: {fields: {x: integer}}
        """, includes: ["shared.yaml": "types:\n  amount: {type: decimal, min: 0, scale: 2}\n"])
    #expect(schema.root.fields["when"]?.optional == true)
    #expect(schema.root.fields["money"]?.type.kind == .decimal)
    #expect(schema.root.fields["money"]?.type.scale == 2)
    #expect(schema.root.fields["body"]?.type.cases["A"]?.name == "a_body")
    #expect(schema.root.requiredFields == ["id", "money", "kind_of", "body"])
  }

  @Test func aNamedTypeDeclaresItsOwnTimestamps() throws {
    let schema = try compile(
      Self.header + """
        timestamps: {updated: changed}
        fields:
          id: string
          changed: datetime
          items: {type: list, of: item}
        types:
          item: {timestamps: {created: added, updated: changed}, fields: {added: datetime?, changed: date}}
        """)
    #expect(schema.root.timestamps == Schema.Timestamps(updated: "changed"))
    #expect(schema.namedTypes["item"]?.timestamps == Schema.Timestamps(created: "added", updated: "changed"))
    #expect(schema.root.fields["items"]?.type.element?.timestamps.updated == "changed")
  }
}

/// Named types are built whole, each after the types it names, whatever order they are written in.
struct NamedTypeTests {
  @Test func builtInTheOrderTheyNameEachOther() throws {
    let schema = try compile(
      DescriptorCompilerTests.header + """
        fields:
          id: string
          order: order_type
        types:
          order_type: {fields: {lines: {type: list, of: line, unique: sku}}}
          line: {fields: {sku: string, amount: money, quantity: {type: count, default: 1}}}
          money: amount
          amount: {type: decimal, min: 0, scale: 2}
          count: {type: integer, min: 1}
        """)
    let line = try #require(schema.namedTypes["line"])
    let money = try #require(schema.namedTypes["money"])
    #expect(schema.root.fields["order"]?.type === schema.namedTypes["order_type"])
    #expect(schema.namedTypes["order_type"]?.fields["lines"]?.type.element === line)
    #expect(line.fields["amount"]?.type === money)
    #expect(line.requiredFields == ["sku", "amount"])
    #expect(line.fields["quantity"]?.defaultValue == .number(JSONNumber(1)))
    #expect(money.name == "money" && money.kind == .decimal && money.scale == 2)
    #expect(schema.namedTypes["amount"]?.name == "amount")
  }

  /// A descriptor's types and its includes' are one set of names: an included type may name one
  /// the descriptor writes.
  @Test func includedTypesMayNameTheDescriptorsTypes() throws {
    let schema = try compile(
      DescriptorCompilerTests.header + """
        include: shared.yaml
        fields:
          id: string
          price: priced
        types:
          currency: {type: enum, values: [USD, EUR]}
        """, includes: ["shared.yaml": "types:\n  priced: {fields: {amount: decimal, currency: currency}}\n"])
    #expect(schema.namedTypes["priced"]?.fields["currency"]?.type === schema.namedTypes["currency"])
  }

  /// A cycle is reported once, at the type it starts from, whether its types are objects or aliases.
  @Test(arguments: [
    ("types:\n  a: b\n  b: a\n", "6:3: named types form a cycle: a → b → a"),
    (
      "types:\n  b: {fields: {x: a}}\n  a: {fields: {y: {type: list, of: b}}}\n",
      "7:3: named types form a cycle: a → b → a"
    ),
    ("types:\n  a: {one_of: {by: k, cases: {A: a}}}\n", "6:3: named types form a cycle: a → a"),
  ])
  func cyclesAreReportedOnce(_ types: String, _ expected: String) throws {
    let found = try DescriptorCompilerTests().problems(
      DescriptorCompilerTests.header + "fields:\n  id: string\n" + types)
    #expect(found == [expected])
  }
}

/// docs/descriptors.md names every key the compiler accepts.
struct DescriptorReferenceTests {
  @Test func everyAcceptedKeyIsDocumented() throws {
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
      .appendingPathComponent("docs/descriptors.md").path
    let text = try String(contentsOfFile: path, encoding: .utf8)
    let keys =
      DescriptorCompiler.topLevelKeys + DescriptorCompiler.fieldKeys
      + DescriptorCompiler.constraintKeys.values.flatMap { $0 }
      + SchemaType.Kind.allCases.map(\.rawValue) + [
        "created", "updated", "by", "cases", "on_delete", "transitions", "when", "require", "message",
      ]
    let missing = Set(keys).filter { !text.contains("`\($0)`") }.sorted()
    #expect(missing.isEmpty, "not in docs/descriptors.md: \(missing)")
  }
}
