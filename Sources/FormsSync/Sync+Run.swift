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
    /// Nothing to do, but the document stays out of step: a conflict or a rejected row.
    case unsettled(String)
    /// A conflict whose row changed again: its `theirs` is read again.
    case refreshConflict

    /// Whether carrying it out needs the file's bytes.
    var readsFile: Bool {
      switch self {
      case .merge, .adopt: true
      default: false
      }
    }
  }

  func run(_ direction: Direction, maxDelete: PruneBound?, database: Database) async throws(SyncError) -> [Entry] {
    let state = try await state(database)
    // Every kind is planned, and the deletions bounded, before either side is written: a row
    // deleted in the database deletes here what its relations cascade to, and those are
    // deleted in the database after, so they count where they fall.
    var prepared: [Prepared] = []
    for kind in store.registry.kinds {
      prepared.append(try await prepare(kind: kind, direction, state: state, database: database))
    }
    if let refusal = refusal(prepared, maxDelete: maxDelete) {
      // Nothing is written; what was planned waits, and `sync status` says so.
      guard refusal.isRefusal else { throw refusal }
      try save { () throws(StoreError) in
        try state.noteRefusal(
          SyncState.Refusal(
            at: Instant(store.now()).rfc3339, reason: refusal.description,
            pending: prepared.flatMap { Self.pending($0) }))
      }
      throw refusal
    }
    // A run that goes through ends an earlier refusal only for the sides it carries: a push
    // leaves waiting the deletions a refused pull planned, and `sync status` still says so.
    try save { () throws(StoreError) in
      if let earlier = try state.refusal(), !Self.settles(earlier, direction) { return }
      try state.clearRefusal()
    }
    DebugPause.at("sync-planned")
    var entries: [Entry] = []
    for kind in prepared {
      entries += try await carry(kind, database: database)
    }
    return entries
  }

  /// True when a run in `direction` carries every change `refusal` planned: a change for the
  /// store needs a pull, one for the database a push; one of both sides, one that waits, or a
  /// note that kept only part of its plan needs both.
  static func settles(_ refusal: SyncState.Refusal, _ direction: Direction) -> Bool {
    guard direction != .both else { return true }
    guard refusal.pendingCount == refusal.pending.count else { return false }
    return refusal.pending.allSatisfy { change in
      switch change.side {
      case "store": direction.pulls
      case "database": direction.pushes
      default: false
      }
    }
  }

  /// One kind's plans, made before anything is written.
  struct Prepared {
    var kind: String
    var directory: String
    var table: SyncState.Table
    var records: [String: SyncState.Record]
    var local: [String: (sha256: String, refreshed: SyncState.Stamp?)]
    var remote: [String: Int64]
    var plans: [(id: String, plan: Plan)]
    /// Rows at a lower revision than recorded, in order.
    var backwards: [String] = []
  }

  /// Why a run of these plans is refused before anything is written, or nil. Revisions come from
  /// one sequence and only grow: a row below its recorded revision means the database was
  /// restored from an older copy, and its old content must not be pulled over newer work. And
  /// deletions are bounded (``bound(_:maxDelete:)``).
  func refusal(_ prepared: [Prepared], maxDelete: PruneBound?) -> SyncError? {
    for kind in prepared where !kind.backwards.isEmpty {
      return SyncError.wentBack(kind: kind.kind, ids: kind.backwards.map(Self.escaped))
    }
    do throws(SyncError) { try bound(prepared, maxDelete: maxDelete) } catch { return error }
    return nil
  }

  /// Refuses the run when it would delete more of a kind, on either side, than `maxDelete`
  /// allows (as import --prune's): a deletion here counted with every document its relations
  /// cascade to (deleted here, then in the database).
  func bound(_ prepared: [Prepared], maxDelete: PruneBound?) throws(SyncError) {
    let bound = maxDelete ?? .standard
    var here: [String: Set<String>] = [:]
    var there: [String: Set<String>] = [:]
    var cause: [String: String] = [:]
    for kind in prepared {
      for (id, plan) in kind.plans {
        switch plan {
        case .deleteHere: here[kind.kind, default: []].insert(id)
        case .deleteThere: there[kind.kind, default: []].insert(id)
        default: break
        }
      }
    }
    let remoteOf = Dictionary(uniqueKeysWithValues: prepared.map { ($0.kind, $0.remote) })
    for kind in prepared {
      for (id, plan) in kind.plans {
        guard case .deleteHere = plan else { continue }
        let cascade: Store.ChangePlan
        do throws(StoreError) { cascade = try store.planDelete(kind: kind.kind, id: id) } catch {
          if error.kind == .badInput { continue }  // refused when applied, and reported rejected
          throw SyncError.store(error)
        }
        guard cascade.blockers.isEmpty else { continue }
        for entry in cascade.deletes where !(entry.kind == kind.kind && entry.id == id) {
          here[entry.kind, default: []].insert(entry.id)
          cause[entry.kind] = cause[entry.kind] ?? "\(kind.kind) \(Self.escaped(id))"
          if remoteOf[entry.kind]?[entry.id] != nil { there[entry.kind, default: []].insert(entry.id) }
        }
      }
    }
    for kind in prepared {
      let followed = cause[kind.kind].map { " (following the relations of \($0), deleted in the database)" } ?? ""
      let removingHere = here[kind.kind]?.count ?? 0
      if let why = bound.refusal(
        removing: removingHere, of: kind.local.count, feedRecords: kind.remote.count, explicit: maxDelete != nil)
      {
        throw SyncError.deletionBeyondBound(
          kind: kind.kind, removing: removingHere, of: kind.local.count, inDatabase: false, reason: why + followed)
      }
      let removingThere = there[kind.kind]?.count ?? 0
      if let why = bound.refusal(
        removing: removingThere, of: kind.remote.count, feedRecords: kind.local.count, explicit: maxDelete != nil)
      {
        throw SyncError.deletionBeyondBound(
          kind: kind.kind, removing: removingThere, of: kind.remote.count, inDatabase: true, reason: why + followed)
      }
    }
  }

  /// With `dryRun`, nothing is saved (the signatures of files read again are not refreshed).
  func prepare(kind: String, _ direction: Direction, state: SyncState, database: Database, dryRun: Bool = false)
    async throws(SyncError) -> Prepared
  {
    // The rows' query is sent first; the database answers while the records and files are read.
    let table = try storeTable(kind, state: state)
    let records = table.records
    async let revisions = revisions(kind, records: records, database)
    await Task.yield()
    let directory: String
    do throws(StoreError) { directory = try store.schema(kind).directory } catch { throw SyncError.store(error) }
    let local = try localHashes(kind, records: records)
    let remote: [String: Int64]
    do { remote = try await revisions } catch { throw Database.classify(error, url: url, connected: true) }
    // Files read only because they were written close to their record get a signature that
    // vouches for them from now on.
    let refreshed = local.compactMap { id, file -> SyncState.Record? in
      guard let stamp = file.refreshed, var record = records[id] else { return nil }
      record.stamp = stamp
      return record
    }
    if !dryRun { try save { () throws(StoreError) in try table.save(refreshed) } }
    // Only documents with something to do are planned, then put in order: at 100,000 documents,
    // sorting every id costs more than an idle run's other work. The ids of records and rows
    // are looked for among the files' only when some were not seen with a file (each lookup in
    // 100,000 is a cache miss).
    var plans: [(id: String, plan: Plan)] = []
    var seen = (records: 0, remote: 0)
    func consider(_ id: String, sha256: String?) {
      let record = records[id]
      let revision = remote[id]
      if sha256 != nil {
        seen.records += record == nil ? 0 : 1
        seen.remote += revision == nil ? 0 : 1
      }
      let plan = plan(record, sha256: sha256, revision: revision, direction)
      if case .wait(let why) = plan, why.isEmpty { return }
      plans.append((id, plan))
    }
    for (id, file) in local { consider(id, sha256: file.sha256) }
    if seen.records < records.count {
      for id in records.keys where local[id] == nil { consider(id, sha256: nil) }
    }
    if seen.remote < remote.count {
      for id in remote.keys where local[id] == nil && records[id] == nil { consider(id, sha256: nil) }
    }
    plans.sort { $0.id < $1.id }
    let backwards = remote.compactMap { id, revision -> String? in
      guard revision >= 0, let recorded = records[id]?.revision, records[id]?.text != nil, revision < recorded else {
        return nil
      }
      return id
    }.sorted()
    return Prepared(
      kind: kind, directory: directory, table: table, records: records, local: local, remote: remote, plans: plans,
      backwards: backwards)
  }

  func carry(_ prepared: Prepared, database: Database) async throws(SyncError) -> [Entry] {
    let (kind, directory, table, records, local, plans) = (
      prepared.kind, prepared.directory, prepared.table, prepared.records, prepared.local, prepared.plans
    )
    func path(_ id: String) -> String { store.layout.path(directory: directory, id: id) }
    // A row is inserted for a document never agreed on; else updated while it has the revision
    // of the last sync.
    let pushing = plans.compactMap { id, plan -> (String, String, Int64?)? in
      guard case .push = plan else { return nil }
      return (id, path(id), records[id]?.text == nil ? nil : records[id]?.revision)
    }
    var batched = try await push(pushing, kind: kind, table: table, database: database)
    let pulling = plans.compactMap { id, plan -> String? in if case .pull = plan { id } else { nil } }
    batched.merge(try await pull(pulling, kind: kind, records: records, table: table, database: database)) { a, _ in a }
    var entries: [Entry] = []
    for (id, plan) in plans {
      if let entry = batched[id] {
        entries.append(entry)
        continue
      }
      let bytes = try plan.readsFile && local[id] != nil ? read(path(id)) : nil
      if let entry = try await apply(
        plan, kind: kind, id: id, record: records[id], bytes: bytes, table: table, database: database)
      {
        entries.append(entry)
      }
    }
    try save { () throws(StoreError) in try table.finish() }
    return entries
  }

  /// Every row of `kind`'s table: its revision, by id (two arrays in one row: decoding 100,000
  /// rows one by one costs more than the query).
  func revisions(_ kind: String, records: [String: SyncState.Record], _ database: Database) async throws(SyncError)
    -> [String: Int64]
  {
    let table = SyncSQL.qualified(schema, SyncSQL.table(kind))
    var remote: [String: Int64] = [:]
    for row in try await database.rows(
      """
      SELECT coalesce(array_agg(id), '{}'), coalesce(array_agg(revision), '{}'),
      coalesce(array_agg(coalesce(CASE
        WHEN content_sha256 IS DISTINCT FROM encode(sha256(convert_to(canonical, 'UTF8')), 'hex') THEN NULL
        WHEN canonical::jsonb = document THEN content_sha256 END, '')), '{}')
      FROM \(unescaped: table)
      """)
    {
      do {
        let (ids, revisions, hashes) = try row.decode(([String], [Int64], [String]).self)
        for (index, id) in ids.enumerated() where remote[id] == nil {
          let revision = revisions[index]
          // A row whose content is not what was recorded at its revision was written around the
          // trigger (session_replication_role = replica): it changed, whatever its revision says.
          if let record = records[id], record.text != nil, record.revision == revision,
            record.sha256 == nil || hashes[index] != record.sha256
          {
            remote[id] = Self.drifted(revision)
          } else {
            remote[id] = revision
          }
        }
      } catch {
        throw SyncError.unreadableRow(schema: schema, table: SyncSQL.table(kind), detail: "\(error)")
      }
    }
    return remote
  }

  /// The revision planned for a row whose content changed without its revision: one no row
  /// has (revisions are positive), so the row is read again as changed.
  static func drifted(_ revision: Int64) -> Int64 { -revision - 1 }

  /// Documents changed here, written to the database 500 to a statement (as a bulk load goes):
  /// inserted when `revision` is nil, else updated while the row still has it; recorded 500 at
  /// a time; each one's report line, by id. The next 500 files are read while the database
  /// takes the last 500.
  func push(
    _ documents: [(id: String, path: String, revision: Int64?)], kind: String, table: SyncState.Table,
    database: Database
  ) async throws(SyncError) -> [String: Entry] {
    var entries: [String: Entry] = [:]
    // The signature is taken before the read: a file changed in between is read again next time.
    func read(from start: Int) throws(SyncError) -> [(outgoing: Outgoing, stamp: SyncState.Stamp?)] {
      try documents[start..<min(documents.count, start + 500)].map { document throws(SyncError) in
        let stamp = SyncState.Stamp.of(document.path)
        return (Outgoing(id: document.id, bytes: try self.read(document.path), revision: document.revision), stamp)
      }
    }
    var start = 0
    var chunk = try read(from: 0)
    while !chunk.isEmpty {
      let outgoing = chunk.map(\.outgoing)
      let writing = Task(executorPreference: database.executor) { () async throws(SyncError) in
        try await writeRows(kind, outgoing, database)
      }
      await Task.yield()  // the statement is sent before the next files are read
      start += 500
      // A file that cannot be read fails the run once this chunk's rows have their records.
      let next: Result<[(outgoing: Outgoing, stamp: SyncState.Stamp?)], SyncError>
      do throws(SyncError) { next = .success(try read(from: min(start, documents.count))) } catch {
        next = .failure(error)
      }
      let revisions: [String: Int64]
      do { revisions = try await writing.value } catch { throw Database.classify(error, url: url, connected: true) }
      DebugPause.at("sync-pushed")
      let time = Instant(store.now()).rfc3339
      var agreed: [SyncState.Record] = []
      for (document, stamp) in chunk {
        let id = document.id
        guard let revision = revisions[id] else {
          let what = document.revision == nil ? "added" : "changed"
          entries[id] = Entry(
            kind: kind, id: id, action: "waiting",
            detail: "\(what) in the database meanwhile; the next sync takes it up")
          continue
        }
        agreed.append(
          SyncState.Record(
            kind: kind, id: id, status: .synced, lastSynced: time, text: .given(document.text),
            sha256: document.sha256, revision: revision, stamp: stamp))
        entries[id] = Entry(kind: kind, id: id, action: "pushed", detail: "")
      }
      try save { () throws(StoreError) in try table.save(agreed) }
      chunk = try next.get()
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
        let written: [String: Result<Written, StoreError>]
        do throws(StoreError) {
          written = try write(kind, group.map { ($0.id, $0.row.text) }, user: author)
        } catch { throw SyncError.store(error) }
        DebugPause.at("sync-pulled")
        // The write path may have added to them (defaults, stamps, canonical form), and a row's
        // columns may disagree: the rows get the file's text, in one statement.
        let exact = try await writeRows(
          kind,
          group.compactMap { id, row in
            guard case .success(let done)? = written[id],
              row.inconsistent || !row.vouched || row.text != String(decoding: done.bytes, as: UTF8.self)
            else {
              return nil
            }
            return Outgoing(id: id, bytes: done.bytes, revision: row.revision)
          }, database)
        for (id, row) in group {
          switch written[id] {
          case .success(let done)?:
            try agree(kind, id, done.bytes, revision: exact[id] ?? row.revision, table)
            entries[id] = Entry(
              kind: kind, id: id, action: "pulled", detail: "by \(row.user)", warnings: done.warnings,
              staleApprovals: done.staleApprovals)
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

  /// The sync records of `kind`, open for the run.
  func storeTable(_ kind: String, state: SyncState) throws(SyncError) -> SyncState.Table {
    do throws(StoreError) { return try state.table(kind) } catch { throw SyncError.store(error) }
  }

  /// Each document of `kind` here: its SHA-256 (the record's, when the file's signature vouches
  /// that it is unchanged since; else read and hashed), by id. (Not its path: at 100,000
  /// documents, making and freeing a string per file costs as much as planning them.)
  func localHashes(_ kind: String, records: [String: SyncState.Record]) throws(SyncError) -> [String: (
    sha256: String, refreshed: SyncState.Stamp?
  )] {
    do throws(StoreError) { return try Self.localHashes(kind, in: store, records: records) } catch {
      throw SyncError.store(error)
    }
  }

  static func localHashes(_ kind: String, in store: Store, records: [String: SyncState.Record]) throws(StoreError)
    -> [String: (sha256: String, refreshed: SyncState.Stamp?)]
  {
    let directory = try store.schema(kind).directory
    let ids = try store.layout.ids(in: directory, sorted: false)
    // Each file is looked up from its directory's descriptor (one name, not the whole path).
    let opened = FileIO.Directory(FilePath(store.layout.documents(in: directory)))
    let hashed = parallelMap(ids, chunkSize: 64) {
      id -> Result<(String, SyncState.Stamp?)?, StoreError> in
      Result { () throws(StoreError) in
        let path = store.layout.path(directory: directory, id: id)
        return try SyncState.fileState(FilePath(path), record: records[id], in: opened).map {
          ($0.sha256, $0.refreshed)
        }
      }
    }
    var out: [String: (sha256: String, refreshed: SyncState.Stamp?)] = [:]
    out.reserveCapacity(ids.count)
    for (id, result) in zip(ids, hashed) {
      if let (sha, refreshed) = try result.get() { out[id] = (sha, refreshed) }
    }
    return out
  }

  /// The stored bytes of a document (sealed values as envelopes).
  func read(_ path: String) throws(SyncError) -> [UInt8] {
    do throws(StoreError) { return try FileIO.read(FilePath(path), followLinks: false) } catch {
      throw SyncError.store(error)
    }
  }

  func plan(_ record: SyncState.Record?, sha256: String?, revision: Int64?, _ direction: Direction) -> Plan {
    if let record, record.status == .conflict {
      if revision != record.remoteRevision { return .refreshConflict }
      return .unsettled("conflict: waiting to be resolved (ours, theirs or a settled file)")
    }
    let bytes = sha256
    let localChanged = sha256.map { $0 != record?.sha256 } ?? (record?.sha256 != nil)
    if let record, record.status == .rejected, revision == record.remoteRevision, !localChanged {
      return .unsettled("rejected: \(record.problem ?? "")")
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
