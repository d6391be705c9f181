import FormsCore
import FormsStore

extension Pages {
  /// A form being filled: what it edits, what it shows, and what went wrong with it last time.
  public struct FormState: Sendable {
    /// The document the form describes (a draft: maybe not valid yet).
    public var draft: JSONValue
    public var raw: [String: String] = [:]
    public var diagnostics: [Diagnostic] = []
    /// A refusal that is not about one field (a rule of the workflow, a lock), in one line.
    public var message: String?
    /// The hash of the stored file the form was rendered from (nil for a new document).
    public var hash: String?
    /// The template a new document starts from.
    public var template: String?
    /// Hints for fields a template leaves to fill (its placeholders), by pointer.
    public var hints: [String: String] = [:]
    /// When set, the save would void signatures: the label of a second button (after Save, never
    /// the one Enter presses) that saves the same form and voids them (`_void=1`).
    public var confirmVoid: String?

    public init(draft: JSONValue, hash: String? = nil) {
      self.draft = draft
      self.hash = hash
    }
  }

  /// The form that edits `kind` `id`, as stored now.
  public func editForm(kind: String, id: String) throws(StoreError) -> Page {
    let read = try store.readToShow(kind: kind, id: id)
    return try form(kind: kind, stored: read, state: FormState(draft: read.value, hash: read.contentHash))
  }

  /// The form that starts a new `kind` document, from nothing or from a template (its
  /// placeholders left empty to fill, each with its hint).
  public func newForm(kind: String, template: String?) throws(StoreError) -> Page {
    let (base, hints) = try start(kind: kind, template: template)
    var state = FormState(draft: base)
    state.template = template
    state.hints = hints
    return try form(kind: kind, stored: nil, state: state)
  }

  /// What a new document starts from: the template with its placeholders taken out (and their
  /// hints by pointer), or an empty object.
  public func start(kind: String, template: String?) throws(StoreError) -> (JSONValue, [String: String]) {
    guard let template, !template.isEmpty else { return (.object(JSONObject()), [:]) }
    var base = try store.template(kind: kind, name: template)
    var hints: [String: String] = [:]
    for (pointer, placeholder) in Store.placeholders(in: base) {
      hints[pointer.description] = String(placeholder.dropFirst(2).dropLast(2))
      base.put(nil, at: pointer)
    }
    return (base, hints)
  }

  /// The form page: the fields as the descriptor lays them out, the diagnostics beside them,
  /// everything typed kept.
  public func form(kind: String, stored: Store.Document?, state: FormState) throws(StoreError) -> Page {
    let latest = try store.schema(kind)
    let schema = stored.flatMap { store.registry.schema(of: $0.value) } ?? latest
    var renderer = FormRenderer(schema: schema, stored: stored?.value)
    renderer.raw = state.raw
    renderer.diagnostics = state.diagnostics
    renderer.hints = state.hints
    if let stored, case .object(let object) = stored.value {
      renderer.sealed = Set(object.members.filter { SealedText.isSealed($0.value) }.map(\.key))
    }
    for relation in schema.relations {
      renderer.choices[relation.field] = FormRenderer.Choices(
        kind: relation.kind, options: try lookup(kind: relation.kind, text: "", limit: 50))
    }
    let action = stored.map { Link(["k", kind, $0.id, "edit"]) } ?? Link(["k", kind, "new"])
    let title = stored.map { "Edit \(kind) \($0.id)" } ?? "New \(kind)"
    let message: HTML = state.message.map { "<p class=\"error\" role=\"alert\" id=\"form-problem\">\($0)</p>" } ?? ""
    let hash: HTML = state.hash.map { "<input type=\"hidden\" name=\"_hash\" value=\"\($0)\">" } ?? ""
    let template: HTML = state.template.map { "<input type=\"hidden\" name=\"_template\" value=\"\($0)\">" } ?? ""
    let templates = stored == nil && state.template == nil ? try templateLinks(kind: kind) : ""
    let cancel = stored.map { Link(["k", kind, $0.id]) } ?? Link(["k", kind])
    let body: HTML = """
      <h1>\(title)</h1>
      \(templates)\(message)
      <form method="post" action="\(action)" class="document" novalidate>\(context.csrfField)\(hash)\(template)
      \(renderer.fields(of: state.draft))
      \(state.confirmVoid == nil ? "" : "<p class=\"confirm\">Saving this changes what was signed: the signatures no longer count, and the form is submitted for approval again.</p>" as HTML)
      <p class="buttons"><button type="submit" name="_action" value="save" class="primary">Save</button> \
      \(state.confirmVoid.map { "<button type=\"submit\" name=\"_void\" value=\"1\" class=\"danger\">\($0)</button> " as HTML } ?? "")\
      <a href="\(cancel)">Cancel</a></p>
      </form>
      """
    return Page(title: title, body: body, editing: stored.map { "\(kind)/\($0.id)" })
  }

  func templateLinks(kind: String) throws(StoreError) -> HTML {
    let names = try store.templates(of: kind)
    guard !names.isEmpty else { return "" }
    let links = names.map { "<a href=\"\(Link(["k", kind, "new"], query: [("template", $0)]))\">\($0)</a>" as HTML }
    return "<p class=\"templates\">Start from a template: \(links.joined(separator: ", "))</p>"
  }

  /// A form's "Add a row" and "Remove row" buttons: the draft with an empty element appended to
  /// the list at `pointer`, or the element at `pointer` removed; nil when the action is not one.
  public static func applyRowAction(_ action: String, to draft: inout JSONValue) -> Bool {
    let parts = action.split(separator: " ", maxSplits: 1).map(String.init)
    guard parts.count == 2, let pointer = JSONPointer(parts[1]), pointer != .root else { return false }
    switch parts[0] {
    case "add":
      var elements = draft[pointer: pointer]?.arrayValue ?? []
      elements.append(.object(JSONObject()))
      draft.put(.array(elements), at: pointer)
      return true
    case "remove":
      guard let parent = pointer.parent, let last = pointer.last, let index = Int(last),
        var elements = draft[pointer: parent]?.arrayValue, elements.indices.contains(index)
      else { return false }
      elements.remove(at: index)
      draft.put(.array(elements), at: parent)
      return true
    default:
      return false
    }
  }

  /// The page of a save refused because the file changed since the form was rendered: what is
  /// stored now, what the person wrote, and the form again (over the stored version now, so a
  /// second save is a decision made having seen both).
  public func conflict(kind: String, stored: Store.Document, state: FormState) throws(StoreError) -> Page {
    // The version stored now is shown: its opened sealed values are recorded first, as `get` records them.
    try store.recordShowing(stored, kind: kind)
    var again = state
    again.hash = stored.contentHash
    again.message =
      "This \(kind) changed since you opened the form (another tab, a terminal or a pull). Nothing was saved. "
      + "Compare both versions below; saving again writes yours over the new one."
    let theirs = String(decoding: JSONWriter.canonical(store.shown(stored)), as: UTF8.self)
    let yours = String(decoding: JSONWriter.canonical(state.draft), as: UTF8.self)
    var page = try form(kind: kind, stored: stored, state: again)
    page.body =
      """
      <section class="conflict"><h2>Both versions</h2><div class="versions">\
      <div><h3>Stored now</h3><pre id="theirs">\(theirs)</pre></div>\
      <div><h3>Yours</h3><pre id="yours">\(yours)</pre></div></div></section>
      """ + page.body
    return page
  }
}
