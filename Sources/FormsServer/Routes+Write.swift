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
        guard let shown = shownHash(form) else { return unseen(kind) }
        do throws(StoreError) {
          try store.transition(
            kind: kind, id: id, to: state, identity: identity, voidingApprovals: form["void"] == "1", shown: shown)
        } catch {
          return try notDone(error, kind: kind, id: id, done: "moved")
        }
        return redirect(Link(["k", kind, id]).url)
      case "approve":
        guard let identity else {
          return plain(.forbidden, "this server has no signing identity (start it with FORMSCTL_IDENTITY set)")
        }
        let decision = form["decision"] ?? ""
        guard ["approve", "reject"].contains(decision) else {
          return plain(.badRequest, "the decision is approve or reject")
        }
        guard let shown = shownHash(form) else { return unseen(kind) }
        let comment = form["comment"].flatMap { $0.isEmpty ? nil : String($0.prefix(2000)) }
        do throws(StoreError) {
          if decision == "approve" {
            try store.approve(kind: kind, id: id, comment: comment, identity: identity, shown: shown)
          } else {
            try store.reject(kind: kind, id: id, comment: comment, identity: identity, shown: shown)
          }
        } catch {
          return try notDone(error, kind: kind, id: id, done: decision == "approve" ? "approved" : "rejected")
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

  /// The hash of the page a Move, Approve or Reject button was on (its `_hash`): the store checks
  /// it under the lock, so that nothing is moved or signed that the person did not see.
  func shownHash(_ form: FormInput) -> String? {
    guard let hash = form["_hash"], !hash.isEmpty else { return nil }
    return hash
  }

  /// A button's form that does not say which version of the page it came from: nothing is done.
  func unseen(_ kind: String) -> Response {
    plain(
      .badRequest,
      "the form does not say which version of this \(kind) it was shown (its _hash); nothing was done. "
        + "Reload the page and look again.")
  }

  /// What a Move, Approve or Reject button the store refused answers: the document's page as it
  /// is now (its buttons carry its hash as it is now), with why nothing was `done` above it: 409
  /// when it changed since the page was shown, the store's own reason for a refusal (and the
  /// diagnostics of an invalid result); what cannot be said on the page (a lock, a disk) as a page of its own.
  func notDone(_ error: StoreError, kind: String, id: String, done: String) throws(StoreError) -> Response {
    switch error {
    case .refused(.changedMeanwhile):
      return html(try pages.document(kind: kind, id: id, notice: .changed(done: done)), status: .conflict)
    case .invalidDocument(_, let diagnostics):
      return html(
        try pages.document(kind: kind, id: id, notice: .refused(reason: error.description, diagnostics: diagnostics)),
        status: .unprocessableContent)
    case .refused, .assignment:
      return html(
        try pages.document(kind: kind, id: id, notice: .refused(reason: error.description, diagnostics: [])),
        status: error.kind == .usage ? .badRequest : .unprocessableContent)
    default:
      return failure(error)
    }
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
      // From a template, the store's placeholder rule: one left empty is refused, as `new --template` refuses it.
      let created: Store.Document
      if let template {
        created = try store.create(kind: kind, template: template, filled: state.draft)
      } else {
        created = try store.create(kind: kind, base: state.draft)
      }
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
      state.confirmVoid = "Save and void \(plural(stale.records, "signature"))"
    case .assignment, .refused, .usage:
      state.message = "Not saved: \(error.description)"
    default:
      return failure(error)
    }
    return html(try pages.form(kind: kind, stored: stored, state: state), status: .unprocessableContent)
  }
}
