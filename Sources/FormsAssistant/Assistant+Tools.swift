import FormsCore
import FormsStore
import Foundation

/// A JSON object from its members, in order.
func object(_ members: KeyValuePairs<String, JSONValue>) -> JSONValue { .object(JSONObject(members)) }

/// A JSON Schema of one property.
func property(_ type: String, _ description: String) -> JSONValue {
  object(["type": .string(type), "description": .string(description)])
}

/// An object schema that takes `properties` and no other member.
func inputSchema(_ properties: KeyValuePairs<String, JSONValue>, required: [String]) -> JSONValue {
  object([
    "type": .string("object"), "properties": object(properties), "required": .array(required.map(JSONValue.string)),
    "additionalProperties": .bool(false),
  ])
}

let kindProperty = property("string", "The kind (list_kinds names them), e.g. form or purchase-order.")
let idProperty = property(
  "string", "The document's id, or a unique prefix of 4 or more characters (no / and no ..).")
let applyProperty = property(
  "boolean", "Write it. Without apply (the default) this is a dry run: every check, the plan, nothing written.")

extension Assistant {
  /// The tools: the general ones, then a check and a create for each kind, whose `document`
  /// schema is the kind's own (generated from its newest descriptor).
  static func tools(for registry: SchemaRegistry) -> [AssistantTool] {
    var tools = [listKinds, query, get]
    for kind in registry.kinds {
      guard let schema = registry.latest(kind) else { continue }
      tools += [check(schema), create(schema)]
    }
    return tools + [update, transition, delete, planRename]
  }

  static let listKinds = AssistantTool(
    name: "list_kinds",
    description: "List the kinds of documents in the store: each kind's fields (type, enum values, optional), "
      + "id field, workflow states and moves, relations, and the resource URIs of its descriptor.",
    inputSchema: inputSchema([:], required: []), readOnly: true
  ) { assistant, _ in
    Answer(object(["kinds": .array(assistant.store.registry.kinds.compactMap(assistant.describe))]))
  }

  static let query = AssistantTool(
    name: "query",
    description: "List the documents of a kind that match filter expressions (as formsctl list --where), "
      + "sorted (as --sort: a path, a leading - for descending). Unknown fields are answered with the "
      + "fields there are. Sealed values read «encrypted». Example where: status == \"draft\" and "
      + "created_date >= \"2026-10-01\".",
    inputSchema: inputSchema(
      [
        "kind": kindProperty,
        "where": object([
          "type": .string("array"), "items": object(["type": .string("string")]),
          "description": .string(
            "Filter expressions, all of which must hold, e.g. status in [\"draft\", \"in_review\"]."),
        ]),
        "sort": object([
          "type": .string("array"), "items": object(["type": .string("string")]),
          "description": .string("Sort keys: a field path, a leading - for descending, e.g. -created_date."),
        ]),
        "limit": object([
          "type": .string("integer"), "minimum": .number(JSONNumber(1)), "maximum": .number(JSONNumber(queryLimit)),
          "description": .string("At most this many documents (default and most: \(queryLimit))."),
        ]),
        "offset": object([
          "type": .string("integer"), "minimum": .number(JSONNumber(0)),
          "description": .string("Skip this many matches first."),
        ]),
      ], required: ["kind"]), readOnly: true
  ) { assistant, arguments throws(AssistantError) in
    let kind = try arguments.required("kind")
    _ = try assistant.schema(kind)
    let versions = assistant.store.registry.schemas(of: kind)
    var filters: [FilterExpression] = []
    for (k, text) in try arguments.strings("where").enumerated() {
      let expression: FilterExpression
      do throws(ExpressionError) {
        expression = try ExpressionParser.parse(text)
      } catch {
        throw .badArguments("where #\(k + 1) at column \(error.column): \(error.message): \(text)")
      }
      if let problem = expression.pathProblem(in: versions) { throw .badArguments("where #\(k + 1): \(problem)") }
      filters.append(expression)
    }
    var sort: [(path: FilterExpression.Path, descending: Bool)] = []
    for key in try arguments.strings("sort") {
      let descending = key.hasPrefix("-")
      guard let path = FilterExpression.Path(descending ? String(key.dropFirst()) : key) else {
        throw .badArguments("sort \(key): not a field path")
      }
      if let problem = Schema.pathProblem(path, in: versions) { throw .badArguments("sort \(key): \(problem)") }
      sort.append((path, descending))
    }
    let limit = try arguments.int("limit", in: 1...queryLimit) ?? queryLimit
    let offset = try arguments.int("offset", in: 0...Int(Int32.max)) ?? 0
    let store = assistant.store
    let matches = try storeCall { () throws(StoreError) in
      try store.list(kind: kind, query: Store.Query(filters: filters, sort: sort, offset: offset, limit: limit + 1))
    }
    let page = Array(matches.documents.prefix(limit))
    try assistant.recordShown(page, kind: kind)
    var answer = JSONObject()
    answer["kind"] = .string(kind)
    answer["documents"] = .array(page.map { object(["id": .string($0.id), "document": assistant.shown($0)]) })
    answer["more"] = .bool(matches.documents.count > limit)
    if !matches.skipped.isEmpty {
      answer["skipped"] = .array(
        matches.skipped.map { object(["path": .string(assistant.shown(path: $0.path)), "reason": .string($0.reason)]) })
    }
    return Answer(.object(answer))
  }

  static let get = AssistantTool(
    name: "get",
    description: "Read one document, or the values at one field path of it (e.g. fields.items[0].quantity). "
      + "Sealed values read «encrypted» unless the server was started with --allow-sealed.",
    inputSchema: inputSchema(
      [
        "kind": kindProperty, "id": idProperty,
        "field": property("string", "A field path, e.g. status or items[0].quantity; without it, the whole document."),
      ], required: ["kind", "id"]), readOnly: true
  ) { assistant, arguments throws(AssistantError) in
    let kind = try arguments.required("kind")
    _ = try assistant.schema(kind)
    let id = try assistant.id(try arguments.required("id"), kind: kind)
    let field = try arguments.string("field").map { text throws(AssistantError) in
      guard let path = FilterExpression.Path(text) else { throw .badArguments("field \(text): not a field path") }
      return path
    }
    let store = assistant.store
    let values = try storeCall { () throws(StoreError) in try store.shownValues(kind: kind, id: id, field: field) }
    var answer = JSONObject()
    answer["kind"] = .string(kind)
    answer["id"] = .string(id)
    answer["uri"] = .string(ResourceURI.document(kind: kind, id: id))
    if field == nil { answer["document"] = values.first ?? .null } else { answer["values"] = .array(values) }
    return Answer(.object(answer))
  }

  /// `check_KIND`: the diagnostics `formsctl validate` gives for a draft, by JSON Pointer; nothing written.
  static func check(_ schema: Schema) -> AssistantTool {
    AssistantTool(
      name: "check_" + schema.kind,
      description: "Check a draft \(schema.kind) (\(schema.title ?? schema.kind)) without writing it: the "
        + "diagnostics formsctl validate gives, each with its JSON Pointer, rule and message. The "
        + "document's schema is the kind's own; _schema may be left out.",
      inputSchema: draftInput(schema, apply: false), readOnly: true
    ) { assistant, arguments throws(AssistantError) in
      let kind = schema.kind
      let current = try assistant.schema(kind)
      var document = try assistant.draft(arguments, schema: current)
      var id = document[current.idField].flatMap(DocumentID.text)
      if id == nil, current.root.fields[current.idField]?.type.kind == .uuid {
        id = assistant.store.configuration.makeUUID()
        document[current.idField] = .string(id ?? "")
      }
      let store = assistant.store
      var findings: [Finding] = []
      if let id, DocumentID.isValid(id) {
        let path = try storeCall { () throws(StoreError) in try store.path(kind: kind, id: id) }
        findings = store.findings(for: document, schema: current, path: path)
      } else {
        findings = Validator(schema: current).validate(document)
        if id == nil {
          findings.append(
            Finding(
              pointer: JSONPointer(tokens: [current.idField]), rule: "required",
              message: "missing required field \"\(current.idField)\" (the document's id)"))
        } else if let id {
          findings.append(
            Finding(pointer: JSONPointer(tokens: [current.idField]), rule: "id", message: DocumentID.problem(id)))
        }
      }
      // What validate judges of the document's `_approvals` (signatures, roles, the chain its
      // state needs), as StoreValidator judges them: copied or forged approvals are not valid.
      if current.approvals != nil, let id, DocumentID.isValid(id) {
        findings +=
          ApprovalReview(
            document, schema: current, kind: kind, id: id, roles: store.layout.roles,
            references: store.registry.references(kind)
          ).findings
      }
      var answer = JSONObject()
      answer["kind"] = .string(kind)
      answer["valid"] = .bool(findings.isEmpty)
      answer["diagnostics"] = .array(findings.map { Assistant.json($0) })
      return Answer(.object(answer))
    }
  }

}

extension Assistant {
  /// The `document` argument of a check or create: an object, `_schema` filled when left out.
  func draft(_ arguments: Arguments, schema: Schema) throws(AssistantError) -> JSONValue {
    guard var document = try arguments.object("document") else {
      throw .badArguments("\(arguments.tool): the argument \"document\" is required")
    }
    if document["_schema"] == nil { document["_schema"] = .string(schema.reference) }
    return .object(document)
  }

  /// A document as tools show it: values still sealed read «encrypted».
  func shown(_ document: Store.Document) -> JSONValue { store.shown(document) }

  /// Records the sealed values `documents` show opened (only with --allow-sealed can any be).
  func recordShown(_ documents: [Store.Document], kind: String) throws(AssistantError) {
    let entries = documents.compactMap { store.access($0, kind: kind) }
    try storeCall { () throws(StoreError) in try store.recordAccess(entries) }
  }

  /// A change plan: what is deleted, rewritten, and what blocks it.
  func json(_ plan: Store.ChangePlan, applied: Bool) -> JSONValue {
    func entries(_ list: [Store.ChangePlan.Entry]) -> JSONValue {
      .array(
        list.map {
          object([
            "kind": .string($0.kind), "id": .string($0.id), "path": .string(shown(path: $0.path)),
            "reason": .string($0.reason),
          ])
        })
    }
    var answer = JSONObject()
    answer["applied"] = .bool(applied)
    answer["deletes"] = entries(plan.deletes)
    answer["rewrites"] = entries(plan.rewrites)
    answer["blockers"] = entries(plan.blockers)
    if !applied { answer["note"] = .string("a plan: nothing written") }
    return .object(answer)
  }

  /// A kind as `list_kinds` describes it.
  func describe(_ kind: String) -> JSONValue? {
    guard let schema = store.registry.latest(kind) else { return nil }
    var answer = JSONObject()
    answer["kind"] = .string(kind)
    if let title = schema.title { answer["title"] = .string(title) }
    answer["version"] = .string(schema.version.description)
    answer["versions"] = .array(store.registry.versions(kind).map { .string($0.description) })
    answer["id_field"] = .string(schema.idField)
    answer["fields"] = .array(
      schema.root.fieldOrder.compactMap { name in schema.root.fields[name] }.map { field in
        var described = JSONObject()
        described["name"] = .string(field.name)
        described["type"] = .string(field.type.name ?? field.type.kind.rawValue)
        described["optional"] = .bool(field.optional || field.defaultValue != nil)
        if !field.type.values.isEmpty { described["values"] = .array(field.type.values.map(JSONValue.string)) }
        if let description = field.description { described["description"] = .string(description) }
        if field.sensitive { described["sensitive"] = .bool(true) }
        if field.immutable { described["immutable"] = .bool(true) }
        return .object(described)
      })
    if let workflow = schema.workflow {
      answer["workflow"] = object([
        "field": .string(workflow.field),
        "moves": .object(
          JSONObject(
            workflow.transitions.keys.sorted().map {
              JSONObject.Member(key: $0, value: .array((workflow.transitions[$0] ?? []).map(JSONValue.string)))
            })),
      ])
    }
    if !schema.relations.isEmpty {
      answer["relations"] = .array(
        schema.relations.map {
          object(["field": .string($0.field), "kind": .string($0.kind), "on_delete": .string("\($0.onDelete)")])
        })
    }
    answer["descriptor"] = .string(ResourceURI.descriptor(kind: kind))
    answer["tools"] = .array([JSONValue.string("check_" + kind), .string("create_" + kind)])
    return .object(answer)
  }

  /// A check's or create's input: `document` held to the kind's JSON Schema (its named types
  /// hoisted to the input's `$defs`, where its references point), `_schema` and a generated id
  /// not required; with `apply`, the dry-run switch.
  static func draftInput(_ schema: Schema, apply: Bool) -> JSONValue {
    let exported = JSONSchemaExporter(draft: .draft2020).export(schema)
    var document = exported.objectValue ?? JSONObject()
    let definitions = document["$defs"]
    for name in ["$defs", "$schema", "$id"] { document[name] = nil }
    let generated = schema.root.fields[schema.idField]?.type.kind == .uuid ? [schema.idField] : []
    let required = (document["required"]?.arrayValue ?? []).filter {
      guard let name = $0.stringValue else { return true }
      return name != "_schema" && !generated.contains(name)
    }
    document["required"] = .array(required)
    document["description"] = .string(
      "The \(schema.kind) document (\(schema.reference))"
        + (generated.isEmpty ? "." : "; \(schema.idField) is generated when left out."))
    var properties = JSONObject()
    properties["document"] = .object(document)
    if apply { properties["apply"] = applyProperty }
    var input = JSONObject()
    input["type"] = .string("object")
    input["properties"] = .object(properties)
    input["required"] = .array([.string("document")])
    input["additionalProperties"] = .bool(false)
    if let definitions { input["$defs"] = definitions }
    return .object(input)
  }
}
