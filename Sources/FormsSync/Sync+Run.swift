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

    /// Whether carrying it out needs the file's bytes.
    var readsFile: Bool {
      switch self {
      case .push, .merge, .adopt: true
      default: false
      }
    }
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
    let rowsTable = SyncSQL.qualified(schema, SyncSQL.table(kind))
    var remote: [String: Int64] = [:]
    for row in try await database.rows("SELECT id, revision FROM \(unescaped: rowsTable)") {
      guard let (id, revision) = try? row.decode((String, Int64).self) else { continue }
      remote[id] = revision
    }
    let table = try storeTable(kind, state: state)
    let records = table.records
    let local = try localHashes(kind, records: records)
    // Files read only because they were written close to their record get a signature that
    // vouches for them from now on.
    let refreshed = local.compactMap { id, file -> SyncState.Record? in
      guard let stamp = file.refreshed, var record = records[id] else { return nil }
      record.stamp = stamp
      return record
    }
    try save { () throws(StoreError) in try table.save(refreshed) }
    var plans: [(id: String, plan: Plan)] = []
    for id in Set(remote.keys).union(records.keys).union(local.keys).sorted() {
      plans.append((id, plan(records[id], sha256: local[id]?.sha256, revision: remote[id], direction)))
    }
    // Deletions on either side are bounded, as import --prune's are.
    let bound = maxDelete ?? .standard
    let here = plans.filter { if case .deleteHere = $0.plan { true } else { false } }.count
    let there = plans.filter { if case .deleteThere = $0.plan { true } else { false } }.count
    if let why = bound.refusal(removing: here, of: local.count, feedRecords: remote.count, explicit: maxDelete != nil) {
      throw SyncError.deletionBeyondBound(kind: kind, removing: here, of: local.count, inDatabase: false, reason: why)
    }
    if let why = bound.refusal(removing: there, of: remote.count, feedRecords: local.count, explicit: maxDelete != nil)
    {
      throw SyncError.deletionBeyondBound(kind: kind, removing: there, of: remote.count, inDatabase: true, reason: why)
    }
    let fresh = plans.compactMap { id, plan -> (String, String)? in
      guard case .push = plan, remote[id] == nil, records[id]?.text == nil, let path = local[id]?.path else {
        return nil
      }
      return (id, path)
    }
    var batched = try await pushNew(fresh, kind: kind, table: table, database: database)
    let pulling = plans.compactMap { id, plan -> String? in if case .pull = plan { id } else { nil } }
    batched.merge(try await pull(pulling, kind: kind, records: records, table: table, database: database)) { a, _ in a }
    var entries: [Entry] = []
    for (id, plan) in plans {
      if let entry = batched[id] {
        entries.append(entry)
        continue
      }
      let bytes = try plan.readsFile ? local[id].map { file throws(SyncError) in try read(file.path) } : nil
      if let entry = try await apply(
        plan, kind: kind, id: id, record: records[id], bytes: bytes, table: table, database: database)
      {
        entries.append(entry)
      }
    }
    try save { () throws(StoreError) in try table.finish() }
    return entries
  }

  /// Documents new to the database, inserted 500 to a statement (as a bulk load goes) and
  /// recorded 500 at a time; each one's report line, by id.
  func pushNew(_ documents: [(id: String, path: String)], kind: String, table: SyncState.Table, database: Database)
    async throws(SyncError) -> [String: Entry]
  {
    var entries: [String: Entry] = [:]
    for start in stride(from: 0, to: documents.count, by: 500) {
      // The signature is taken before the read: a file changed in between is read again next time.
      let chunk = try documents[start..<min(documents.count, start + 500)].map {
        document throws(SyncError) in
        (id: document.id, stamp: SyncState.Stamp.of(document.path), bytes: try read(document.path))
      }
      let revisions = try await insert(kind, chunk.map { ($0.id, $0.bytes) }, database)
      DebugPause.at("sync-pushed")
      let time = Instant(store.now()).rfc3339
      var agreed: [SyncState.Record] = []
      for (id, stamp, bytes) in chunk {
        guard let revision = revisions[id] else {
          entries[id] = Entry(
            kind: kind, id: id, action: "waiting", detail: "added in the database meanwhile; the next sync takes it up")
          continue
        }
        agreed.append(
          SyncState.Record(
            kind: kind, id: id, status: .synced, lastSynced: time, text: .given(String(decoding: bytes, as: UTF8.self)),
            sha256: sha256(bytes), revision: revision, stamp: stamp))
        entries[id] = Entry(kind: kind, id: id, action: "pushed", detail: "")
      }
      try save { () throws(StoreError) in try table.save(agreed) }
    }
    return entries
  }

  /// Rows changed only in the database, written into the store 500 at a time: one write per
  /// author (the audit record names the row's `updated_by`), a row the store refuses recorded as
  /// rejected; each one's report line, by id.
  func pull(
    _ ids: [String], kind: String, records: [String: SyncState.Record], table: SyncState.Table, database: Database
  ) async throws(SyncError) -> [String: Entry] {
    var entries: [String: Entry] = [:]
    for start in stride(from: 0, to: ids.count, by: 500) {
      let chunk = Array(ids[start..<min(ids.count, start + 500)])
      let rows = try await fetch(kind, chunk, database)
      for id in chunk where rows[id] == nil {
        entries[id] = Entry(
          kind: kind, id: id, action: "waiting", detail: "deleted in the database meanwhile; the next sync takes it up")
      }
      // New documents: what is pulled is noted first, so a run stopped after writing the files
      // finds them the pull's work, not documents made here (the write path adds defaults and stamps).
      let noted = chunk.compactMap { id in
        records[id] == nil
          ? rows[id].map { SyncState.Record(kind: kind, id: id, status: .remoteChanged, remoteRevision: $0.revision) }
          : nil
      }
      try save { () throws(StoreError) in try table.save(noted) }
      let byAuthor = Dictionary(grouping: chunk.compactMap { id in rows[id].map { (id: id, row: $0) } }, by: \.row.user)
      for author in byAuthor.keys.sorted() {
        let group = byAuthor[author] ?? []
        let written: [String: Result<[UInt8], StoreError>]
        do throws(StoreError) {
          written = try write(kind, group.map { ($0.id, $0.row.text) }, user: author)
        } catch { throw SyncError.store(error) }
        DebugPause.at("sync-pulled")
        for (id, row) in group {
          switch written[id] {
          case .success(let bytes)?:
            // The write path may have added to it (defaults, stamps, canonical form): the row gets that too.
            try agree(kind, id, bytes, revision: try await exact(kind, id, bytes, row, database), table)
            entries[id] = Entry(kind: kind, id: id, action: "pulled", detail: "by \(row.user)")
          case .failure(let error)?:
            var rejected = records[id] ?? SyncState.Record(kind: kind, id: id, status: .rejected)
            rejected.status = .rejected
            rejected.problem = Self.oneLine(error)
            rejected.remoteRevision = row.revision
            try save { () throws(StoreError) in try table.save(rejected) }
            entries[id] = Entry(kind: kind, id: id, action: "rejected", detail: rejected.problem ?? "")
          case nil:
            break
          }
        }
      }
    }
    return entries
  }

  /// `texts` written as documents of `kind` through the write path in one operation (`sync`, by
  /// `user`): each one's bytes after, or why the store refused it (then it is not written).
  func write(_ kind: String, _ texts: [(id: String, text: String)], user: String) throws(StoreError) -> [String: Result<
    [UInt8], StoreError
  >] {
    try store.write(
      "sync", summary: texts.count == 1 ? "sync \(kind) \(texts[0].id)" : "sync \(kind) (\(texts.count))", user: user
    ) {
      session throws(StoreError) -> [String: Result<[UInt8], StoreError>] in
      var out: [String: Result<[UInt8], StoreError>] = [:]
      for (id, text) in texts {
        do throws(StoreError) {
          let path = try store.path(kind: kind, id: id)
          let stored = FileIO.entry(path) == .missing ? nil : try store.read(kind: kind, id: id)
          let value = try brought(
            try Store.parsed(Array(text.utf8), shown: "the database's \(kind) \(id)"), kind: kind, id: id,
            to: stored?.value)
          out[id] = .success(
            try session.save(value, replacing: stored, kind: kind, source: .feed(strictWorkflow: false)).bytes)
        } catch  where error.kind == .badInput {
          out[id] = .failure(error)
        }
      }
      return out
    }
  }

  /// A document of the database's (a row, or the text last agreed), written for an older
  /// version of `kind` than `ours` is at (the kind's latest when there is no `ours`), migrated
  /// there as `migrate` would: a writer on the database that still writes the old version never
  /// takes a document back to it.
  func brought(_ value: JSONValue, kind: String, id: String, to ours: JSONValue?) throws(StoreError) -> JSONValue {
    let target = ours.flatMap { store.registry.schema(of: $0)?.version }
    return try Migrator(store: store).brought(value, kind: kind, to: target, shown: "the database's \(kind) \(id)")
      ?? value
  }

  /// The sync records of `kind`, open for the run.
  func storeTable(_ kind: String, state: SyncState) throws(SyncError) -> SyncState.Table {
    do throws(StoreError) { return try state.table(kind) } catch { throw SyncError.store(error) }
  }

  /// Each document of `kind` here: its path and SHA-256 (the record's, when the file's signature
  /// vouches that it is unchanged since; else read and hashed), by id.
  func localHashes(_ kind: String, records: [String: SyncState.Record]) throws(SyncError) -> [String: (
    path: String, sha256: String, refreshed: SyncState.Stamp?
  )] {
    do throws(StoreError) { return try Self.localHashes(kind, in: store, records: records) } catch {
      throw SyncError.store(error)
    }
  }

  static func localHashes(_ kind: String, in store: Store, records: [String: SyncState.Record]) throws(StoreError)
    -> [String: (path: String, sha256: String, refreshed: SyncState.Stamp?)]
  {
    let directory = try store.schema(kind).directory
    let ids = try store.layout.ids(in: directory, prefix: "")
    // Each file is looked up from its directory's descriptor (one name, not the whole path).
    let opened = FileIO.Directory(store.layout.documents(in: directory))
    let hashed = try parallelMap(ids, chunkSize: 64) {
      id -> Result<(String, String, SyncState.Stamp?)?, StoreError> in
      Result { () throws(StoreError) in
        let path = store.layout.path(directory: directory, id: id)
        return try SyncState.fileState(path, record: records[id], in: opened).map { (path, $0.sha256, $0.refreshed) }
      }
    }
    var out: [String: (path: String, sha256: String, refreshed: SyncState.Stamp?)] = [:]
    out.reserveCapacity(ids.count)
    for (id, result) in zip(ids, hashed) {
      if let (path, sha, refreshed) = try result.get() { out[id] = (path, sha, refreshed) }
    }
    return out
  }

  /// The stored bytes of a document (sealed values as envelopes).
  func read(_ path: String) throws(SyncError) -> [UInt8] {
    do throws(StoreError) { return try FileIO.read(path, followLinks: false) } catch { throw SyncError.store(error) }
  }

  func plan(_ record: SyncState.Record?, sha256: String?, revision: Int64?, _ direction: Direction) -> Plan {
    if let record, record.status == .conflict {
      if revision != record.remoteRevision { return .refreshConflict }
      return .wait("conflict: waiting to be resolved (ours, theirs or a settled file)")
    }
    let bytes = sha256
    let localChanged = sha256.map { $0 != record?.sha256 } ?? (record?.sha256 != nil)
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
