import FormsCore
import FormsStore
import FormsTestSupport
import Foundation
import Testing

/// What an app calls for spreadsheets: `Store.spreadsheet` renders a query as CSV, and the
/// importer reads it back (`Importer.csvRecords`, or a request whose format is CSV).
struct SpreadsheetTests {
  @Test func anAppExportsASpreadsheetAndImportsItBackUnchanged() throws {
    try withTemporaryDirectory { dir in
      let fixture = try ImporterTests.fixture(dir)
      let store = fixture.store
      let sheet = try store.spreadsheet(kind: "purchase-order", query: Store.Query(), explode: "items")
      let hash = try store.read(kind: "purchase-order", id: "PO-1").contentHash
      #expect(
        sheet.text == """
          purchase_order_number,_hash,_schema,acquisition_id,issue_date,items[].last_updated,items[].product_item_id,\
          items[].quantity,items[].unit_price,last_updated,status
          PO-1,\(hash),purchase-order@1.1.0,ACQ-2026-001,2026-11-01T09:00:00Z,2026-11-01T09:00:00Z,1,5,2.50,\
          2026-11-10T09:00:00Z,received
          PO-1,\(hash),purchase-order@1.1.0,ACQ-2026-001,2026-11-01T09:00:00Z,2026-11-01T09:00:00Z,2,6,3.00,\
          2026-11-10T09:00:00Z,received

          """)
      let records = try Importer.csvRecords(
        "orders.csv", display: "orders.csv", bytes: Array(sheet.text.utf8), schema: try store.schema("purchase-order"))
      var stored = try JSONParser().parse(try readFile(dir + "/data/purchase-orders/PO-1.json"))
      stored["_hash"] = .string(hash)
      #expect(records.map(\.line) == [2])
      #expect(records.map { JSONWriter.canonicalString($0.value) } == [JSONWriter.canonicalString(stored)])
      var request = Importer.Request(kind: "purchase-order", feed: "orders.csv", snapshot: false)
      request.format = .csv
      request.feedBytes = Array(sheet.text.utf8)
      let report = try Importer(store: store).run(request)
      #expect(report.summary.hasPrefix("created 0, replaced 0, updated 0, unchanged 1,"), "\(report.summary)")
    }
  }

  @Test func explodeMustNameAList() throws {
    try withTemporaryDirectory { dir in
      let fixture = try ImporterTests.fixture(dir)
      #expect(
        throws: StoreError.usage(
          "--explode status: status is not a list; --explode takes a list field (one row per element)")
      ) {
        _ = try fixture.store.spreadsheet(kind: "purchase-order", query: Store.Query(), explode: "status")
      }
    }
  }

  /// PO-1 with its `items` sensitive and sealed by a key holder; `anonymous` reads without the key.
  static func sealedItems(_ dir: String) throws -> (fixture: StoreFixture, anonymous: Store) {
    let fixture = try ImporterTests.fixture(dir)
    let holder = Identity.generate()
    try writeFile(
      try readFile(dir + "/formsctl.yaml") + "encryption:\n  recipients:\n    - \(holder.recipient)\n",
      to: dir + "/formsctl.yaml")
    let descriptor = dir + "/schemas/purchase-order/1.1.0.yaml"
    try writeFile(
      try readFile(descriptor).replacingOccurrences(
        of: "items: {type: list, of: item, unique: [product_item_id]}",
        with: "items: {type: list, of: item, unique: [product_item_id], sensitive: true}"),
      to: descriptor)
    try fixture.reload()
    fixture.reopen(keyring: Keyring(recipients: try StoreLayout(root: dir).recipients, identity: holder))
    try fixture.store.update(kind: "purchase-order", id: "PO-1", assignments: [try Assignment("items[0].quantity=7")])
    #expect(try readFile(dir + "/data/purchase-orders/PO-1.json").contains("\"items\": \"enc:v1:"))
    let anonymous = Store(
      layout: fixture.store.layout, registry: fixture.store.registry, configuration: fixture.store.configuration,
      keyring: Keyring(recipients: fixture.store.keyring.recipients, identity: nil))
    return (fixture, anonymous)
  }

  /// Issue 63: a sealed list exported without the key came out as one row of empty cells, and
  /// that sheet imported back replaced the sealed list by an empty one.
  @Test func aSealedListExportedWithoutTheKeyRoundTripsToItsEnvelope() throws {
    try withTemporaryDirectory { dir in
      let (fixture, anonymous) = try Self.sealedItems(dir)
      defer { withExtendedLifetime(fixture) {} }
      let path = dir + "/data/purchase-orders/PO-1.json"
      let before = try readFile(path)
      let sheet = try anonymous.spreadsheet(kind: "purchase-order", query: Store.Query(), explode: "items")
      let rows = sheet.text.split(separator: "\n")
      #expect(rows.count == 2, "one row stands for the sealed list: \(sheet.text)")
      #expect(rows[1].contains(",«encrypted»,«encrypted»,«encrypted»,«encrypted»,"), "\(sheet.text)")
      var request = Importer.Request(kind: "purchase-order", feed: "orders.csv", snapshot: false)
      request.format = .csv
      request.feedBytes = Array(sheet.text.utf8)
      let report = try Importer(store: anonymous).run(request)
      #expect(report.summary.hasPrefix("created 0, replaced 0, updated 0, unchanged 1,"), "\(report.summary)")
      #expect(try readFile(path) == before, "the envelope is kept")
      // A sheet written before this fix (empty element cells) keeps the sealed list too.
      let header = String(rows[0])
      let old = header + "\n" + rows[1].replacingOccurrences(of: "«encrypted»", with: "") + "\n"
      request.feedBytes = Array(old.utf8)
      _ = try Importer(store: anonymous).run(request)
      #expect(try readFile(path) == before, "never an empty list in place of a sealed one")
      // Rows added beside the «encrypted» row would edit a list nobody here can read: refused at the cell.
      let added = sheet.text + rows[1].replacingOccurrences(of: "«encrypted»", with: "9") + "\n"
      request.feedBytes = Array(added.utf8)
      let error = #expect(throws: StoreError.self) { _ = try Importer(store: anonymous).run(request) }
      #expect(error?.description.contains("orders.csv:2:") == true, "\(error as Any)")
      #expect(error?.description.contains("items is sealed") == true, "\(error as Any)")
      #expect(try readFile(path) == before)
    }
  }
}
