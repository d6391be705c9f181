import FormsCore
import FormsStore
import Foundation

extension Sync {
  /// What a run would do, found without writing anything anywhere: no document, no row, no
  /// sync record (decision 0171).
  package struct Preview: Sendable {
    /// Each document a run would touch, or leave waiting: where it would write and what.
    package var changes: [SyncState.Refusal.Pending]
    /// Why the run would be refused as a whole (then it would write nothing), if it would be.
    package var refusal: SyncError?

    /// A conflict or a rejected row would be left (the run would exit 1).
    package var hasProblems: Bool { changes.contains { ["conflict", "rejected"].contains($0.action) } }

    /// The report: records `{kind, id, side, action, detail}`, and notes that sum them up.
    package var report: TableReport {
      var notes = ["dry run: nothing was written (no document, no row, no sync record)"]
      for side in ["store", "database"] {
        let here = changes.filter { $0.side == side || ($0.side == "both" && side == "store") }
        let counts = ["create", "update", "delete"].map { action in
          "\(here.filter { $0.action == action }.count) \(action)d"
        }
        notes.append("in the \(side): " + counts.joined(separator: ", "))
      }
      let merges = changes.filter { $0.side == "both" }.count
      if merges > 0 { notes.append("on both sides: \(merges) to merge or adopt") }
      let conflicts = changes.filter { $0.action == "conflict" }.count
      let rejected = changes.filter { $0.action == "rejected" }.count
      if conflicts + rejected > 0 { notes.append("\(conflicts) conflicts, \(rejected) rejected rows") }
      if let refusal { notes.append("a sync would be refused: \(refusal.description)") }
      return TableReport(
        records: changes.map { change in
          .object(
            JSONObject([
              "kind": .string(change.kind), "id": .string(change.id), "side": .string(change.side),
              "action": .string(change.action), "detail": .string(change.detail),
            ]))
        }, columns: ["kind", "id", "side", "action", "detail"],
        rows: changes.map { [$0.kind, $0.id, $0.side, $0.action, $0.detail] }, notes: notes)
    }
  }

  /// What a run in `direction` with `maxDelete` would write in the store and in the database,
  /// and whether it would be refused; nothing is written anywhere. A row that would come into
  /// the store is judged by the write path as a run would judge it (then reported `rejected`).
  package func dryRun(_ direction: Direction = .both, maxDelete: PruneBound? = nil) throws(SyncError) -> Preview {
    try withDatabase { [self] (database) async throws(SyncError) in
      let state = try await state(database, writing: false)
      var prepared: [Prepared] = []
      for kind in store.registry.kinds {
        prepared.append(try await prepare(kind: kind, direction, state: state, database: database, dryRun: true))
      }
      var changes: [SyncState.Refusal.Pending] = []
      for kind in prepared {
        var planned = Self.pending(kind)
        let pulled = kind.plans.compactMap { id, plan -> String? in if case .pull = plan { id } else { nil } }
        let refused = try await judgePulls(pulled, kind: kind.kind, database: database)
        for (index, change) in planned.enumerated() {
          if let why = refused[change.id], change.side == "store" {
            planned[index].action = "rejected"
            planned[index].detail = why
          }
        }
        changes += planned
      }
      return Preview(changes: changes, refusal: refusal(prepared, maxDelete: maxDelete))
    }
  }

  /// Why the store would refuse each of the rows of `ids` a run would pull, by id (a dry run of
  /// the write path: nothing is written).
  func judgePulls(_ ids: [String], kind: String, database: Database) async throws(SyncError) -> [String: String] {
    var refused: [String: String] = [:]
    for start in stride(from: 0, to: ids.count, by: 500) {
      let rows = try await fetch(kind, Array(ids[start..<min(ids.count, start + 500)]), database)
      for (author, group) in Dictionary(grouping: rows.map { (id: $0.key, row: $0.value) }, by: \.row.user) {
        let written: [String: Result<Written, StoreError>]
        do throws(StoreError) {
          written = try write(kind, group.map { ($0.id, $0.row.text) }, user: author, dryRun: true)
        } catch { throw SyncError.store(error) }
        for (id, outcome) in written {
          if case .failure(let error) = outcome { refused[id] = Self.oneLine(error) }
        }
      }
    }
    return refused
  }

  /// What `prepared`'s plans would write, each document's change in one line.
  static func pending(_ prepared: Prepared) -> [SyncState.Refusal.Pending] {
    prepared.plans.compactMap { id, plan -> SyncState.Refusal.Pending? in
      let agreed = prepared.records[id]?.text != nil
      func change(_ side: String, _ action: String, _ detail: String) -> SyncState.Refusal.Pending {
        SyncState.Refusal.Pending(kind: prepared.kind, id: id, side: side, action: action, detail: detail)
      }
      switch plan {
      case .push:
        return agreed
          ? change("database", "update", "changed here") : change("database", "create", "new here")
      case .pull:
        return prepared.local[id] == nil
          ? change("store", "create", "new in the database") : change("store", "update", "changed in the database")
      case .deleteHere: return change("store", "delete", "deleted in the database")
      case .deleteThere: return change("database", "delete", "deleted here")
      case .merge:
        return change("both", "merge", "changed on both sides: merged three ways, or a conflict where they overlap")
      case .adopt:
        return change("both", "adopt", "on both sides before any sync: agreed when the same, else a conflict")
      case .conflict(let why): return change("", "conflict", why)
      case .refreshConflict: return change("", "conflict", "a conflict whose row changed again: its side is read again")
      case .wait(let why): return change("", "waiting", why)
      case .unsettled(let why): return change("", why.hasPrefix("rejected") ? "rejected" : "conflict", why)
      case .forget: return nil
      }
    }
  }
}
