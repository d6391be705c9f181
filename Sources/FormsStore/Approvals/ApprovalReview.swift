import FormsCore

/// What a document's `_approvals` say, judged against its descriptor's chains and the store's
/// roles: every record's signature, the signer's role, the order of steps, separation of duties
/// (no one approves what they submitted, or signs two steps of one round), and whether the
/// state a chain guards has a complete chain of approvals of the content as it is now.
///
/// A round of a chain starts with a submission (the move into its review state); approvals of
/// earlier rounds are history, still verified but not counted. A rejection ends the round, and so
/// does a `reopen` record: the write path appends one when a change of signed content ends a
/// round (the document must be submitted again). An approval counts only when it signs the
/// content its round's preparer submitted and the content as it is now.
public struct ApprovalReview: Sendable {
  /// One chain's current round.
  public struct Round: Sendable, Equatable {
    public let chain: Schema.Approvals.Chain
    /// Who submitted the document (the preparer), if it was submitted.
    public var preparer: String?
    /// The content hash the preparer signed in the submission.
    public var submitted: String?
    /// The submission's signature: what the round's approvals name as their `round`.
    public var submission: String?
    /// True when a change of signed content ended the previous round (a `reopen` record) and
    /// no submission has started a new one.
    public var reopened = false
    /// True when the content as it is now is what the preparer submitted.
    public var isSubmittedContent = false
    /// The signers of each step, by step name, whose approval covers the content as it is now.
    public var signed: [String: [String]] = [:]
    /// Approvals of this round whose content has changed since (pointers to the records).
    public var stale: [JSONPointer] = []
    /// The signers of each step in this round, stale or not: the order of steps is judged on these.
    var signedAtAll: [String: [String]] = [:]
    public var rejected = false

    /// Steps still short of signers, with how many more each needs.
    public var missing: [(step: Schema.Approvals.Step, more: Int)] {
      chain.steps.compactMap { step in
        let more = step.count - (signed[step.name]?.count ?? 0)
        return more > 0 ? (step, more) : nil
      }
    }

    public var isComplete: Bool { isLive && missing.isEmpty }

    /// Submitted, not rejected, and the content is still what was submitted: steps may be signed.
    public var isLive: Bool { preparer != nil && !rejected && isSubmittedContent }

    /// The next step `role`'s holders may sign, if any (in an ordered chain, only the first unfinished).
    public func nextStep(for role: String) -> Schema.Approvals.Step? {
      for (step, _) in missing {
        if step.role == role { return step }
        if chain.ordered { return nil }
      }
      return nil
    }
  }

  /// Problems with the records and with the document's state, at their pointers.
  public var findings: [Finding] = []
  /// Each chain's current round, by the state it guards.
  public var rounds: [String: Round] = [:]
  /// The hash of the content as it is now.
  public let content: String
  /// The hashes an earlier record carries for the content as it is now (see ``ApprovalContent``).
  private var earlierContent: Set<String> = []

  /// True when `hash`, a record's content, is the content as it is now.
  public func covers(_ hash: String?) -> Bool { hash == content || hash.map(earlierContent.contains) == true }

  /// Reviews `document` (as stored: sealed values as their envelopes), the document `kind` `id`.
  /// `references` are the kind's schema versions (`kind@version`), which records signed before
  /// signed content left out `_schema` name in their hash.
  public init(
    _ document: JSONValue, schema: Schema, kind: String, id: String, roles: [String: [Signer]],
    references: [String] = []
  ) {
    content = ApprovalContent.hash(document, schema: schema)
    guard let approvals = schema.approvals else { return }
    let base = JSONPointer.root.appending("_approvals")
    let values: [JSONValue]
    switch document["_approvals"] {
    case nil: values = []
    case .array(let items)?: values = items
    default:
      findings.append(
        Finding(pointer: base, rule: "approval", message: "_approvals must be a list of approval records"))
      return
    }
    // Only a record that does not carry the content's hash costs the earlier hashes.
    if values.contains(where: { $0["content"]?.stringValue.map { $0 != content } == true }) {
      earlierContent = ApprovalContent.earlierHashes(document, schema: schema, references: references)
    }
    var seen: [String: Int] = [:]
    for (index, value) in values.enumerated() {
      let pointer = base.appending(index: index)
      func fail(_ rule: String, _ member: String?, _ message: String) {
        findings.append(Finding(pointer: member.map { pointer.appending($0) } ?? pointer, rule: rule, message: message))
      }
      // A round ended by a change of signed content: unsigned, since it only takes away.
      if let reopen = ApprovalRecord.Reopen(value) {
        guard let chain = approvals.guarding(reopen.chain) else {
          fail("approval", "chain", "no approval chain guards \"\(reopen.chain)\"")
          continue
        }
        rounds[chain.to] = Round(chain: chain, reopened: true)
        continue
      }
      guard let record = ApprovalRecord(value) else {
        fail(
          "approval", nil,
          "not an approval record (it needs action, chain, signer, time, content and signature, all text, and nothing unsigned beside them)"
        )
        continue
      }
      guard let chain = approvals.guarding(record.chain) else {
        fail("approval", "chain", "no approval chain guards \"\(record.chain)\"")
        continue
      }
      guard record.isSigned(kind: kind, id: id) else {
        fail(
          "approval-signature", "signature",
          "the signature is not \(Signer(record.signer)?.short ?? "the signer")'s over this record: it was forged, "
            + "copied from another document or changed after signing")
        continue
      }
      // A submission carries a nonce and an approval its round: a second copy is a replay.
      if record.nonce != nil || record.round != nil {
        if let first = seen[record.signature] {
          fail("approval", nil, "a copy of record \(first) (each record counts once; a copy replays it)")
          continue
        }
        seen[record.signature] = index
      }
      if record.action == .submit {
        rounds[chain.to] = Round(
          chain: chain, preparer: record.signer, submitted: record.content, submission: record.signature)
        continue
      }
      guard let stepName = record.step, let step = chain.steps.first(where: { $0.name == stepName }),
        record.role == step.role
      else {
        fail(
          "approval", "step",
          "\(chain.transition) has no step \(quoted(record.step ?? "")) for role \(quoted(record.role ?? ""))")
        continue
      }
      guard let signer = Signer(record.signer), roles[step.role]?.contains(signer) == true else {
        fail(
          "approval-role", "signer",
          "\(Signer(record.signer)?.short ?? record.signer) does not hold the role \(step.role) in formsctl.yaml")
        continue
      }
      guard var round = rounds[chain.to], round.preparer != nil, !round.rejected else {
        fail("approval-order", nil, "\(record.action.rawValue)s \(chain.transition) before the document was submitted")
        continue
      }
      if let named = record.round, named != round.submission {
        fail(
          "approval-order", "round",
          "\(record.action.rawValue)s an earlier round of \(chain.transition) (a record counts only in its own round)")
        continue
      }
      if record.signer == round.preparer {
        fail(
          "approval-separation", "signer",
          "the preparer \(signer.short) \(record.action.rawValue)s their own submission")
        continue
      }
      if round.signed.values.contains(where: { $0.contains(record.signer) }) {
        fail("approval-separation", "signer", "\(signer.short) signs this round twice (each step needs other people)")
        continue
      }
      let unfinished = chain.steps.first { ($0.count - (round.signedAtAll[$0.name]?.count ?? 0)) > 0 }
      if chain.ordered, let first = unfinished, first.name != step.name, record.action == .approve {
        fail("approval-order", "step", "\(step.name) is signed before \(first.name), which comes first")
        continue
      }
      if record.action == .reject {
        round.rejected = true
      } else {
        round.signedAtAll[step.name, default: []].append(record.signer)
        // What counts is signed over the content the preparer submitted, which is the content now.
        if covers(record.content) && covers(round.submitted) {
          round.signed[step.name, default: []].append(record.signer)
        } else {
          round.stale.append(pointer)
        }
      }
      rounds[chain.to] = round
    }
    for (state, round) in rounds {
      let current = covers(round.submitted)
      rounds[state]?.isSubmittedContent = current
    }
    // A guarded state holds only with a complete chain over the content as it is.
    if let workflow = schema.workflow, let state = schema.workflowState(of: document),
      let chain = approvals.guarding(state)
    {
      let round = rounds[chain.to] ?? Round(chain: chain)
      if !round.isComplete {
        findings.append(
          Finding(
            pointer: JSONPointer.root.appending(workflow.field), rule: "approval-chain",
            message: "is \(state), which \(chain.transition) guards, but " + Self.describe(round)))
      }
    }
  }

  /// What a round lacks: `it was not submitted`, `its approvals are stale`, `review needs 1 more reviewer`.
  static func describe(_ round: Round) -> String {
    if round.reopened {
      return "its signed content changed after its submission, which ended the round (it is submitted again, "
        + "and each step signed again)"
    }
    if round.preparer == nil { return "it was never submitted for approval" }
    if round.rejected { return "it was rejected" }
    if !round.isSubmittedContent {
      let approvals = round.stale.isEmpty ? "" : " and \(plural(round.stale.count, "approval"))"
      return "its content changed after it was submitted: the submission\(approvals) are stale (it is submitted again, "
        + "and each step signed again)"
    }
    var parts = round.missing.map { "\($0.step.name) needs \($0.more) more \($0.step.role)" }
    if !round.stale.isEmpty {
      parts.insert("\(plural(round.stale.count, "approval")) are stale (the content changed after signing)", at: 0)
    }
    return parts.joined(separator: "; ")
  }
}
