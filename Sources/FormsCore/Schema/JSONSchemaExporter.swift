/// Writes a schema as JSON Schema (draft-07 or 2020-12) that accepts the documents formsctl accepts.
///
/// Not expressible there, and so left to formsctl: checks across documents (ids, file names,
/// relations), `unique` keys within lists, a decimal's digits after the point (`scale`: formsctl
/// counts the digits as written, and `multipleOf: 0.01` fails on 19.99 in every validator that
/// divides binary floating-point numbers), and rules beyond the shapes `translate` knows (such as
/// one field compared with another); each skipped rule is named in a `$comment`.
public struct JSONSchemaExporter: Sendable {
  /// The JSON Schema dialect written. Draft-07 is what VS Code's JSON language service and
  /// yaml-language-server support fully; nothing formsctl exports needs a later one.
  public enum Draft: String, Sendable, CaseIterable {
    case draft07 = "07"
    case draft2020 = "2020-12"

    /// The `$schema` URI that names the draft.
    public var uri: String {
      switch self {
      case .draft07: "http://json-schema.org/draft-07/schema#"
      case .draft2020: "https://json-schema.org/draft/2020-12/schema"
      }
    }

    /// The draft a schema's `$schema` names, if it is one of these.
    public init?(uri: String) {
      guard let draft = Self.allCases.first(where: { $0.uri == uri }) else { return nil }
      self = draft
    }

    /// Where named types live: `definitions` before 2019-09, `$defs` since.
    var definitions: String { self == .draft07 ? "definitions" : "$defs" }
  }

  public let draft: Draft

  public init(draft: Draft) { self.draft = draft }

  /// `_attachments`: an object of the declared names, each `{sha256, size, type}`.
  func attachmentsSchema(_ attachments: [Schema.Attachment]) -> JSONValue {
    var named = JSONObject()
    for attachment in attachments {
      named[attachment.name] = .object(
        JSONObject([
          "type": .string("object"), "additionalProperties": .bool(false),
          "required": .array(["sha256", "size", "type"].map(JSONValue.string)),
          "properties": .object(
            JSONObject([
              "sha256": .object(JSONObject(["type": .string("string"), "pattern": .string("^[0-9a-f]{64}$")])),
              "size": .object(
                JSONObject([
                  "type": .string("integer"), "minimum": .number(JSONNumber(0)),
                  "maximum": .number(JSONNumber(attachment.maxSize)),
                ])),
              "type": .object(JSONObject(["enum": .array(attachment.types.map(JSONValue.string))])),
            ])),
        ]))
    }
    return .object(
      JSONObject(["type": .string("object"), "additionalProperties": .bool(false), "properties": .object(named)]))
  }

  public func export(_ schema: Schema) -> JSONValue {
    var root = objectSchema(schema.root)
    var properties = root["properties"]?.objectValue ?? JSONObject()
    properties["_schema"] = .object(JSONObject(["const": .string(schema.reference)]))
    if schema.approvals != nil { properties["_approvals"] = .object(JSONObject(["type": .string("array")])) }
    if !schema.attachments.isEmpty { properties["_attachments"] = attachmentsSchema(schema.attachments) }
    root["properties"] = .object(properties)
    var required = root["required"]?.arrayValue ?? []
    required.insert(.string("_schema"), at: 0)
    root["required"] = .array(required)
    root["$schema"] = .string(draft.uri)
    // The file's own name, relative: a validator that registers schemas by `$id` (Ajv, python's
    // `referencing` keyed by each resource's id) finds it under the name `<kind>.schema.json`
    // refers to it by, and one that loads files (check-jsonschema, VS Code) resolves the name
    // against the file's own URI, which is the same file. (`<kind>.schema.json` itself has no
    // `$id`: a relative one at the root would become the base of its references, and
    // check-jsonschema would look for the version files in its working directory.)
    root["$id"] = .string(Self.file(kind: schema.kind, version: schema.version))
    if let title = schema.title { root["title"] = .string(title) }
    var allOf = root["allOf"]?.arrayValue ?? []
    var skipped: [String] = []
    for rule in schema.rules {
      if let translated = translate(rule) { allOf.append(translated) } else { skipped.append(rule.source) }
    }
    skipped += schema.references.map { "\($0.field) is one of \($0.to)" }
    skipped += schema.derived.map { "\($0.field) equals \($0.from)" }
    if !allOf.isEmpty { root["allOf"] = .array(allOf) }
    if !skipped.isEmpty {
      root["$comment"] = .string("rules checked by formsctl only: " + skipped.joined(separator: "; "))
    }
    if !schema.namedTypes.isEmpty {
      var defs = JSONObject()
      for (name, type) in schema.namedTypes { defs[name] = body(type) }
      root[draft.definitions] = .object(defs)
    }
    return .object(root)
  }

  /// The schema for every version of one kind: `_schema` is required and picks the version's
  /// schema (`files` names each, relative to this one); a document without it is held to the
  /// newest, so an editor still completes its fields while it says what is missing.
  public func dispatcher(kind: String, versions: [(schema: Schema, file: String)]) -> JSONValue {
    var cases: [JSONValue] = versions.map { version in
      .object(
        JSONObject([
          "if": .object(
            JSONObject([
              "properties": .object(
                JSONObject(["_schema": .object(JSONObject(["const": .string(version.schema.reference)]))])),
              "required": .array([.string("_schema")]),
            ])),
          "then": .object(JSONObject(["$ref": .string(version.file)])),
        ]))
    }
    if let newest = versions.last {
      cases.append(
        .object(
          JSONObject([
            "if": .object(JSONObject(["not": .object(JSONObject(["required": .array([.string("_schema")])]))])),
            "then": .object(JSONObject(["$ref": .string(newest.file)])),
          ])))
    }
    return .object(
      JSONObject([
        "$schema": .string(draft.uri),
        "title": .string("\(kind) (any version formsctl knows; _schema picks it)"),
        "type": .string("object"),
        "required": .array([.string("_schema")]),
        "properties": .object(
          JSONObject([
            "_schema": .object(JSONObject(["enum": .array(versions.map { .string($0.schema.reference) })]))
          ])),
        "allOf": .array(cases),
      ]))
  }

  /// A calendar date as a pattern says it, for validators that do not check `format`: month
  /// 01-12, day 01-31 (the days of each month are left to `format` and to formsctl).
  static let datePattern = "[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"

  /// The file an export writes a kind's schema to: `<kind>-<version>.schema.json` for one
  /// version, `<kind>.schema.json` for the one that picks the version by `_schema`.
  public static func file(kind: String, version: SemanticVersion? = nil) -> String {
    version.map { "\(kind)-\($0).schema.json" } ?? "\(kind).schema.json"
  }

  func string(_ s: String) -> JSONValue { .string(s) }
  func number(_ n: Int) -> JSONValue { .number(JSONNumber(n)) }

  /// A reference for a named type, else the type's own schema.
  func reference(_ type: SchemaType) -> JSONValue {
    if let name = type.name { return .object(JSONObject(["$ref": .string("#/\(draft.definitions)/\(name)")])) }
    return body(type)
  }

  func body(_ type: SchemaType) -> JSONValue {
    var out = JSONObject()
    switch type.kind {
    case .any: break
    case .string:
      out["type"] = string("string")
      if let n = type.minLength { out["minLength"] = number(n) }
      if let n = type.maxLength { out["maxLength"] = number(n) }
      if let p = type.pattern { out["pattern"] = string(p.source) }
    case .date:
      out["type"] = string("string")
      out["format"] = string("date")
      out["pattern"] = string("^" + Self.datePattern + "$")
    case .datetime:
      out["type"] = string("string")
      out["format"] = string("date-time")
      out["pattern"] = string(
        "^" + Self.datePattern + "[Tt]([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\\.[0-9]+)?"
          + "([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$")
    case .uuid:
      out["type"] = string("string")
      out["format"] = string("uuid")
      out["pattern"] = string("^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$")
    case .enumeration:
      out["type"] = string("string")
      out["enum"] = .array(type.values.map(string))
    case .integer, .decimal, .number:
      out["type"] = string(type.kind == .integer ? "integer" : "number")
      if let m = type.minimum { out["minimum"] = .number(m) }
      if let m = type.maximum { out["maximum"] = .number(m) }
      if let scale = type.scale {
        out["$comment"] = string("at most \(scale) digits after the point, as written (checked by formsctl)")
      }
    case .boolean:
      out["type"] = string("boolean")
    case .list:
      out["type"] = string("array")
      if let element = type.element { out["items"] = reference(element) }
      if let n = type.minItems { out["minItems"] = number(n) }
      if let n = type.maxItems { out["maxItems"] = number(n) }
      if let keys = type.unique {
        out["$comment"] = string("unique by \(keys.joined(separator: ", ")) (checked by formsctl)")
      }
    case .map:
      out["type"] = string("object")
      if let element = type.element { out["additionalProperties"] = reference(element) }
    case .object:
      return .object(objectSchema(type))
    case .oneOf:
      // The case is chosen by a sibling field; the enclosing object adds the if/then for each case.
      out["type"] = string("object")
    case .jsonString:
      out["type"] = string("string")
      out["contentMediaType"] = string("application/json")
      if let element = type.element, draft != .draft07 { out["contentSchema"] = reference(element) }
    }
    return .object(out)
  }

  func objectSchema(_ type: SchemaType) -> JSONObject {
    var out = JSONObject()
    out["type"] = string("object")
    var properties = JSONObject()
    var allOf: [JSONValue] = []
    for name in type.fieldOrder {
      guard let field = type.fields[name] else { continue }
      var property = field.sensitive ? SealedText.jsonSchema : reference(field.type)
      if field.nullable {
        property = .object(JSONObject(["anyOf": .array([property, .object(JSONObject(["type": string("null")]))])]))
      }
      if var object = property.objectValue {
        if let d = field.description { object["description"] = string(d) }
        if let d = field.defaultValue, !field.sensitive { object["default"] = d }
        property = .object(object)
      }
      properties[name] = property
      if field.type.kind == .oneOf, let by = field.type.discriminator {
        allOf += oneOfConditions(field: name, by: by, type: field.type, nullable: field.nullable)
      }
    }
    out["properties"] = .object(properties)
    out["required"] = .array(type.requiredFields.map(string))
    out["additionalProperties"] = .bool(type.additional)
    if !allOf.isEmpty { out["allOf"] = .array(allOf) }
    return out
  }

  /// For a `one_of` field chosen by the sibling `by`: `by` must name a case, and that case applies.
  func oneOfConditions(field: String, by: String, type: SchemaType, nullable: Bool) -> [JSONValue] {
    var out: [JSONValue] = []
    let present: JSONValue = .object(
      JSONObject([
        "required": .array([string(field)]),
        "properties": .object(
          JSONObject([
            field: nullable ? .object(JSONObject(["not": .object(JSONObject(["type": string("null")]))])) : .bool(true)
          ])),
      ]))
    out.append(
      .object(
        JSONObject([
          "if": present,
          "then": .object(
            JSONObject([
              "required": .array([string(by)]),
              "properties": .object(
                JSONObject([by: .object(JSONObject(["enum": .array(type.caseOrder.map(string))]))])),
            ])),
        ])))
    for value in type.caseOrder {
      guard let caseType = type.cases[value] else { continue }
      out.append(
        .object(
          JSONObject([
            "if": .object(
              JSONObject([
                "required": .array([string(by), string(field)]),
                "properties": .object(JSONObject([by: .object(JSONObject(["const": string(value)]))])),
              ])),
            "then": .object(
              JSONObject([
                "properties": .object(
                  JSONObject([
                    field: nullable
                      ? .object(
                        JSONObject([
                          "anyOf": .array([reference(caseType), .object(JSONObject(["type": string("null")]))])
                        ])) : reference(caseType)
                  ]))
              ])),
          ])))
    }
    return out
  }

  /// True when `rule` is exported (as `if`/`then`), false when it is left to formsctl.
  public func expresses(_ rule: Schema.Rule) -> Bool { translate(rule) != nil }

  /// A rule as `if`/`then` when it has the shapes JSON Schema can say: conditions `==`, `!=` and
  /// `in` against literals, joined by `and`; requirements `exists`, joined by `and`.
  func translate(_ rule: Schema.Rule) -> JSONValue? {
    guard let then = requirement(rule.require) else { return nil }
    guard let when = rule.when else { return then }
    guard let condition = condition(when) else { return nil }
    return .object(JSONObject(["if": condition, "then": then]))
  }

  func memberNames(_ path: FilterExpression.Path) -> [String]? {
    var names: [String] = []
    for step in path.steps {
      guard case .member(let name) = step else { return nil }
      names.append(name)
    }
    return names.isEmpty ? nil : names
  }

  /// `{required: [a], properties: {a: ...inner}}` down the path, ending in `leaf`.
  func nested(_ names: [String], leaf: JSONValue) -> JSONValue {
    var schema = leaf
    for name in names.reversed() {
      schema = .object(
        JSONObject([
          "required": .array([string(name)]), "properties": .object(JSONObject([name: schema])),
        ]))
    }
    return schema
  }

  /// `exists` means present and not null, as formsctl evaluates it.
  func requirement(_ expression: FilterExpression) -> JSONValue? {
    switch expression {
    case .exists(let path):
      guard let names = memberNames(path) else { return nil }
      return nested(names, leaf: .object(JSONObject(["not": .object(JSONObject(["type": string("null")]))])))
    case .and(let a, let b):
      guard let x = requirement(a), let y = requirement(b) else { return nil }
      return .object(JSONObject(["allOf": .array([x, y])]))
    default:
      return nil
    }
  }

  func condition(_ expression: FilterExpression) -> JSONValue? {
    switch expression {
    case .compare(.path(let path), let op, .literal(let value)) where op == .equal || op == .notEqual:
      guard let names = memberNames(path) else { return nil }
      let constant: JSONValue = .object(JSONObject(["const": value]))
      return nested(names, leaf: op == .equal ? constant : .object(JSONObject(["not": constant])))
    case .isIn(.path(let path), let values):
      guard let names = memberNames(path) else { return nil }
      return nested(names, leaf: .object(JSONObject(["enum": .array(values)])))
    case .and(let a, let b):
      guard let x = condition(a), let y = condition(b) else { return nil }
      return .object(JSONObject(["allOf": .array([x, y])]))
    default:
      return nil
    }
  }
}

/// A Mermaid `erDiagram` of kinds (with their top-level fields) and relations.
public enum MermaidGraph {
  public static func render(_ schemas: [Schema]) -> String {
    func entity(_ kind: String) -> String { kind.replacingOccurrences("-", "_") }
    var lines = ["erDiagram"]
    for schema in schemas.sorted(by: { $0.kind < $1.kind }) {
      for relation in schema.relations {
        let field = schema.root.fields[relation.field]
        let cardinality = (field?.optional ?? true) || (field?.nullable ?? true) ? "|o" : "||"
        lines.append(
          "  \(entity(relation.kind)) \(cardinality)--o{ \(entity(schema.kind)) : \"\(relation.field) (on_delete \(relation.onDelete.rawValue))\""
        )
      }
    }
    for schema in schemas.sorted(by: { $0.kind < $1.kind }) {
      lines.append("  \(entity(schema.kind)) {")
      for name in schema.root.fieldOrder {
        guard let field = schema.root.fields[name] else { continue }
        let type = (field.type.name ?? field.type.kind.rawValue).replacingOccurrences("-", "_")
        let key = name == schema.idField ? " PK" : (schema.relations.contains { $0.field == name } ? " FK" : "")
        lines.append("    \(type) \(name)\(key)")
      }
      lines.append("  }")
    }
    return lines.joined(separator: "\n") + "\n"
  }
}
