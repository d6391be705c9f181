import FormsCore

import class Foundation.Thread

/// Who a document version comes from; decides which rules of the write path apply (docs/design.md §12).
package enum ChangeSource: Sendable, Equatable {
  /// A person (`new`, `set`, `edit`, `status`, the library's API): the workflow and immutable
  /// fields are enforced, and the timestamps of whatever changed are set to the write time.
  case person
  /// A feed (`import`), the source of truth for the states it sends: a transition the workflow
  /// does not list is applied with a warning (refused when `strictWorkflow`); its stamps are kept.
  case feed(strictWorkflow: Bool)
  /// The store itself, keeping references whole (`rm`'s nullify, `mv`): may change an id.
  case store
  /// The store sealing values again (`keys add`, `keys remove`, `keys reseal`): the proposed
  /// document differs from the stored one only in envelopes; no stamps, no defaults. Approvals
  /// that sign the old envelopes go stale: their rounds end, and a document in a state a chain
  /// guards goes back to review whatever the descriptor's `on_change` says.
  case sealing

  var isFeed: Bool { if case .feed = self { true } else { false } }

  /// True when a change from this source that voids signatures is refused unless the session
  /// was asked to void them: a person's, and the store's own (a rename or a nullified reference
  /// rewriting a signed form). A feed is the source of truth for what it sends, so its change
  /// voids them and the report names them; a reseal asks on its own (`Store.reseal`).
  var asksBeforeVoiding: Bool { self == .person || self == .store }
}

extension WriteSession {
  /// A document version that went through the pipeline, ready to stage.
  package struct Prepared: Sendable {
    package let path: String
    package let value: JSONValue
    package let bytes: [UInt8]
    /// What the audit log will say; nil when the document does not change.
    package let entry: AuditEntry?
    /// Things applied although a person could not have done them (a feed's transition).
    package let warnings: [String]
    /// The stored file this version replaces under another name (a rename).
    let replacedPath: String?
    /// The approvals this version makes stale, if it does.
    package let staleApprovals: StaleApprovals?

    package var document: Store.Document {
      var document = Store.Document(path: path, value: value, bytes: bytes)
      document.staleApprovals = staleApprovals
      return document
    }
  }

  /// The pipeline for one document: enforce (for a person: the workflow from the stored state
  /// and immutable fields; for a feed: warn about, or refuse, transitions the workflow does not
  /// list), stamp timestamps at every level, fill defaults (new documents and feed records),
  /// validate against the schema and the store as this session leaves it (relations to documents
  /// that exist after the session's own creates and deletes; under the lock), and make the
  /// canonical bytes. Reads the session only, so it may run in parallel.
  package func prepare(_ proposed: JSONValue, replacing stored: Store.Document?, kind: String, source: ChangeSource)
    throws(StoreError) -> Prepared
  {
    guard case .object = proposed else {
      throw StoreError.refused(.notAnObject(kind: kind, found: proposed.typeName))
    }
    var document = proposed
    if document["_schema"] == nil {
      let latest = try rules.schema(kind).reference
      document["_schema"] = stored?.value["_schema"] ?? .string(latest)
    }
    let schema = try rules.schema(of: document, path: stored?.path ?? kind)
    guard schema.kind == kind else {
      throw StoreError.refused(.wrongSchema(kind: kind, reference: schema.reference))
    }
    guard let id = document[schema.idField].flatMap(DocumentID.text) else {
      throw StoreError.refused(.missingID(kind: kind, field: schema.idField))
    }
    let path = try rules.path(kind: kind, id: id)
    var warnings: [String] = []
    if let stored {
      let storedID = stored.value[schema.idField].flatMap(DocumentID.text) ?? id
      if source != .store {
        if storedID != id {
          throw StoreError.refused(.idChanged(kind: kind, from: storedID, to: id))
        }
        if source == .person, stored.value["_schema"] != document["_schema"] {
          throw StoreError.refused(
            .schemaChanged(kind: kind, id: id, stored: stored.value["_schema"]?.stringValue ?? "?"))
        }
      }
      if path != stored.path, willExist(path) {
        throw StoreError.refused(.alreadyExists(kind: kind, id: id, path: rules.display(path)))
      }
    } else if willExist(path) {
      throw StoreError.refused(.alreadyExists(kind: kind, id: id, path: rules.display(path)))
    }
    // `_approvals` only grows: a person or a feed never takes back a signature, a submission or
    // the unsigned record that ended a round (which would let the old round count again).
    if source == .person || source.isFeed, let stored {
      let before = stored.value["_approvals"]?.arrayValue ?? []
      let after = document["_approvals"]?.arrayValue ?? []
      if let index = before.indices.first(where: { $0 >= after.count || before[$0] != after[$0] }) {
        throw StoreError.refused(.approvalsRewritten(kind: kind, id: id, index: index))
      }
    }
    try checkAttachments(document, stored: stored, schema: schema, kind: kind, id: id)
    try verifyAttachmentsBeforeSigning(document, stored: stored, schema: schema, kind: kind, id: id)
    let from = stored.flatMap { schema.workflowState(of: $0.value) }
    var to = schema.workflowState(of: document)
    switch source {
    case .person:
      try enforce(document, stored: stored, schema: schema, id: id, from: from, to: to)
    case .feed(let strict):
      if let workflow = schema.workflow, let from, let to, schema.forbidsTransition(from: from, to: to) {
        let refusal = Refusal.transition(
          kind: kind, id: id, field: workflow.field, from: from, to: to, allowed: workflow.next(from: from),
          strict: true)
        if strict { throw StoreError.refused(refusal) }
        let what = "\(kind) \(id): \(workflow.field) \(from) → \(to) is not a transition the workflow allows"
        warnings.append(what + "; applied, as the feed is the source of truth for its states")
      }
    case .store, .sealing:
      break
    }
    if let stored, stored.value == document, stored.path == path {
      return Prepared(
        path: path, value: stored.value, bytes: stored.bytes, entry: nil, warnings: [], replacedPath: nil,
        staleApprovals: nil)
    }
    if source != .sealing {
      let refresh = source == .store || (source == .person && stored != nil)
      TimestampStamper(time: Instant(now).rfc3339, mode: refresh ? .refresh : .fillMissing)
        .stamp(&document, before: stored?.value, type: schema.root)
    }
    if stored == nil || source.isFeed {
      schema.root.fillDefaults(&document)
    } else if let stored, source == .person {
      schema.root.fillDefaults(&document, newSince: stored.value)
    }
    var sealed = try rules.checkedSealed(document, schema: schema, path: path, stored: stored, exists: willExist)
    // A change of signed content ends the rounds it breaks, and takes a document out of the state
    // its chain guards when the descriptor says so (`on_change: reopen`); else the check refuses it.
    let stale = try rules.settleApprovals(
      &document, sealed: &sealed, stored: stored, schema: schema, id: id, path: path, reopen: source == .sealing,
      time: Instant(now).rfc3339)
    to = schema.workflowState(of: document)
    if source.asksBeforeVoiding, !voidsApprovals {
      if let stale { throw StoreError.refused(.wouldVoidApprovals(stale)) }
      if source == .person, let stored {
        try refuseLeavingReview(stored, sealed: sealed, schema: schema, id: id, to: to)
      }
    }
    let bytes = JSONWriter.canonical(sealed)
    let action: AuditEntry.Action = stored.map { $0.path == path ? .update : .rename } ?? .create
    let changedState = from != to ? (from, to) : (nil, nil)
    let entry = AuditEntry(
      kind: kind, id: id, action: action, pointers: stored.map { $0.value.changedPointers(to: document) } ?? [.root],
      from: changedState.0, to: changedState.1,
      previousID: action == .rename ? stored?.value[schema.idField].flatMap(DocumentID.text) : nil)
    return Prepared(
      path: path, value: document, bytes: bytes, entry: entry, warnings: warnings,
      replacedPath: action == .rename ? stored?.path : nil, staleApprovals: stale)
  }

  /// A person's change: what the descriptor lets people edit, the workflow from the stored state
  /// (or, for a new document, a state it may start in), and fields that are immutable.
  func enforce(_ document: JSONValue, stored: Store.Document?, schema: Schema, id: String, from: String?, to: String?)
    throws(StoreError)
  {
    let refused = ChangeRules.notEditable(old: stored?.value, new: document, schema: schema)
    if !refused.isEmpty, let editable = schema.editable {
      throw StoreError.refused(
        .notEditable(
          kind: schema.kind, id: id, fields: refused.map(\.path), editable: editable.map(\.description)))
    }
    if let workflow = schema.workflow, let to, schema.workflowStates.contains(to) {
      if let from, schema.forbidsTransition(from: from, to: to) {
        throw StoreError.refused(
          .transition(
            kind: schema.kind, id: id, field: workflow.field, from: from, to: to, allowed: workflow.next(from: from),
            strict: false))
      }
      if stored == nil, !schema.creationStates.contains(to) {
        throw StoreError.refused(.creationState(kind: schema.kind, state: to, allowed: schema.creationStates))
      }
    }
    // What the completing approval filled in stays as it filled it while the state it reached holds.
    if let stored, let from, from == to, let approvals = schema.approvals, approvals.guarding(from) != nil,
      let fills = approvals.fills,
      let field = [fills.by, fills.on].compactMap({ $0 }).first(where: { stored.value[$0] != document[$0] })
    {
      throw StoreError.refused(.filledByApproval(kind: schema.kind, id: id, field: field, state: from))
    }
    // A move into a chain's review state carries its signed submission (`transition` signs it).
    if let to, to != from, schema.approvals?.reviewing(to) != nil {
      let before = stored?.value["_approvals"]?.arrayValue ?? []
      let after = document["_approvals"]?.arrayValue ?? []
      guard after.count == before.count + 1, ApprovalRecord(after.last ?? .null)?.action == .submit else {
        throw StoreError.refused(.submitUnsigned(kind: schema.kind, id: id, state: to))
      }
    }
    guard let stored else { return }
    // Only the signature that completes a chain moves a document into the state it guards: a
    // person's move there before that is refused for this reason, before the rules of the state
    // it would reach (an approved form names who approved it) speak in its place.
    if let to, to != from, let workflow = schema.workflow, let chain = schema.approvals?.guarding(to) {
      var moved = DocumentRules.asStored(stored)
      moved[workflow.field] = .string(to)
      if let approvals = document["_approvals"] { moved["_approvals"] = approvals }
      let round = rules.review(moved, schema: schema, id: id).rounds[chain.to] ?? ApprovalReview.Round(chain: chain)
      if !round.isComplete {
        let finding = Finding(
          pointer: JSONPointer.root.appending(workflow.field), rule: "approval-chain",
          message: "is \(to), which \(chain.transition) guards, but " + ApprovalReview.describe(round))
        throw StoreError.invalidDocument(
          "the \(schema.kind) \(id)", rules.diagnostics([finding], document: document, path: stored.path))
      }
    }
    let findings = ChangeRules.findings(old: stored.value, new: document, schema: schema).filter {
      $0.rule == "immutable"
    }
    if !findings.isEmpty {
      throw StoreError.invalidDocument(
        "the \(schema.kind) \(id)", rules.diagnostics(findings, document: document, path: stored.path))
    }
  }

  /// Refuses a person's move out of a chain's review state while its round is live (anywhere but
  /// the state the chain guards, which only a complete round reaches) unless the version carries
  /// the signed rejection that ends it: the round would end without a signed decision.
  func refuseLeavingReview(_ stored: Store.Document, sealed: JSONValue, schema: Schema, id: String, to: String?)
    throws(StoreError)
  {
    let before = DocumentRules.asStored(stored)
    guard let from = schema.workflowState(of: before), let chain = schema.approvals?.reviewing(from),
      let to, to != from, to != chain.to,
      rules.review(before, schema: schema, id: id).rounds[chain.to]?.isLive == true,
      rules.review(sealed, schema: schema, id: id).rounds[chain.to]?.rejected != true
    else { return }
    throw StoreError.refused(.leavesReview(kind: schema.kind, id: id, from: from, to: to))
  }

  /// Runs the pipeline on `proposed` and stages it; returns the document as it will be written.
  @discardableResult
  package func save(_ proposed: JSONValue, replacing stored: Store.Document?, kind: String, source: ChangeSource)
    throws(StoreError) -> Store.Document
  {
    let prepared = try prepare(proposed, replacing: stored, kind: kind, source: source)
    try stage(prepared)
    return prepared.document
  }

  /// Stages a prepared version (nothing when it does not change the document).
  package func stage(_ prepared: Prepared) throws(StoreError) {
    guard let entry = prepared.entry else { return }
    try stage(prepared.bytes, to: prepared.path, entry: entry)
    if let stale = prepared.staleApprovals { noteStale(stale) }
    if let old = prepared.replacedPath { try delete(old, entry: nil) }
  }

  /// Stages the deletion of a stored document.
  package func remove(_ stored: Store.Document, kind: String) throws(StoreError) {
    let schema = try rules.schema(of: stored.value, path: stored.path)
    let id = stored.value[schema.idField].flatMap(DocumentID.text) ?? StoreLayout.id(fromFile: stored.path) ?? ""
    try delete(
      stored.path,
      entry: AuditEntry(
        kind: kind, id: id, action: .delete, pointers: [.root], from: schema.workflowState(of: stored.value)))
    try removeAttachments(of: schema, id: id)
  }
}

extension Store {
  /// Runs `body` with a write session (see `WriteSession`): the lock, the journal check, then one
  /// journaled commit of everything staged with one audit record. `name` is the audit log's
  /// `operation`, `summary` what the lock file and `recover` call it.
  /// `user` names who the audit record says made the change (a synced row's author); nil: the
  /// person running.
  /// `voidingApprovals`: the caller asked that signatures the change makes stale be voided
  /// (``WriteSession/voidsApprovals``); without it the pipeline refuses such a change.
  package func write<T>(
    _ name: String, summary: String, dryRun: Bool = false, user: String? = nil, voidingApprovals: Bool = false,
    _ body: (WriteSession) throws(StoreError) -> T
  )
    throws(StoreError) -> T
  {
    if !dryRun && user == nil { prefetchAuditUser() }
    let asked = { [self] (session: WriteSession) throws(StoreError) -> T in
      try checkRulesUnchanged()
      session.voidsApprovals = voidingApprovals
      let result = try body(session)
      try checkRulesUnchanged()
      return result
    }
    return try layout.write(
      WriteOperation(name, summary: summary, command: commandLine), dryRun: dryRun, wait: configuration.lockWait,
      clock: now, user: { [self] in user ?? auditUser() }, rules: rules,
      onCommit: { [self] in noteCommitted($0) }, asked)
  }

  /// Who the audit log names: the configuration's `user` when set, else git's user of the
  /// store's repository, `$USER` or the uid (looked up at the first write, then kept).
  func auditUser() -> String {
    configuration.user ?? foundUser.value { [layout] in AuditLog.currentUser(root: layout.root) }
  }

  /// Starts looking up ``auditUser()`` on another thread, once it is needed and not known: git's
  /// user is a `git config` process (a few milliseconds), which then runs while the write is
  /// prepared. The memo's lock makes the commit wait for it (or the lookup find the commit's).
  func prefetchAuditUser() {
    Store.lookUpAuditUser(into: foundUser, root: layout.root, configuration: configuration)
  }

  /// The lookup of ``auditUser()`` into `memo`, on a thread of its own (nothing when the
  /// configuration names the user, or the memo holds it).
  static func lookUpAuditUser(into memo: Memo<String>, root: String, configuration: Configuration) {
    guard configuration.user == nil, !memo.isSet else { return }
    Thread.detachNewThread { _ = memo.value { AuditLog.currentUser(root: root) } }
  }
}
