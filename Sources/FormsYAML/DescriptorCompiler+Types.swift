import FormsCore

extension DescriptorCompiler {
  static let fieldKeys = [
    "type", "optional", "nullable", "default", "description", "immutable", "immutable_when", "sensitive",
    "declassified",
  ]
  static let constraintKeys: [SchemaType.Kind: [String]] = [
    .string: ["min_length", "max_length", "pattern"],
    .integer: ["min", "max"], .decimal: ["min", "max", "scale"], .number: ["min", "max"],
    .enumeration: ["values"], .list: ["of", "min_items", "max_items", "unique"],
    .object: ["fields", "additional"], .map: ["of"], .oneOf: ["one_of"], .jsonString: ["of"],
  ]

  /// A named object type: its fields, under `fields:` (which allows `additional:` and
  /// `timestamps:` beside it) or as the whole mapping.
  mutating func namedObject(_ name: String, _ node: YAMLNode) -> SchemaType {
    guard let fieldsNode = node["fields"], let pairs = node.mapping else {
      return SchemaType(kind: .object, name: name, fields: objectFields(node))
    }
    let keys = ["fields", "additional", "timestamps", "description"]
    for pair in pairs where !keys.contains(pair.key.scalar?.text ?? "") {
      unknownKey(pair.key, allowed: keys, context: "an object type")
    }
    let additional = node["additional"].map { boolean($0, "additional") } ?? false
    let fields = objectFields(fieldsNode)
    let timestamps = node["timestamps"].map { compileTimestamps($0, fields: fields) } ?? Schema.Timestamps()
    return SchemaType(kind: .object, name: name, fields: fields, additional: additional, timestamps: timestamps)
  }

  /// The fields of a `fields:` mapping, in order; one that does not compile is left out (reported).
  mutating func objectFields(_ node: YAMLNode) -> [Field] {
    guard let pairs = node.mapping else {
      error("fields must be a mapping of field names to types", at: node.position)
      return []
    }
    var fields: [Field] = []
    for pair in pairs {
      guard let name = pair.key.scalar?.text, !name.isEmpty else {
        error("a field name must be a string", at: pair.key.position)
        continue
      }
      if name == "_schema" { error("\"_schema\" is reserved; formsctl maintains it", at: pair.key.position) }
      guard let field = field(name, pair.value) else {
        failedFields.insert(name)
        continue
      }
      fields.append(field)
    }
    return fields
  }

  mutating func boolean(_ node: YAMLNode, _ what: String) -> Bool {
    guard case .bool(let b)? = node.scalar?.value else {
      error("\(what) must be true or false", at: node.position)
      return false
    }
    return b
  }

  /// A field from `name: type`, `name: type?` or `name: {type: ..., constraints...}`.
  mutating func field(_ name: String, _ node: YAMLNode) -> Field? {
    if let text = node.string {
      let optional = text.hasSuffix("?")
      guard let type = namedOrBuiltin(optional ? String(text.dropLast()) : text, at: node.position) else { return nil }
      if [.enumeration, .list, .map, .oneOf].contains(type.kind) && type.name == nil {
        error(
          "\(type.kind.rawValue) needs more than a name; write {type: \(type.kind.rawValue), ...}", at: node.position)
      }
      return Field(name: name, type: type, optional: optional)
    }
    guard node.mapping != nil else {
      error("field \"\(name)\" must be a type name or a mapping, not \(node.kindName)", at: node.position)
      return nil
    }
    guard let type = typeSpec(node, context: "field \"\(name)\"", fieldLevel: true) else { return nil }
    var field = Field(name: name, type: type)
    if let typeText = node["type"]?.string, typeText.hasSuffix("?") { field.optional = true }
    if let optional = node["optional"] { field.optional = boolean(optional, "optional") }
    if let nullable = node["nullable"] { field.nullable = boolean(nullable, "nullable") }
    if let immutable = node["immutable"] { field.immutable = boolean(immutable, "immutable") }
    if let sensitive = node["sensitive"] { field.sensitive = boolean(sensitive, "sensitive") }
    if let declassified = node["declassified"] {
      field.declassified = boolean(declassified, "declassified")
      if field.declassified && field.sensitive {
        error("field \"\(name)\" cannot be both sensitive and declassified", at: declassified.position)
      }
    }
    field.description = node["description"]?.string
    if let when = node["immutable_when"] { field.immutableWhen = expression(when, "immutable_when") }
    if let defaultNode = node["default"] {
      do {
        let value = try defaultNode.jsonValue()
        field.defaultValue = value
        let findings = value.isNull && field.nullable ? [] : Validator.check(value, against: type)
        if let first = findings.first {
          error(
            "the default \(JSONWriter.compact(value)) breaks its own constraints: \(first.message)",
            at: defaultNode.position)
        }
      } catch {
        self.error(error.message, at: error.position)
      }
    }
    return field
  }

  /// A built-in type, or a named one (nil, already reported, when naming it closes a cycle).
  mutating func namedOrBuiltin(_ text: String, at position: SourcePosition) -> SchemaType? {
    if let kind = SchemaType.Kind(rawValue: text) { return SchemaType(kind: kind) }
    if declarations[text] != nil { return namedType(text) }
    let hint = didYouMean(text, among: SchemaType.Kind.allCases.map(\.rawValue) + declarations.keys.sorted())
    error("unknown type \"\(text)\"\(hint)", at: position)
    return nil
  }

  /// A type from a mapping with `type:` (or implied by `fields`, `values`, `one_of`) and constraints.
  mutating func typeSpec(_ node: YAMLNode, context: String, fieldLevel: Bool = false) -> SchemaType? {
    var typeName = node["type"]?.string
    if typeName?.hasSuffix("?") == true { typeName?.removeLast() }
    if typeName == nil {
      if node["fields"] != nil {
        typeName = "object"
      } else if node["one_of"] != nil {
        typeName = "one_of"
      } else if node["values"] != nil {
        typeName = "enum"
      } else {
        error("\(context) has no type; add `type:`", at: node.position)
        return nil
      }
    }
    guard let typeName, let base = namedOrBuiltin(typeName, at: node["type"]?.position ?? node.position) else {
      return nil
    }
    let allowed =
      (fieldLevel ? Self.fieldKeys : ["type", "description"])
      + (base.name == nil ? Self.constraintKeys[base.kind] ?? [] : [])
    for pair in node.mapping ?? [] where !allowed.contains(pair.key.scalar?.text ?? "") {
      unknownKey(pair.key, allowed: allowed, context: "\(context) of type \(typeName)")
    }
    if base.name != nil { return base }
    switch base.kind {
    case .string:
      var pattern: CompiledPattern?
      if let patternNode = node["pattern"], let source = string(patternNode, "pattern") {
        do {
          pattern = try CompiledPattern(source)
        } catch {
          self.error("pattern \(source) \(error)", at: patternNode.position)
        }
      }
      return SchemaType(
        kind: .string, minLength: count(node["min_length"], "min_length"),
        maxLength: count(node["max_length"], "max_length"), pattern: pattern)
    case .integer, .decimal, .number:
      return SchemaType(
        kind: base.kind, minimum: number(node["min"], "min"), maximum: number(node["max"], "max"),
        scale: count(node["scale"], "scale", maximum: 1000))
    case .enumeration:
      guard let values = node["values"]?.sequence, !values.isEmpty else {
        error("enum needs `values:`, a list of strings", at: node["values"]?.position ?? node.position)
        return base
      }
      var strings: [String] = []
      for value in values {
        if let s = value.scalar?.text, value.scalar != nil {
          strings.append(s)
        } else {
          error("enum values must be strings", at: value.position)
        }
      }
      return SchemaType(kind: .enumeration, values: strings)
    case .list, .map, .jsonString:
      return collectionType(base.kind, node, context: context)
    case .object:
      return SchemaType(
        kind: .object, fields: node["fields"].map { objectFields($0) } ?? [],
        additional: node["additional"].map { boolean($0, "additional") } ?? false)
    case .oneOf:
      return oneOfType(node["one_of"], at: node.position)
    default:
      return base
    }
  }

  /// A list, map or json_string: `of:` the type of its elements, and for a list its counts and `unique` key.
  mutating func collectionType(_ kind: SchemaType.Kind, _ node: YAMLNode, context: String) -> SchemaType {
    var element: SchemaType?
    if let of = node["of"] {
      element =
        of.mapping != nil
        ? typeSpec(of, context: "the elements of \(context)")
        : of.string.flatMap { namedOrBuiltin($0, at: of.position) }
      if of.mapping == nil && of.string == nil { error("`of` must be a type", at: of.position) }
    } else if kind == .list {
      error("a list needs `of:`, the type of its elements", at: node.position)
    } else if kind == .jsonString {
      error("a json_string needs `of:`, the type of the JSON its text holds", at: node.position)
    }
    var unique: [String]?
    if let uniqueNode = node["unique"] {
      let keys = (uniqueNode.sequence ?? [uniqueNode]).compactMap { string($0, "unique") }
      unique = keys
      if keys.isEmpty {
        error("unique needs at least one key field of the elements (unique: [id])", at: uniqueNode.position)
      }
      let scalars: [SchemaType.Kind] = [
        .string, .integer, .decimal, .number, .boolean, .date, .datetime, .uuid, .enumeration,
      ]
      if let element, scalars.contains(element.kind) {
        error(
          "unique names key fields of object elements; the elements of \(context) are \(element.kind.rawValue) values, which have none",
          at: uniqueNode.position)
      }
      if let element, element.kind == .object, !element.fieldOrder.isEmpty {
        for key in keys where element.fields[key] == nil {
          error("unique key \"\(key)\" is not a field of \(element.name ?? "the elements")", at: uniqueNode.position)
        }
      }
    }
    return SchemaType(
      kind: kind, element: element, minItems: count(node["min_items"], "min_items"),
      maxItems: count(node["max_items"], "max_items"), unique: unique)
  }

  mutating func oneOfType(_ node: YAMLNode?, at position: SourcePosition) -> SchemaType {
    guard let node, let pairs = node.mapping else {
      error("one_of needs {by: FIELD, cases: {...}}", at: position)
      return SchemaType(kind: .oneOf)
    }
    for pair in pairs where !["by", "cases"].contains(pair.key.scalar?.text ?? "") {
      unknownKey(pair.key, allowed: ["by", "cases"], context: "one_of")
    }
    let discriminator = string(node["by"], "by")
    if node["by"] == nil { error("one_of needs `by:`, the field whose value picks the case", at: node.position) }
    guard let mapping = node["cases"]?.mapping, !mapping.isEmpty else {
      error("one_of needs `cases:`, a mapping of values to named types", at: node["cases"]?.position ?? node.position)
      return SchemaType(kind: .oneOf, discriminator: discriminator)
    }
    var cases: [(value: String, type: SchemaType)] = []
    for pair in mapping {
      guard let value = pair.key.scalar?.text, let target = string(pair.value, "a case") else { continue }
      if declarations[target] == nil {
        error("one_of case \(value) names the type \"\(target)\", which is not defined", at: pair.value.position)
      } else if let caseType = namedType(target) {
        cases.append((value, caseType))
      }
    }
    return SchemaType(kind: .oneOf, discriminator: discriminator, cases: cases)
  }

  mutating func count(_ node: YAMLNode?, _ what: String, maximum: Int = Int.max) -> Int? {
    guard let node else { return nil }
    guard case .number(let n)? = node.scalar?.value, let value = n.intValue, value >= 0, value <= maximum else {
      error("\(what) must be a whole number ≥ 0\(maximum == Int.max ? "" : " and ≤ \(maximum)")", at: node.position)
      return nil
    }
    return value
  }

  mutating func number(_ node: YAMLNode?, _ what: String) -> JSONNumber? {
    guard let node else { return nil }
    guard case .number(let n)? = node.scalar?.value else {
      error("\(what) must be a number", at: node.position)
      return nil
    }
    return n
  }
}
