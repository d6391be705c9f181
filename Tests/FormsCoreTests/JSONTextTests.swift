import FormsCore
import Testing

struct JSONTextTests {
  func set(_ value: JSONValue, _ path: [String], in text: String) throws -> String {
    String(decoding: try JSONText.setting(value, at: path, in: Array(text.utf8)), as: UTF8.self)
  }

  @Test func aValueIsReplacedInPlaceAndEverythingElseKept() throws {
    let text = "{\n  // a comment\n  \"a\": {\"b\": [1, 2,], /* c */ \"x\": 1},\n  \"z\": true,\n}\n"
    #expect(
      try set(.number(JSONNumber(3)), ["a", "b"], in: text)
        == "{\n  // a comment\n  \"a\": {\"b\": 3, /* c */ \"x\": 1},\n  \"z\": true,\n}\n")
  }

  @Test func missingMembersAreInsertedAfterTheLastOne() throws {
    #expect(try set(.bool(true), ["a", "b"], in: "") == "{\n  \"a\": {\n    \"b\": true\n  }\n}\n")
    #expect(
      try set(.bool(true), ["k"], in: "{\n  \"x\": 1, // last\n}\n") == "{\n  \"x\": 1, // last\n  \"k\": true\n}\n")
    #expect(try set(.bool(true), ["k"], in: "{\"x\": 1}") == "{\"x\": 1,\n  \"k\": true\n}")
  }

  @Test func textThatIsNotJSONWithCommentsIsRefused() {
    #expect(throws: JSONParseError.self) { try set(.null, ["a"], in: "{\"a\": }") }
    #expect(throws: JSONParseError.self) { try set(.null, ["a", "b"], in: "{\"a\": 1}") }
  }

  @Test func theCursorIsPlacedInDocumentsThatDoNotParse() {
    let text = Array("{\"items\": [{\"qty\": 1, \"na".utf8)
    let end = JSONText.context(in: text, at: text.count)
    #expect(end.role == .key && end.pointer.description == "/items/0" && end.prefix == "na")
    let value = Array("{\"status\": \"dr\", \"x\": ".utf8)
    let inStatus = JSONText.context(in: value, at: 14)
    #expect(inStatus.role == .value && inStatus.pointer.description == "/status" && inStatus.prefix == "dr")
    #expect(inStatus.text == "dr" && inStatus.token == 11..<15)
    let after = JSONText.context(in: value, at: value.count)
    #expect(after.role == .value && after.pointer.description == "/x" && after.token == nil)
    #expect(JSONText.valueEnd(in: Array("{\"a\": [1, \"]\"]} x".utf8), from: 0) == 15)
  }
}
