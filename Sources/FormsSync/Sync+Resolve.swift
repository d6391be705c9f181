import FormsCore
import FormsStore
import Foundation

extension Sync {
  /// How `sync resolve` settles a conflict.
  public enum Resolution: Sendable, Equatable {
    /// The store's side wins: it is written to the row.
    case ours
    /// The database's side wins: it is written to the store.
    case theirs
    /// A file holds the settled document: written to both.
    case file(String)
  }

  /// Settles the conflict of `kind` `id`: the chosen text goes through the store's write path and
  /// to the row (while the row still has the revision the conflict saw).
  public func resolve(kind: String, id: String, _ resolution: Resolution) throws(SyncError) -> Entry {
    try exclusively("sync resolve") { () throws(SyncError) in
      try withDatabase { [self] (database) async throws(SyncError) in
        try await resolve(kind: kind, id: id, resolution, database: database)
      }
    }
  }

  func resolve(kind: String, id: String, _ resolution: Resolution, database: Database) async throws(SyncError) -> Entry
  {
    let state = try await state(database)
    let table = try storeTable(kind, state: state)
    let found = table.records[id]
    guard let record = found, record.status == .conflict else {
      throw SyncError.nothingToResolve(kind: kind, id: id)
    }
    let path: String
    do throws(StoreError) { path = try store.path(kind: kind, id: id) } catch { throw SyncError.store(error) }
    var text: String?
    switch resolution {
    case .ours:
      do throws(StoreError) {
        text =
          FileIO.entry(FilePath(path)) == .missing
          ? nil : String(decoding: try FileIO.read(FilePath(path), followLinks: false), as: UTF8.self)
      } catch { throw SyncError.store(error) }
    case .theirs:
      do throws(StoreError) { text = try table.string(record.theirs) } catch { throw SyncError.store(error) }
    case .file(let file):
      do throws(StoreError) {
        text = String(decoding: try FileIO.read(FilePath(file)), as: UTF8.self)
      } catch { throw SyncError.store(error) }
    }
    guard let text else {
      // The chosen side deleted it: deleted on the other too.
      if resolution == .theirs {
        if FileIO.entry(FilePath(path)) != .missing {
          do throws(StoreError) { try store.delete(kind: kind, id: id, operation: "sync", user: nil) } catch {
            throw SyncError.store(error)
          }
        }
      } else if let revision = record.remoteRevision, try await !deleteRow(kind, id, revision: revision, database) {
        throw SyncError.changedMeanwhile(kind: kind, id: id)
      }
      try save { () throws(StoreError) in
        try table.forget(id)
        try table.finish()
      }
      return Entry(kind: kind, id: id, action: "resolved", detail: "deleted on both sides")
    }
    let written: [UInt8]
    do throws(StoreError) {
      written =
        resolution == .ours
        ? Array(text.utf8)
        : try write(kind, id, text, user: author).bytes
    } catch { throw SyncError.store(error) }
    guard let revision = try await push(kind, id, written, revision: record.remoteRevision, database) else {
      throw SyncError.changedMeanwhile(kind: kind, id: id)
    }
    try agree(kind, id, written, revision: revision, table)
    try save { () throws(StoreError) in try table.finish() }
    return Entry(kind: kind, id: id, action: "resolved", detail: "\(resolution)")
  }

  /// The rows that wait rejected by the store (with the database synced last), one JSON value
  /// each in the shape of `import --skip-invalid`'s rejects: `{kind, id, status, revision,
  /// diagnostics}` (`revision`: the database row's, which the refusal is about). What
  /// `sync --rejects FILE` writes, and `sync status` exits 1 for.
  public static func rejects(_ store: Store) throws(StoreError) -> [JSONValue] {
    guard let state = try SyncState.latest(store.layout) else { return [] }
    var out: [JSONValue] = []
    for kind in store.registry.kinds {
      let known = try state.records(kind: kind)
      let files = try localHashes(kind, in: store, records: known)
      for id in known.keys.sorted() {
        guard let record = known[id], SyncState.status(of: record, sha256: files[id]?.sha256) == .rejected else {
          continue
        }
        let file: String
        do throws(StoreError) {
          file = store.display(try store.path(kind: kind, id: id))
        } catch {
          file = "\(kind) \(id)"
        }
        let diagnostic = Diagnostic(
          file: file, position: nil, rule: "sync", message: record.problem ?? "refused by the store")
        out.append(
          .object(
            JSONObject([
              "kind": .string(kind), "id": .string(id), "status": .string("rejected"),
              "revision": record.remoteRevision.map { .number(JSONNumber(Int($0))) } ?? .null,
              "diagnostics": .array([DiagnosticPrinter.json(diagnostic)]),
            ])))
      }
    }
    return out
  }

  /// Every document's sync state with the database synced last (read from the store alone):
  /// records `{kind, id, status, last_synced, problem}`, and a table of the same. Documents
  /// never synced show as local-changed.
  public static func status(_ store: Store) throws(StoreError) -> TableReport {
    guard let state = try SyncState.latest(store.layout) else {
      return TableReport(
        records: [], columns: ["kind", "id", "status", "last_synced", "problem"], rows: [], notes: ["no sync yet"])
    }
    var records: [JSONValue] = []
    var rows: [[String]] = []
    // A refused run wrote nothing: what it found changed in the database is not in the records,
    // which still say `synced`; its plan says what waits.
    let refusal = try state.refusal()
    var pending: [String: SyncState.Refusal.Pending] = [:]
    for change in refusal?.pending ?? [] where !change.side.isEmpty {
      pending[change.kind + "\u{0}" + change.id] = change
    }
    for kind in store.registry.kinds {
      let known = try state.records(kind: kind)
      let files = try localHashes(kind, in: store, records: known)
      for id in Set(known.keys).union(files.keys).union(pending.values.filter { $0.kind == kind }.map(\.id)).sorted() {
        let waiting = pending[kind + "\u{0}" + id]
        guard var status = SyncState.status(of: known[id], sha256: files[id]?.sha256) ?? waiting.map({ _ in .synced })
        else { continue }
        var problem = known[id]?.problem.flatMap { status == .conflict || status == .rejected ? $0 : nil }
        if let waiting {
          if status == .synced { status = waiting.side == "database" ? .localChanged : .remoteChanged }
          problem = "pending (the last sync was refused): \(waiting.action) in the \(waiting.side), \(waiting.detail)"
        }
        var object = JSONObject(["kind": .string(kind), "id": .string(id), "status": .string(status.rawValue)])
        if let last = known[id]?.lastSynced { object["last_synced"] = .string(last) }
        if let problem { object["problem"] = .string(problem) }
        records.append(.object(object))
        rows.append([kind, id, status.rawValue, known[id]?.lastSynced ?? "", problem ?? ""])
      }
    }
    var notes: [String] = []
    if let refusal {
      notes.append("the last sync (\(refusal.at)) was refused, and wrote nothing: \(refusal.reason)")
      let shown = refusal.pending.filter { !$0.side.isEmpty }.count
      let more = refusal.pendingCount > refusal.pending.count ? " (\(refusal.pendingCount) changes in all)" : ""
      notes.append("pending: \(plural(shown, "change")) it would have made\(more)")
    }
    return TableReport(
      records: records, columns: ["kind", "id", "status", "last_synced", "problem"], rows: rows, notes: notes)
  }

  /// The last sync of this store was refused (a deletion beyond the bound, a database that went
  /// back): `sync status` is not in step while it is so.
  public static func lastRunRefused(_ store: Store) throws(StoreError) -> Bool {
    try SyncState.latest(store.layout)?.refusal() != nil
  }
}
