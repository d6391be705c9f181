import FormsCore
import FormsPages
import FormsStore
import HTTPTypes
import Hummingbird

/// The routes that change the store, each one call of the store's write path.
extension FormsServer {
  /// `/k/KIND/new`, `/k/KIND/ID/edit|status|approve|delete|rename`.
  func post(_ segments: [String], form: FormInput) -> Response {
    // Whatever this write does, pages kept in memory are made again after it.
    defer { live.changed() }
    do throws(StoreError) {
      guard segments.first == "k", segments.count >= 3 else { return plain(.notFound, "no such form") }
      if segments.count == 3 && segments[2] == "new" {
        return try create(kind: try checkedKind(segments[1]), form: form)
      }
      guard segments.count == 4 else { return plain(.notFound, "no such form") }
      let (kind, id) = try document(segments)
      switch segments[3] {
      case "edit":
        return try save(kind: kind, id: id, form: form)
      case "status":
        guard let state = form["state"], !state.isEmpty else { return plain(.badRequest, "name the state to move to") }
        if let stale = try changedSince(kind: kind, id: id, form: form) { return stale }
        try store.transition(kind: kind, id: id, to: state, identity: identity, voidingApprovals: form["void"] == "1")
        return redirect(Link(["k", kind, id]).url)
      case "approve":
        guard let identity else {
          return plain(.forbidden, "this server has no signing identity (start it with FORMSCTL_IDENTITY set)")
        }
        if let stale = try changedSince(kind: kind, id: id, form: form) { return stale }
        let comment = form["comment"].flatMap { $0.isEmpty ? nil : String($0.prefix(2000)) }
        switch form["decision"] {
        case "approve": try store.approve(kind: kind, id: id, comment: comment, identity: identity)
        case "reject": try store.reject(kind: kind, id: id, comment: comment, identity: identity)
        default: return plain(.badRequest, "the decision is approve or reject")
        }
        return redirect(Link(["k", kind, id]).url)
      case "delete":
        let plan = try store.planDelete(kind: kind, id: id)
        guard Pages.fingerprint(plan) == form["_plan"] else {
          return html(try pages.deletePlan(kind: kind, id: id, changed: true), status: .conflict)
        }
        // The plan checked again under the lock: a dependant added since is never cascaded unseen.
        try store.delete(kind: kind, id: id, expecting: plan)
        return redirect(Link(["k", kind]).url)
      case "rename":
        guard let to = form["to"], !to.isEmpty else { return plain(.badRequest, "name the new id") }
        let plan = try store.planMove(kind: kind, from: id, to: to)
        guard Pages.fingerprint(plan) == form["_plan"] else {
          return html(try pages.renamePlan(kind: kind, id: id, to: to, changed: true), status: .conflict)
        }
        try store.move(kind: kind, from: id, to: to, expecting: plan)
        return redirect(Link(["k", kind, to]).url)
      default:
        return plain(.notFound, "no such form")
      }
    } catch {
      return failure(error)
    }
  }

  /// A 409 when the document is no longer the one the page showed (its `_hash`), else nil.
  func changedSince(kind: String, id: String, form: FormInput) throws(StoreError) -> Response? {
    guard let hash = form["_hash"] else { return nil }
    let stored = try store.read(kind: kind, id: id)
    guard stored.contentHash != hash else { return nil }
    return plain(
      .conflict, "this \(kind) changed since the page was shown; nothing was done. Reload it and look again.")
  }

  /// Saves the edit form: a row added or removed shows the form again; a save goes through the
  /// write path if the file is still the one the form was rendered from (409 with both versions
  /// otherwise), and a refusal shows the form again with every diagnostic beside its field and
  /// everything typed kept.
  func save(kind: String, id: String, form: FormInput) throws(StoreError) -> Response {
    let stored = try store.read(kind: kind, id: id)
    let latest = try store.schema(kind)
    let schema = store.registry.schema(of: stored.value) ?? latest
    let decoded = FormDecoder(input: form, schema: schema, base: stored.value)
    var state = Pages.FormState(draft: decoded.draft, hash: form["_hash"])
    state.raw = decoded.raw
    state.diagnostics = decoded.problems
    if let action = form["_action"], action != "save" {
      guard Pages.applyRowAction(action, to: &state.draft) else { return plain(.badRequest, "no such button") }
      return html(try pages.form(kind: kind, stored: stored, state: state))
    }
    guard state.hash == stored.contentHash else {
      return html(try pages.conflict(kind: kind, stored: stored, state: state), status: .conflict)
    }
    guard decoded.problems.isEmpty else {
      return html(try pages.form(kind: kind, stored: stored, state: state), status: .unprocessableContent)
    }
    do throws(StoreError) {
      try store.replace(
        kind: kind, id: id, original: stored.bytes, with: state.draft, voidingApprovals: form["_void"] == "1")
      return redirect(Link(["k", kind, id]).url)
    } catch .refused(.changedMeanwhile) {
      let now = try store.read(kind: kind, id: id)
      return html(try pages.conflict(kind: kind, stored: now, state: state), status: .conflict)
    } catch {
      return try refused(error, kind: kind, stored: stored, state: state)
    }
  }

  /// Creates a document from the new-document form (or shows it again, as ``save``).
  func create(kind: String, form: FormInput) throws(StoreError) -> Response {
    let template = form["_template"].flatMap { $0.isEmpty ? nil : $0 }
    let (base, hints) = try pages.start(kind: kind, template: template)
    let decoded = FormDecoder(input: form, schema: try store.schema(kind), base: base)
    var state = Pages.FormState(draft: decoded.draft)
    state.raw = decoded.raw
    state.diagnostics = decoded.problems
    state.template = template
    state.hints = hints
    if let action = form["_action"], action != "save" {
      guard Pages.applyRowAction(action, to: &state.draft) else { return plain(.badRequest, "no such button") }
      return html(try pages.form(kind: kind, stored: nil, state: state))
    }
    guard decoded.problems.isEmpty else {
      return html(try pages.form(kind: kind, stored: nil, state: state), status: .unprocessableContent)
    }
    do throws(StoreError) {
      let created = try store.create(kind: kind, base: state.draft)
      return redirect(Link(["k", kind, created.id]).url)
    } catch {
      return try refused(error, kind: kind, stored: nil, state: state)
    }
  }

  /// The form again after the store refused it: diagnostics beside their fields, any other
  /// refusal in one line above the form; what cannot be shown as a form (a lock, a disk) as a page.
  func refused(_ error: StoreError, kind: String, stored: Store.Document?, state: Pages.FormState) throws(StoreError)
    -> Response
  {
    var state = state
    switch error {
    case .invalidDocument(_, let diagnostics):
      state.diagnostics += diagnostics
      state.message = "Not saved: \(diagnostics.count) problem(s), shown beside their fields."
    case .refused(.wouldVoidApprovals(let stale)):
      // Signatures are not voided behind anyone's back: the form again, with the box that says so.
      state.message = "Not saved: \(error.description)"
      state.confirmVoid = "Save anyway, voiding \(stale.records) signature(s): the preparer submits it again"
    case .assignment, .refused, .usage:
      state.message = "Not saved: \(error.description)"
    default:
      return failure(error)
    }
    return html(try pages.form(kind: kind, stored: stored, state: state), status: .unprocessableContent)
  }
}
