import FormsCore
import FormsStore

extension Pages {
  /// What a document's page says above it, after a button of the page did nothing.
  public enum Notice: Sendable {
    /// The document changed since the page the button was on was shown (its `_hash`): nothing
    /// was `done` (`moved`, `approved`, `rejected`); the page shows it as it is now.
    case changed(done: String)
    /// The store refused what the button asked, for `reason` (with the diagnostics of a document
    /// the change would have made invalid).
    case refused(reason: String, diagnostics: [Diagnostic])
  }

  /// One document: its fields in the descriptor's order, its relations both ways, its approvals
  /// and what it waits for, its history from the audit log, and what a person can do next.
  /// Sealed values are shown only where the server's identity opens them, recorded first.
  /// `notice` says above it why a button of the page did nothing: the person is back on the
  /// document, with buttons that carry its hash as it is now.
  public func document(kind: String, id: String, notice: Notice? = nil) throws(StoreError) -> Page {
    let schema = try store.schema(kind)
    let read = try store.readToShow(kind: kind, id: id)
    let value = store.shown(read)
    let versioned = store.registry.schema(of: value) ?? schema
    let title = Self.titleField(versioned).flatMap { value[$0]?.stringValue }
    let heading: HTML =
      title.map { "<h1>\($0) <small>\(kind) \(read.id)</small></h1>" } ?? "<h1>\(kind) \(read.id)</h1>"
    var top: HTML = ""
    if let notice { top = try said(notice, kind: kind, id: read.id) }
    let body: HTML = """
      \(heading)
      \(top)
      \(try actions(kind: kind, document: read, value: value, schema: versioned))
      <section class="fields"><h2>Fields</h2>\(Self.fields(versioned.root, value, parent: nil))</section>
      \(try relations(kind: kind, id: read.id, value: value, schema: versioned))
      \(attachments(kind: kind, id: read.id, value: value))
      \(approvals(value))
      \(try history(kind: kind, id: read.id))
      """
    return Page(title: "\(kind) \(read.id)", body: body, live: "\(kind)/\(read.id)")
  }

  /// A notice as the top of the page says it: a change since the page was shown names the newest
  /// change (who, when, which fields) from the audit log; a refusal says the store's reason.
  func said(_ notice: Notice, kind: String, id: String) throws(StoreError) -> HTML {
    switch notice {
    case .changed(let done):
      let (records, _) = try AuditLog.query(store.layout, AuditLog.Query(kind: kind, id: id, limit: 1))
      let newest = records.first.map { record -> HTML in
        let changed = (record.documents ?? []).flatMap(\.pointers).map(\.description).joined(separator: " ")
        let command = record.command.map { " (\($0))" } ?? ""
        return
          " The newest change: \(record.operation ?? "a change") by \(record.user ?? "someone") at \(record.time ?? "")"
          + "\(command)\(changed.isEmpty ? "" : ", changing \(changed)")."
      }
      return """
        <p class="error" role="alert" id="page-problem">This \(kind) changed since your page was shown, so nothing was \
        \(done).\(newest ?? "") It is shown below as it is now: look at it again before you decide.</p>
        """
    case .refused(let reason, let diagnostics):
      let list = diagnostics.isEmpty ? "" : FormRenderer.problemList(diagnostics)
      return
        "<div class=\"refused\" id=\"page-problem\"><p class=\"error\" role=\"alert\">Not done: \(reason)</p>\(list)</div>"
    }
  }

  /// Buttons for what comes next: edit, print, the workflow's next states only, approve and
  /// reject when the server's identity holds a role the document waits for, rename and delete.
  /// No move into a state an approval chain guards (only the signature that completes the chain
  /// moves it there), and none out of a chain's review state while it waits for signatures (a
  /// signed rejection ends the round): the store refuses those, so no button offers them.
  func actions(kind: String, document: Store.Document, value: JSONValue, schema: Schema) throws(StoreError) -> HTML {
    let id = document.id
    var html: HTML = """
      <a href="\(Link(["k", kind, id, "edit"]))" class="button">Edit</a> \
      <a href="\(Link(["k", kind, id, "print"]))" class="button">Print</a> \
      <a href="\(Link(["k", kind, id, "rename"]))" class="button">Rename</a> \
      <a href="\(Link(["k", kind, id, "delete"]))" class="button danger">Delete</a>
      """
    // The next states only, and only when people may move it (`editable:` may leave the workflow to a feed).
    let movable = schema.editable.map { $0.contains { $0.members == [schema.workflow?.field ?? ""] } } ?? true
    let awaited = try awaitedRoles(kind: kind, document: document)
    if let workflow = schema.workflow, movable, let state = value[workflow.field]?.stringValue {
      let inReview = schema.approvals?.reviewing(state) != nil && !awaited.isEmpty
      let next = inReview ? [] : (workflow.transitions[state] ?? []).filter { schema.approvals?.guarding($0) == nil }
      let buttons = next.map { target -> HTML in
        "<button type=\"submit\" name=\"state\" value=\"\(target)\">Move to \(target)</button>"
      }
      let guarded = (workflow.transitions[state] ?? []).filter { schema.approvals?.guarding($0) != nil }
      let note: HTML =
        inReview
        ? " <span class=\"note\">Submitted for approval: it moves when its signers approve or reject it.</span>"
        : guarded.isEmpty
          ? ""
          : " <span class=\"note\">\(guarded.joined(separator: ", ")): reached only by a complete chain of approvals.</span>"
      html += """
        <form method="post" action="\(Link(["k", kind, id, "status"]))" class="workflow">\(context.csrfField)\
        <input type="hidden" name="_hash" value="\(document.contentHash)">\
        <span class="state">Status: <strong>\(state)</strong></span> \(buttons.joined(separator: " "))\(note)</form>
        """
    }
    if !awaited.isEmpty {
      let held = awaited.filter(context.roles.contains)
      let sign: HTML =
        held.isEmpty
        ? "<p class=\"note\">Waits for: \(awaited.joined(separator: ", ")) (this server's identity holds none of these roles).</p>"
        : """
        <form method="post" action="\(Link(["k", kind, id, "approve"]))" class="approve">\(context.csrfField)\
        <input type="hidden" name="_hash" value="\(document.contentHash)">\
        <p>Waits for your signature as \(held.joined(separator: ", ")).</p>\
        <label for="comment">Comment</label> <input type="text" id="comment" name="comment" maxlength="2000">\
        <button type="submit" name="decision" value="approve">Approve</button> \
        <button type="submit" name="decision" value="reject" class="danger">Reject</button></form>
        """
      html += sign
    }
    return "<nav class=\"actions\">\(html)</nav>"
  }

  /// The roles `document` waits for now (its `_awaiting`, as `list --where` reads it).
  func awaitedRoles(kind: String, document: Store.Document) throws(StoreError) -> [String] {
    guard try store.schema(kind).approvals != nil else { return [] }
    let path = FilterExpression.Path(steps: [.member("_awaiting")])
    let (_, report) = try store.listingReport(kind: kind, [document], columns: [("_awaiting", path)])
    return report.records.first?["_awaiting"].map { value in
      (value.arrayValue ?? [value]).compactMap(\.stringValue)
    } ?? []
  }

  /// A value laid out by its type: objects as definition lists in the descriptor's order (then
  /// members it does not name), lists of objects as numbered entries, everything else as text.
  static func fields(_ type: SchemaType?, _ value: JSONValue, parent: JSONValue?) -> HTML {
    switch value {
    case .object(let object):
      let resolved = type?.resolved(parent: parent, value: value)
      let named = resolved?.fieldOrder ?? []
      // Reserved members (`_schema`, `_approvals`, `_attachments`) have sections of their own.
      let order =
        named.filter { object[$0] != nil }
        + object.members.map(\.key).filter { !named.contains($0) && !(parent == nil && $0.hasPrefix("_")) }
      let items = order.compactMap { name -> HTML? in
        guard let member = object[name] else { return nil }
        let inner = resolved?.fields[name]?.type
        return
          "<dt>\(FormRenderer.label(name))</dt><dd data-field=\"\(name)\">\(fields(inner, member, parent: value))</dd>"
      }
      return "<dl>\(items.joined())</dl>"
    case .array(let elements):
      guard elements.contains(where: { $0.objectValue != nil }) else {
        return .text(elements.map { FormRenderer.inputText($0) }.joined(separator: ", "))
      }
      let items = elements.map { "<li>\(fields(type?.element, $0, parent: nil))</li>" as HTML }
      return "<ol>\(items.joined())</ol>"
    default:
      return HTML.value(value)
    }
  }

  /// Links both ways: the documents this one names, and those of every kind that names it.
  func relations(kind: String, id: String, value: JSONValue, schema: Schema) throws(StoreError) -> HTML {
    var items: [HTML] = []
    for relation in schema.relations {
      guard let target = value[relation.field]?.stringValue else { continue }
      items.append(
        "<li>\(FormRenderer.label(relation.field)): <a href=\"\(Link(["k", relation.kind, target]))\">\(relation.kind) \(target)</a></li>"
      )
    }
    for other in store.registry.kinds {
      let otherSchema = try store.schema(other)
      for relation in otherSchema.relations where relation.kind == kind {
        let source = "\(relation.field) == \(JSONWriter.compact(.string(id)))"
        let filter: FilterExpression
        do throws(ExpressionError) {
          filter = try ExpressionParser.parse(source)
        } catch {
          throw StoreError.internalError("the filter \(source) does not parse: \(error.message)")
        }
        let found = try store.list(kind: other, query: Store.Query(filters: [filter], limit: 51))
        for document in found.documents.prefix(50) {
          let label = Self.titleField(otherSchema).flatMap { document.value[$0]?.stringValue } ?? ""
          items.append(
            "<li>\(otherSchema.title ?? other): <a href=\"\(Link(["k", other, document.id]))\">\(document.id)</a> \(label)</li>"
          )
        }
        if found.documents.count > 50 {
          items.append(
            "<li><a href=\"\(Link(["k", other], query: [("where", source)]))\">every \(other) naming this one</a></li>")
        }
      }
    }
    guard !items.isEmpty else { return "" }
    return "<section class=\"relations\"><h2>Related</h2><ul>\(items.joined())</ul></section>"
  }

  func attachments(kind: String, id: String, value: JSONValue) -> HTML {
    guard case .object(let records)? = value["_attachments"], !records.members.isEmpty else { return "" }
    let items = records.members.map { member -> HTML in
      let type = member.value["type"]?.stringValue ?? ""
      let size = member.value["size"].map(FormRenderer.inputText) ?? ""
      return
        "<li><a href=\"\(Link(["k", kind, id, "attachments", member.key]))\">\(member.key)</a> (\(type), \(size) bytes)</li>"
    }
    return "<section class=\"attachments\"><h2>Attachments</h2><ul>\(items.joined())</ul></section>"
  }

  /// The signatures the document holds.
  func approvals(_ value: JSONValue) -> HTML {
    guard let records = value["_approvals"]?.arrayValue, !records.isEmpty else { return "" }
    let rows = records.map { record -> HTML in
      let cells = ["action", "chain", "step", "role", "signer", "time", "comment"].map { name -> HTML in
        "<td>\(record[name].map(FormRenderer.inputText) ?? "")</td>"
      }
      return "<tr>\(cells.joined())</tr>"
    }
    return """
      <section class="approvals"><h2>Approvals</h2><table><thead><tr><th>Action</th><th>Chain</th><th>Step</th>\
      <th>Role</th><th>Signer</th><th>Time</th><th>Comment</th></tr></thead><tbody>\(rows.joined())</tbody></table></section>
      """
  }

  /// The audit log's records of this document, newest first, then git's commits of its file
  /// (what a pull or a commit made elsewhere brought, which this clone's log may not hold).
  func history(kind: String, id: String) throws(StoreError) -> HTML {
    try auditHistory(kind: kind, id: id) + gitHistory(kind: kind, id: id)
  }

  /// The commits of git's history that changed the document's file, newest first; nothing
  /// outside a git repository.
  func gitHistory(kind: String, id: String) throws(StoreError) -> HTML {
    let commits = try store.commits(kind: kind, id: id)
    guard !commits.isEmpty else { return "" }
    let rows = commits.map { commit -> HTML in
      """
      <tr><td>\(commit.time)</td><td>\(commit.author)</td><td>\(commit.subject)</td>\
      <td class="commit">\(String(commit.commit.prefix(12)))</td></tr>
      """
    }
    return """
      <section class="git-history"><h2>In git</h2><table><thead><tr><th>Time</th><th>Author</th><th>Commit message</th>\
      <th>Commit</th></tr></thead><tbody>\(rows.joined())</tbody></table></section>
      """
  }

  /// The audit log's records of this document, newest first.
  func auditHistory(kind: String, id: String) throws(StoreError) -> HTML {
    let (records, _) = try AuditLog.query(store.layout, AuditLog.Query(kind: kind, id: id, limit: 50))
    guard !records.isEmpty else { return "<section class=\"history\"><h2>History</h2><p>No records.</p></section>" }
    let rows = records.map { record -> HTML in
      let changed = (record.documents ?? []).flatMap(\.pointers).map(\.description).joined(separator: " ")
      return """
        <tr><td>\(record.time ?? "")</td><td>\(record.user ?? "")</td><td>\(record.operation ?? "")</td>\
        <td>\(record.command ?? "")</td><td class="pointers">\(changed)</td></tr>
        """
    }
    return """
      <section class="history"><h2>History</h2><table><thead><tr><th>Time</th><th>Who</th><th>Operation</th>\
      <th>Command</th><th>Changed</th></tr></thead><tbody>\(rows.joined())</tbody></table></section>
      """
  }
}
