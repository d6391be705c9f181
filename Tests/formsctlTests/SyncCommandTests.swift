import FormsTestSupport
import Foundation
import Testing

/// `formsctl sync` as a person runs it: exit codes and one-line errors.
struct SyncCommandTests {
  @Test func withoutADatabaseOrWithNoServerTheErrorSaysWhy() throws {
    try withTemporaryDirectory { (dir: String) throws -> Void in
      let store = dir + "/store"
      #expect(try Formsctl.run(["init", store], in: dir).status == 0)
      let none = try Formsctl.run(["sync"], in: store, environment: ["FORMSCTL_DATABASE_URL": ""])
      #expect(none.status == 64 && none.stderr.contains("give --database URL or set FORMSCTL_DATABASE_URL"))
      let bad = try Formsctl.run(["sync", "--database", "mysql://x@y/z"], in: store)
      #expect(bad.status == 64 && bad.stderr.contains("postgresql://"), "\(bad.stderr)")
      let gone = try Formsctl.run(
        ["sync", "--database", "postgresql://u:p@127.0.0.1:1/db?sslmode=disable"], in: store)
      #expect(gone.status == 75 && gone.stderr.contains("cannot reach the database at 127.0.0.1:1"), "\(gone.stderr)")
      #expect(!gone.stderr.contains(":p@"), "the password is never shown")
      let both = try Formsctl.run(["sync", "--pull", "--push"], in: store)
      #expect(both.status == 64)
    }
  }

  /// A store made by `formsctl init` with the acquisitions `titles` (id, title), and `sync init`
  /// run against a server of its own; `body` gets the server, the store, the environment that
  /// names the database, and a runner of formsctl in the store with it.
  func withSyncedStore(
    _ titles: [(id: String, title: String)],
    _ body: (PostgresServer, String, [String: String], ([String]) throws -> RunResult) throws -> Void
  ) throws {
    let server = try PostgresServer()
    defer { server.stop() }
    try withTemporaryDirectory { (dir: String) throws -> Void in
      let store = dir + "/store"
      let env = ["FORMSCTL_DATABASE_URL": server.url, "FORMSCTL_IDENTITY": ""]
      func run(_ args: [String]) throws -> RunResult { try Formsctl.run(args, in: store, environment: env) }
      #expect(try Formsctl.run(["init", store], in: dir).status == 0)
      for (id, title) in titles {
        let made = try run([
          "new", "acquisition", "--set", "id=\(id)", "--set", "title=\(title)", "--set", "agency=GSA",
        ])
        #expect(made.status == 0, "\(made.transcript)")
      }
      #expect(try run(["sync", "init"]).status == 0)
      try body(server, store, env, run)
    }
  }

  /// kill -9 while a push has written a row but not its record, and while a pull has written a
  /// document but not its record: the next sync converges, and the one after changes nothing.
  @Test(
    PostgresServer.enabled)
  func killedDuringPushOrPullTheNextSyncConverges() throws {
    try withSyncedStore([("ACQ-2026-001", "Chairs"), ("ACQ-2026-002", "Desks"), ("ACQ-2026-003", "Lamps")]) {
      server, store, env, run in
      /// Every row's content equals its file's, and a further sync has nothing to do.
      func converged(_ context: String) throws {
        let second = try run(["sync", "--format", "json"])
        #expect(second.status == 0 && second.stdout == "[]\n", "\(context): \(second.transcript)")
        for id in ["ACQ-2026-001", "ACQ-2026-002", "ACQ-2026-003", "ACQ-2026-004"] {
          let file = try? readFile(store + "/data/acquisitions/\(id).json")
          let row = try server.psql("SELECT canonical FROM formsctl.acquisition WHERE id = '\(id)'")
          #expect(
            (file ?? "") == (row.isEmpty ? "" : String(row.dropLast())), "\(context): \(id) differs from its row")
        }
      }
      // Killed with the new rows pushed (one statement) and their records unsaved.
      let pushing = try startPaused(["sync", "--push"], at: "sync-pushed", in: store, environment: env)
      kill(pushing.processIdentifier, SIGKILL)
      pushing.waitUntilExit()
      #expect(try server.psql("SELECT count(*) FROM formsctl.acquisition") == "3\n")
      let resumed = try run(["sync"])
      #expect(resumed.status == 0, "\(resumed.transcript)")
      try converged("after a push killed")
      // Killed with a row pulled into the store (a new one, and a changed one) and its record unsaved.
      try server.psql(
        "INSERT INTO formsctl.acquisition (id, schema_version, document, updated_by) VALUES ('ACQ-2026-004', '1.0.0', "
          + "'{\"_schema\": \"acquisition@1.0.0\", \"id\": \"ACQ-2026-004\", \"title\": \"Rugs\", \"agency\": \"GSA\"}', 'db')"
      )
      try server.psql(
        "UPDATE formsctl.acquisition SET document = jsonb_set(document, '{title}', '\"Stools\"') WHERE id = 'ACQ-2026-001'"
      )
      for _ in 0..<2 {
        let pulling = try startPaused(["sync", "--pull"], at: "sync-pulled", in: store, environment: env)
        kill(pulling.processIdentifier, SIGKILL)
        pulling.waitUntilExit()
      }
      let after = try run(["sync"])
      #expect(after.status == 0, "\(after.transcript)")
      #expect(try readFile(store + "/data/acquisitions/ACQ-2026-001.json").contains("Stools"))
      try converged("after pulls killed")
    }
  }

  /// A second sync of the store while one runs waits, then gives up naming the first; the
  /// first, its connection cut in the middle of the run, ends with one line and exit 75; the
  /// next sync finishes the work, and the one after finds nothing to do.
  @Test(
    PostgresServer.enabled)
  func aSecondSyncWaitsAndALostConnectionIsTryAgain() throws {
    try withSyncedStore([("ACQ-2026-001", "Chairs"), ("ACQ-2026-002", "Chairs")]) { server, store, env, run in
      let (first, errors) = try startPaused(
        ["sync"], at: "sync-planned", seconds: 3, in: store, environment: env)
      let second = try run(["sync", "--wait", "0"])
      #expect(second.status == 75, "\(second.transcript)")
      #expect(
        second.stderr.contains(
          "another sync of this store is running: pid \(first.processIdentifier) (formsctl sync); waited 0 s"),
        "\(second.stderr)")
      try server.psql(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()"
      )
      first.waitUntilExit()
      let said = String(decoding: errors.readDataToEndOfFile(), as: UTF8.self)
      #expect(first.terminationStatus == 75, "\(said)")
      #expect(
        said.split(separator: "\n").count == 1 && said.hasPrefix("formsctl: error: the database at 127.0.0.1:")
          && said.contains("went away") && said.hasSuffix("; run sync again\n"), "\(said)")
      // Cut after the run was planned, before it wrote: nothing is in the database yet.
      #expect(try server.psql("SELECT count(*) FROM formsctl.acquisition") == "0\n")
      let next = try run(["sync", "--format", "json"])
      #expect(next.status == 0, "\(next.transcript)")
      let idle = try run(["sync", "--format", "json"])
      #expect(idle.status == 0 && idle.stdout == "[]\n", "\(idle.transcript)")
      #expect(
        try server.psql("SELECT string_agg(document->>'title', ',' ORDER BY id) FROM formsctl.acquisition")
          == "Chairs,Chairs\n")
    }
  }

  /// A writer on the database while a sync runs, between the sync's push of a row and its
  /// record of it: the sync neither overwrites nor loses the change, and the next sync pulls it.
  @Test(
    PostgresServer.enabled)
  func aWriterOnTheDatabaseDuringASyncIsNeitherOverwrittenNorLost() throws {
    try withSyncedStore([("ACQ-2026-001", "Chairs")]) { server, store, env, run in
      let (first, errors) = try startPaused(["sync"], at: "sync-pushed", seconds: 2, in: store, environment: env)
      try server.psql(
        "UPDATE formsctl.acquisition SET document = jsonb_set(document, '{title}', '\"Desks\"'), updated_by = 'sql'")
      first.waitUntilExit()
      let said = String(decoding: errors.readDataToEndOfFile(), as: UTF8.self)
      #expect(first.terminationStatus == 0, "\(said)")
      #expect(try server.psql("SELECT document->>'title' FROM formsctl.acquisition") == "Desks\n")
      let next = try run(["sync", "--format", "json"])
      #expect(next.status == 0 && next.stdout.contains(#""action": "pulled""#), "\(next.transcript)")
      #expect(try readFile(store + "/data/acquisitions/ACQ-2026-001.json").contains(#""title": "Desks""#))
      let idle = try run(["sync", "--format", "json"])
      #expect(idle.status == 0 && idle.stdout == "[]\n", "\(idle.transcript)")
    }
  }

  @Test(
    PostgresServer.enabled)
  func aConflictExitsOneAndResolveSettlesIt() throws {
    try withSyncedStore([("ACQ-2026-001", "Chairs")]) { server, store, env, run in
      #expect(try run(["sync"]).status == 0)
      try server.psql(
        "UPDATE formsctl.acquisition SET document = jsonb_set(document, '{title}', '\"Desks\"')")
      #expect(try run(["set", "acquisition", "ACQ-2026-001", "title=Tables"]).status == 0)
      let conflict = try run(["sync", "--format", "json"])
      #expect(conflict.status == 1 && conflict.stdout.contains(#""action": "conflict""#), "\(conflict)")
      let status = try run(["sync", "status"])
      #expect(status.stdout.contains("conflict") && status.stdout.contains("/title"), "\(status.stdout)")
      #expect(
        try run(["list", "acquisition", "--where", "_sync == \"conflict\"", "--format", "paths"]).stdout
          == "data/acquisitions/ACQ-2026-001.json\n")
      #expect(try run(["sync", "resolve", "acquisition", "ACQ-2026-001", "--ours", "--theirs"]).status == 64)
      #expect(try run(["sync", "resolve", "acquisition", "ACQ-2026-001", "--ours"]).status == 0)
      #expect(try server.psql("SELECT document->>'title' FROM formsctl.acquisition") == "Tables\n")
      let settled = try run(["sync", "--format", "json"])
      #expect(settled.status == 0 && settled.stdout == "[]\n", "\(settled)")
      #expect(try run(["sync", "resolve", "acquisition", "ACQ-2026-001", "--ours"]).status == 65)
    }
  }
}

extension SyncCommandTests {
  /// `sync || alert` alerts on every run while a rejected row is left, not only on the run that
  /// rejected it; once the row is fixed, sync exits 0.
  @Test(
    PostgresServer.enabled)
  func syncExitsOneWhileARejectedRowIsLeft() throws {
    try withSyncedStore([("ACQ-2026-001", "Chairs")]) { server, _, _, run in
      #expect(try run(["sync"]).status == 0)
      try server.psql("UPDATE formsctl.acquisition SET document = jsonb_set(document, '{title}', '\"\"')")
      let rejected = try run(["sync"])
      #expect(rejected.status == 1 && rejected.stdout.contains("rejected"), "\(rejected.transcript)")
      let still = try run(["sync", "--format", "json"])
      #expect(still.status == 1 && still.stdout.contains("rejected: /title"), "\(still.transcript)")
      #expect(try run(["sync", "--push"]).status == 1)
      try server.psql("UPDATE formsctl.acquisition SET document = jsonb_set(document, '{title}', '\"Desks\"')")
      let fixed = try run(["sync"])
      #expect(fixed.status == 0 && fixed.stdout.contains("pulled"), "\(fixed.transcript)")
      #expect(try run(["sync"]).status == 0)
    }
  }
}

extension SyncCommandTests {
  /// Every file under `directory` (relative path to content), and the database's rows: what a
  /// dry run must leave as it found.
  func everything(_ directory: String, _ server: PostgresServer) throws -> [String: String] {
    var files: [String: String] = [:]
    let enumerator = FileManager.default.enumerator(atPath: directory)
    while let path = enumerator?.nextObject() as? String {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: directory + "/" + path, isDirectory: &isDirectory),
        !isDirectory.boolValue
      else { continue }
      files[path] = String(decoding: try Data(contentsOf: URL(fileURLWithPath: directory + "/" + path)), as: UTF8.self)
    }
    files["(rows)"] = try server.psql(
      "SELECT string_agg(id || ' ' || revision || ' ' || canonical, E'\\n' ORDER BY id) FROM formsctl.acquisition")
    return files
  }

  /// `sync --dry-run` says what a sync would write on each side, and writes nothing anywhere (no
  /// document, no row, no sync record, no audit record); the sync after it does what it said.
  @Test(
    PostgresServer.enabled)
  func aDryRunSaysWhatASyncWouldWriteAndWritesNothing() throws {
    try withSyncedStore([("ACQ-2026-001", "Chairs"), ("ACQ-2026-002", "Desks"), ("ACQ-2026-003", "Lamps")]) {
      server, store, _, run in
      #expect(try run(["sync"]).status == 0)
      try server.psql(
        "UPDATE formsctl.acquisition SET document = jsonb_set(document, '{title}', '\"Stools\"') WHERE id = 'ACQ-2026-001'"
      )
      try server.psql(
        "INSERT INTO formsctl.acquisition (id, schema_version, document, updated_by) VALUES ('ACQ-2026-004', '1.1.0', "
          + "'{\"_schema\": \"acquisition@1.1.0\", \"id\": \"ACQ-2026-004\", \"title\": \"Rugs\", \"agency\": \"GSA\"}', 'db')"
      )
      try server.psql("DELETE FROM formsctl.acquisition WHERE id = 'ACQ-2026-003'")
      #expect(try run(["set", "acquisition", "ACQ-2026-002", "title=Tables"]).status == 0)
      #expect(
        try run(["new", "acquisition", "--set", "id=ACQ-2026-005", "--set", "title=Mats", "--set", "agency=GSA"])
          .status == 0)
      let before = try everything(store, server)
      let dry = try run(["sync", "--dry-run", "--format", "json"])
      #expect(dry.status == 0, "\(dry.transcript)")
      let said = try #require(try JSONSerialization.jsonObject(with: Data(dry.stdout.utf8)) as? [[String: String]])
      let plan = Set(said.map { "\($0["id"] ?? "") \($0["side"] ?? "") \($0["action"] ?? "")" })
      #expect(
        plan == [
          "ACQ-2026-001 store update", "ACQ-2026-002 database update", "ACQ-2026-003 store delete",
          "ACQ-2026-004 store create", "ACQ-2026-005 database create",
        ], "\(dry.stdout)")
      let table = try run(["sync", "--dry-run"])
      #expect(table.status == 0 && table.stdout.contains("dry run: nothing was written"), "\(table.transcript)")
      #expect(table.stdout.contains("in the store: 1 created, 1 updated, 1 deleted"), "\(table.stdout)")
      #expect(table.stdout.contains("in the database: 1 created, 1 updated, 0 deleted"), "\(table.stdout)")
      #expect(try everything(store, server) == before)
      let done = try run(["sync", "--format", "json"])
      #expect(done.status == 0, "\(done.transcript)")
      let actions = Set(
        try #require(try JSONSerialization.jsonObject(with: Data(done.stdout.utf8)) as? [[String: String]]).map {
          "\($0["id"] ?? "") \($0["action"] ?? "")"
        })
      #expect(
        actions == [
          "ACQ-2026-001 pulled", "ACQ-2026-002 pushed", "ACQ-2026-003 deleted-here", "ACQ-2026-004 pulled",
          "ACQ-2026-005 pushed",
        ], "\(done.stdout)")
      // A sync the bound would refuse: the dry run says so, exits as the run would, and notes nothing.
      try server.psql("DELETE FROM formsctl.acquisition WHERE id <> 'ACQ-2026-001'")
      let unchanged = try everything(store, server)
      let refused = try run(["sync", "--dry-run"])
      #expect(refused.status == 65, "\(refused.transcript)")
      #expect(refused.stdout.contains("a sync would be refused: sync would delete 3 of 4"), "\(refused.stdout)")
      #expect(try everything(store, server) == unchanged)
      #expect(try run(["sync", "status"]).status == 0)
    }
  }

  /// A sync refused for deleting too much at once writes nothing, and `sync status` then says the
  /// last sync was refused, why, and what waits (not `synced`), until a sync goes through.
  @Test(
    PostgresServer.enabled)
  func statusSaysTheLastSyncWasRefusedAndWhatWaits() throws {
    try withSyncedStore([("ACQ-2026-001", "Chairs"), ("ACQ-2026-002", "Desks"), ("ACQ-2026-003", "Lamps")]) {
      server, _, _, run in
      #expect(try run(["sync"]).status == 0)
      #expect(try run(["sync", "status"]).status == 0)
      try server.psql("DELETE FROM formsctl.acquisition")
      let refused = try run(["sync"])
      #expect(refused.status == 65 && refused.stderr.contains("sync would delete 3 of 3"), "\(refused.transcript)")
      let status = try run(["sync", "status"])
      #expect(status.status == 1, "\(status.transcript)")
      #expect(status.stdout.contains("was refused, and wrote nothing: sync would delete 3 of 3"), "\(status.stdout)")
      #expect(status.stdout.contains("pending: 3 changes it would have made"), "\(status.stdout)")
      #expect(!status.stdout.contains(" synced "), "\(status.stdout)")
      let json = try run(["sync", "status", "--format", "json"])
      let records = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: String]])
      #expect(records.count == 3 && records.allSatisfy { $0["status"] == "remote-changed" }, "\(json.stdout)")
      #expect(records.allSatisfy { $0["problem"]?.contains("delete in the store") == true }, "\(json.stdout)")
      // A push carries none of what the refused pull planned: it still waits, and status says so
      // (a hostile pass saw `synced`, exit 0, here).
      #expect(try run(["sync", "--push"]).status == 0)
      let pushed = try run(["sync", "status"])
      #expect(pushed.status == 1 && pushed.stdout.contains("was refused"), "\(pushed.transcript)")
      let allowed = try run(["sync", "--max-delete", "100%"])
      #expect(allowed.status == 0, "\(allowed.transcript)")
      let after = try run(["sync", "status"])
      #expect(after.status == 0 && !after.stdout.contains("refused"), "\(after.transcript)")
    }
  }
}
