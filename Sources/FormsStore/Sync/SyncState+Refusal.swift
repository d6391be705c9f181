import FormsCore
import Foundation

extension SyncState {
  /// A run refused before it wrote anything (a deletion beyond the bound, a database that went
  /// back): when, why, and what it would have done, so that `sync status` does not say `synced`
  /// of documents the database has changed (`refused.json` beside the records; removed by the
  /// next run that is not refused).
  package struct Refusal: Sendable, Equatable {
    /// One change the refused run had planned.
    package struct Pending: Sendable, Equatable {
      package var kind: String
      package var id: String
      /// Where it would have written: `store`, `database`, `both`, or empty (nothing: it waits).
      package var side: String
      /// create, update, delete, merge, adopt, conflict, rejected, waiting.
      package var action: String
      package var detail: String

      package init(kind: String, id: String, side: String, action: String, detail: String) {
        self.kind = kind
        self.id = id
        self.side = side
        self.action = action
        self.detail = detail
      }
    }

    /// When the run was refused (RFC 3339).
    package var at: String
    /// Why, in one line.
    package var reason: String
    /// The changes planned, at most ``pendingLimit`` of them.
    package var pending: [Pending]
    /// How many changes were planned in all.
    package var pendingCount: Int

    /// At most this many planned changes are kept.
    package static let pendingLimit = 1_000

    package init(at: String, reason: String, pending: [Pending]) {
      self.at = at
      self.reason = reason
      self.pending = Array(pending.prefix(Self.pendingLimit))
      self.pendingCount = pending.count
    }

    var json: JSONValue {
      .object(
        JSONObject([
          "at": .string(at), "reason": .string(reason), "pending_count": .number(JSONNumber(pendingCount)),
          "pending": .array(
            pending.map { change in
              .object(
                JSONObject([
                  "kind": .string(change.kind), "id": .string(change.id), "side": .string(change.side),
                  "action": .string(change.action), "detail": .string(change.detail),
                ]))
            }),
        ]))
    }

    init?(_ value: JSONValue) {
      guard let at = value["at"]?.stringValue, let reason = value["reason"]?.stringValue,
        let count = value["pending_count"]?.numberValue?.intValue, let changes = value["pending"]?.arrayValue
      else { return nil }
      var pending: [Pending] = []
      for change in changes {
        guard let kind = change["kind"]?.stringValue, let id = change["id"]?.stringValue,
          let side = change["side"]?.stringValue, let action = change["action"]?.stringValue,
          let detail = change["detail"]?.stringValue
        else { return nil }
        pending.append(Pending(kind: kind, id: id, side: side, action: action, detail: detail))
      }
      self.at = at
      self.reason = reason
      self.pending = pending
      self.pendingCount = max(count, pending.count)
    }
  }

  var refusalPath: FilePath { directoryPath / "refused.json" }

  /// Notes that a run was refused (replacing an earlier note).
  package func noteRefusal(_ refusal: Refusal) throws(StoreError) {
    try FileIO.makeDirectories(directoryPath)
    try AtomicWriter(boundary: layout.rootPath).write(
      Array(JSONWriter.canonicalString(refusal.json).utf8), to: refusalPath)
  }

  /// Removes the note of a refused run: a run went through.
  package func clearRefusal() throws(StoreError) {
    try FileIO.remove(refusalPath)
  }

  /// The last run's refusal, when the last run was refused; nil otherwise (or when the note does
  /// not parse: it is only what `status` says, never what a run decides by).
  package func refusal() throws(StoreError) -> Refusal? {
    guard FileIO.entry(refusalPath) == .file else { return nil }
    let bytes = try FileIO.read(refusalPath, limit: 16 << 20, followLinks: false)
    let value: JSONValue
    do { value = try JSONParser().parse(bytes) } catch { return nil }
    return Refusal(value)
  }
}
