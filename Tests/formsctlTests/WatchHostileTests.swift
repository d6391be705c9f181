import FormsCore
import FormsTestSupport
import Foundation
import Testing

@testable import FormsStore

/// `formsctl watch` against a store that people and tools abuse: names of documents that are no
/// regular files, links, rename storms, a data directory removed and put back. The watch reports
/// and warns, never reads through a link or blocks on a FIFO, and goes on (exit 0 on SIGTERM).
@Suite(.serialized) struct WatchHostileTests {
  func records(_ output: String) throws -> [JSONValue] {
    try output.split(separator: "\n").map { try JSONParser().parse(Array($0.utf8)) }
  }

  @Test func namesThatAreNoDocumentsAreReportedAndTheWatchGoesOn() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      let acquisitions = store + "/data/acquisitions"
      let output = try ObserveTests.watching(["acquisition", "--format", "ndjson"], in: store, env: env) {
        try FileManager.default.createDirectory(
          atPath: acquisitions + "/ACQ-DIR.json", withIntermediateDirectories: false)
        #expect(mkfifo(acquisitions + "/ACQ-FIFO.json", 0o644) == 0)
        // A document replaced by a link to another: the target must not be read as this one.
        try FileManager.default.removeItem(atPath: acquisitions + "/ACQ-2026-002.json")
        try FileManager.default.createSymbolicLink(
          atPath: acquisitions + "/ACQ-2026-002.json", withDestinationPath: "ACQ-2026-001.json")
        usleep(400_000)
        // The watch is still there: a write after them is reported.
        let set = try Formsctl.run(["set", "acquisition", "ACQ-2026-003", "title=Later"], in: store, environment: env)
        #expect(set.status == 0, "\(set.stderr)")
      }
      let found = try records(output)
      func record(_ id: String) -> JSONValue? { found.first { $0["id"] == .string(id) } }
      #expect(record("ACQ-DIR")?["problem"]?.stringValue?.hasPrefix("a directory, not a document") == true, "\(output)")
      #expect(record("ACQ-FIFO")?["problem"]?.stringValue?.hasPrefix("a FIFO, not a document") == true, "\(output)")
      let linked = record("ACQ-2026-002")
      #expect(linked?["problem"]?.stringValue?.contains("a symbolic link") == true, "\(output)")
      #expect(linked?["pointers"] == .array([]), "nothing read through the link: \(output)")
      #expect(record("ACQ-2026-003")?["command"] == .string("set"), "\(output)")
    }
  }

  @Test func aRenameStormEndsInOneConsistentState() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      let acquisitions = store + "/data/acquisitions"
      let output = try ObserveTests.watching(["acquisition", "--format", "ndjson"], in: store, env: env) {
        for round in 0..<300 {
          let (from, to) = round % 2 == 0 ? ("ACQ-2026-001", "ACQ-2026-901") : ("ACQ-2026-901", "ACQ-2026-001")
          #expect(rename(acquisitions + "/\(from).json", acquisitions + "/\(to).json") == 0)
        }
        usleep(400_000)
        let set = try Formsctl.run(["set", "acquisition", "ACQ-2026-003", "title=After"], in: store, environment: env)
        #expect(set.status == 0, "\(set.stderr)")
      }
      let found = try records(output)
      // 300 renames end where they began: nothing, or a delete and a create that cancel out.
      let storm = found.filter { $0["id"] == "ACQ-2026-901" || $0["id"] == "ACQ-2026-001" }
      let created = storm.filter { $0["action"] == "create" }.count
      let deleted = storm.filter { $0["action"] == "delete" }.count
      #expect(created == deleted, "\(output)")
      #expect(found.last?["id"] == "ACQ-2026-003" && found.last?["command"] == "set", "\(output)")
    }
  }

  @Test func aDataDirectoryRemovedAndPutBackIsWatchedAgain() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      let output = try ObserveTests.watching(["acquisition", "--format", "ndjson"], in: store, env: env) {
        // Removed (its kernel watches go with it), then copied back as a checkout or `cp -a` would.
        try FileManager.default.copyItem(atPath: store + "/data", toPath: dir + "/data-saved")
        try FileManager.default.removeItem(atPath: store + "/data")
        usleep(400_000)
        try FileManager.default.copyItem(atPath: dir + "/data-saved", toPath: store + "/data")
        usleep(400_000)
        // Seen at once, not at the next rescan (minutes away in this test).
        let set = try Formsctl.run(["set", "acquisition", "ACQ-2026-003", "title=Back"], in: store, environment: env)
        #expect(set.status == 0, "\(set.stderr)")
      }
      let found = try records(output)
      #expect(found.contains { $0["id"] == "ACQ-2026-003" && $0["command"] == "set" }, "\(output)")
    }
  }
}
