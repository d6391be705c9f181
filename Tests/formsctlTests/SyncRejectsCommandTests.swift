import FormsTestSupport
import Foundation
import Testing

/// A row the store refuses waits; `sync --rejects FILE` lists every waiting one as import's
/// rejects file does, and `sync status` exits 1 while one waits.
extension SyncCommandTests {
  @Test(
    PostgresServer.enabled)
  func rejectedRowsAreListedForScriptsAndStatusExitsOne() throws {
    try withSyncedStore([("ACQ-2026-001", "Chairs")]) { server, store, _, run in
      #expect(try run(["sync"]).status == 0)
      #expect(try run(["sync", "status"]).status == 0)
      try server.psql("UPDATE formsctl.acquisition SET document = jsonb_set(document, '{title}', '\"\"')")
      let out = store + "/../sync-rejects.ndjson"
      let rejected = try run(["sync", "--rejects", out])
      #expect(rejected.status == 1, "\(rejected.transcript)")
      #expect(rejected.stderr.contains("1 rejected row waiting; they are listed in \(out)"), "\(rejected.stderr)")
      let lines = try readFile(out).split(separator: "\n")
      #expect(lines.count == 1)
      let line = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any]
      #expect(line?["kind"] as? String == "acquisition" && line?["id"] as? String == "ACQ-2026-001")
      #expect(line?["status"] as? String == "rejected" && line?["revision"] is Int)
      let diagnostics = line?["diagnostics"] as? [[String: Any]]
      #expect(diagnostics?.first?["rule"] as? String == "sync")
      #expect((diagnostics?.first?["message"] as? String)?.contains("/title") == true, "\(diagnostics as Any)")
      let status = try run(["sync", "status", "--format", "json"])
      #expect(status.status == 1 && status.stdout.contains(#""status": "rejected""#), "\(status.transcript)")
      // A rejects file that cannot be written is refused before the run (74), the row still waits.
      try FileManager.default.createDirectory(atPath: store + "/../a-directory", withIntermediateDirectories: true)
      let unwritable = try run(["sync", "--rejects", store + "/../a-directory"])
      #expect(unwritable.status == 74 && unwritable.stderr.contains("it is a directory"), "\(unwritable.transcript)")
      // Never over the store's own files (a bad argument, as an empty name or `-`).
      let own = try run(["sync", "--rejects", store + "/formsctl.yaml"])
      #expect(own.status == 64 && own.stderr.contains("it is the store's manifest"), "\(own.transcript)")
      #expect(try readFile(store + "/formsctl.yaml").contains("schemas"))
      #expect(try run(["sync", "--rejects", ""]).status == 64)
      #expect(try run(["sync", "--rejects", "-"]).status == 64)
      #expect(!FileManager.default.fileExists(atPath: store + "/-"))
      try server.psql("UPDATE formsctl.acquisition SET document = jsonb_set(document, '{title}', '\"Desks\"')")
      #expect(try run(["sync", "--rejects", out]).status == 0)
      #expect(try readFile(out) == "", "nothing waits: an empty list")
      #expect(try run(["sync", "status"]).status == 0)
    }
  }
}
