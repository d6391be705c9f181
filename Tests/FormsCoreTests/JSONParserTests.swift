import FormsTestSupport
import Foundation
import Testing

@testable import FormsCore

struct JSONParserTests {
  struct BadInput: CustomTestStringConvertible, Sendable {
    let name: String
    let bytes: [UInt8]
    let line: Int
    let column: Int
    let message: String
    var testDescription: String { name }
  }

  static let badInputs: [BadInput] = [
    BadInput(
      name: "not UTF-8", bytes: Array("{\"a\": \"caf".utf8) + [0xE9] + Array("\"}".utf8), line: 1, column: 11,
      message: "invalid UTF-8"),
    BadInput(
      name: "BOM", bytes: [0xEF, 0xBB, 0xBF] + Array("{}".utf8), line: 1, column: 1, message: "byte order mark"),
    BadInput(name: "empty", bytes: [], line: 1, column: 1, message: "the file is empty"),
    BadInput(
      name: "cut off", bytes: Array("{\n  \"a\": [1,\n".utf8), line: 3, column: 1, message: "unexpected end of file"),
    BadInput(
      name: "duplicate key", bytes: Array("{\n  \"a\": 1,\n  \"a\": 2\n}".utf8), line: 3, column: 3,
      message: "duplicate key \"a\" (first at 2:3)"),
    BadInput(name: "trailing comma", bytes: Array("[1, 2,]".utf8), line: 1, column: 7, message: "trailing comma"),
    BadInput(
      name: "trailing comma in object", bytes: Array("{\"a\": 1,}".utf8), line: 1, column: 9, message: "trailing comma"),
    BadInput(
      name: "comment", bytes: Array("{\n// note\n}".utf8), line: 2, column: 1, message: "comments are not allowed"),
    BadInput(name: "NaN", bytes: Array("[NaN]".utf8), line: 1, column: 2, message: "NaN"),
    BadInput(name: "leading zero", bytes: Array("{\"n\": 012}".utf8), line: 1, column: 7, message: "leading zeros"),
    BadInput(name: "single quotes", bytes: Array("['a']".utf8), line: 1, column: 2, message: "double quotes"),
    BadInput(
      name: "lone surrogate", bytes: Array("[\"\\ud800\"]".utf8), line: 1, column: 3, message: "lone high surrogate"),
    BadInput(name: "UTF-16", bytes: [0xFF, 0xFE, 0x5B, 0x00, 0x5D, 0x00], line: 1, column: 1, message: "UTF-16"),
    BadInput(
      name: "control character", bytes: Array("[\"a\tb\"]".utf8), line: 1, column: 4,
      message: "control character U+0009"),
    BadInput(name: "two values", bytes: Array("{} {}".utf8), line: 1, column: 4, message: "after the end"),
    BadInput(
      name: "columns count characters", bytes: Array("{\"é\": x}".utf8), line: 1, column: 7, message: "unexpected 'x'"),
  ]

  @Test(arguments: badInputs)
  func refusesWithPosition(_ input: BadInput) {
    do {
      _ = try JSONParser().parse(input.bytes)
      Issue.record("accepted")
    } catch {
      #expect(error.location == SourcePosition(line: input.line, column: input.column))
      #expect(error.message.contains(input.message), "\(error.message)")
    }
  }

  @Test func duplicateKeyNamesBothPositions() throws {
    let marked = Marked(#"{‸"b": 1, "a": 2, ‸"b": 3}"#)
    let error = try #require(throws: JSONParseError.self) { try JSONParser().parse(marked.text) }
    #expect(error.location == marked.positions[1])
    #expect(error.related == marked.positions[0])
  }

  @Test func nestingLimitIsAnErrorNotACrash() {
    let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
    #expect(throws: JSONParseError.self) { try JSONParser().parse(deep) }
    let ok = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
    #expect((try? JSONParser().parse(ok)) != nil)
    let tooDeep = String(repeating: "{\"a\":", count: 513) + "1" + String(repeating: "}", count: 513)
    let error = try? #require(throws: JSONParseError.self) { try JSONParser().parse(tooDeep) }
    #expect(error?.message.contains("nesting deeper than 512") == true)
  }

  @Test(arguments: ["12.50", "-0", "1e400", "12345678901234567890", "1E+2", "-1.5e-10", "0.000"])
  func numbersKeepTheirText(_ text: String) throws {
    let value = try JSONParser().parse("[\(text)]")
    #expect(value == .array([.number(JSONNumber(unchecked: text))]))
    #expect(JSONWriter.compact(value) == "[\(text)]")
  }

  @Test func stringsDecodeEscapes() throws {
    let value = try JSONParser().parse(#"["a\"b\\c\/d\n\u00e9\ud83d\ude00", "€"]"#)
    #expect(value == .array([.string("a\"b\\c/d\né😀"), .string("€")]))
  }

  @Test func nfcAndNfdKeysAreDistinct() throws {
    let value = try JSONParser().parse("{\"\u{e9}\": 1, \"e\u{301}\": 2}")
    #expect(value.objectValue?.count == 2)
  }

  @Test func sourceMapFindsValuesAndKeys() throws {
    // Markers: the object of items/1, its key "quantity", the value -3.
    let marked = Marked(
      """
      {
        "items": [
          {"quantity": 5},
          ‸{‸"quantity": ‸-3, "sku": "é"}
        ],
        "name": "x"
      }
      """)
    let (value, map) = try JSONParser().parseWithSourceMap(Array(marked.text.utf8))
    let pointer = JSONPointer("/items/1/quantity")!
    #expect(value[pointer: pointer] == .number(JSONNumber(unchecked: "-3")))
    #expect(map.valuePosition(pointer) == marked.positions[2])
    #expect(map.keyPosition(pointer) == marked.positions[1])
    #expect(map.valuePosition(JSONPointer("/items/1/missing")!) == marked.positions[0])
    #expect(map.valuePosition(.root) == SourcePosition(line: 1, column: 1))
  }
}

struct JSONNumberTests {
  @Test(arguments: [
    ("1", "1.0", 0), ("12.50", "12.5", 0), ("1e2", "100", 0), ("-0", "0", 0), ("1e400", "1e399", 1),
    ("-1", "1", -1), ("-2", "-10", 1), ("0.1", "0.01", 1), ("12345678901234567890", "12345678901234567891", -1),
    ("1.5e-3", "0.0015", 0), ("-1e400", "5", -1), ("123.45", "0", 1), ("-0.0", "0", 0), ("-1.5", "-1.25", -1),
    ("10.01", "9.99", 1), ("0.10", "0.1", 0), ("-0.001", "0", -1), ("2.5", "2.50001", -1),
    ("99999999999999999999.5", "1", 1),
  ])
  func comparesExactly(_ a: String, _ b: String, _ expected: Int) {
    let result = JSONNumber(a)!.compare(JSONNumber(b)!)
    #expect(result.rawValue == expected)
  }

  @Test func accessors() {
    #expect(JSONNumber("5")!.intValue == 5)
    #expect(JSONNumber("5.0")!.intValue == 5)
    #expect(JSONNumber("1e3")!.intValue == 1000)
    #expect(JSONNumber("5.5")!.intValue == nil)
    #expect(JSONNumber("12345678901234567890")!.intValue == nil)
    #expect(JSONNumber("12.50")!.scale == 1)
    #expect(JSONNumber("12.55")!.scale == 2)
    #expect(JSONNumber("01") == nil)
    #expect(JSONNumber("1.") == nil)
  }
}

struct JSONPointerTests {
  @Test func parsesAndEscapes() throws {
    let pointer = try #require(JSONPointer("/a~1b/m~0n/0"))
    #expect(pointer.tokens == ["a/b", "m~n", "0"])
    #expect(pointer.description == "/a~1b/m~0n/0")
    #expect(JSONPointer("a") == nil)
    #expect(JSONPointer("/a~2") == nil)
    #expect(JSONPointer("")! == .root)
  }

  @Test func readablePath() {
    #expect(JSONPointer("/items/2/unit_price")!.path == "items[2].unit_price")
    #expect(JSONPointer("/a b")!.path == "[\"a b\"]")
    #expect(JSONPointer.root.path == "")
  }

  @Test func resolves() throws {
    let value = try JSONParser().parse(#"{"a": [{"b": true}], "": 1}"#)
    #expect(value[pointer: JSONPointer("/a/0/b")!] == .bool(true))
    #expect(value[pointer: JSONPointer("/")!] == .number(JSONNumber(1)))
    #expect(value[pointer: JSONPointer("/a/01")!] == nil)
    #expect(value[pointer: JSONPointer("/a/5")!] == nil)
  }
}
