import Testing

@testable import FormsCore

struct ChangeOpTests {
  static func op(_ json: String) throws -> ChangeOp { try ChangeOp.parse(JSONParser().parse(json)) }
  static func doc(_ json: String) throws -> JSONValue { try JSONParser().parse(json) }

  @Test(arguments: [
    (
      #"{"rename": {"from": "formNumber", "to": "form_number"}}"#, #"{"formNumber": "SF 30", "n": 12.50}"#,
      #"{"form_number": "SF 30", "n": 12.50}"#
    ),
    (#"{"add": {"field": "currency", "value": "USD"}}"#, #"{"a": 1}"#, #"{"a": 1, "currency": "USD"}"#),
    (#"{"add": {"field": "copy", "copy": "a"}}"#, #"{"a": [1e400]}"#, #"{"a": [1e400], "copy": [1e400]}"#),
    (
      #"{"map": {"field": "status", "values": {"Draft": "draft", "Approved": "approved"}}}"#,
      #"{"status": "Approved"}"#, #"{"status": "approved"}"#
    ),
    (
      #"{"move": {"from": "createdBy", "to": "metadata.created_by"}}"#, #"{"createdBy": "jo"}"#,
      #"{"metadata": {"created_by": "jo"}}"#
    ),
    (
      #"{"move": {"from": "metadata.createdBy", "to": "metadata.created_by"}}"#,
      #"{"metadata": {"createdBy": "jo", "x": 1}}"#, #"{"metadata": {"created_by": "jo", "x": 1}}"#
    ),
    (#"{"convert": {"field": "a", "to": "object"}}"#, #"{"a": "{\"k\":[1,2.50]}"}"#, #"{"a": {"k": [1, 2.50]}}"#),
    (#"{"convert": {"field": "n", "to": "number"}}"#, #"{"n": "12.50"}"#, #"{"n": 12.50}"#),
    (
      #"{"each": {"list": "items", "changes": [{"rename": {"from": "qty", "to": "quantity"}}]}}"#,
      #"{"items": [{"qty": 1}, {"qty": 2}]}"#, #"{"items": [{"quantity": 1}, {"quantity": 2}]}"#
    ),
    (
      #"{"each": {"list": "invoices", "changes": [{"each": {"list": "receipts", "changes": [{"rename": {"from": "q", "to": "quantity"}}]}}]}}"#,
      #"{"invoices": [{"receipts": [{"q": 1}]}, {"receipts": []}]}"#,
      #"{"invoices": [{"receipts": [{"quantity": 1}]}, {"receipts": []}]}"#
    ),
  ])
  func appliesAndInverts(_ step: String, _ input: String, _ expected: String) throws {
    let change = try Self.op(step)
    var document = try Self.doc(input)
    try change.apply(to: &document, runJQ: nil)
    #expect(document == (try Self.doc(expected)))
    // Values the step does not touch keep their exact text.
    #expect(JSONWriter.canonicalString(document) == JSONWriter.canonicalString(try Self.doc(expected)))
    let inverse = try #require(change.inverse, "\(change) should be invertible")
    try inverse.apply(to: &document, runJQ: nil)
    if case .add = change { return }  // add's inverse removes; the rest give back the input exactly
    #expect(document == (try Self.doc(input)))
  }

  @Test(arguments: [
    (#"{"remove": {"field": "x"}}"#, "remove x"), (#"{"jq": ".a = 1"}"#, "jq .a = 1"),
    (#"{"map": {"field": "s", "values": {"A": "x", "B": "x"}}}"#, "map s"),
    (#"{"convert": {"field": "d", "to": "date"}}"#, "convert d to date"),
  ])
  func notInvertible(_ step: String, _ description: String) throws {
    let change = try Self.op(step)
    #expect(change.inverse == nil)
    #expect(change.description == description)
  }

  @Test(arguments: [
    (
      #"{"rename": {"from": "a", "to": "b"}}"#, #"{}"#,
      "a is missing (add `if_present: true` to skip documents without it)"
    ),
    (#"{"rename": {"from": "a", "to": "b"}}"#, #"{"a": 1, "b": 2}"#, "b already exists; not overwriting it"),
    (
      #"{"map": {"field": "s", "values": {"A": "a"}}}"#, #"{"s": "Z"}"#,
      "s \"Z\" has no mapping (add it to values, or `keep_unmapped: true`)"
    ),
    (#"{"convert": {"field": "n", "to": "number"}}"#, #"{"n": "twelve"}"#, "n \"twelve\" is not a number"),
    (#"{"convert": {"field": "j", "to": "object"}}"#, #"{"j": "nope"}"#, "j is not a JSON object or list in a string"),
    (
      #"{"each": {"list": "items", "changes": [{"remove": {"field": "x"}}]}}"#, #"{"items": [{"x": 1}, {}]}"#,
      "items[1]: x is missing (add `if_present: true` to skip documents without it)"
    ),
  ])
  func failuresSayWhatAndHow(_ step: String, _ input: String, _ message: String) throws {
    var document = try Self.doc(input)
    #expect(throws: MigrationError(message)) { try Self.op(step).apply(to: &document, runJQ: nil) }
  }

  @Test(arguments: [
    (
      #"{"renam": {"from": "a", "to": "b"}}"#,
      "unknown operation \"renam\" (rename, add, remove, map, move, convert, each, jq)"
    ),
    (#"{"rename": {"from": "a"}}"#, "rename needs `to:`, a field name or dotted path"),
    (
      #"{"rename": {"from": "a", "to": "b", "iff_present": true}}"#,
      "rename has no option `iff_present` (it takes from, to, if_present)"
    ),
    (
      #"{"convert": {"field": "a", "to": "blob"}}"#,
      "convert needs `to:` object, json, number, string, date or datetime"
    ),
  ])
  func badStepsAreRefused(_ step: String, _ message: String) {
    #expect(throws: MigrationError(message)) { try Self.op(step) }
  }
}
