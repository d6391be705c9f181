/// Documents as a spreadsheet (CSV) and back: the shape `list --format csv --explode` writes and
/// `import` reads.
///
/// One row per element of the exploded list, the document's fields repeated on each (one row
/// with empty element cells for an empty list); objects flattened into dotted columns; the header
/// names each column by its field path. Cells per ``CSVColumn``; an unquoted empty cell is no
/// value, a quoted one (`""`) empty text. Rows end with LF; a field is quoted when it is empty
/// text or holds a comma, a quote, CR or LF.
public enum CSVDocuments {
  /// The column of an export that names the file each row was exported from (the SHA-256 of its
  /// bytes): read back, a row's edits apply while the stored file is still that one.
  public static let baseColumn = "_hash"

  /// The members of the list `explode` names (`items`, `outputs.projections`, a trailing `[]`
  /// allowed), or why it names no list of `schema`.
  public static func explodedList(_ text: String, in schema: Schema) -> Result<[String], CSVColumnProblem> {
    let trimmed = text.hasSuffix("[]") ? String(text.dropLast(2)) : text
    guard let path = FilterExpression.Path(trimmed), !path.steps.isEmpty else {
      return .failure(.init("\(text) is not a field path"))
    }
    if let problem = Schema.pathProblem(path, in: [schema]) { return .failure(.init(problem)) }
    let members = path.steps.compactMap { if case .member(let name) = $0 { name } else { nil } }
    guard members.count == path.steps.count else {
      return .failure(.init("\(text): name the list by its fields (outputs.projections), without [] or indexes"))
    }
    var through = schema.root
    for (index, member) in members.enumerated() {
      if through.kind == .oneOf || through.kind == .map || through.kind == .any {
        let path = FilterExpression.Path(steps: members[..<index].map { .member($0) })
        let lists = explodableLists(schema.root, under: [])
        return .failure(
          .init(
            "\(CSVColumn.jsonCell(path, through.kind)), and the lists inside it stay in that cell; "
              + (lists.isEmpty
                ? "\(schema.kind) has no list that explodes"
                : "the lists that explode: "
                  + lists.joined(separator: ", "))))
      }
      guard let field = through.alternatives.lazy.compactMap({ $0.fields[member] }).first else { break }
      through = field.type
    }
    guard let type = schema.root.type(at: members), type.kind == .list else {
      return .failure(.init("\(text) is not a list; --explode takes a list field (one row per element)"))
    }
    return .success(members)
  }

  /// The lists `--explode` takes: list fields reached through objects the schema declares only.
  static func explodableLists(_ type: SchemaType, under members: [String]) -> [String] {
    guard type.kind == .object else { return [] }
    return type.fieldOrder.flatMap { name -> [String] in
      guard let field = type.fields[name]?.type else { return [] }
      return field.kind == .list
        ? [(members + [name]).joined(separator: ".")] : explodableLists(field, under: members + [name])
    }
  }

  /// Every column `documents` need to come back whole: the id first, then each member in
  /// code-point order (as in the files), objects the schema declares flattened into their
  /// members, and under the exploded list every field its elements have or declare.
  public static func columns(of documents: [JSONValue], schema: Schema, explode list: [String]?) -> [CSVColumn] {
    var found = Set<[String]>()
    var paths: [FilterExpression.Path] = []
    func add(_ steps: [FilterExpression.Path.Step]) {
      let key = steps.map { if case .member(let name) = $0 { "." + name } else { "[]" } }
      if found.insert(key).inserted { paths.append(FilterExpression.Path(steps: steps)) }
    }
    func flattens(_ type: SchemaType?, _ value: JSONValue) -> Bool {
      guard let type, type.kind == .object, !type.additional, case .object(let object) = value else { return false }
      return !object.isEmpty
    }
    func leaves(_ value: JSONValue, _ type: SchemaType?, _ steps: [FilterExpression.Path.Step], _ rest: [String]?) {
      if let rest, rest.isEmpty {
        let element = type?.element
        for item in value.arrayValue ?? [] {
          if flattens(element, item) {
            leaves(item, element, steps + [.each], nil)
          } else if element?.kind != .object || item.objectValue == nil {
            add(steps + [.each])
          }
        }
        return
      }
      guard flattens(type, value), case .object(let object) = value, let type else { return add(steps) }
      for member in object.members {
        let next = rest.flatMap { $0.first == member.key ? Array($0.dropFirst()) : nil }
        leaves(member.value, type.fields[member.key]?.type, steps + [.member(member.key)], next)
      }
    }
    for document in documents { leaves(document, schema.root, [], list) }
    if let list, let element = schema.root.type(at: list)?.element {
      let base = list.map { FilterExpression.Path.Step.member($0) } + [.each]
      if element.kind == .object && !element.additional {
        for name in element.fieldOrder where !found.contains(list.map { "." + $0 } + ["[]", "." + name]) {
          // A declared object member is flattened only when some element holds it.
          if element.fields[name]?.type.kind == .object && element.fields[name]?.type.additional == false { continue }
          add(base + [.member(name)])
        }
      } else if !found.contains(list.map { "." + $0 } + ["[]"]) {
        add(base)
      }
    }
    let id = FilterExpression.Path(steps: [.member(schema.idField)])
    paths.sort { a, b in
      if (a == id) != (b == id) { return a == id }
      return a.steps.lexicographicallyPrecedes(b.steps) { x, y in
        switch (x, y) {
        case (.member(let m), .member(let n)): return m.unicodeScalars.lexicographicallyPrecedes(n.unicodeScalars)
        case (.each, .member): return true
        default: return false
        }
      }
    }
    return paths.compactMap { try? CSVColumn.resolve($0.description, path: $0, in: schema).get() }
  }

  /// The CSV text of `documents` under `columns`: a header, then a row per document, or per
  /// element of the list `explode` names.
  public static func write(_ documents: [JSONValue], columns: [CSVColumn], explode list: [String]?) -> String {
    var out = line(columns.map { ($0.name, false) })
    for document in documents {
      let shared = columns.map { column in
        column.list == nil ? column.field(of: column.path.values(in: document)) : nil
      }
      let listed = list.map { members in FilterExpression.Path(steps: members.map { .member($0) }) }?.values(
        in: document
      ).first
      if listed == .string(SealedText.placeholder) {
        // A sealed list (no key): one row whose element cells read «encrypted», never empty
        // cells, which would read back as an empty list.
        out += line(
          zip(columns, shared).map { column, value in
            column.list == nil ? value ?? ("", false) : (SealedText.placeholder, false)
          })
        continue
      }
      let elements = list.map { _ in listed?.arrayValue ?? [] }
      guard let elements, !elements.isEmpty else {
        out += line(shared.map { $0 ?? ("", false) })
        continue
      }
      for element in elements {
        let cells = zip(columns, shared).map { column, value -> (text: String, quoted: Bool)? in
          guard column.list != nil else { return value }
          return column.field(of: FilterExpression.Path(steps: column.element.map { .member($0) }).values(in: element))
        }
        out += line(cells.map { $0 ?? ("", false) })
      }
    }
    return out
  }

  /// One CSV line: each field quoted when `quoted` (empty text, a nullable field's text `null`) or when it holds `,` `"` CR or LF.
  public static func line(_ fields: [(text: String, quoted: Bool)]) -> String {
    fields.map { field in
      guard field.quoted || field.text.utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D })
      else { return field.text }
      return "\"" + String(field.text.flatMap { $0 == "\"" ? ["\"", "\""] : [$0] }) + "\""
    }.joined(separator: ",") + "\n"
  }
}
