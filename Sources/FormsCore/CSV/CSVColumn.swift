/// A column of a spreadsheet (CSV) of documents: the field path its header names and how its
/// cells hold values, from the schema.
///
/// Headers are paths of the `--where` language: `status`, `metadata.agency` (a member of an
/// object), `items[].quantity` (a member of each element of the exploded list), `tags[]` (each
/// element of an exploded list of scalars). Cells of text fields hold the text; numbers their
/// exact JSON text; booleans `true` or `false`; lists, maps, `one_of` and `any` values compact JSON.
public struct CSVColumn: Sendable {
  /// How a cell holds a value.
  public enum Cell: Sendable, Equatable {
    /// string, date, datetime, uuid, enum: the text itself.
    case text
    /// integer, decimal, number: the exact JSON number text (no thousands separators).
    case number
    /// `true` or `false`.
    case boolean
    /// Anything else: compact JSON.
    case json
  }

  /// The header.
  public let name: String
  public let path: FilterExpression.Path
  public let cell: Cell
  /// The field may be null: the unquoted cell `null` is null.
  public let nullable: Bool
  /// The field's type, when the schema declares it (what a text cell is checked against).
  public let type: SchemaType?
  /// The members before `[]` when the path goes through the exploded list (`items` of `items[].quantity`).
  public let list: [String]?
  /// The members after `[]` (`quantity` of `items[].quantity`; none for `tags[]`).
  public let element: [String]
  /// The members of a document-level column.
  public var members: [String] {
    path.steps.compactMap { if case .member(let name) = $0 { name } else { nil } }
  }

  /// The column `name` reading `path` of documents of `schema`, or why it cannot be one: a step
  /// that is not a field (with a did-you-mean), an index, two `[]`, a member computed on reading.
  public static func resolve(_ name: String, path: FilterExpression.Path, in schema: Schema) -> Result<
    CSVColumn, CSVColumnProblem
  > {
    var type: SchemaType? = schema.root
    var nullable = false
    var list: [String]?
    var members: [String] = []
    for (index, step) in path.steps.enumerated() {
      switch step {
      case .index:
        return .failure(.init("\(path) picks one element; a column reads every element ([]), or a field"))
      case .each:
        guard list == nil else {
          return .failure(.init("\(path) goes through two lists; a spreadsheet explodes one list"))
        }
        guard let current = type, current.kind == .list || current.kind == .any else {
          return .failure(.init("\(FilterExpression.Path(steps: Array(path.steps[..<index]))) is not a list"))
        }
        list = members
        members = []
        type = current.kind == .list ? current.element : nil
      case .member(let field):
        members.append(field)
        if index == 0 && field.hasPrefix("_") {
          if Schema.computedMemberNames.contains(field) {
            return .failure(.init("\(field) is computed when a document is read, never stored; drop the column"))
          }
          // `_schema` is the one stored member the export writes that no schema declares; any
          // other (`_attachments`, `_approvals`, `_foo`) would be dropped on import.
          // `_hash`: the SHA-256 of the file a row was exported from (``CSVDocuments/baseColumn``),
          // read back as the version the row's edits apply to; never stored.
          guard field == "_schema" || field == CSVDocuments.baseColumn else { return .failure(.unknown(path)) }
          type = SchemaType(kind: .string)
          continue
        }
        guard let current = type else { continue }
        switch current.kind {
        case .any, .map, .oneOf:
          // The export keeps such a field as one JSON cell; a member column would replace it whole.
          let cell = jsonCell(FilterExpression.Path(steps: Array(path.steps[..<index])), current.kind)
          return .failure(.init("\(cell): a column may not reach inside it"))
        case .object where current.additional && current.fields[field] == nil: type = nil
        default:
          guard let found = current.alternatives.lazy.compactMap({ $0.fields[field] }).first else {
            return .failure(.unknown(path))
          }
          type = found.type
          nullable = found.nullable
        }
      }
    }
    let cell: Cell
    switch type?.kind {
    case .string, .date, .datetime, .uuid, .enumeration, .jsonString: cell = .text
    case .integer, .decimal, .number: cell = .number
    case .boolean: cell = .boolean
    default: cell = .json
    }
    return .success(
      CSVColumn(
        name: name, path: path, cell: cell, nullable: nullable, type: type, list: list,
        element: list == nil ? [] : members))
  }

  /// What the field at `path`, of `kind` (a `one_of`, a map, `any`), is in a spreadsheet: one JSON
  /// cell, which no column reaches inside.
  static func jsonCell(_ path: FilterExpression.Path, _ kind: SchemaType.Kind) -> String {
    let named = kind == .oneOf ? "a one_of" : kind == .map ? "a map" : "any value"
    return "\(path) is one JSON cell (\(named))"
  }

  /// The cell that shows `values` (what the path reads in one document or element): none is no
  /// value (`nil`), several a JSON array; text as it is, numbers as their exact text. `quoted`
  /// where the text must be quoted to read back as it is: empty text, and the text `null` of a
  /// nullable field.
  public func field(of values: [JSONValue]) -> (text: String, quoted: Bool)? {
    guard let value = values.first else { return nil }
    guard values.count == 1 else { return (JSONWriter.compact(.array(values)), false) }
    // A value that stays sealed reads «encrypted» in every column, as `get` shows it; read back,
    // the write path keeps the envelope it stands for.
    if value == .string(SealedText.placeholder) { return (SealedText.placeholder, false) }
    switch (cell, value) {
    case (.text, .string(let text)): return (text, text.isEmpty || (nullable && text == "null"))
    case (.number, .number(let number)): return (number.text, false)
    case (.boolean, .bool(let flag)): return (flag ? "true" : "false", false)
    case (_, .null): return ("null", false)
    default: return (JSONWriter.compact(value), false)
    }
  }
}

/// Why a header names no column of a kind.
public struct CSVColumnProblem: Error, Sendable, Equatable {
  public let message: String
  /// The path is not a field (the message then suggests one where a field is close).
  public let unknownPath: FilterExpression.Path?
  init(_ message: String) {
    self.message = message
    unknownPath = nil
  }
  init(unknownPath: FilterExpression.Path, message: String) {
    self.message = message
    self.unknownPath = unknownPath
  }
  static func unknown(_ path: FilterExpression.Path) -> CSVColumnProblem {
    CSVColumnProblem(unknownPath: path, message: "\(path) is not a field")
  }
}
