import FormsCore
import FormsStore
import Foundation
import PostgresNIO

/// `formsctl sync`: a store and a PostgreSQL schema kept in step, both ways (docs/design.md §13).
///
/// Per document the store keeps, under `.formsctl/sync/<database>/`, the text both sides agreed
/// on at the last sync and the row's revision then (`SyncState`). A run compares each document's
/// file with that text and each row's revision with that revision: what changed on one side is
/// copied to the other; what changed on both is merged three ways (the same merge as
/// `merge-file`), and what does not merge is a conflict left for `resolve`. Rows reach the store
/// through its one write path (operation `sync`, the row's `updated_by` as the user); a push
/// updates a row only while it still has the revision it had at the last sync.
public struct Sync: Sendable {
  /// Which ways a run copies.
  public enum Direction: String, Sendable, CaseIterable {
    case both, pull, push
    var pulls: Bool { self != .push }
    var pushes: Bool { self != .pull }
  }

  public let store: Store
  public let url: DatabaseURL
  /// The PostgreSQL schema holding the tables (`formsctl` by default).
  public let schema: String
  /// Who the rows this store writes name as `updated_by` (the audit log's user).
  let author: String
  /// Refuse (report as rejected) a pulled row whose workflow move the workflow does not list,
  /// as `import --strict-workflow` does; without it the move is applied with a warning.
  public var strictWorkflow = false

  public init(store: Store, url: DatabaseURL, schema: String = "formsctl") throws(SyncError) {
    guard SyncSQL.isSchemaName(schema) else {
      throw SyncError.badSchemaName(schema)
    }
    self.store = store
    self.url = url
    self.schema = schema
    author = store.configuration.user ?? AuditLog.currentUser(root: store.layout.root)
  }

  /// The URL of `--database`, else `FORMSCTL_DATABASE_URL`.
  public static func url(_ given: String?, environment: [String: String]) throws(SyncError) -> DatabaseURL {
    guard let text = given ?? environment["FORMSCTL_DATABASE_URL"], !text.isEmpty else { throw SyncError.noDatabase }
    return try DatabaseURL(text)
  }

  // MARK: init

  /// Creates (or brings up to date) the schema's tables, trigger and views; returns the views.
  public func initialize() throws(SyncError) -> [String] {
    let kinds = store.registry.kinds.map { kind in
      (kind, store.registry.schemas(of: kind).sorted { $0.version < $1.version })
    }
    let statements = SyncSQL.initialize(schema: schema, kinds: kinds)
    try withDatabase { [schema] (database) async throws(SyncError) in
      try await database.run("BEGIN")
      for statement in statements { try await database.run(statement) }
      try await database.run(
        "INSERT INTO \(SyncSQL.qualified(schema, "formsctl_meta")) (key, value) VALUES ('database_id', gen_random_uuid()::text) ON CONFLICT (key) DO NOTHING"
      )
      try await database.run("COMMIT")
    }
    return kinds.flatMap { kind, versions in versions.map { SyncSQL.view(kind, $0.version) } }
  }

  // MARK: run

  /// One line of a run's report.
  public struct Entry: Sendable, Equatable {
    public var kind: String
    public var id: String
    /// pulled, pushed, merged, deleted-here, deleted-there, conflict, rejected, waiting.
    public var action: String
    public var detail: String
    /// A conflict or rejected row that this run leaves as it was (reported `waiting`): the run
    /// is not in step while any are left.
    public var unsettled = false
    /// What the write path applied although a person could not have made the change (a
    /// workflow move the workflow does not list).
    public var warnings: [String] = []
    /// The documents whose approvals this entry's write made stale.
    public var staleApprovals: [StaleApprovals] = []

    public init(
      kind: String, id: String, action: String, detail: String, unsettled: Bool = false, warnings: [String] = [],
      staleApprovals: [StaleApprovals] = []
    ) {
      self.kind = kind
      self.id = id
      self.action = action
      self.detail = detail
      self.unsettled = unsettled
      self.warnings = warnings
      self.staleApprovals = staleApprovals
    }

    /// True when the entry leaves the document out of step: a conflict or a rejected row, new
    /// in this run or left from an earlier one.
    public var isProblem: Bool { unsettled || action == "conflict" || action == "rejected" }

    /// The detail with the warnings and stale approvals after it (the table's column).
    public var fullDetail: String {
      ([detail].filter { !$0.isEmpty } + warnings.map { "warning: " + $0 }
        + staleApprovals.map { "approvals made stale: " + $0.description }).joined(separator: "; ")
    }
  }

  /// Syncs every kind in `direction`; deletions on either side are held to `maxDelete` (the
  /// default bound of `import --prune`: at most half of a kind).
  public func run(_ direction: Direction = .both, maxDelete: PruneBound? = nil) throws(SyncError) -> [Entry] {
    try exclusively("sync") { () throws(SyncError) in
      try withDatabase { [self] (database) async throws(SyncError) in
        try await run(direction, maxDelete: maxDelete, database: database)
      }
    }
  }

  /// Runs `body` holding the store's sync lock, so two syncs never work on one store's records
  /// at once (whatever their databases); a second waits as a writer waits for the store lock,
  /// then gives up naming the first.
  func exclusively<T>(_ command: String, _ body: () throws(SyncError) -> T) throws(SyncError) -> T {
    let lock: StoreLock
    do throws(StoreError) {
      lock = try StoreLock.sync(store.layout, command: command, wait: store.configuration.lockWait)
    } catch {
      if case .locked(let pid, let holder, let waited) = error {
        throw SyncError.alreadyRunning(pid: pid, command: holder, waited: waited)
      }
      throw SyncError.store(error)
    }
    return try withExtendedLifetime(lock) { () throws(SyncError) in try body() }
  }

  /// Runs `body` with a connection to the database, closed after it whatever happens; the
  /// caller waits (see `blocking`).
  func withDatabase<T: Sendable>(_ body: @escaping @Sendable (Database) async throws(SyncError) -> T)
    throws(SyncError) -> T
  {
    try blocking { [url] (executor) async throws(SyncError) in
      let database = try await Database.connect(url, on: executor)
      do throws(SyncError) {
        let result = try await body(database)
        await database.close()
        return result
      } catch {
        await database.close()
        throw error
      }
    }
  }

  /// The report of a run: records `{kind, id, action, detail}` (with `warnings` and
  /// `staleApprovals` when there are any) and a table of the same (the detail followed by them).
  public static func report(_ entries: [Entry]) -> TableReport {
    TableReport(
      records: entries.map { entry in
        var object = JSONObject([
          "kind": .string(entry.kind), "id": .string(entry.id), "action": .string(entry.action),
          "detail": .string(entry.detail),
        ])
        if !entry.warnings.isEmpty { object["warnings"] = .array(entry.warnings.map { .string($0) }) }
        if !entry.staleApprovals.isEmpty { object["staleApprovals"] = .array(entry.staleApprovals.map(\.json)) }
        return .object(object)
      }, columns: ["kind", "id", "action", "detail"],
      rows: entries.map { [$0.kind, $0.id, $0.action, $0.fullDetail] })
  }

  /// The state this database's records live in, after checking the schema is formsctl's and
  /// every kind's table is as `sync init` made it.
  /// With `writing` false (a dry run), dropped views are not made again and the database's
  /// identity is not written beside its records.
  func state(_ database: Database, writing: Bool = true) async throws(SyncError) -> SyncState {
    let meta = SyncSQL.qualified(schema, "formsctl_meta")
    let exists = try await database.rows(
      "SELECT to_regclass(\(SyncSQL.identifier(schema) + ".formsctl_meta"))::text")
    guard (try? exists.first?.decode(String?.self)) ?? nil != nil else {
      throw SyncError.notInitialized(database: url.database, schema: schema)
    }
    let rows = try await database.rows(PostgresQuery(unsafeSQL: "SELECT key, value FROM \(meta)"))
    var values: [String: String] = [:]
    for row in rows {
      guard let (key, value) = try? row.decode((String, String).self) else { continue }
      values[key] = value
    }
    guard values["format"] == SyncSQL.format, let id = values["database_id"] else {
      throw SyncError.otherFormat(schema: schema, format: values["format"])
    }
    for kind in store.registry.kinds { try await checkTable(kind, database) }
    let state = SyncState(layout: store.layout, identity: id + "/" + schema)
    guard writing else { return state }
    try await remakeDroppedViews(database)
    do throws(StoreError) {
      try state.describe(
        .object(JSONObject(["database_id": .string(id), "database": .string(url.database), "schema": .string(schema)])))
    } catch { throw SyncError.store(error) }
    return state
  }

  /// Makes again the typed views someone dropped (they hold no data; apps read them), as
  /// `sync init` makes them.
  func remakeDroppedViews(_ database: Database) async throws(SyncError) {
    var views: [(name: String, statement: String)] = []
    for kind in store.registry.kinds {
      for version in store.registry.schemas(of: kind) {
        let name = SyncSQL.qualified(schema, SyncSQL.view(kind, version.version))
        views.append((name, SyncSQL.createView(version, schema: schema)))
      }
    }
    let rows = try await database.rows(
      "SELECT v FROM unnest(\(views.map(\.name))::text[]) AS v WHERE to_regclass(v) IS NULL")
    var missing: Set<String> = []
    for row in rows {
      if let name = try? row.decode(String.self) { missing.insert(name) }
    }
    for view in views where missing.contains(view.name) { try await database.run(view.statement) }
  }

  /// Refuses a kind's table that is missing or whose columns were changed by hand.
  func checkTable(_ kind: String, _ database: Database) async throws(SyncError) {
    let table = SyncSQL.table(kind)
    let rows = try await database.rows(
      "SELECT column_name::text, data_type::text FROM information_schema.columns WHERE table_schema = \(schema) AND table_name = \(table)"
    )
    var found: [String: String] = [:]
    for row in rows {
      guard let (name, type) = try? row.decode((String, String).self) else { continue }
      found[name] = type
    }
    guard !found.isEmpty else {
      throw SyncError.missingTable(schema: schema, table: table, kind: kind)
    }
    for (name, type) in SyncSQL.columns where found[name] != type {
      throw SyncError.tableChanged(schema: schema, table: table, column: name, found: found[name], expected: type)
    }
  }

  /// A row as sync reads it: its text (the canonical text when it still matches its hash and
  /// says what the jsonb says, else the jsonb's), revision and author. `inconsistent`: its
  /// columns disagree (a canonical text or a `schema_version` other than the jsonb's), so the
  /// row is written again once it is agreed on, even when its text is already the store's.
  struct Row: Sendable {
    var text: String
    var revision: Int64
    var user: String
    var inconsistent = false
    /// Its canonical text has its hash and says what the jsonb says: the row holds that text.
    var vouched = false
  }

  func fetch(_ kind: String, _ id: String, _ database: Database) async throws(SyncError) -> Row? {
    try await fetch(kind, [id], database)[id]
  }

  /// The rows of `ids` that exist, by id, in one query.
  func fetch(_ kind: String, _ ids: [String], _ database: Database) async throws(SyncError) -> [String: Row] {
    let table = SyncSQL.qualified(schema, SyncSQL.table(kind))
    let rows = try await database.rows(
      """
      SELECT id, document::text, canonical, content_sha256, revision, updated_by, schema_version FROM \(unescaped: table)
      WHERE id = ANY(\(ids)::text[])
      """)
    var found: [String: Row] = [:]
    for row in rows {
      do {
        let (id, json, canonical, hash, revision, user, version) = try row.decode(
          (String, String, String?, String?, Int64, String, String).self)
        found[id] = Self.row(
          json: json, canonical: canonical, hash: hash, revision: revision, user: user, version: version)
      } catch {
        throw SyncError.unreadableRow(schema: schema, table: SyncSQL.table(kind), detail: "\(error)")
      }
    }
    return found
  }

  /// A row from its columns. The jsonb is what the row says (every reader of the database sees
  /// it): a canonical text that does not say the same (written around the trigger, or with a
  /// hash of its own) is not taken; nor is a `schema_version` other than the document's.
  static func row(json: String, canonical: String?, hash: String?, revision: Int64, user: String, version: String)
    -> Row
  {
    let document = try? JSONParser().parse(Array(json.utf8))
    var row = Row(text: json, revision: revision, user: user)
    if let canonical, SyncState.hash(Array(canonical.utf8)) == hash {
      if let document, let text = try? JSONParser().parse(Array(canonical.utf8)), equivalent(text, document) {
        row.text = canonical
        row.vouched = true
      } else {
        row.inconsistent = true
      }
    }
    if let reference = document?["_schema"]?.stringValue, reference.contains("@"),
      reference.split(separator: "@").last.map(String.init) != version
    {
      row.inconsistent = true
    }
    return row
  }

  /// True when `a` and `b` are the same JSON value, numbers compared by value (jsonb spells
  /// `1e2` as `100`).
  static func equivalent(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a, b) {
    case (.number(let x), .number(let y)): return x.compare(y) == .orderedSame
    case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { equivalent($0, $1) }
    case (.object(let x), .object(let y)):
      return x.keys == y.keys && x.keys.allSatisfy { key in equivalent(x[key] ?? .null, y[key] ?? .null) }
    default: return a == b
    }
  }

  /// A stored document on its way to its row: what the row's columns take, worked out once.
  struct Outgoing: Sendable {
    var id: String
    /// The revision the row must still have; nil for a row to insert.
    var revision: Int64?
    var text: String
    var sha256: String
    var version: String

    init(id: String, bytes: [UInt8], revision: Int64?) {
      self.id = id
      self.revision = revision
      text = String(decoding: bytes, as: UTF8.self)
      sha256 = SyncState.hash(bytes)
      version = Sync.version(of: bytes)
    }
  }

  /// Writes `bytes` (a stored file) to the row of `id`: inserted when `revision` is nil, else
  /// updated only while the row still has `revision`. The new revision, nil when another writer
  /// got there first.
  func push(_ kind: String, _ id: String, _ bytes: [UInt8], revision: Int64?, _ database: Database)
    async throws(SyncError) -> Int64?
  {
    try await writeRows(kind, [Outgoing(id: id, bytes: bytes, revision: revision)], database)[id]
  }

  /// Writes `documents` to their rows, the new ones inserted and the others updated while the
  /// row still has the revision given, a statement each; the new revision of each written, by id
  /// (an id missing from it: another writer inserted, changed or deleted that row first).
  func writeRows(_ kind: String, _ documents: [Outgoing], _ database: Database) async throws(SyncError) -> [String:
    Int64]
  {
    let table = SyncSQL.qualified(schema, SyncSQL.table(kind))
    let user = author
    var revisions: [String: Int64] = [:]
    let new = documents.filter { $0.revision == nil }
    if !new.isEmpty {
      revisions = try await revisionsByID(
        """
        INSERT INTO \(unescaped: table) (id, schema_version, document, canonical, content_sha256, updated_by)
        SELECT u.id, u.version, u.text::jsonb, u.text, u.hash, set_config('formsctl.author', \(user), true)
        FROM unnest(\(new.map(\.id))::text[], \(new.map(\.version))::text[], \(new.map(\.text))::text[],
        \(new.map(\.sha256))::text[]) AS u(id, version, text, hash)
        ON CONFLICT (id) DO NOTHING RETURNING id, revision
        """, database)
    }
    let changed = documents.filter { $0.revision != nil }
    if !changed.isEmpty {
      let updated = try await revisionsByID(
        """
        UPDATE \(unescaped: table) AS t SET document = u.text::jsonb, canonical = u.text, content_sha256 = u.hash,
        schema_version = u.version, updated_by = set_config('formsctl.author', \(user), true)
        FROM unnest(\(changed.map(\.id))::text[], \(changed.map { $0.revision ?? 0 })::int8[],
        \(changed.map(\.version))::text[], \(changed.map(\.text))::text[], \(changed.map(\.sha256))::text[])
        AS u(id, revision, version, text, hash)
        WHERE t.id = u.id AND t.revision = u.revision RETURNING t.id, t.revision
        """, database)
      revisions.merge(updated) { first, _ in first }
    }
    return revisions
  }

  /// The `id, revision` rows `query` returns, by id.
  func revisionsByID(_ query: PostgresQuery, _ database: Database) async throws(SyncError) -> [String: Int64] {
    var revisions: [String: Int64] = [:]
    for row in try await database.rows(query) {
      guard let (id, revision) = try? row.decode((String, Int64).self) else { continue }
      revisions[id] = revision
    }
    return revisions
  }

  /// The version a stored document's `_schema` names (`1.1.0`), from its top-level members.
  static func version(of bytes: [UInt8]) -> String {
    let reference =
      JSONParser().parseTopLevelScalars(bytes, excluding: [])?.scalars["_schema"]?.stringValue
      ?? (try? JSONParser().parse(bytes))?["_schema"]?.stringValue
    return reference.flatMap { $0.split(separator: "@").last }.map(String.init) ?? ""
  }

  /// Deletes the row of `id` while it still has `revision`; false when another writer changed it.
  func deleteRow(_ kind: String, _ id: String, revision: Int64, _ database: Database) async throws(SyncError) -> Bool {
    let table = SyncSQL.qualified(schema, SyncSQL.table(kind))
    let rows = try await database.rows(
      "DELETE FROM \(unescaped: table) WHERE id = \(id) AND revision = \(revision) RETURNING id")
    return !rows.isEmpty
  }

  func sha256(_ bytes: [UInt8]) -> String { SyncState.hash(bytes) }
}
