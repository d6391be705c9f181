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
      #expect(
        sheet.text == """
          purchase_order_number,_schema,acquisition_id,issue_date,items[].last_updated,items[].product_item_id,\
          items[].quantity,items[].unit_price,last_updated,status
          PO-1,purchase-order@1.1.0,ACQ-2026-001,2026-11-01T09:00:00Z,2026-11-01T09:00:00Z,1,5,2.50,\
          2026-11-10T09:00:00Z,received
          PO-1,purchase-order@1.1.0,ACQ-2026-001,2026-11-01T09:00:00Z,2026-11-01T09:00:00Z,2,6,3.00,\
          2026-11-10T09:00:00Z,received

          """)
      let records = try Importer.csvRecords(
        "orders.csv", display: "orders.csv", bytes: Array(sheet.text.utf8), schema: try store.schema("purchase-order"))
      let stored = try JSONParser().parse(try readFile(dir + "/data/purchase-orders/PO-1.json"))
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
}
