import ArgumentParser
import FormsCore
import FormsStore

extension Formsctl {
  struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "list",
      abstract: "Query the documents of a kind.",
      discussion: """
        --where takes the expression language of rules: == != < <= > >= (numbers exactly, dates and datetimes as instants), ~ "regex", in [...], exists, and, or, not, parentheses, paths with . and [] (any element). Several --where must all hold.

        Examples:
          formsctl list form --where 'acquisition_id == "ACQ-2026-001"'
          formsctl list form --where 'form_type == "SF1449"' --fields id,status
          formsctl list purchase-order --sort -last_updated --limit 20
          formsctl list forecast --where 'created_at >= "2026-10-01"' --sort ticker
          formsctl list purchase-order --where 'items[].quantity >= 10' --format paths
        """
    )
    enum Format: String, ExpressibleByArgument { case table, json, ndjson, csv, paths }

    @OptionGroup var options: StoreOptions
    @Argument(help: "The kind (formsctl schema list names them).", completion: Completions.kinds) var kind: String?
    @Option(
      name: .customLong("where"), help: ArgumentHelp("A filter expression.", valueName: "EXPR"),
      completion: Completions.paths) var filters: [String] = []
    @Option(
      parsing: .unconditionalSingleValue,
      help: ArgumentHelp("Sort by a path; a leading - sorts descending.", valueName: "[-]PATH"),
      completion: Completions.paths)
    var sort: [String] = []
    @Option(help: "At most this many documents.") var limit: Int?
    @Option(help: "Skip this many documents first.") var offset: Int = 0
    @Option(
      help: ArgumentHelp(
        "Fields to show, comma-separated (table, csv; json and ndjson keep only these).", valueName: "A,B"),
      completion: Completions.paths)
    var fields: String?
    @Option(help: "Output: table, json, ndjson, csv or paths.") var format: Format = .table

    func validate() throws {
      if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
      if offset < 0 { throw ValidationError("--offset must be 0 or more") }
    }

    func run() throws {
      let store = try options.open()
      guard let kind else {
        throw CommandError.usage("name a kind to list: \(store.registry.kinds.joined(separator: ", "))")
      }
      let schema = try store.schema(kind)
      // Every path is checked against the kind (all its versions): a typo is an error, not an empty result.
      let versions = Array((store.registry.schemas[kind] ?? [:]).values)
      var query = Store.Query(
        filters: try parseFilters(filters, kind: kind, store: store), offset: offset, limit: limit)
      for key in sort {
        let descending = key.hasPrefix("-")
        guard let path = Expression.Path(descending ? String(key.dropFirst()) : key) else {
          throw CommandError.usage("--sort \(key): not a field path")
        }
        if let problem = FormsCore.Schema.pathProblem(path, in: versions) {
          throw CommandError.usage("--sort \(key): \(problem)")
        }
        query.sort.append((path, descending))
      }
      if let fields {
        for column in try Self.paths(fields) {
          if let problem = FormsCore.Schema.pathProblem(column.path, in: versions) {
            throw CommandError.usage("--fields \(column.name): \(problem)")
          }
        }
      }
      let (found, skipped) = try store.list(kind: kind, query: query)
      let documents = found.map { Store.Document(path: $0.path, value: store.shown($0), bytes: $0.bytes) }
      if let operation = try Journal(layout: store.layout).pending() {
        printWarning("an interrupted \(operation) awaits `formsctl recover`; what is listed may be half-changed")
      }
      for (path, reason) in skipped {
        printWarning("\(store.display(path)): \(reason); skipped (run formsctl validate)")
      }
      let columns = try fields.map { try Self.paths($0) } ?? Self.defaultColumns(schema)
      let rows = documents.map { document in columns.map { Self.cell($0.path.values(in: document.value)) } }
      switch format {
      case .paths:
        for document in documents { printOut(store.display(document.path)) }
      case .ndjson:
        for document in documents {
          printOut(JSONWriter.compact(Self.project(document.value, fields == nil ? nil : columns)))
        }
      case .json:
        FileHandleOutput.standardOutput.write(
          JSONWriter.canonicalString(.array(documents.map { Self.project($0.value, fields == nil ? nil : columns) })))
      case .csv:
        for row in [columns.map(\.name)] + rows { printOut(row.map(Self.csvField).joined(separator: ",")) }
      case .table:
        let width = FileHandleOutput.standardOutput.isTerminal ? terminalWidth() : nil
        FileHandleOutput.standardOutput.write(
          TextTable.render([columns.map { $0.name.uppercased() }] + rows, width: width))
      }
    }

    static func paths(_ list: String) throws -> [(name: String, path: Expression.Path)] {
      try list.split(separator: ",").map { name in
        guard let path = Expression.Path(String(name)) else {
          throw CommandError.usage("--fields: \(name) is not a field path")
        }
        return (String(name), path)
      }
    }

    /// The id, the workflow field, the updated timestamp, then scalar fields, up to six columns.
    static func defaultColumns(_ schema: FormsCore.Schema) -> [(name: String, path: Expression.Path)] {
      var names = [schema.idField]
      if let workflow = schema.workflow { names.append(workflow.field) }
      for name in schema.root.fieldOrder
      where names.count < 5 && !names.contains(name) && name != schema.timestamps.created {
        let kind = schema.root.fields[name]?.type.kind
        if kind != .list && kind != .object && kind != .map && kind != .oneOf && name != schema.timestamps.updated {
          names.append(name)
        }
      }
      if let updated = schema.timestamps.updated { names.append(updated) }
      return names.map { ($0, Expression.Path(steps: [.member($0)])) }
    }

    static func cell(_ values: [JSONValue]) -> String {
      values.map { value in
        switch value {
        case .string(let s): return s
        case .number(let n): return n.text
        case .null: return ""
        default: return JSONWriter.compact(value)
        }
      }.joined(separator: "; ")
    }

    static func project(_ document: JSONValue, _ columns: [(name: String, path: Expression.Path)]?) -> JSONValue {
      guard let columns else { return document }
      var object = JSONObject()
      for column in columns {
        let values = column.path.values(in: document)
        object[column.name] = values.count == 1 ? values[0] : (values.isEmpty ? .null : .array(values))
      }
      return .object(object)
    }

    static func csvField(_ text: String) -> String {
      guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
      return "\"" + String(text.flatMap { $0 == "\"" ? ["\"", "\""] : [$0] }) + "\""
    }
  }
}
