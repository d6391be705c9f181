import FormsCore
import FormsTestSupport
import Foundation
import Testing

@testable import FormsStore

/// `import` through the write path: local work kept, the feed's states applied and audited.
struct ImporterTests {
  /// An order as a person left it: linked to an acquisition, priced, and without `currency` (a
  /// defaulted field, as documents from before it existed are).
  static let stored = """
    {"_schema": "purchase-order@1.1.0", "purchase_order_number": "PO-1", "acquisition_id": "ACQ-2026-001", "status": "received",
     "issue_date": "2026-11-01T09:00:00Z", "last_updated": "2026-11-10T09:00:00Z",
     "items": [{"product_item_id": 1, "quantity": 5, "unit_price": 2.50, "last_updated": "2026-11-01T09:00:00Z"},
               {"product_item_id": 2, "quantity": 6, "unit_price": 3.00, "last_updated": "2026-11-01T09:00:00Z"}]}
    """

  static func importing(
    _ feed: String, into fixture: StoreFixture, _ configure: (inout Importer.Request) -> Void = { _ in }
  )
    throws -> Importer.Report
  {
    try writeFile(feed, to: fixture.root + "/feed.ndjson")
    var request = Importer.Request(kind: "purchase-order", feed: fixture.root + "/feed.ndjson", snapshot: false)
    configure(&request)
    return try Importer(store: fixture.store).run(request)
  }

  static func fixture(_ dir: String) throws -> StoreFixture {
    let fixture = try StoreFixture(dir)
    try fixture.acquisition()
    try writeFile(stored, to: dir + "/data/purchase-orders/PO-1.json")
    return fixture
  }

  /// A newer record from the ordering server: no acquisition, no prices, no currency; state open.
  static let newer =
    #"{"purchase_order_number": "PO-1", "status": "partially_received", "issue_date": "2026-11-01T09:00:00Z", "last_updated": "2026-11-20T09:00:00Z", "items": [{"product_item_id": 1, "quantity": 9, "last_updated": "2026-11-20T09:00:00Z"}, {"product_item_id": 2, "quantity": 6, "last_updated": "2026-11-01T09:00:00Z"}]}"#

  @Test func aNewerRecordKeepsWhatTheFeedDoesNotCarryAndFillsDefaults() throws {
    try withTemporaryDirectory { dir in
      let fixture = try Self.fixture(dir)
      let feed = Self.newer.replacingOccurrences(of: "partially_received", with: "closed")
      let dry = try Self.importing(feed, into: fixture) { $0.dryRun = true }
      #expect(dry.records.map(\.description) == ["replace (kept: acquisition_id, unit_price ×2)"])
      #expect(
        try fixture.read("purchase-order", "PO-1")["items"]?.arrayValue?[0]["quantity"] == .number(JSONNumber(5)),
        "dry run")
      let report = try Self.importing(feed, into: fixture)
      #expect(report.summary.hasPrefix("created 0, replaced 1, updated 0"))
      let order = try fixture.read("purchase-order", "PO-1")
      #expect(order["acquisition_id"] == .string("ACQ-2026-001"))
      #expect(
        order["items"]?.arrayValue?.map { $0["unit_price"]! } == [
          .number(JSONNumber("2.50")!), .number(JSONNumber("3.00")!),
        ])
      #expect(order["items"]?.arrayValue?[0]["quantity"] == .number(JSONNumber(9)))
      #expect(order["currency"] == .string("USD"), "a defaulted field is filled as new fills it")
      #expect(order["last_updated"] == .string("2026-11-20T09:00:00Z"), "the feed's stamps are kept")
    }
  }

  @Test func anItemEditedTodayIsNotOverwrittenByAFeedItemStampedLastMonth() throws {
    try withTemporaryDirectory { dir in
      let fixture = try Self.fixture(dir)
      try fixture.store.update(
        kind: "purchase-order", id: "PO-1", assignments: [try Assignment("items[0].quantity=1234")])
      let feed =
        #"{"purchase_order_number": "PO-1", "status": "received", "issue_date": "2026-11-01T09:00:00Z", "last_updated": "2026-10-20T09:00:00Z", "items": [{"product_item_id": 1, "quantity": 7, "last_updated": "2026-10-20T09:00:00Z"}]}"#
      let report = try Self.importing(feed, into: fixture)
      #expect(report.records.map(\.action) == [.localNewer])
      #expect(
        try fixture.read("purchase-order", "PO-1")["items"]?.arrayValue?[0]["quantity"] == .number(JSONNumber(1234)))
    }
  }

  @Test func aTransitionTheWorkflowDoesNotListIsAppliedWarnedAndAudited() throws {
    try withTemporaryDirectory { dir in
      let fixture = try Self.fixture(dir)
      let report = try Self.importing(Self.newer, into: fixture)
      #expect(
        report.workflowWarnings == [
          "purchase-order PO-1: status received → partially_received is not a transition the workflow allows; applied, as the feed is the source of truth for its states"
        ])
      #expect(report.summary.contains("1 outside the workflow"))
      #expect(try fixture.read("purchase-order", "PO-1")["status"] == .string("partially_received"))
      let record = fixture.history.last!
      #expect(record["operation"] == .string("import") && record["feed"] != nil)
      #expect(
        record["documents"]?.arrayValue.map { $0.map(JSONWriter.compact) } == [
          #"{"action":"update","from":"received","id":"PO-1","kind":"purchase-order","pointers":["/currency","/items/0/last_updated","/items/0/quantity","/last_updated","/status"],"to":"partially_received"}"#
        ])
    }
  }

  @Test func strictWorkflowRefusesAndWritesNothing() throws {
    try withTemporaryDirectory { dir in
      let fixture = try Self.fixture(dir)
      let before = try fixture.bytes("purchase-order", "PO-1")
      let error = storeError { _ = try Self.importing(Self.newer, into: fixture) { $0.strictWorkflow = true } }
      guard case .importFailed(1, let diagnostics)? = error else {
        Issue.record("\(String(describing: error))")
        return
      }
      #expect(
        diagnostics.map(\.message) == [
          "record 1: purchase-order PO-1: status received → partially_received is not a transition the workflow allows (this import holds the feed to the workflow)"
        ])
      #expect(try fixture.bytes("purchase-order", "PO-1") == before)
      #expect(fixture.history.count == 1, "only the acquisition's creation")
    }
  }

  @Test func aDeliveryDateOnTheIssueDayIsNotBeforeIt() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir)
      try writeFile(
        """
        - convert: {field: preferred_delivery_date, to: date, if_present: true}
        """, to: dir + "/map.yaml")
      let report = try Self.importing(
        """
        {"purchase_order_number": "PO-5", "issue_date": "2020-05-07T09:32:28.213Z", "last_updated": "2020-05-07T09:32:28.213Z", "preferred_delivery_date": "2020-05-07T09:32:28.213Z", "items": []}
        """, into: fixture
      ) { $0.map = dir + "/map.yaml" }
      #expect(report.records.map(\.action) == [.create])
      #expect(try fixture.read("purchase-order", "PO-5")["preferred_delivery_date"] == .string("2020-05-07"))
    }
  }

  @Test func pruneListsAndCountsEveryDocumentItTouches() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir)
      for id in ["ACQ-2026-001", "ACQ-2026-002", "ACQ-2026-003"] { try fixture.acquisition(id) }
      let forms =
        try (0..<3).map { _ in try fixture.form(acquisition: "ACQ-2026-002") } + [
          try fixture.form(acquisition: "ACQ-2026-003")
        ]
      try fixture.order("PO-1", acquisition: "ACQ-2026-002")
      try writeFile(
        #"{"id": "ACQ-2026-001", "title": "Chairs", "agency": "GSA", "last_modified_date": "2020-01-01T00:00:00Z"}"#,
        to: dir + "/feed.json")
      var request = Importer.Request(kind: "acquisition", feed: dir + "/feed.json", prune: true, snapshot: false)
      request.maxPrune = .count(2)  // 2 of 3: beyond the default bound of half the kind
      request.dryRun = true
      let dry = try Importer(store: fixture.store).run(request)
      #expect(dry.pruned.deletes.map(\.kind) == ["acquisition", "acquisition", "form", "form", "form", "form"])
      #expect(Set(dry.pruned.deletes.filter { $0.kind == "form" }.map(\.id)) == Set(forms))
      #expect(dry.pruned.rewrites.map(\.id) == ["PO-1"])
      #expect(dry.summary.contains("pruned 2 (+4 deleted by cascade), references cleared in 1"))
      let before = try FileIO.files(under: FilePath(dir + "/data"), suffix: ".json").count
      request.dryRun = false
      let report = try Importer(store: fixture.store).run(request)
      #expect(report.summary == dry.summary)
      #expect(try FileIO.files(under: FilePath(dir + "/data"), suffix: ".json").count == before - 6)
      #expect(try fixture.read("purchase-order", "PO-1")["acquisition_id"] == nil)
      #expect(fixture.history.last?["documents"]?.arrayValue?.count == 7)
    }
  }

  /// An empty or truncated feed never empties a kind: --prune refuses beyond its bound, in the
  /// dry run too, says how many it would remove, and writes nothing.
  @Test func pruneRefusesAnEmptyFeedAndMoreThanItsBound() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir)
      for id in ["ACQ-2026-001", "ACQ-2026-002", "ACQ-2026-003", "ACQ-2026-004"] { try fixture.acquisition(id) }
      let one =
        #"{"id": "ACQ-2026-001", "title": "Chairs", "agency": "GSA", "last_modified_date": "2020-01-01T00:00:00Z"}"#
      func prune(_ feed: String, _ bound: PruneBound? = nil, dryRun: Bool = false) throws -> Importer.Report {
        try writeFile(feed, to: dir + "/feed.json")
        return try Importer(store: fixture.store).run(
          Importer.Request(
            kind: "acquisition", feed: dir + "/feed.json", dryRun: dryRun, prune: true, snapshot: false,
            maxPrune: bound))
      }
      for dryRun in [true, false] {
        #expect(
          storeError { _ = try prune("[]", dryRun: dryRun) }
            == .pruneRefused(
              kind: "acquisition", removing: 4, of: 4, reason: "the feed is empty (a failed or truncated download?)"))
        #expect(
          storeError { _ = try prune(one, dryRun: dryRun) }
            == .pruneRefused(kind: "acquisition", removing: 3, of: 4, reason: "more than the bound of 50% of the kind"))
      }
      #expect(
        storeError { _ = try prune(one, .count(2)) }?.description
          == "pruning would remove 3 of 4 acquisition documents (75%): more than the bound of 2; nothing written")
      #expect(storeError { _ = try prune(one, .count(2)) }?.kind == .badInput)
      #expect(try fixture.store.layout.ids(in: "acquisitions").count == 4, "nothing removed")
      #expect(fixture.history.count == 4, "no record")
      #expect(try prune(one, .percent(75)).pruned.deletes.count == 3)
      #expect(try fixture.store.layout.ids(in: "acquisitions") == ["ACQ-2026-001"])
      #expect(try prune("[]", .percent(100)).pruned.deletes.count == 1, "an explicit bound allows an empty feed")
    }
  }

  @Test(arguments: [("7", PruneBound.count(7)), ("0", .count(0)), ("40%", .percent(40)), ("100%", .percent(100))])
  func pruneBoundsParse(_ text: String, _ bound: PruneBound) {
    #expect(PruneBound(text) == bound)
    #expect(bound.description == text)
  }

  @Test(arguments: ["-1", "101%", "x", "5.5", "%", ""])
  func malformedPruneBoundsAreRefused(_ text: String) { #expect(PruneBound(text) == nil) }

  /// The safety copy before an import holds the documents it changes, not the store: restoring it
  /// undoes the import (updated documents back, created ones gone) and leaves every other file alone.
  @Test func theSafetyCopyHoldsWhatTheImportChangesAndRestoringItUndoesTheImport() throws {
    try withTemporaryDirectory { dir in
      let fixture = try Self.fixture(dir)
      try fixture.order("PO-2", acquisition: "ACQ-2026-001")
      let before = try readFile(dir + "/data/purchase-orders/PO-1.json")
      let untouched = try readFile(dir + "/data/purchase-orders/PO-2.json")
      let created = Self.newer.replacingOccurrences(of: "\"PO-1\"", with: "\"PO-9\"")
      let report = try Self.importing(Self.newer + "\n" + created, into: fixture) { $0.snapshot = true }
      let snapshots = Snapshots(layout: fixture.store.layout)
      let info = try snapshots.find(try #require(report.snapshot))
      let manifest = try #require(info.manifest)
      #expect(manifest.reason == "pre-import")
      #expect(manifest.covers == ["data/purchase-orders/PO-1.json", "data/purchase-orders/PO-9.json"])
      #expect(manifest.files.map(\.path) == ["data/purchase-orders/PO-1.json"], "only what the import changes")
      #expect(manifest.absent == ["data/purchase-orders/PO-9.json"])
      #expect(
        try FileIO.files(under: FilePath(info.path), suffix: "").count == 3, "one copy, the manifest and the summary")
      #expect(try snapshots.verify(info).isEmpty)
      let diff = try snapshots.diff(from: info, to: nil)
      #expect(
        diff.added == ["data/purchase-orders/PO-9.json"] && diff.removed.isEmpty
          && diff.changed.map(\.path) == ["data/purchase-orders/PO-1.json"])

      // Another document changes after the import; restoring the safety copy leaves it as it is.
      try fixture.store.update(
        kind: "purchase-order", id: "PO-2", assignments: [try Assignment("delivery_note=after the import")])
      let changedSince = try readFile(dir + "/data/purchase-orders/PO-2.json")
      #expect(changedSince != untouched)
      let outcome = try snapshots.restore(info.name, snapshotFirst: false, wait: 1)
      #expect(outcome.plan.rewritten == ["data/purchase-orders/PO-1.json"])
      #expect(outcome.plan.removed == ["data/purchase-orders/PO-9.json"])
      #expect(try readFile(dir + "/data/purchase-orders/PO-1.json") == before)
      #expect(!FileIO.exists(FilePath(dir + "/data/purchase-orders/PO-9.json")))
      #expect(try readFile(dir + "/data/purchase-orders/PO-2.json") == changedSince)
      #expect(try snapshots.planRestore(info).isEmpty, "restored: nothing left to do")
      #expect(throws: StoreError.self, "a path it does not cover") {
        try snapshots.planRestore(info, paths: ["data/purchase-orders/PO-2.json"])
      }
    }
  }
}
