import FormsCore
import FormsStore
import Foundation
import PostgresNIO

extension Sync {
  /// What one document needs, decided from its file, its record and its row's revision.
  enum Plan: Sendable {
    case push, pull, merge, deleteHere, deleteThere, forget
    case conflict(String)
    case adopt
    case wait(String)
    /// A conflict whose row changed again: its `theirs` is read again.
    case refreshConflict
  }

  func run(_ direction: Direction, maxDelete: PruneBound?, database: Database) async throws(SyncError) -> [Entry] {
    let state = try await state(database)
    var entries: [Entry] = []
    for kind in store.registry.kinds {
      entries += try await run(kind: kind, direction, maxDelete: maxDelete, state: state, database: database)
    }
    return entries
  }

  func run(kind: String, _ direction: Direction, maxDelete: PruneBound?, state: SyncState, database: Database)
    async throws(SyncError) -> [Entry]
  {
    let table = SyncSQL.qualified(schema, SyncSQL.table(kind))
    var remote: [String: Int64] = [:]
    for row in try await database.rows("SELECT id, revision FROM \(unescaped: table)") {
      guard let (id, revision) = try? row.decode((String, Int64).self) else { continue }
      remote[id] = revision
    }
    let (records, local) = try storeSide(kind, state: state)
    var plans: [(id: String, plan: Plan)] = []
    for id in Set(remote.keys).union(records.keys).union(local.keys).sorted() {
      plans.append((id, plan(records[id], bytes: local[id], revision: remote[id], direction)))
    }
    // Deletions on either side are bounded, as import --prune's are.
    let bound = maxDelete ?? .standard
    let here = plans.filter { if case .deleteHere = $0.plan { true } else { false } }.count
    let there = plans.filter { if case .deleteThere = $0.plan { true } else { false } }.count
    if let why = bound.refusal(removing: here, of: local.count, feedRecords: remote.count, explicit: maxDelete != nil) {
      throw SyncError.refused(
        "sync would delete \(here) of \(local.count) \(kind) documents here, \(why); nothing of \(kind) was synced (--max-delete N or P% allows more)"
      )
    }
    if let why = bound.refusal(removing: there, of: remote.count, feedRecords: local.count, explicit: maxDelete != nil)
    {
      throw SyncError.refused(
        "sync would delete \(there) of \(remote.count) \(kind) rows in the database, \(why); nothing of \(kind) was synced (--max-delete N or P% allows more)"
      )
    }
    var entries: [Entry] = []
    for (id, plan) in plans {
      if let entry = try await apply(
        plan, kind: kind, id: id, record: records[id], bytes: local[id], state: state, database: database)
      {
        entries.append(entry)
      }
    }
    return entries
  }

  /// The records of `kind` and its files' bytes, by id.
  func storeSide(_ kind: String, state: SyncState) throws(SyncError) -> ([String: SyncState.Record], [String: [UInt8]])
  {
    do throws(StoreError) {
      return (try state.records(kind: kind), try Self.files(of: kind, in: store))
    } catch { throw SyncError.store(error) }
  }

  /// The bytes of every document of `kind` as stored (sealed values as envelopes), by id.
  static func files(of kind: String, in store: Store) throws(StoreError) -> [String: [UInt8]] {
    let directory = try store.schema(kind).directory
    var files: [String: [UInt8]] = [:]
    for id in try store.layout.ids(in: directory, prefix: "") {
      files[id] = try FileIO.read(store.layout.path(directory: directory, id: id), followLinks: false)
    }
    return files
  }

  func plan(_ record: SyncState.Record?, bytes: [UInt8]?, revision: Int64?, _ direction: Direction) -> Plan {
    if let record, record.status == .conflict {
      if revision != record.remoteRevision { return .refreshConflict }
      return .wait("conflict: formsctl sync resolve \(record.kind) \(record.id) --ours|--theirs|--file FILE")
    }
    let localChanged = bytes.map { sha256($0) != record?.sha256 } ?? (record?.sha256 != nil)
    if let record, record.status == .rejected, revision == record.remoteRevision, !localChanged {
      return .wait("rejected: \(record.problem ?? "")")
    }
    guard let record, record.text != nil else {
      switch (bytes, revision) {
      case (_?, nil): return direction.pushes ? .push : .wait("not in the database yet (push)")
      case (nil, _?): return direction.pulls ? .pull : .wait("only in the database (pull)")
      case (_?, _?): return .adopt
      case (nil, nil): return .forget
      }
    }
    switch (localChanged, revision != record.revision) {
    case (false, false): return .wait("")
    case (false, true):
      guard direction.pulls else { return .wait("changed in the database (pull)") }
      return revision == nil ? .deleteHere : .pull
    case (true, false):
      guard direction.pushes else { return .wait("changed here (push)") }
      return bytes == nil ? (revision == nil ? .forget : .deleteThere) : .push
    case (true, true):
      switch (bytes, revision) {
      case (nil, nil): return .forget
      case (nil, _?): return .conflict("deleted here, changed in the database")
      case (_?, nil): return .conflict("changed here, deleted in the database")
      case (_?, _?): return direction == .both ? .merge : .wait("changed on both sides (sync both ways)")
      }
    }
  }
}
