import FormsCore

extension Store {
  /// What `approve` or `reject` did.
  public struct ApprovalOutcome: Sendable {
    public let document: Document
    public let record: ApprovalRecord
    /// The state the document moved to (the chain completed, or a rejection moved it), if it moved.
    public let moved: String?
    /// Steps still waiting, with how many more signers each needs.
    public let waiting: [String]
  }

  /// Signs an approval of `kind` `id` by `identity` for `step` (default: the first step waiting
  /// for one of the signer's roles); when it completes the chain, the document moves to the
  /// state the chain guards in the same write. With `shown` (the ``Document/contentHash`` of the
  /// version the signer was shown), refused unless the stored document is still that version: no
  /// one signs content they did not see.
  @discardableResult
  public func approve(
    kind: String, id: String, step: String? = nil, comment: String? = nil, identity: Identity, shown: String? = nil
  ) throws(StoreError) -> ApprovalOutcome {
    try sign(.approve, kind: kind, id: id, step: step, comment: comment, identity: identity, shown: shown)
  }

  /// Signs a rejection: ends the round (the document must be submitted again) and moves it to the
  /// chain's `reject_to` state when there is one. `shown` as for ``approve(kind:id:step:comment:identity:shown:)``.
  @discardableResult
  public func reject(
    kind: String, id: String, step: String? = nil, comment: String? = nil, identity: Identity, shown: String? = nil
  ) throws(StoreError) -> ApprovalOutcome {
    try sign(.reject, kind: kind, id: id, step: step, comment: comment, identity: identity, shown: shown)
  }

  /// Signs `action` through the write path; with `dryRun`, every check and nothing written.
  func sign(
    _ action: ApprovalRecord.Action, kind: String, id: String, step requested: String?, comment: String?,
    identity: Identity, dryRun: Bool = false, shown: String? = nil
  ) throws(StoreError) -> ApprovalOutcome {
    var outcome: (ApprovalRecord, String?, [String])?
    // The audit record names the signer, step and role, and the comment (the document keeps the signature).
    let details = { () -> JSONObject in
      guard let record = outcome?.0, case .object(var object) = record.json else { return JSONObject() }
      for name in ["chain", "content", "signature", "time"] { object[name] = nil }
      return JSONObject(["approval": .object(object)])
    }
    let document = try modify(
      kind: kind, id: id, operation: action.rawValue, shown: shown, dryRun: dryRun, details: details
    ) {
      (document, schema) throws(StoreError) in
      guard let approvals = schema.approvals, let workflow = schema.workflow else {
        throw StoreError.refused(.noApprovals(kind: kind))
      }
      let state = schema.workflowState(of: document) ?? ""
      guard let chain = approvals.reviewing(state) else {
        throw StoreError.refused(
          .notInReview(kind: kind, id: id, state: state, reviewStates: approvals.chains.map(\.from)))
      }
      let stored = try sealedForm(document, schema: schema, kind: kind, id: id)
      let review = ApprovalReview(
        stored, schema: schema, kind: kind, id: id, roles: layout.roles, references: registry.references(kind))
      let signer = identity.signer
      let held = layout.roles.filter { $0.value.contains(signer) }.map(\.key).sorted()
      let asked = chain.steps.map(\.role)
      guard held.contains(where: asked.contains) else {
        throw StoreError.refused(.holdsNoRole(signer: signer.description, roles: Array(Set(asked)).sorted()))
      }
      guard let round = review.rounds[chain.to], round.preparer != nil || round.reopened, !round.rejected else {
        throw StoreError.refused(.notSubmitted(kind: kind, id: id))
      }
      // Only the content its preparer submitted is approved: after a change, it is submitted again.
      guard let preparer = round.preparer, round.isSubmittedContent else {
        throw StoreError.refused(.submitAgain(kind: kind, id: id, state: chain.from))
      }
      guard preparer != signer.description else { throw StoreError.refused(.selfApproval(kind: kind, id: id)) }
      guard !round.signed.values.contains(where: { $0.contains(signer.description) }) else {
        throw StoreError.refused(.alreadySigned(kind: kind, id: id, signer: signer.short))
      }
      let waiting = round.missing.map { "\($0.step.name) (\($0.more) more \($0.step.role))" }
      let chosen: Schema.Approvals.Step
      if let requested {
        guard let named = chain.steps.first(where: { $0.name == requested }) else {
          throw StoreError.refused(.unknownStep(step: requested, steps: chain.steps.map(\.name)))
        }
        guard held.contains(named.role), round.nextStep(for: named.role)?.name == named.name else {
          throw StoreError.refused(.noStepFor(kind: kind, id: id, roles: held, waiting: waiting))
        }
        chosen = named
      } else {
        // The first step waiting, in the chain's order, that one of the signer's roles may sign now.
        let candidates = round.missing.map(\.step).filter { held.contains($0.role) }
        guard let next = candidates.first(where: { round.nextStep(for: $0.role)?.name == $0.name }) else {
          throw StoreError.refused(.noStepFor(kind: kind, id: id, roles: held, waiting: waiting))
        }
        chosen = next
      }
      let record = try ApprovalRecord.signed(
        action, chain: chain.to, step: chosen.name, role: chosen.role, by: identity, time: Instant(now()).rfc3339,
        comment: comment, content: review.content, round: round.submission, kind: kind, id: id)
      document["_approvals"] = .array((document["_approvals"]?.arrayValue ?? []) + [record.json])
      var after = stored
      after["_approvals"] = document["_approvals"]
      let next = ApprovalReview(
        after, schema: schema, kind: kind, id: id, roles: layout.roles, references: registry.references(kind)
      ).rounds[chain.to]
      var moved: String?
      if action == .approve, next?.isComplete == true { moved = chain.to }
      if action == .reject { moved = chain.rejectTo }
      if let moved { document[workflow.field] = .string(moved) }
      // The signature is the approval: the one that completes the chain fills in who and when.
      if action == .approve, moved != nil, let fills = approvals.fills {
        if let by = fills.by { document[by] = .string(layout.signerNames[signer] ?? signer.description) }
        if let on = fills.on {
          let date = schema.root.fields[on]?.type.kind == .date
          document[on] = .string(date ? String(record.time.prefix(10)) : record.time)
        }
      }
      outcome = (record, moved, next?.missing.map { "\($0.step.name) (\($0.more) more \($0.step.role))" } ?? [])
    }
    guard let (record, moved, waiting) = outcome else { throw StoreError.internalError("no approval was signed") }
    return ApprovalOutcome(document: document, record: record, moved: moved, waiting: waiting)
  }

  /// `document` (as read, sensitive values possibly opened) as the file stores it: what approvals sign.
  func sealedForm(_ document: JSONValue, schema: Schema, kind: String, id: String) throws(StoreError) -> JSONValue {
    guard schema.hasSensitiveFields else { return document }
    let stored = try read(kind: kind, id: id)
    guard let parsed = try? JSONParser().parse(stored.bytes) else { return document }
    return parsed
  }

  /// The submission record for moving `document` into `state`, the review state of a chain, signed by `identity`.
  func submission(
    _ document: JSONValue, into state: String, schema: Schema, kind: String, id: String, identity: Identity?
  ) throws(StoreError) -> ApprovalRecord? {
    guard let chain = schema.approvals?.reviewing(state) else { return nil }
    let stored = try sealedForm(document, schema: schema, kind: kind, id: id)
    // Already in review: submitted again only when the round no longer stands (its content
    // changed, a change ended it, it was rejected, or it was never submitted).
    if schema.workflowState(of: document) == state {
      let round = ApprovalReview(
        stored, schema: schema, kind: kind, id: id, roles: layout.roles, references: registry.references(kind)
      ).rounds[chain.to]
      if round?.isLive == true { return nil }
    }
    guard let identity else { throw StoreError.refused(.submitNeedsIdentity(kind: kind, state: state)) }
    let content = ApprovalContent.hash(stored, schema: schema)
    return try ApprovalRecord.signed(
      .submit, chain: chain.to, step: nil, role: nil, by: identity, time: Instant(now()).rfc3339, comment: nil,
      content: content, kind: kind, id: id)
  }
}

extension Store {
  /// The identity that signs for the person running: the keyring's, else the file
  /// `FORMSCTL_IDENTITY` (default `~/.config/formsctl/identity`) names, refused as sealing refuses it
  /// (missing, readable by others, inside the store).
  public func signingIdentity(environment: [String: String]) throws(StoreError) -> Identity {
    if let identity = keyring.identity { return identity }
    return try Keyring.readIdentity(Identity.defaultPath(environment: environment), store: layout.root)
  }
}
