import FormsCore

/// Compiles one schema descriptor (docs/design.md §5) into a `Schema`, collecting every problem with its
/// `file:line:col`, as `schema check` reports them. Includes are read through `loadInclude`.
public struct DescriptorCompiler {
  /// Reads an included file: given the `include:` text, returns its display name and YAML root.
  public typealias IncludeLoader = (String) throws -> (file: String, root: YAMLNode)

  /// The result: a schema when the descriptor has no errors, and every diagnostic.
  public struct Result {
    public let schema: Schema?
    public let diagnostics: [Diagnostic]
  }

  static let topLevelKeys = [
    "kind", "version", "title", "description", "directory", "id", "timestamps", "include", "fields", "types",
    "relations", "workflow", "rules", "references", "derived", "from", "changes", "order", "columns", "editable",
    "approvals", "attachments",
  ]
  static let changeOps = ["rename", "add", "remove", "map", "move", "convert", "each", "jq"]

  var file: String
  var diagnostics: [Diagnostic] = []
  /// Every named type under `types:` (the descriptor's and its includes'), as written: each is
  /// built on first use, after the types it names, so a field may name a type written further down.
  var declarations: [String: (definition: YAMLNode, file: String, position: SourcePosition)] = [:]
  /// The named types built so far.
  var named: [String: SchemaType] = [:]
  /// The named types being built, outermost first: meeting one of them again is a cycle.
  var building: [String] = []
  /// Fields whose type did not compile (already reported), so later checks do not report them again.
  var failedFields: Set<String> = []

  init(file: String) { self.file = file }

  /// Compiles the descriptor at `root`, read from `file` (the name shown in diagnostics).
  public static func compile(_ root: YAMLNode, file: String, loadInclude: IncludeLoader) -> Result {
    var compiler = DescriptorCompiler(file: file)
    let schema = compiler.compileDescriptor(root, loadInclude: loadInclude)
    let errors = compiler.diagnostics.contains { $0.severity == .error }
    return Result(schema: errors ? nil : schema, diagnostics: compiler.diagnostics)
  }

  mutating func error(_ message: String, at position: SourcePosition, in file: String? = nil) {
    diagnostics.append(Diagnostic(file: file ?? self.file, position: position, rule: "schema", message: message))
  }

  mutating func unknownKey(_ key: YAMLNode, allowed: [String], context: String) {
    let text = key.scalar?.text ?? "?"
    let hint = didYouMean(text, among: allowed)
    error("unknown key \"\(text)\" in \(context)\(hint)", at: key.position)
  }

  mutating func string(_ node: YAMLNode?, _ what: String) -> String? {
    guard let node else { return nil }
    guard let text = node.string, !text.isEmpty else {
      error("\(what) must be a non-empty string, not \(node.kindName)", at: node.position)
      return nil
    }
    return text
  }

  mutating func compileDescriptor(_ root: YAMLNode, loadInclude: IncludeLoader) -> Schema? {
    guard let pairs = root.mapping else {
      error("a descriptor must be a mapping with kind, version and fields", at: root.position)
      return nil
    }
    for pair in pairs where !Self.topLevelKeys.contains(pair.key.scalar?.text ?? "") {
      unknownKey(pair.key, allowed: Self.topLevelKeys, context: "the descriptor")
    }
    let kind = string(root["kind"], "kind")
    if root["kind"] == nil { error("missing key \"kind\"", at: root.position) }
    if let kind, !kind.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" })
    {
      error("kind \"\(kind)\" must be lowercase letters, digits and '-'", at: (root["kind"] ?? root).position)
    }
    let version = semanticVersion(root["version"], "version")
    if root["version"] == nil { error("missing key \"version\"", at: root.position) }
    let from = semanticVersion(root["from"], "from")

    // Named types: all declared first, so a field may name a type written later or included.
    if let include = root["include"] { includeTypes(include, loadInclude: loadInclude) }
    if let types = root["types"] { declareTypes(types, file: file) }
    for name in declarations.keys.sorted() { _ = namedType(name) }

    var fields: [Field] = []
    if let node = root["fields"] {
      fields = objectFields(node)
    } else {
      error("missing key \"fields\"", at: root.position)
    }
    let rootType = SchemaType(
      kind: .object, fields: fields, timestamps: compileTimestamps(root["timestamps"], fields: fields))
    let idField = string(root["id"], "id") ?? "id"
    if let field = rootType.fields[idField] {
      if field.optional {
        error("the id field \"\(idField)\" cannot be optional", at: root["id"]?.position ?? root.position)
      }
    } else if root["fields"] != nil && !failedFields.contains(idField) {
      error("the id field \"\(idField)\" is not among the fields", at: root["id"]?.position ?? root.position)
    }
    let relations = compileRelations(root["relations"], rootType)
    let workflow = compileWorkflow(root["workflow"], rootType)
    let rules = compileRules(root["rules"], rootType)
    let changes = compileChanges(root["changes"])
    let approvals = root["approvals"].flatMap { compileApprovals($0, workflow: workflow, rootType) }
    let attachments = root["attachments"].map { compileAttachments($0, workflow: workflow, rootType) } ?? []
    if changes != nil && from == nil, let node = root["changes"] {
      error("changes need a `from:` version to start from", at: node.position)
    }
    let directory = string(root["directory"], "directory") ?? kind ?? ""
    if directory.contains("/") || directory.hasPrefix(".") {
      error("directory \"\(directory)\" must be one folder name", at: (root["directory"] ?? root).position)
    }
    guard let kind, let version else { return nil }
    func schema(
      order: [(path: FilterExpression.Path, descending: Bool)] = [], editable: [EditablePath]? = nil,
      references: [Schema.Reference] = [], derived: [Schema.Derived] = [], columns: [FilterExpression.Path] = []
    ) -> Schema {
      Schema(
        kind: kind, version: version, title: root["title"]?.string, directory: directory, idField: idField,
        root: rootType, namedTypes: named, relations: relations, workflow: workflow, rules: rules, from: from,
        changes: changes, order: order, editable: editable, references: references, derived: derived,
        approvals: approvals, attachments: attachments, columns: columns)
    }
    // `order:` and `editable:` name field paths, checked against the schema without them.
    let unordered = schema()
    let order = root["order"].map { compileOrder($0, unordered) } ?? []
    let columns = root["columns"].map { compileOrder($0, unordered, key: "columns", descending: false) } ?? []
    let editable = root["editable"].map { compileEditable($0, unordered) }
    let references = root["references"].map { compileReferences($0, unordered) } ?? []
    let derived = root["derived"].map { compileDerived($0, unordered) } ?? []
    checkSensitive(unordered, root)
    return schema(
      order: order, editable: editable, references: references, derived: derived, columns: columns.map(\.path))
  }

  /// The fields the store itself reads (the id, relations, the workflow, timestamps) stay in
  /// plain text: a sensitive one is an error at its `sensitive:` key.
  mutating func checkSensitive(_ schema: Schema, _ root: YAMLNode) {
    let roles =
      [(schema.idField, "the id (it is the file name)")]
      + schema.relations.map { ($0.field, "a relation (formsctl follows it)") }
      + [
        schema.workflow.map { ($0.field, "the workflow's field") },
        schema.timestamps.created.map { ($0, "a timestamp") },
        schema.timestamps.updated.map { ($0, "a timestamp") },
      ].compactMap { $0 }
    for (name, role) in roles where schema.root.fields[name]?.sensitive == true {
      let node = root["fields"]?[name]
      error(
        "\(name) is \(role), so it cannot be sensitive",
        at: node?["sensitive"]?.position ?? node?.position ?? root.position)
    }
  }

  /// `editable: [delivery_note, items[+]]`: fields people may change, and lists they may only add to.
  mutating func compileEditable(_ node: YAMLNode, _ schema: Schema) -> [EditablePath] {
    guard let items = node.sequence else {
      error("editable takes a list of field paths (items[+] for a list people may only add to)", at: node.position)
      return []
    }
    var out: [EditablePath] = []
    for item in items {
      guard let text = item.string, let path = EditablePath(text) else {
        error(
          "editable: \"\(item.scalar?.text ?? item.kindName)\" is not a field path (name, a.b, or items[+])",
          at: item.position)
        continue
      }
      if let problem = Schema.pathProblem(path.path, in: [schema]) {
        error("editable: \(problem)", at: item.position)
        continue
      }
      if path.appendOnly, schema.root.type(at: path.members)?.kind != .list {
        error(
          "editable: \(path) adds to a list, but \(path.members.joined(separator: ".")) is not one", at: item.position)
        continue
      }
      out.append(path)
    }
    return out
  }

  /// `order: -last_updated`, or a list of such keys: what `--sort` takes, each a field path of the
  /// kind, `-` for descending. `columns:` (`descending` false) is a list of field paths alone.
  mutating func compileOrder(_ node: YAMLNode, _ schema: Schema, key: String = "order", descending allowed: Bool = true)
    -> [(path: FilterExpression.Path, descending: Bool)]
  {
    let items = node.sequence ?? [node]
    var order: [(path: FilterExpression.Path, descending: Bool)] = []
    for item in items {
      guard let text = item.string else {
        error(
          allowed
            ? "\(key) takes a field path (-path for descending), or a list of them"
            : "\(key) takes a list of field paths", at: item.position)
        continue
      }
      let descending = allowed && text.hasPrefix("-")
      guard let path = FilterExpression.Path(descending ? String(text.dropFirst()) : text) else {
        error("\(key): \"\(text)\" is not a field path", at: item.position)
        continue
      }
      if let problem = Schema.pathProblem(path, in: [schema]) {
        error("\(key): \(problem)", at: item.position)
        continue
      }
      order.append((path, descending))
    }
    return order
  }

  mutating func semanticVersion(_ node: YAMLNode?, _ what: String) -> SemanticVersion? {
    guard let node else { return nil }
    guard let text = node.scalar?.text, let version = SemanticVersion(text) else {
      error(
        "\(what) must be a semantic version MAJOR.MINOR.PATCH (1.0.0), not \(node.scalar?.text ?? node.kindName)",
        at: node.position)
      return nil
    }
    return version
  }

  mutating func includeTypes(_ node: YAMLNode, loadInclude: IncludeLoader) {
    let entries = node.sequence ?? [node]
    for entry in entries {
      guard let path = string(entry, "include") else { continue }
      do {
        let (includedFile, includedRoot) = try loadInclude(path)
        guard let pairs = includedRoot.mapping else {
          error("an included file must be a mapping with `types:`", at: includedRoot.position, in: includedFile)
          continue
        }
        for pair in pairs where !["types", "description"].contains(pair.key.scalar?.text ?? "") {
          unknownKey(pair.key, allowed: ["types", "description"], context: "an included file")
          diagnostics[diagnostics.count - 1].file = includedFile
        }
        if let types = includedRoot["types"] { declareTypes(types, file: includedFile) }
      } catch let yamlError as YAMLError {
        self.error("cannot include \(path): \(yamlError.message)", at: entry.position)
      } catch {
        self.error("cannot include \(path): \(error)", at: entry.position)
      }
    }
  }

  mutating func declareTypes(_ node: YAMLNode, file: String) {
    guard let pairs = node.mapping else {
      return error("types must be a mapping of names to types", at: node.position, in: file)
    }
    for pair in pairs {
      guard let name = pair.key.scalar?.text else { continue }
      if SchemaType.Kind(rawValue: name) != nil {
        error("a named type cannot be called \"\(name)\", a built-in type", at: pair.key.position, in: file)
      } else if let first = declarations[name] {
        error(
          "type \"\(name)\" is defined twice (first at \(first.file):\(first.position))", at: pair.key.position,
          in: file)
      } else {
        declarations[name] = (pair.value, file, pair.key.position)
      }
    }
  }

  /// The named type `name`, built now if it was not yet, in its own file; nil when it is not
  /// declared, or when it is being built (a cycle: reported here).
  mutating func namedType(_ name: String) -> SchemaType? {
    if let type = named[name] { return type }
    guard let declaration = declarations[name] else { return nil }
    if let start = building.firstIndex(of: name) {
      let cycle = building[start...] + [name]
      error(
        "named types form a cycle: \(cycle.joined(separator: " → "))", at: declaration.position, in: declaration.file)
      return nil
    }
    building.append(name)
    let saved = file
    file = declaration.file
    let type = defineType(name, declaration.definition)
    file = saved
    building.removeLast()
    named[name] = type
    return type
  }

  /// A named type from its definition: another named type's name (an alias), a type with `type:`
  /// (or `one_of:`, `values:`), or an object's fields, with or without `fields:`. One that does not
  /// compile (already reported) is an object without fields, so that what names it is not reported too.
  mutating func defineType(_ name: String, _ node: YAMLNode) -> SchemaType {
    if let target = node.string, declarations[target] != nil {
      return namedType(target)?.renamed(name) ?? SchemaType(kind: .object, name: name)
    }
    if node.mapping != nil && node["type"] == nil && node["one_of"] == nil && node["values"] == nil {
      return namedObject(name, node)
    }
    return typeSpec(node, context: "type \"\(name)\"")?.renamed(name) ?? SchemaType(kind: .object, name: name)
  }
}
