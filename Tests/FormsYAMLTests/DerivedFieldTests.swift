import FormsCore
import FormsTestSupport
import Foundation
import Testing

/// `derived:` in a descriptor: a quick-access field equal to a value it copies, often from inside
/// a `json_string` field's text (a forecast's `intrinsicValue` beside its `outputsJSON`).
struct DerivedFieldTests {
  static let fields = """
    fields:
      id: string
      outputsJSON: {type: json_string, of: outputs}
      intrinsicValue: number?
      label: string?
    types:
      outputs: {fields: {intrinsic_value: number, name: string?}}

    """

  static let descriptor =
    DescriptorCompilerTests.header + fields + """
      derived:
        - {field: intrinsicValue, from: outputsJSON.intrinsic_value}
        - {field: label, from: outputsJSON.name, message: the label is the outputs' name}

      """

  func findings(_ document: String) throws -> [String] {
    let schema = try compile(Self.descriptor)
    return Validator(schema: schema).validate(try JSONParser().parse(Array(document.utf8))).map {
      "\($0.pointer): \($0.message) [\($0.rule)]"
    }
  }

  @Test func aCopyThatDisagreesIsReportedAtItsPlace() throws {
    let outputs = #""outputsJSON": "{\"intrinsic_value\": 455.0, \"name\": \"base\"}""#
    #expect(try findings(#"{"id": "f", \#(outputs), "intrinsicValue": 455, "label": "base"}"#).isEmpty)
    #expect(try findings(#"{"id": "f", \#(outputs)}"#).isEmpty, "an absent copy is not a wrong one")
    #expect(
      try findings(#"{"id": "f", \#(outputs), "intrinsicValue": null}"#).allSatisfy { !$0.hasSuffix("[derived]") },
      "null is a type finding of its own, not a wrong copy")
    #expect(
      try findings(#"{"id": "f", \#(outputs), "intrinsicValue": 1.0, "label": "bear"}"#) == [
        "/intrinsicValue: 1.0 differs from outputsJSON.intrinsic_value, which is 455.0 [derived]",
        "/label: the label is the outputs' name [derived]",
      ])
  }

  @Test func aTextThatDoesNotParseIsReportedOnceByItsOwnField() throws {
    let found = try findings(#"{"id": "f", "outputsJSON": "{nope", "intrinsicValue": 1}"#)
    #expect(found.count == 1 && found[0].hasPrefix("/outputsJSON") && !found[0].contains("[derived]"), "\(found)")
  }

  @Test(arguments: [
    ("derived: {field: a}\n", "10:10: derived must be a list of {field, from, message}"),
    ("derived:\n  - {field: intrinsicValue}\n", "11:5: a derived field needs `from:`"),
    (
      "derived:\n  - {field: intrinsicValu, from: outputsJSON.intrinsic_value}\n",
      "11:13: field: intrinsicValu: unknown field \"intrinsicValu\"; did you mean \"intrinsicValue\"?"
    ),
    (
      "derived:\n  - {field: intrinsicValue, from: outputsJSON.intrinsic_valu}\n",
      "11:35: from: outputsJSON.intrinsic_valu: unknown field \"outputsJSON.intrinsic_valu\"; did you mean \"outputsJSON.intrinsic_value\"?"
    ),
    (
      "derived:\n  - {field: intrinsicValue, from: label.x}\n",
      "11:35: from: label.x: label is a string, which has no fields"
    ),
    ("derived:\n  - {field: intrinsicValue, from: outputsJSON.intrinsic_value, by: 1}\n", "unknown key \"by\""),
  ])
  func badDeclarationsAreDescriptorErrors(declaration: String, message: String) throws {
    let text = DescriptorCompilerTests.header + Self.fields + declaration
    let problems = try DescriptorCompilerTests().problems(text)
    #expect(problems.contains { $0.hasPrefix(message) || $0.contains(message) }, "\(problems)")
  }

  @Test func theExportNamesTheRuleJSONSchemaCannotState() throws {
    let exported = JSONSchemaExporter(draft: .draft07).export(try compile(Self.descriptor))
    #expect(JSONWriter.compact(exported).contains("intrinsicValue equals outputsJSON.intrinsic_value"))
  }
}
