import FormsCore
import FormsStore

/// What an editor asks about a store's files while they are typed, answered from the text of
/// the buffer (saved or not) by the same checks `formsctl validate` and `schema check` make:
/// diagnostics, completion, hover, definition, references, canonical formatting and fixes.
/// Offsets are bytes of the UTF-8 text; the language server converts them to the client's
/// positions. Sealed values are never opened: they are checked as envelopes.
public struct LanguageService: Sendable {
  /// What a file of the store is to the service.
  public enum FileRole: Sendable, Equatable {
    /// A document of `kind` (by its directory).
    case document(kind: String)
    /// A schema descriptor.
    case descriptor
    /// Anything else: no answers.
    case other
  }

  /// A diagnostic and the bytes it underlines.
  public struct Problem: Sendable, Equatable {
    public var diagnostic: Diagnostic
    public var range: Range<Int>
  }

  /// One completion: what is shown, what is inserted, and what it is.
  public struct Completion: Sendable, Equatable {
    public enum Kind: Sendable { case field, value, state, reference }
    public var label: String
    public var kind: Kind
    public var detail: String?
    public var documentation: String?
    /// The text that replaces `range` (the token under the cursor, or nothing at it).
    public var insertText: String
    public var range: Range<Int>
  }

  /// A place in a file of the store: the whole file when `range` is nil.
  public struct Location: Sendable, Equatable {
    public var path: String
    public var range: Range<Int>?
  }

  /// A change of text an editor applies: `range` of the buffer becomes `text`.
  public struct Edit: Sendable, Equatable {
    public var range: Range<Int>
    public var text: String
  }

  /// A fix formsctl knows, for the code-action menu.
  public struct Fix: Sendable, Equatable {
    public var title: String
    public var edits: [Edit]
    /// The rule of the diagnostic it fixes, if it fixes one.
    public var rule: String?
  }

  public let store: Store
  let validator: StoreValidator

  public init(store: Store) {
    self.store = store
    // Its keyring holds no identity: sealed values stay envelopes for an editor.
    self.validator = StoreValidator(layout: store.layout, registry: store.registry, display: store.display)
  }

  public func role(of path: String) -> FileRole {
    if path.hasSuffix(".yaml"), Self.spelled(path, under: store.layout.schemasDirectory) != nil { return .descriptor }
    if path.hasSuffix(".json"), let inside = Self.spelled(path, under: store.layout.dataDirectory),
      let (kind, _) = validator.identify(inside)
    {
      return .document(kind: kind)
    }
    return .other
  }

  /// `path` spelt from `directory` as the store spells it (`/s/../schemas/form/1.0.0.yaml` for
  /// `/schemas/form/1.0.0.yaml` when the manifest names `../schemas`), when it lies below it;
  /// editors name files by their real paths.
  static func spelled(_ path: String, under directory: String) -> String? {
    if FilePath(directory).relative(FilePath(path)) != nil { return path }
    let real = FileIO.realPath(FilePath(directory)) ?? FilePath(directory)
    let file = FileIO.realPath(FilePath(path).parent).map { $0 / FilePath(path).name } ?? FilePath(path)
    return real.relative(file).map { (FilePath(directory) / $0).string }
  }

  // MARK: Diagnostics

  /// Every problem `validate` (for a document) or `schema check` (for a descriptor) finds in
  /// `text` as the file at `path`, with what changed from the stored version (workflow,
  /// immutable fields) for a document already in the store.
  public func diagnose(path given: String, text: [UInt8]) -> [Problem] {
    let role = role(of: given)
    let root = role == .descriptor ? store.layout.schemasDirectory : store.layout.dataDirectory
    let path = Self.spelled(given, under: root) ?? given
    switch role {
    case .document:
      var diagnostics = validator.check(path, bytes: text).diagnostics
      if let (document, map) = try? JSONParser().parseWithSourceMap(text),
        let schema = store.registry.schema(of: document),
        let old = stored(path)
      {
        for finding in ChangeRules.findings(old: old, new: document, schema: schema) {
          diagnostics.append(
            Diagnostic(
              file: store.display(path), position: map.position(of: finding, in: text), pointer: finding.pointer,
              rule: finding.rule, message: finding.message + " (compared with the saved file)"))
        }
      }
      let lines = LineIndex(text)  // one for all the diagnostics: a document with thousands stays linear
      return diagnostics.map { Problem(diagnostic: $0, range: Self.range(of: $0.position, in: text, lines: lines)) }
    case .descriptor:
      let shown = store.display(path)
      let registry: SchemaRegistry
      do {
        registry = try SchemaRegistry.load(
          directory: store.layout.schemasDirectory, display: store.display, overlay: [path: text])
      } catch {
        let diagnostic = Diagnostic(file: shown, position: nil, rule: "read", message: error.description)
        return [Problem(diagnostic: diagnostic, range: 0..<0)]
      }
      let lines = LineIndex(text)
      return registry.diagnostics.filter { $0.file == shown }.map {
        Problem(diagnostic: $0, range: Self.range(of: $0.position, in: text, lines: lines))
      }
    case .other:
      return []
    }
  }

  /// The stored version of the document at `path`, when there is one that parses.
  func stored(_ path: String) -> JSONValue? {
    guard FileIO.entry(FilePath(path)) == .file else { return nil }
    do {
      return try JSONParser().parse(try FileIO.read(FilePath(path), followLinks: false))
    } catch {
      // An editor's answer goes without it: the buffer's own diagnostics say what is wrong.
      return nil
    }
  }

  /// What a diagnostic at `position` underlines: the key or scalar that starts there (a string
  /// with its quotes), or one character for an object, an array or anything else.
  /// `lines` is `text`'s index, built once by the caller for all its diagnostics.
  static func range(of position: SourcePosition?, in text: [UInt8], lines: LineIndex? = nil) -> Range<Int> {
    guard let position else { return 0..<0 }
    let start = (lines ?? LineIndex(text)).offset(of: position)
    guard start < text.count else { return text.count..<text.count }
    switch text[start] {
    case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "<"), UInt8(ascii: "="): return start..<(start + 1)
    default:
      let end = JSONText.valueEnd(in: text, from: start)
      return start..<max(end, start + 1)
    }
  }

  // MARK: The schema under the cursor

  /// The schema the buffer names in `_schema`, else its directory's newest.
  func schema(for path: String, text: [UInt8]) -> Schema? {
    guard case .document(let kind) = role(of: path) else { return nil }
    if let reference = StoreValidator.leadingSchema(text) ?? (try? JSONParser().parse(text))?["_schema"]?.stringValue,
      let schema = store.registry.schema(reference: reference)
    {
      return schema
    }
    return store.registry.latest(kind)
  }

  /// The type of the value at `pointer` (list indexes and map keys step into elements; a
  /// `one_of` offers every case's fields).
  static func type(at pointer: JSONPointer, in schema: Schema) -> SchemaType? {
    var current = schema.root
    for token in pointer.tokens {
      if current.kind == .list || current.kind == .map {
        guard let element = current.element else { return nil }
        current = element
        continue
      }
      guard let field = current.alternatives.lazy.compactMap({ $0.fields[token] }).first else { return nil }
      current = field.type
    }
    return current
  }

  /// The field declaration at `pointer` (its last token a member of an object type).
  static func field(at pointer: JSONPointer, in schema: Schema) -> Field? {
    guard let name = pointer.last, let parent = pointer.parent, let type = type(at: parent, in: schema) else {
      return nil
    }
    return type.alternatives.lazy.compactMap { $0.fields[name] }.first
  }

  // MARK: Completion

  /// What may be typed at `offset`: member names with their types and descriptions, enum
  /// values, the workflow states the stored document may move to, and ids of related documents
  /// with their titles.
  public func complete(path: String, text: [UInt8], at offset: Int) -> [Completion] {
    guard let schema = schema(for: path, text: text) else { return [] }
    let context = JSONText.context(in: text, at: offset)
    let range = context.token ?? offset..<offset
    let quoted = context.token == nil || text[range.lowerBound] == UInt8(ascii: "\"")
    func literal(_ s: String) -> String { quoted ? JSONWriter.compact(.string(s)) : s }
    switch context.role {
    case .key:
      guard let type = Self.type(at: context.pointer, in: schema) else { return [] }
      let present = (try? JSONParser().parse(text))?[pointer: context.pointer]?.objectValue.map { Set($0.keys) } ?? []
      var out: [Completion] = []
      for alternative in type.alternatives where alternative.kind == .object {
        for name in alternative.fieldOrder where !present.contains(name) || name == context.text {
          guard let field = alternative.fields[name], !out.contains(where: { $0.label == name }) else { continue }
          out.append(
            Completion(
              label: name, kind: .field, detail: Self.describe(field), documentation: field.description,
              insertText: JSONWriter.compact(.string(name)), range: range))
        }
      }
      if context.pointer == .root && !present.contains("_schema") {
        out.insert(
          Completion(
            label: "_schema", kind: .field, detail: schema.reference, documentation: "What the document is.",
            insertText: "\"_schema\": \"\(schema.reference)\"", range: range), at: 0)
      }
      return out
    case .value:
      if context.pointer == JSONPointer.root.appending("_schema") {
        return store.registry.schemas(of: schema.kind).map {
          Completion(
            label: $0.reference, kind: .value, detail: $0.title, insertText: literal($0.reference), range: range)
        }
      }
      if let workflow = schema.workflow, context.pointer == JSONPointer.root.appending(workflow.field) {
        let from = stored(path).flatMap { schema.workflowState(of: $0) }
        let states = from.map { [$0] + workflow.next(from: $0) } ?? schema.creationStates
        return states.map {
          Completion(
            label: $0, kind: .state,
            detail: $0 == from ? "the saved state" : from.map { "from \($0)" } ?? "a first state",
            insertText: literal($0), range: range)
        }
      }
      if context.pointer.tokens.count == 1,
        let relation = schema.relations.first(where: { $0.field == context.pointer.last })
      {
        return relatedIDs(relation.kind, prefix: context.prefix).map { id, title in
          Completion(label: id, kind: .reference, detail: title, insertText: literal(id), range: range)
        }
      }
      guard let type = Self.type(at: context.pointer, in: schema) else { return [] }
      let values = type.kind == .enumeration ? type.values : type.kind == .boolean ? ["true", "false"] : []
      return values.map { value in
        Completion(
          label: value, kind: .value, detail: nil, insertText: type.kind == .boolean ? value : literal(value),
          range: range)
      }
    }
  }

  /// Ids of `kind` starting with `prefix` (at most 200), each with its document's title.
  func relatedIDs(_ kind: String, prefix: String) -> [(String, String?)] {
    guard let directory = store.registry.latest(kind)?.directory else { return [] }
    let ids: [String]
    do {
      ids = try store.layout.ids(in: directory, prefix: prefix)
    } catch {
      return []  // completion offers what it can read
    }
    return ids.prefix(200).map { id in (id, title(of: store.layout.path(directory: directory, id: id))) }
  }

  /// A document's title: its `title` or `name`, else its first other text field.
  func title(of path: String) -> String? {
    guard let document = stored(path), let schema = store.registry.schema(of: document) else { return nil }
    let names =
      ["title", "name", "description"] + schema.root.fieldOrder.filter { $0 != schema.idField && !$0.hasPrefix("_") }
    return names.lazy.compactMap { document[$0]?.stringValue }.first
  }

  /// `decimal (scale 2), ≥ 0 · optional`: a field's type and constraints in one line.
  static func describe(_ field: Field) -> String {
    let type = field.type
    var parts = [type.name ?? type.kind.rawValue]
    if let scale = type.scale { parts.append("scale \(scale)") }
    if let minimum = type.minimum { parts.append("≥ \(minimum.text)") }
    if let maximum = type.maximum { parts.append("≤ \(maximum.text)") }
    if let n = type.minLength { parts.append("at least \(n) characters") }
    if let n = type.maxLength { parts.append("at most \(n) characters") }
    if let pattern = type.pattern { parts.append("matching \(pattern.source)") }
    if type.kind == .enumeration { parts.append("one of \(type.values.joined(separator: ", "))") }
    if field.optional { parts.append("optional") }
    if field.nullable { parts.append("nullable") }
    if field.immutable { parts.append("immutable") }
    if field.sensitive { parts.append("sensitive: sealed in the file") }
    return parts.joined(separator: " · ")
  }

  // MARK: Hover, definition, references

  /// What the key or value at `offset` is: the field's type, description, constraints and
  /// sensitivity; on a relation id, the target document's key fields.
  public func hover(path: String, text: [UInt8], at offset: Int) -> (markdown: String, range: Range<Int>)? {
    guard let schema = schema(for: path, text: text) else { return nil }
    let context = JSONText.context(in: text, at: offset)
    guard let range = context.token else { return nil }
    let pointer = context.role == .key ? context.pointer.appending(context.text ?? "") : context.pointer
    if context.role == .value, let target = relationTarget(pointer, value: context.text, schema: schema) {
      guard let document = stored(target.path), let targetSchema = store.registry.schema(of: document) else {
        return ("**\(target.id)** names no \(target.kind) (\(store.display(target.path)) does not exist)", range)
      }
      let lines = targetSchema.root.fieldOrder.prefix(8).compactMap { name -> String? in
        guard let field = targetSchema.root.fields[name], field.type.isScalar, !field.sensitive,
          let value = document[name], value != .null
        else { return nil }
        return "- \(name): \(JSONWriter.compact(value))"
      }
      return ((["**\(target.kind) \(target.id)**", ""] + lines).joined(separator: "\n"), range)
    }
    if pointer == JSONPointer.root.appending("_schema") {
      return ("**_schema**: what the document is (\(schema.reference)\(schema.title.map { ", \($0)" } ?? ""))", range)
    }
    guard let field = Self.field(at: pointer, in: schema) else { return nil }
    var lines = ["**\(field.name)**: \(Self.describe(field))"]
    if let description = field.description { lines += ["", description] }
    if let relation = schema.relations.first(where: { $0.field == field.name }), pointer.tokens.count == 1 {
      lines += ["", "Names a \(relation.kind) (on delete: \(relation.onDelete.rawValue))."]
    }
    if let workflow = schema.workflow, workflow.field == field.name, pointer.tokens.count == 1 {
      let moves = workflow.transitions.keys.sorted().map {
        "\($0) → \(workflow.next(from: $0).joined(separator: ", "))"
      }
      lines += ["", "Workflow: " + moves.joined(separator: "; ")]
    }
    return (lines.joined(separator: "\n"), range)
  }

  /// The document a top-level relation field's value names.
  func relationTarget(_ pointer: JSONPointer, value: String?, schema: Schema) -> (
    kind: String, id: String, path: String
  )? {
    guard pointer.tokens.count == 1, let value, DocumentID.isValid(value),
      let relation = schema.relations.first(where: { $0.field == pointer.last }),
      let directory = store.registry.latest(relation.kind)?.directory
    else { return nil }
    return (relation.kind, value, store.layout.path(directory: directory, id: value))
  }

  /// On a relation id, the document it names; on `_schema`, the descriptor.
  public func definition(path: String, text: [UInt8], at offset: Int) -> Location? {
    guard let schema = schema(for: path, text: text) else { return nil }
    let context = JSONText.context(in: text, at: offset)
    guard context.role == .value else { return nil }
    if context.pointer == JSONPointer.root.appending("_schema") {
      return context.text.flatMap { store.registry.files[$0] }.map { Location(path: $0, range: nil) }
    }
    guard let target = relationTarget(context.pointer, value: context.text, schema: schema),
      FileIO.entry(FilePath(target.path)) == .file
    else { return nil }
    return Location(path: target.path, range: nil)
  }

  /// The documents whose relations name the document at `path`, each at the relation's value.
  public func references(path: String) throws(StoreError) -> [Location] {
    guard let inside = Self.spelled(path, under: store.layout.dataDirectory),
      let (kind, id) = validator.identify(inside)
    else { return [] }
    return try validator.referrers(of: [(kind, id)]).map { (referrer) throws(StoreError) -> Location in
      let bytes = try FileIO.read(FilePath(referrer))
      guard let (document, map) = try? JSONParser().parseWithSourceMap(bytes),
        let schema = store.registry.schema(of: document),
        let field = schema.relations.first(where: { $0.kind == kind && document[$0.field]?.stringValue == id })?.field,
        let start = map.valueOffset(JSONPointer.root.appending(field))
      else { return Location(path: referrer, range: nil) }
      return Location(path: referrer, range: start..<JSONText.valueEnd(in: bytes, from: start))
    }
  }

  // MARK: Formatting and fixes

  /// The canonical text of a document buffer, or nil when it does not parse (or is canonical).
  public func format(text: [UInt8]) -> [UInt8]? {
    guard let value = try? JSONParser().parse(text) else { return nil }
    let canonical = JSONWriter.canonical(value)
    return canonical == text ? nil : canonical
  }

  /// The fixes formsctl knows for the problems in `range`: canonical formatting, the field a
  /// misspelt one probably is, the kind a misspelt `_schema` probably names, the next states.
  public func fixes(path: String, text: [UInt8], in range: Range<Int>) -> [Fix] {
    guard case .document = role(of: path) else { return [] }
    var fixes: [Fix] = []
    let problems = diagnose(path: path, text: text).filter {
      $0.range.overlaps(range) || $0.range.lowerBound == range.lowerBound
    }
    let schema = schema(for: path, text: text)
    for problem in problems {
      let pointer = problem.diagnostic.pointer
      switch problem.diagnostic.rule {
      case "unknown-field":
        guard let schema, let name = pointer.last, let parent = pointer.parent,
          let type = Self.type(at: parent, in: schema)
        else { continue }
        let candidates = type.alternatives.flatMap(\.fieldOrder)
        guard let best = suggestion(for: name, among: candidates) else { continue }
        fixes.append(
          Fix(
            title: "Rename \"\(name)\" to \"\(best)\"",
            edits: [Edit(range: problem.range, text: JSONWriter.compact(.string(best)))], rule: problem.diagnostic.rule)
        )
      case "schema":
        guard case .document(let kind) = role(of: path), let latest = store.registry.latest(kind),
          pointer == JSONPointer.root.appending("_schema") || problem.diagnostic.message.contains("_schema")
        else { continue }
        if let start = (try? JSONParser().parseWithSourceMap(text))?.1.valueOffset(
          JSONPointer.root.appending("_schema"))
        {
          fixes.append(
            Fix(
              title: "Use \(latest.reference)",
              edits: [Edit(range: start..<JSONText.valueEnd(in: text, from: start), text: "\"\(latest.reference)\"")],
              rule: "schema"))
        }
      default:
        continue
      }
    }
    if let schema, let workflow = schema.workflow, let document = try? JSONParser().parseWithSourceMap(text),
      let start = document.1.valueOffset(JSONPointer.root.appending(workflow.field)),
      range.overlaps(start..<JSONText.valueEnd(in: text, from: start)) || range.lowerBound == start,
      let from = stored(path).flatMap({ schema.workflowState(of: $0) })
    {
      for next in workflow.next(from: from) {
        fixes.append(
          Fix(
            title: "Move to \(next)",
            edits: [Edit(range: start..<JSONText.valueEnd(in: text, from: start), text: "\"\(next)\"")], rule: nil))
      }
    }
    if let canonical = format(text: text) {
      fixes.append(
        Fix(
          title: "Format as formsctl writes it",
          edits: [Edit(range: 0..<text.count, text: String(decoding: canonical, as: UTF8.self))],
          rule: nil))
    }
    return fixes
  }
}
