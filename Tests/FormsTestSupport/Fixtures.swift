import FormsCore
import FormsYAML
import Foundation

/// A fixture that is itself wrong (a descriptor with errors, a golden file re-recorded): the test
/// that uses it fails with this message.
public struct FixtureError: Error, CustomStringConvertible {
  public let description: String

  public init(_ description: String) { self.description = description }
}

/// Compiles a descriptor from text (`includes` by name); any diagnostic is an error.
public func compile(_ text: String, includes: [String: String] = [:]) throws -> Schema {
  guard let root = try YAMLReader().read(text) else { throw FixtureError("the descriptor is empty") }
  let result = DescriptorCompiler.compile(root, file: "test.yaml") { name in
    guard let included = includes[name], let node = try YAMLReader().read(included) else {
      throw YAMLError(message: "no such file", position: SourcePosition(line: 1, column: 1))
    }
    return (name, node)
  }
  guard result.diagnostics.isEmpty, let schema = result.schema else {
    throw FixtureError("the descriptor has errors: \(result.diagnostics.map(\.compilerStyle))")
  }
  return schema
}

/// Text with positions marked in it by `‸` (each before the character it points at), so a test
/// names a line and column by pointing rather than by counting: `"[1, ‸x]"` marks line 1, column 5.
public struct Marked: Sendable {
  /// The text without its markers.
  public let text: String
  /// Where each marker was, in order: the 1-based line and column (in characters) of what follows it.
  public let positions: [SourcePosition]

  public static let marker: Character = "‸"

  public init(_ marked: String) {
    var (text, positions, line, column) = ("", [SourcePosition](), 1, 1)
    for character in marked {
      if character == Self.marker {
        positions.append(SourcePosition(line: line, column: column))
        continue
      }
      text.append(character)
      if character == "\n" { (line, column) = (line + 1, 1) } else { column += 1 }
    }
    (self.text, self.positions) = (text, positions)
  }

  /// The only marked position.
  public var position: SourcePosition { positions[0] }
}

/// A store at `dir` of `count` documents of kind `item` (`data/items/i0.json`...) at 1.0.0, and a
/// version 2.0.0 whose changes rename `qty` to `quantity` and add `unit: EA`, then `extraChange`
/// (a line of the `changes:` list).
public func itemStore(_ dir: String, count: Int, extraChange: String = "") throws {
  try writeFile("formsctl: 1\n", to: dir + "/formsctl.yaml")
  try writeFile(
    "kind: item\nversion: 1.0.0\ndirectory: items\nfields:\n  id: string\n  qty: integer\n  note: string\n",
    to: dir + "/schemas/item/1.0.0.yaml")
  try writeFile(
    """
    kind: item
    version: 2.0.0
    from: 1.0.0
    directory: items
    fields:
      id: string
      quantity: integer
      note: string
      unit: string
    changes:
      - rename: {from: qty, to: quantity}
      - add: {field: unit, value: EA}

    """ + extraChange, to: dir + "/schemas/item/2.0.0.yaml")
  try FileManager.default.createDirectory(atPath: dir + "/data/items", withIntermediateDirectories: true)
  for k in 0..<count {
    try writeFile(
      "{\n  \"_schema\": \"item@1.0.0\",\n  \"id\": \"i\(k)\",\n  \"note\": \"item number \(k)\",\n  \"qty\": \(k)\n}\n",
      to: dir + "/data/items/i\(k).json")
  }
}

/// Every value's pointer in `value`, the value itself first, depth first.
public func allPointers(_ value: JSONValue, at pointer: JSONPointer = .root) -> [JSONPointer] {
  switch value {
  case .object(let object):
    return [pointer] + object.members.flatMap { allPointers($0.value, at: pointer.appending($0.key)) }
  case .array(let elements):
    return [pointer] + elements.indices.flatMap { allPointers(elements[$0], at: pointer.appending(index: $0)) }
  default: return [pointer]
  }
}
