import FormsCore
import FormsTestSupport
import Foundation
import Testing

@testable import FormsStore

/// `Importer.Request.skipInvalid` through the library, as an app calls it: what is refused and
/// why, and a rejects file that cannot be written stops the import whole.
struct ImportRejectsTests {
  /// PO-1 stored `received` (ImporterTests.stored); a feed that moves it back to `open` (no
  /// declared transition), one new order linked to an acquisition that does not exist, one good.
  static let feed = """
    {"purchase_order_number": "PO-1", "status": "open", "issue_date": "2026-11-01T09:00:00Z", "last_updated": "2026-11-20T09:00:00Z", "items": []}
    {"purchase_order_number": "PO-2", "acquisition_id": "ACQ-NOPE", "last_updated": "2026-11-20T09:00:00Z", "items": []}
    {"purchase_order_number": "PO-3", "last_updated": "2026-11-20T09:00:00Z", "items": []}

    """

  @Test func workflowAndRelationRefusalsAreRejectsWithTheirDiagnostics() throws {
    try withTemporaryDirectory { dir in
      let fixture = try ImporterTests.fixture(dir + "/store")
      let report = try ImporterTests.importing(Self.feed, into: fixture) {
        $0.strictWorkflow = true
        $0.skipInvalid = true
        $0.rejects = dir + "/rejects.ndjson"
      }
      #expect(report.records.map(\.id) == ["PO-3"])
      #expect(report.rejected.map(\.id) == ["PO-1", "PO-2"])
      #expect(report.rejected.map(\.line) == [1, 2])
      #expect(report.rejectsFile == dir + "/rejects.ndjson")
      let relation = report.rejected[1].diagnostics.first
      #expect(relation?.pointer.description == "/acquisition_id", "\(report.rejected[1].diagnostics)")
      #expect(report.rejected[0].diagnostics.first?.rule == "refused", "\(report.rejected[0].diagnostics)")
      #expect(try fixture.read("purchase-order", "PO-1")["status"]?.stringValue == "received")
      #expect(try fixture.read("purchase-order", "PO-3")["purchase_order_number"]?.stringValue == "PO-3")
      #expect(!FileManager.default.fileExists(atPath: dir + "/store/data/purchase-orders/PO-2.json"))
      let written = try readFile(dir + "/rejects.ndjson").split(separator: "\n")
      #expect(written.count == 2)
      #expect(written.map { String($0) } == report.rejected.map { JSONWriter.compact($0.json) })
      var mode = stat()
      #expect(stat(dir + "/rejects.ndjson", &mode) == 0 && mode.st_mode & 0o777 == 0o600)
    }
  }

  @Test(arguments: [ENOSPC, EIO, EACCES])
  func aRejectsFileThatCannotBeWrittenImportsNothing(_ code: Int32) throws {
    try withTemporaryDirectory { dir in
      let fixture = try ImporterTests.fixture(dir + "/store")
      try FileManager.default.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)
      let before = try FaultInjectionTests.state(fixture, snapshots: true)
      // The disk of the rejects file fills (or fails) at every call from the first on.
      let armed = FaultInjection.arm(FilePath(dir + "/out"), fault: .init(nth: 1, persistent: true, errno: code))
      let failure = storeError {
        _ = try ImporterTests.importing(Self.feed, into: fixture) {
          $0.skipInvalid = true
          $0.rejects = dir + "/out/rejects.ndjson"
          $0.snapshot = true
        }
      }
      armed.disarm()
      guard case .reportNotWritten(let path, _)? = failure else {
        Issue.record("expected reportNotWritten, got \(failure as Any)")
        return
      }
      #expect(path == dir + "/out/rejects.ndjson")
      #expect(failure?.kind == .ioError)
      #expect(try FaultInjectionTests.state(fixture, snapshots: true) == before, "nothing imported, no snapshot")
      #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/out").isEmpty, "no temporary left")
      #expect(try FaultInjectionTests.leftovers(fixture.root).isEmpty)
    }
  }

  @Test func withoutSkipInvalidTheSameFeedFailsWhole() throws {
    try withTemporaryDirectory { dir in
      let fixture = try ImporterTests.fixture(dir + "/store")
      let failure = storeError {
        _ = try ImporterTests.importing(Self.feed, into: fixture) { $0.strictWorkflow = true }
      }
      guard case .importFailed(let records, _)? = failure else {
        Issue.record("expected importFailed, got \(failure as Any)")
        return
      }
      #expect(records == 2)
      #expect(!FileManager.default.fileExists(atPath: dir + "/store/data/purchase-orders/PO-3.json"))
    }
  }

  @Test func aSensitiveValueOfARefusedRecordIsNotWrittenToTheRejectsFile() throws {
    try withTemporaryDirectory { dir in
      let fixture = try ImporterTests.fixture(dir + "/store")
      try writeFile(
        #"{"id": "ACQ-2026-002", "title": "Desks", "agency": "GSA", "status": "lost", "contracting_officer": "J. Alvarez", "last_modified_date": "2026-11-20T09:00:00Z", "created_date": "2026-11-20T09:00:00Z"}"#
          + "\n", to: dir + "/acquisitions.ndjson")
      var request = Importer.Request(kind: "acquisition", feed: dir + "/acquisitions.ndjson", snapshot: false)
      request.skipInvalid = true
      request.rejects = dir + "/rejects.ndjson"
      let report = try Importer(store: fixture.store).run(request)
      #expect(report.rejected.map(\.id) == ["ACQ-2026-002"])
      #expect(report.rejected[0].record?["contracting_officer"] == ImportRejects.withheldValue)
      #expect(report.rejected[0].record?["title"] == .string("Desks"))
      let written = try readFile(dir + "/rejects.ndjson")
      #expect(!written.contains("Alvarez") && written.contains("withheld"), "\(written)")
    }
  }

  /// `--prune` with refused records is skipped whole: a refused record might have stood for any
  /// stored document (two sent under other ids that --map merges, a mapping that failed, an id
  /// the kind refuses). Each rejects line carries the id after --map, or null.
  @Test(
    arguments: [
      (
        "- map: {field: purchase_order_number, keep_unmapped: true, values: {A1: PO-1, A2: PO-1}}", "\"A1\"", "\"A2\"",
        ["PO-1", "PO-1"]
      ),
      ("- map: {field: purchase_order_number, values: {S3: PO-3}}", "\"S9\"", "\"S3\"", [nil]),
      ("- map: {field: purchase_order_number, keep_unmapped: true, values: {}}", "206", "\"PO-3\"", [nil]),
    ] as [(String, String, String, [String?])])
  func aRefusedRecordSkipsThePruneWhole(map: String, first: String, second: String, ids: [String?]) throws {
    try withTemporaryDirectory { dir in
      let fixture = try ImporterTests.fixture(dir + "/store")
      try writeFile(map + "\n", to: dir + "/map.yaml")
      let feed = [first, second].map {
        "{\"purchase_order_number\": \($0), \"last_updated\": \"2026-11-20T09:00:00Z\", \"items\": []}"
      }
      try writeFile(feed.joined(separator: "\n") + "\n", to: dir + "/feed.ndjson")
      var request = Importer.Request(
        kind: "purchase-order", feed: dir + "/feed.ndjson", map: dir + "/map.yaml", prune: true, snapshot: false,
        maxPrune: .percent(100))
      request.skipInvalid = true
      request.rejects = dir + "/rejects.ndjson"
      let report = try Importer(store: fixture.store).run(request)
      #expect(report.rejected.map(\.id) == ids)
      #expect(report.pruned.deletes.isEmpty)
      #expect(
        report.pruneSkipped?.contains("waits for a feed with none refused") == true, "\(report.pruneSkipped ?? "")")
      #expect(FileManager.default.fileExists(atPath: dir + "/store/data/purchase-orders/PO-1.json"))
    }
  }

  /// After a --map, a member renamed onto a sensitive field would be written in plain text under
  /// its old name: for a kind with sensitive fields the record is withheld whole.
  @Test func aMappedRecordOfAKindWithSensitiveFieldsIsWithheldWhole() throws {
    try withTemporaryDirectory { dir in
      let fixture = try ImporterTests.fixture(dir + "/store")
      try writeFile("- rename: {from: officer, to: contracting_officer}\n", to: dir + "/map.yaml")
      try writeFile(
        #"{"id": "ACQ-2026-002", "title": "Desks", "agency": "GSA", "status": "lost", "officer": "J. Alvarez", "last_modified_date": "2026-11-20T09:00:00Z", "created_date": "2026-11-20T09:00:00Z"}"#
          + "\n", to: dir + "/acquisitions.ndjson")
      var request = Importer.Request(
        kind: "acquisition", feed: dir + "/acquisitions.ndjson", map: dir + "/map.yaml", snapshot: false)
      request.skipInvalid = true
      request.rejects = dir + "/rejects.ndjson"
      let report = try Importer(store: fixture.store).run(request)
      #expect(report.rejected.map(\.id) == ["ACQ-2026-002"])
      #expect(report.rejected[0].record == nil && report.rejected[0].withheld != nil)
      let written = try readFile(dir + "/rejects.ndjson")
      #expect(!written.contains("Alvarez") && written.contains("withheld"), "\(written)")
    }
  }

  /// `sync --rejects FILE` writes after its run changed the store: a failure says the run
  /// completed and only the list is missing, never "nothing imported".
  @Test func aListThatCannotBeWrittenAfterTheRunSaysTheRunCompleted() throws {
    try withTemporaryDirectory { dir in
      let fixture = try ImporterTests.fixture(dir + "/store")
      try FileManager.default.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)
      let armed = FaultInjection.arm(FilePath(dir + "/out"), fault: .init(nth: 1, persistent: true, errno: ENOSPC))
      let failure = storeError {
        try ImportRejects.write(lines: [], to: dir + "/out/r.ndjson", layout: fixture.store.layout, afterRun: true)
      }
      armed.disarm()
      guard case .reportNotWrittenAfterRun(let path, _)? = failure else {
        Issue.record("expected reportNotWrittenAfterRun, got \(failure as Any)")
        return
      }
      #expect(path == dir + "/out/r.ndjson" && failure?.kind == .ioError)
      let message = failure?.description ?? ""
      #expect(message.contains("the run completed") && !message.contains("nothing imported"), "\(message)")
    }
  }
}
