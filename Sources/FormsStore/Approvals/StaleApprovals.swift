import FormsCore

/// A document whose approvals a write made stale: the write changed signed content, which ended
/// the current round of its chains (the submission and the approvals no longer count; it is
/// submitted again) and, in a state a chain guards, moved it back to review. Every write reports
/// these (``Store/Document/staleApprovals``, ``WriteSession/staleApprovals``, the audit record's
/// `stale_approvals`), so a command, the sync report or an app can name them.
public struct StaleApprovals: Sendable, Equatable, CustomStringConvertible {
  public let kind: String
  public let id: String
  /// The workflow state the document was in before the write.
  public let state: String?
  /// The signed records that stopped counting: the submissions and approvals of the rounds ended.
  public let records: Int
  /// The review state it went back to, when it was in a state a chain guards.
  public let reopenedTo: String?

  public init(kind: String, id: String, state: String?, records: Int, reopenedTo: String?) {
    self.kind = kind
    self.id = id
    self.state = state
    self.records = records
    self.reopenedTo = reopenedTo
  }

  /// `form F1: 3 signed records no longer count (approved → in_review; it is submitted again)`.
  public var description: String {
    let move = reopenedTo.map { "\(state ?? "?") → \($0); " } ?? ""
    return "\(kind) \(id): \(plural(records, "signed record")) no longer "
      + "\(records == 1 ? "counts" : "count") (\(move)it is submitted again, and each step signed again)"
  }

  /// The JSON of reports and of the audit record.
  public var json: JSONValue {
    var object = JSONObject([
      "kind": .string(kind), "id": .string(id), "records": .number(JSONNumber(records)),
    ])
    if let state { object["state"] = .string(state) }
    if let reopenedTo { object["reopened_to"] = .string(reopenedTo) }
    return .object(object)
  }
}

extension Store {
  /// The approvals step of the write path, after validation and sealing (so it judges the content
  /// as the file will hold it, envelopes included). When the write changes signed content, each
  /// chain's round that was submitted and not rejected ends (a `reopen` record in both forms of
  /// the document), and a document in a state a chain guards goes back to the chain's review
  /// state when the descriptor says `on_change: reopen` (or `reopen` asks, as a reseal does);
  /// with `on_change: refuse` the check below refuses the change. Then the approvals are judged
  /// as `validate` judges them, and any finding refuses the write.
  func settleApprovals(
    _ document: inout JSONValue, sealed: inout JSONValue, stored: Document?, schema: Schema, id: String, path: String,
    reopen forced: Bool, time: String
  ) throws(StoreError) -> StaleApprovals? {
    guard let approvals = schema.approvals else { return nil }
    var stale: StaleApprovals?
    if let stored {
      // The stored file as it is on disk (envelopes), what its approvals signed.
      let before = schema.hasSensitiveFields ? (try? JSONParser().parse(stored.bytes)) ?? stored.value : stored.value
      let old = ApprovalReview(before, schema: schema, kind: schema.kind, id: id, roles: layout.roles)
      let content = ApprovalContent.hash(sealed, schema: schema)
      let from = schema.workflowState(of: before)
      let guarded = from.flatMap { state in
        schema.workflowState(of: document) == state ? approvals.guarding(state) : nil
      }
      let refused = guarded != nil && approvals.onChange == .refuse && !forced
      if old.content != content, !refused {
        var records = 0
        var ended: [JSONValue] = []
        for chain in approvals.chains {
          guard let round = old.rounds[chain.to], round.preparer != nil, !round.rejected else { continue }
          records += 1 + round.signed.values.reduce(0) { $0 + $1.count }
          ended.append(ApprovalRecord.Reopen(chain: chain.to, time: time, content: content).json)
        }
        if !ended.isEmpty {
          document["_approvals"] = .array((document["_approvals"]?.arrayValue ?? []) + ended)
          sealed["_approvals"] = document["_approvals"]
        }
        var reopenedTo: String?
        if let guarded, let workflow = schema.workflow {
          document[workflow.field] = .string(guarded.from)
          sealed[workflow.field] = .string(guarded.from)
          reopenedTo = guarded.from
        }
        if !ended.isEmpty || reopenedTo != nil {
          stale = StaleApprovals(kind: schema.kind, id: id, state: from, records: records, reopenedTo: reopenedTo)
        }
      }
    }
    let review = ApprovalReview(sealed, schema: schema, kind: schema.kind, id: id, roles: layout.roles)
    if !review.findings.isEmpty {
      throw StoreError.invalidDocument(
        "the \(schema.kind) \(id)", diagnostics(review.findings, document: document, path: path))
    }
    return stale
  }
}
