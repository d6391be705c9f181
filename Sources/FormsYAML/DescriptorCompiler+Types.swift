import FormsCore

extension DescriptorCompiler {
  static let fieldKeys = [
    "type", "optional", "nullable", "default", "description", "immutable", "immutable_when", "sensitive",
  ]
  static let constraintKeys: [SchemaType.Kind: [String]] = [
    .string: ["min_length", "max_length", "pattern"],
    .integer: ["min", "max"], .decimal: ["min", "max", "scale"], .number: ["min", "max"],
    .enumeration: ["values"], .list: ["of", "min_items", "max_items", "unique"],
    .object: ["fields", "additional"], .map: ["of"], .oneOf: ["one_of"], .jsonString: ["of"],
  ]

  /// Fills an object type from a `fields:` mapping (and `additional:` on `typeNode`).
  mutating func fillObject(_ type: SchemaType, fields node: YAMLNode, typeNode: YAMLNode? = nil) {
    type.kind = .object
    let keys = ["fields", "additional", "timestamps", "description"]
    if let typeNode, typeNode["fields"] != nil, let pairs = typeNode.mapping {
      for pair in pairs where !keys.contains(pair.key.scalar?.text ?? "") {
        unknownKey(pair.key, allowed: keys, context: "an object type")
      }
      if let additional = typeNode["additional"] { type.additional = boolean(additional, "additional") }
    }
    guard let pairs = node.mapping else {
      return error("fields must be a mapping of field names to types", at: node.position)
    }
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
      type.fields[name] = field
      type.fieldOrder.append(name)
    }
    if let typeNode, typeNode["fields"] != nil, let timestamps = typeNode["timestamps"] {
      type.timestamps = compileTimestamps(timestamps, type)
    }
    type.freeze()
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

  mutating func namedOrBuiltin(_ text: String, at position: SourcePosition) -> SchemaType? {
    if let builtin = BuiltinType(rawValue: text) { return SchemaType(kind: builtin.kind) }
    if let type = named[text] { return type }
    let hint = didYouMean(text, among: BuiltinType.allCases.map(\.rawValue) + named.keys.sorted())
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
    let type = base
    switch type.kind {
    case .string:
      type.minLength = count(node["min_length"], "min_length")
      type.maxLength = count(node["max_length"], "max_length")
      if let patternNode = node["pattern"], let source = string(patternNode, "pattern") {
        type.pattern = CompiledPattern(source)
        if type.pattern == nil {
          error("pattern \(source) is not a valid regular expression", at: patternNode.position)
        }
      }
    case .integer, .decimal, .number:
      type.minimum = number(node["min"], "min")
      type.maximum = number(node["max"], "max")
      type.scale = count(node["scale"], "scale", maximum: 1000)
    case .enumeration:
      guard let values = node["values"]?.sequence, !values.isEmpty else {
        error("enum needs `values:`, a list of strings", at: node["values"]?.position ?? node.position)
        return type
      }
      for value in values {
        if let s = value.scalar?.text, value.scalar != nil {
          type.values.append(s)
        } else {
          error("enum values must be strings", at: value.position)
        }
      }
    case .list, .map, .jsonString:
      if let of = node["of"] {
        type.element =
          of.mapping != nil
          ? typeSpec(of, context: "the elements of \(context)")
          : of.string.flatMap { namedOrBuiltin($0, at: of.position) }
        if of.mapping == nil && of.string == nil { error("`of` must be a type", at: of.position) }
      } else if type.kind == .list {
        error("a list needs `of:`, the type of its elements", at: node.position)
      } else if type.kind == .jsonString {
        error("a json_string needs `of:`, the type of the JSON its text holds", at: node.position)
      }
      type.minItems = count(node["min_items"], "min_items")
      type.maxItems = count(node["max_items"], "max_items")
      if let unique = node["unique"] {
        let keys = (unique.sequence ?? [unique]).compactMap { string($0, "unique") }
        type.unique = keys
        if let element = type.element, element.kind == .object || element.name != nil {
          for key in keys where element.kind == .object && element.fields[key] == nil && !element.fieldOrder.isEmpty {
            error("unique key \"\(key)\" is not a field of \(element.name ?? "the elements")", at: unique.position)
          }
        }
      }
    case .object:
      if let fields = node["fields"] { fillObject(type, fields: fields) }
      if let additional = node["additional"] { type.additional = boolean(additional, "additional") }
    case .oneOf:
      compileOneOf(type, node["one_of"], at: node.position)
    default:
      break
    }
    return type
  }

  mutating func compileOneOf(_ type: SchemaType, _ node: YAMLNode?, at position: SourcePosition) {
    guard let node, node.mapping != nil else { return error("one_of needs {by: FIELD, cases: {...}}", at: position) }
    for pair in node.mapping! where !["by", "cases"].contains(pair.key.scalar?.text ?? "") {
      unknownKey(pair.key, allowed: ["by", "cases"], context: "one_of")
    }
    type.discriminator = string(node["by"], "by")
    if node["by"] == nil { error("one_of needs `by:`, the field whose value picks the case", at: node.position) }
    guard let cases = node["cases"]?.mapping, !cases.isEmpty else {
      return error(
        "one_of needs `cases:`, a mapping of values to named types", at: node["cases"]?.position ?? node.position)
    }
    for pair in cases {
      guard let value = pair.key.scalar?.text, let target = string(pair.value, "a case") else { continue }
      if let caseType = named[target] {
        type.cases[value] = caseType
        type.caseOrder.append(value)
      } else {
        error("one_of case \(value) names the type \"\(target)\", which is not defined", at: pair.value.position)
      }
    }
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

  /// Reports every cycle among named types (a type that contains itself through its fields).
  mutating func checkCycles() {
    var state: [String: Int] = [:]  // 1 visiting, 2 done
    func references(_ type: SchemaType, into out: inout [String], top: Bool) {
      if !top, let name = type.name { return out.append(name) }
      for name in type.fieldOrder {
        if let field = type.fields[name] { references(field.type, into: &out, top: false) }
      }
      if let element = type.element { references(element, into: &out, top: false) }
      for value in type.caseOrder { if let c = type.cases[value] { references(c, into: &out, top: false) } }
    }
    func visit(_ name: String, path: [String]) {
      if state[name] == 2 { return }
      if state[name] == 1 {
        let cycle = Array(path.drop { $0 != name }) + [name]
        let first = namedPositions[cycle[0]]!
        error("named types form a cycle: \(cycle.joined(separator: " → "))", at: first.position, in: first.file)
        return
      }
      state[name] = 1
      var out: [String] = []
      if let type = named[name] { references(type, into: &out, top: true) }
      for next in out { visit(next, path: path + [name]) }
      state[name] = 2
    }
    for name in named.keys.sorted() where aliases[name] == nil { visit(name, path: []) }
  }
}
