import FormsCore

/// Templates: pre-filled documents a person starts from, `templates/KIND/NAME.json` in the store
/// (kept in git). A string value written `{{NAME}}` is a placeholder: `new --template` refuses to
/// write while one is left unfilled, and `schema check` checks every template against its kind.
extension Store {
  /// The names of `kind`'s templates, sorted.
  public func templates(of kind: String) throws(StoreError) -> [String] {
    _ = try schema(kind)
    return try StoreLayout.templates(in: layout.templatesPath / kind)
  }

  /// The template `name` of `kind`, as written.
  public func template(kind: String, name: String) throws(StoreError) -> JSONValue {
    let available = try templates(of: kind)
    guard DocumentID.isValid(name), available.contains(name) else {
      throw StoreError.refused(.unknownTemplate(kind: kind, name: name, available: available))
    }
    let path = layout.templatesPath / kind / (name + StoreLayout.documentSuffix)
    return try Self.parsed(try FileIO.read(path, followLinks: false), shown: display(path.string))
  }

  /// Creates a document of `kind` from its template `name` with `assignments` on top, through the
  /// write path; refused, with nothing written, while a placeholder is left unfilled.
  public func create(kind: String, template name: String, assignments: [Assignment]) throws(StoreError) -> Document {
    let base = try template(kind: kind, name: name)
    var filled = base
    try assignments.apply(to: &filled, schema: try schema(kind))
    try Self.requireFilled(filled, template: base, kind: kind, name: name)
    return try create(kind: kind, base: base, assignments: assignments)
  }

  /// Creates a document of `kind` from its template `name` as a person filled it in: `filled` is
  /// the whole document (the template's values with the person's over them, as a form holds it).
  /// Refused, with nothing written, while a placeholder is left unfilled, as
  /// ``create(kind:template:assignments:)`` refuses it. With `dryRun`, every check and nothing written.
  @discardableResult
  public func create(kind: String, template name: String, filled: JSONValue, dryRun: Bool = false) throws(StoreError)
    -> Document
  {
    try Self.requireFilled(filled, template: try template(kind: kind, name: name), kind: kind, name: name)
    return try create(kind: kind, base: filled, dryRun: dryRun)
  }

  /// The placeholder rule, one for every door: each placeholder of `template` is filled in
  /// `filled` when its path holds a value that is not null, not empty text and not a placeholder
  /// (a path removed, or left empty, is as unfilled as one left `{{NAME}}`); and no placeholder
  /// is left anywhere else.
  static func requireFilled(_ filled: JSONValue, template: JSONValue, kind: String, name: String) throws(StoreError) {
    let unfilled =
      placeholders(in: template).first { pointer, placeholder in
        switch filled[pointer: pointer] {
        case nil, .null?, .string("")?: return true
        case .string(let text)?: return text == placeholder
        default: return false
        }
      } ?? placeholders(in: filled).first
    if let (pointer, placeholder) = unfilled {
      throw StoreError.refused(
        .unfilledPlaceholder(kind: kind, template: name, pointer: pointer.path, placeholder: placeholder))
    }
  }

  /// The placeholders left in `value`: string values `{{NAME}}`, each with its pointer.
  public static func placeholders(in value: JSONValue, at pointer: JSONPointer = .root) -> [(JSONPointer, String)] {
    switch value {
    case .string(let text) where text.hasPrefix("{{") && text.hasSuffix("}}") && text.count > 4:
      return [(pointer, text)]
    case .object(let object):
      return object.members.flatMap { placeholders(in: $0.value, at: pointer.appending($0.key)) }
    case .array(let elements):
      return elements.enumerated().flatMap { placeholders(in: $1, at: pointer.appending(index: $0)) }
    default:
      return []
    }
  }

  /// What `schema check` says of the templates: a directory that names no kind, a file that does
  /// not parse or is not an object, and every finding of the kind's newest version but missing
  /// required fields and what placeholders stand for (those are filled when a document is made).
  public static func templateDiagnostics(
    layout: StoreLayout, registry: SchemaRegistry, display: @Sendable (String) -> String
  ) throws(StoreError) -> [Diagnostic] {
    var out: [Diagnostic] = []
    for (kind, entry) in try FileIO.entries(of: layout.templatesPath) where entry == .directory {
      let directory = layout.templatesPath / kind
      guard let schema = registry.latest(kind) else {
        out.append(
          Diagnostic(
            file: display(directory.string), position: nil, rule: "template",
            message: "templates of \(kind), which no descriptor defines"))
        continue
      }
      for name in try StoreLayout.templates(in: directory) {
        let path = directory / (name + StoreLayout.documentSuffix)
        let shown = display(path.string)
        let bytes = try FileIO.read(path, followLinks: false)
        let value: JSONValue
        do {
          value = try JSONParser().parse(bytes)
        } catch {
          out.append(Diagnostic(file: shown, position: error.location, rule: "parse", message: error.message))
          continue
        }
        guard case .object = value else {
          out.append(
            Diagnostic(
              file: shown, position: SourcePosition(line: 1, column: 1), rule: "template",
              message: "a template is a JSON object (a document with placeholders)"))
          continue
        }
        let holes = placeholders(in: value).map { $0.0 }
        let findings = Validator(schema: schema).validate(value).filter { finding in
          finding.rule != "required" && !holes.contains { finding.pointer.description.hasPrefix($0.description) }
        }
        // A sensitive field holds a placeholder or an envelope: plain text in a template would be
        // committed in the clear, and copied into every document made from it (a hostile pass found it).
        let plain = schema.root.sensitiveLocations(in: value).filter { pointer in
          !holes.contains(pointer) && !(value[pointer: pointer].map(SealedText.isSealed) ?? false)
        }.map { pointer in
          Finding(
            pointer: pointer, rule: "sensitive",
            message: "a sensitive field holds plain text in a template; use a placeholder or an enc:v1 envelope")
        }
        out += Diagnostic.placed(findings + plain, in: bytes, file: shown)
      }
    }
    return out
  }
}

extension StoreLayout {
  /// The template names (`NAME.json`, not hidden) in `directory`, sorted; none when it is missing.
  static func templates(in directory: FilePath) throws(StoreError) -> [String] {
    try FileIO.entries(of: directory).filter {
      $0.kind == .file && !$0.name.hasPrefix(".") && $0.name.hasSuffix(documentSuffix)
    }.map { String($0.name.dropLast(documentSuffix.count)) }.sorted()
  }
}
