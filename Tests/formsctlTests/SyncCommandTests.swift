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

  @Test(
    .enabled(
      if: PostgresServer.unavailable == nil || ProcessInfo.processInfo.environment["CI"] == "true",
      Comment(rawValue: PostgresServer.unavailable ?? "")))
  func aConflictExitsOneAndResolveSettlesIt() throws {
    let server = try PostgresServer()
    defer { server.stop() }
    try withTemporaryDirectory { (dir: String) throws -> Void in
      let store = dir + "/store"
      let env = ["FORMSCTL_DATABASE_URL": server.url, "FORMSCTL_IDENTITY": ""]
      func run(_ args: [String]) throws -> RunResult { try Formsctl.run(args, in: store, environment: env) }
      #expect(try Formsctl.run(["init", store], in: dir).status == 0)
      #expect(
        try run(["new", "acquisition", "--set", "id=ACQ-2026-001", "--set", "title=Chairs", "--set", "agency=GSA"])
          .status == 0)
      #expect(try run(["sync", "init"]).status == 0)
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
