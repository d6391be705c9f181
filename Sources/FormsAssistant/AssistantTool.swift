import FormsCore
import FormsStore

/// One tool: its name, what it does, its input JSON Schema, and its work.
public struct AssistantTool: Sendable {
  public let name: String
  public let description: String
  /// The input's JSON Schema (an object schema; `additionalProperties` false).
  public let inputSchema: JSONValue
  /// The tool only reads (no write, even with `apply`).
  public let readOnly: Bool
  let run: @Sendable (Assistant, Arguments) throws(AssistantError) -> Assistant.Answer

  /// The argument names the input schema lists, and those it requires.
  var properties: [String] { inputSchema["properties"]?.objectValue?.keys ?? [] }
  var required: [String] { (inputSchema["required"]?.arrayValue ?? []).compactMap(\.stringValue) }
}

/// A tool call's arguments, checked against the tool's names: an unknown or missing argument, or
/// one of the wrong type, is refused with what was expected.
struct Arguments {
  let object: JSONObject
  let tool: String

  init(_ object: JSONObject, tool: AssistantTool) throws(AssistantError) {
    for key in object.keys where !tool.properties.contains(key) {
      throw .badArguments(
        "\(tool.name): no argument \"\(key)\"\(didYouMean(key, among: tool.properties)) "
          + "(arguments: \(tool.properties.joined(separator: ", ")))")
    }
    for key in tool.required where object[key] == nil {
      throw .badArguments("\(tool.name): the argument \"\(key)\" is required")
    }
    self.object = object
    self.tool = tool.name
  }

  func string(_ name: String) throws(AssistantError) -> String? {
    guard let value = object[name] else { return nil }
    guard let text = value.stringValue else {
      throw .badArguments("\(tool): \(name) must be a string, not \(value.typeName)")
    }
    return text
  }

  func required(_ name: String) throws(AssistantError) -> String {
    guard let text = try string(name) else { throw .badArguments("\(tool): the argument \"\(name)\" is required") }
    return text
  }

  func strings(_ name: String) throws(AssistantError) -> [String] {
    guard let value = object[name] else { return [] }
    if let text = value.stringValue { return [text] }
    guard let elements = value.arrayValue else {
      throw .badArguments("\(tool): \(name) must be a string or a list of strings, not \(value.typeName)")
    }
    var texts: [String] = []
    for element in elements {
      guard let text = element.stringValue else {
        throw .badArguments("\(tool): each \(name) must be a string, not \(element.typeName)")
      }
      texts.append(text)
    }
    return texts
  }

  func bool(_ name: String) throws(AssistantError) -> Bool {
    guard let value = object[name] else { return false }
    guard let flag = value.boolValue else { throw .badArguments("\(tool): \(name) must be true or false") }
    return flag
  }

  func int(_ name: String, in range: ClosedRange<Int>) throws(AssistantError) -> Int? {
    guard let value = object[name] else { return nil }
    guard let number = value.numberValue?.intValue, range.contains(number) else {
      throw .badArguments(
        "\(tool): \(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
    }
    return number
  }

  func object(_ name: String) throws(AssistantError) -> JSONObject? {
    guard let value = object[name] else { return nil }
    guard let members = value.objectValue else {
      throw .badArguments("\(tool): \(name) must be a JSON object, not \(value.typeName)")
    }
    return members
  }
}

extension Assistant {
  /// The kind `name` names (an unknown kind is refused with the kinds there are, and a near one).
  func schema(_ kind: String) throws(AssistantError) -> Schema {
    try storeCall { () throws(StoreError) in try store.schema(kind) }
  }

  /// The full id `text` names, checked as the command line checks an id (no `..`, no `/`, not
  /// empty...) and expanded from a unique prefix of 4 or more characters.
  func id(_ text: String, kind: String) throws(AssistantError) -> String {
    guard DocumentID.isValid(text) else { throw .badArguments(DocumentID.problem(text)) }
    return try storeCall { () throws(StoreError) in try store.expand(kind: kind, id: text) }
  }
}
