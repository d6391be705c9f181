import FormsCore

/// A document whose approvals a write made stale: the write changed signed content, which ended
/// the current round of its chains (the submission and the approvals no longer count; it is
/// submitted again) and, in a state a chain guards, moved it back to review. Every write reports
/// these (``Store/Document/staleApprovals``, `WriteSession.staleApprovals`, the audit record's
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
