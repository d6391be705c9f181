import FormsCore
import Testing

@testable import FormsYAML

struct YAMLReaderTests {
  func read(_ text: String) throws(YAMLError) -> YAMLNode { try YAMLReader().read(text)! }

  func error(_ text: String) -> YAMLError? {
    do {
      _ = try YAMLReader().read(text)
      return nil
    } catch {
      return error
    }
  }

  @Test func positionsAreOneBased() throws {
    let node = try read("kind: form\nfields:\n  id: uuid\n")
    #expect(node.position == SourcePosition(line: 1, column: 1))
    #expect(node["fields"]?.position == SourcePosition(line: 3, column: 3))
    #expect(node["fields"]?["id"]?.position == SourcePosition(line: 3, column: 7))
  }

  @Test(arguments: [
    ("yes", YAMLScalar.Value.string("yes")), ("no", .string("no")), ("on", .string("on")), ("off", .string("off")),
    ("0755", .string("0755")), ("0x1F", .string("0x1F")), ("1_000", .string("1_000")), (".inf", .string(".inf")),
    ("true", .bool(true)), ("False", .bool(false)), ("~", .null), ("null", .null), ("", .null),
    ("12", .number(JSONNumber(unchecked: "12"))), ("-1.50", .number(JSONNumber(unchecked: "-1.50"))),
    ("'true'", .string("true")), ("\"12\"", .string("12")), ("1e3", .number(JSONNumber(unchecked: "1e3"))),
  ])
  func coreScalars(_ text: String, _ expected: YAMLScalar.Value) throws {
    let node = try read("value: \(text)\n")
    #expect(node["value"]?.scalar?.value == expected)
  }

  @Test(arguments: [
    ("a: 1\na: 2\n", 2, 1, "duplicate key \"a\" (first at 1:1)"),
    ("base: &b {x: 1}\nother:\n  <<: *b\n", 3, 3, "merge keys"),
    ("x: !!python/object:os.system ls\n", 1, 4, "tag !!python/object:os.system is not supported"),
    ("x: !custom 1\n", 1, 4, "tag !custom is not supported"),
    ("a: 1\n---\nb: 2\n", 2, 1, "more than one YAML document"),
    ("a:\n\tb: 1\n", 2, 1, "tab"),
    ("a: *missing\n", 1, 4, "unknown alias *missing"),
    ("a: [1, 2\n", 2, 1, "did not find expected ',' or ']'"),
  ])
  func hazardsRefusedWithPosition(_ text: String, _ line: Int, _ column: Int, _ message: String) throws {
    let found = try #require(self.error(text))
    #expect(found.position == SourcePosition(line: line, column: column), "\(found)")
    #expect(found.message.contains(message), "\(found.message)")
  }

  @Test func invalidUTF8() throws {
    let bytes = Array("a: caf".utf8) + [0xE9] + Array("\n".utf8)
    do {
      _ = try YAMLReader().read(bytes)
      Issue.record("accepted")
    } catch {
      #expect(error.message.contains("not valid UTF-8"))
      #expect(error.position == SourcePosition(line: 1, column: 7))
    }
  }

  @Test func aliasBombRefusedQuickly() throws {
    var text = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    var previous = "a"
    for name in ["b", "c", "d", "e", "f", "g", "h", "i"] {
      text += "\(name): &\(name) [" + Array(repeating: "*\(previous)", count: 10).joined(separator: ", ") + "]\n"
      previous = name
    }
    #expect(text.utf8.count < 1000)
    let clock = ContinuousClock()
    let elapsed = clock.measure { #expect(error(text)?.message.contains("alias bomb") == true) }
    #expect(elapsed < .seconds(1))
  }

  @Test func smallAliasesAreFine() throws {
    let node = try read("base: &b {type: string}\nname: *b\n")
    #expect(node["name"]?["type"]?.string == "string")
  }

  @Test(arguments: ["flow", "block"])
  func deepNestingRefusedQuickly(_ style: String) throws {
    let text: String
    if style == "flow" {
      text = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
    } else {
      text = String(repeating: "- ", count: 100_000) + "x\n"
    }
    let clock = ContinuousClock()
    var found: YAMLError?
    let elapsed = clock.measure { found = error(text) }
    #expect(found?.message.contains("nesting deeper than 128") == true, "\(String(describing: found))")
    #expect(elapsed < .seconds(1))
  }

  @Test func toJSON() throws {
    let node = try read("a: [1, 'x', null]\nb: {c: true}\n")
    #expect(try node.jsonValue() == JSONParser().parse(#"{"a": [1, "x", null], "b": {"c": true}}"#))
  }

  @Test func emptyStreamHasNoDocument() throws {
    #expect(try YAMLReader().read("# only a comment\n") == nil)
  }
}
