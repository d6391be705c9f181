import FormsTestSupport
import Foundation
import Testing

/// `list --format csv --explode` and `import FILE.csv`: spreadsheets out and back, byte-exact.
struct CSVCommandTests {
  static let feeds = Formsctl.packageRoot.appendingPathComponent("examples/feeds").path

  /// The documents of `directory` in `store`, by name.
  static func files(_ store: String, _ directory: String) throws -> [String: String] {
    let path = store + "/data/" + directory
    var out: [String: String] = [:]
    for name in try directoryListing(path) { out[name] = try readFile(path + "/" + name) }
    return out
  }

  @Test(arguments: [
    ("purchase-order", "purchase-orders", "items"), ("forecast", "forecasts", "outputs.projections"),
  ])
  func exportedRowsImportIntoAnEmptyKindByteExact(kind: String, directory: String, list: String) throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      let before = try Self.files(store, directory)
      let export = try Formsctl.run(["list", kind, "--format", "csv", "--explode", list], in: store, environment: env)
      #expect(export.status == 0, "\(export.stderr)")
      try writeFile(export.stdout, to: dir + "/sheet.csv")
      // Into the same store: nothing to do.
      let again = try Formsctl.run(["import", kind, dir + "/sheet.csv"], in: store, environment: env)
      #expect(again.status == 0, "\(again.stderr)")
      #expect(again.stdout.hasPrefix("created 0, replaced 0, updated 0, unchanged \(before.count),"), "\(again.stdout)")
      #expect(again.stdout.contains("dropped 0 unknown field values"))
      // Into the store without them: every file comes back as it was, byte for byte. The _hash
      // column names files no longer there, so it is left out, as a sheet for another store would be.
      for name in before.keys { try FileManager.default.removeItem(atPath: store + "/data/\(directory)/" + name) }
      try writeFile("_hash: ~\n", to: dir + "/columns.yaml")
      let result = try Formsctl.run(
        ["import", kind, dir + "/sheet.csv", "--no-snapshot", "--columns", dir + "/columns.yaml"], in: store,
        environment: env)
      #expect(result.status == 0, "\(result.stderr)")
      #expect(result.stdout.hasPrefix("created \(before.count),"), "\(result.stdout)")
      #expect(try Self.files(store, directory) == before)
    }
  }

  @Test func explodedRowsRepeatTheDocumentAndKeepNumbersExact() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      let result = try Formsctl.run(
        [
          "list", "purchase-order", "--format", "csv", "--explode", "items", "--where",
          "purchase_order_number == \"PO-000201\"", "--fields",
          "purchase_order_number,status,items[].product_item_id,items[].unit_price",
        ], in: store, environment: env)
      #expect(result.status == 0, "\(result.stderr)")
      #expect(
        result.stdout == """
          purchase_order_number,status,items[].product_item_id,items[].unit_price
          PO-000201,open,100,4.5
          PO-000201,open,107,12.0
          PO-000201,open,114,19.99

          """)
      let notCSV = try Formsctl.run(["list", "purchase-order", "--explode", "items"], in: store, environment: env)
      #expect(notCSV.status == 64 && notCSV.stderr.contains("--explode shapes CSV rows; pass --format csv"))
      let notAList = try Formsctl.run(
        ["list", "purchase-order", "--format", "csv", "--explode", "status"], in: store, environment: env)
      #expect(notAList.status == 64 && notAList.stderr.contains("--explode status: status is not a list"))
      let otherList = try Formsctl.run(
        [
          "list", "purchase-order", "--format", "csv", "--explode", "items", "--fields",
          "purchase_order_number,invoices[].invoice_number",
        ], in: store, environment: env)
      #expect(otherList.status == 64, "\(otherList.stderr)")
      #expect(otherList.stderr.contains("--fields invoices[].invoice_number reads every element of a list"))
      // Sorted and limited as any listing: --limit counts documents, not rows.
      let sorted = try Formsctl.run(
        [
          "list", "purchase-order", "--format", "csv", "--explode", "items", "--sort", "purchase_order_number",
          "--limit", "1", "--fields", "purchase_order_number,items[].quantity",
        ], in: store, environment: env)
      #expect(
        sorted.stdout == "purchase_order_number,items[].quantity\nPO-000201,10\nPO-000201,20\nPO-000201,30\n",
        "\(sorted.stdout)")
    }
  }

  @Test func aSpreadsheetWithAColumnMapImportsWithQuotedLineBreaks() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      let result = try Formsctl.run(
        ["import", "purchase-order", Self.feeds + "/orders.csv", "--columns", Self.feeds + "/orders.columns.yaml"],
        in: store, environment: env)
      #expect(result.status == 0, "\(result.stderr)")
      #expect(result.stdout.hasPrefix("created 2, replaced 0"), "\(result.stdout)")
      let first = try readFile(store + "/data/purchase-orders/PO-000401.json")
      #expect(first.contains("\"unit_price\": 1234.00"), "exact digits: \(first)")
      #expect(first.contains("\"delivery_note\": \"Dock B, building 7\""))
      let second = try readFile(store + "/data/purchase-orders/PO-000402.json")
      #expect(second.contains("\"delivery_note\": \"Gate 3.\\nCall ahead: 555-0142.\""), "\(second)")
      #expect(try Formsctl.run(["validate"], in: store).status == 0)
      #expect(try readFile(store + "/.formsctl/history.jsonl").contains("\"operation\":\"import\""))
    }
  }

  @Test func aByteOrderMarkAndStandardInputAreRead() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      let export = try Formsctl.run(["list", "purchase-order", "--format", "csv", "--explode", "items"], in: store)
      try writeBytes([0xEF, 0xBB, 0xBF] + Array(export.stdout.utf8), to: dir + "/bom.csv")
      let bom = try Formsctl.run(
        ["import", "purchase-order", dir + "/bom.csv", "--dry-run"], in: store, environment: env)
      #expect(bom.status == 0, "\(bom.stderr)")
      #expect(bom.stdout.contains("unchanged 6"), "\(bom.stdout)")
      let piped = try Formsctl.run(
        ["import", "purchase-order", "-", "--input-format", "csv", "--dry-run"], in: store, environment: env,
        input: export.stdout)
      #expect(piped.status == 0 && piped.stdout == bom.stdout, "\(piped.stderr)")
    }
  }

  @Test func badSpreadsheetsAreOneLineErrorsAndWriteNothing() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      let before = try treeContents(store)
      let header = "purchase_order_number,last_updated,issue_date,items[].product_item_id,items[].quantity"
      let stamp = "2026-11-20T09:00:00Z"
      let files: [(String, [UInt8], String)] = [
        ("unknown.csv", Array("purchase_order_number,qty\n".utf8), "unknown.csv:1:23: column \"qty\" is not a field"),
        (
          "near.csv", Array("purchase_order_number,quantity\n".utf8),
          "near.csv:1:23: column \"quantity\" is not a field of purchase-order; did you mean \"items[].quantity\"?"
        ),
        (
          "thousands.csv", Array("\(header),items[].unit_price\nPO-9,\(stamp),\(stamp),1,2,\"1,234.50\"\n".utf8),
          "thousands.csv:2:52: items[].unit_price: \"1,234.50\" has a thousands separator"
        ),
        (
          "open.csv", Array("\(header)\nPO-9,\(stamp),\(stamp),1,\"2\n".utf8),
          "open.csv:2:50: a quoted field is not closed"
        ),
        (
          "short.csv", Array("\(header)\nPO-9,\(stamp),\(stamp),1\n".utf8),
          "short.csv:2:48: this row has 4 fields, the header 5"
        ),
        (
          "disagree.csv",
          Array("\(header)\nPO-9,\(stamp),\(stamp),1,2\nPO-9,2026-11-21T09:00:00Z,\(stamp),2,2\n".utf8),
          "disagree.csv:3:6: last_updated is \"2026-11-21T09:00:00Z\" here but \"2026-11-20T09:00:00Z\" on line 2"
        ),
        (
          "state.csv", Array("purchase_order_number,last_updated,status\nPO-9,\(stamp),opne\n".utf8),
          "state.csv:2:27: status: \"opne\" is not one of open, partially_received, received, closed, cancelled; did you mean \"open\"?"
        ),
        ("latin1.csv", Array("\(header)\nPO-9,".utf8) + [0xE9], "latin1.csv:2:6: invalid UTF-8 (byte 0xE9)"),
        ("empty.csv", [], "empty.csv:1:1: the file is empty"),
      ]
      for (name, bytes, message) in files {
        try writeBytes(bytes, to: dir + "/" + name)
        let result = try Formsctl.run(["import", "purchase-order", dir + "/" + name], in: store, environment: env)
        #expect(result.status == 65, "\(name): \(result.stderr)")
        #expect(result.stderr.contains(message), "\(name): \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(name): one line: \(result.stderr)")
      }
      let missing = try Formsctl.run(["import", "purchase-order", dir + "/none.csv"], in: store, environment: env)
      #expect(missing.status == 66, "\(missing.stderr)")
      // Past the feed limit (1 GiB), refused before it is read: a sparse file costs no disk.
      #expect(FileManager.default.createFile(atPath: dir + "/huge.csv", contents: nil))
      let handle = try #require(FileHandle(forWritingAtPath: dir + "/huge.csv"))
      try handle.truncate(atOffset: UInt64(1 << 30) + 1)
      try handle.close()
      let huge = try Formsctl.run(["import", "purchase-order", dir + "/huge.csv"], in: store, environment: env)
      #expect(huge.status == 65, "\(huge.stderr)")
      #expect(huge.stderr.contains("more than the limit of 1073741824 bytes (1024 MiB)"), "\(huge.stderr)")
      try writeFile("Qty: [items]\n", to: dir + "/bad.columns.yaml")
      let badMap = try Formsctl.run(
        ["import", "purchase-order", Self.feeds + "/orders.csv", "--columns", dir + "/bad.columns.yaml"], in: store,
        environment: env)
      #expect(badMap.status == 65 && badMap.stderr.contains("bad.columns.yaml:1:6: Qty: map a header to a field path"))
      #expect(try treeContents(store) == before)
    }
  }

  @Test func aColumnInsideAJSONCellAndAListInsideOneAreRefused() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      let before = try treeContents(store)
      try writeFile(
        "id,last_modified_date,fields.effective_date\n7ba6fd46-fb4e-577c-8e63-01374dce89ac,2026-10-02T00:00:00Z,2026-01-01\n",
        to: dir + "/member.csv")
      let member = try Formsctl.run(["import", "form", dir + "/member.csv"], in: store, environment: env)
      #expect(member.status == 65, "\(member.stderr)")
      #expect(
        member.stderr.contains(
          "member.csv:1:23: column \"fields.effective_date\": fields is one JSON cell (a one_of): "
            + "a column may not reach inside it"), "\(member.stderr)")
      #expect(member.stderr.split(separator: "\n").count == 1, "\(member.stderr)")
      let explode = try Formsctl.run(["list", "form", "--format", "csv", "--explode", "fields.items"], in: store)
      #expect(explode.status == 64, "\(explode.stderr)")
      #expect(
        explode.stderr.contains("--explode fields.items: fields is one JSON cell (a one_of), and the lists inside it"),
        "\(explode.stderr)")
      #expect(explode.stderr.split(separator: "\n").count == 1, "\(explode.stderr)")
      #expect(try treeContents(store) == before)
    }
  }

  @Test func underSkipInvalidABadCellRejectsItsDocumentAndTheRestIsImported() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      let stamp = "2026-11-20T09:00:00Z"
      let header = "purchase_order_number,status,issue_date,last_updated,items[].product_item_id,items[].quantity"
      let feed =
        [
          header, "PO-000901,open,\(stamp),\(stamp),100,5", "PO-000902,lost,\(stamp),\(stamp),100,5",
          "PO-000902,lost,\(stamp),\(stamp),101,6", "PO-000903,open,3/1/2026,\(stamp),100,5",
          "PO-000904,open,\(stamp),\(stamp),100,5",
        ].joined(separator: "\n") + "\n"
      try writeFile(feed, to: dir + "/feed.csv")
      let before = try treeContents(store)
      let strict = try Formsctl.run(["import", "purchase-order", dir + "/feed.csv"], in: store, environment: env)
      #expect(strict.status == 65 && strict.stderr.contains("feed.csv:3:11: status: \"lost\""), "\(strict.stderr)")
      #expect(try treeContents(store) == before)
      let result = try Formsctl.run(
        ["import", "purchase-order", dir + "/feed.csv", "--skip-invalid", "--rejects", dir + "/rejects.ndjson"],
        in: store, environment: env)
      #expect(result.status == 1, "\(result.stderr)")
      #expect(result.stdout.contains("created 2") && result.stdout.contains("refused 2"), "\(result.stdout)")
      let names = try directoryListing(store + "/data/purchase-orders")
      #expect(names.contains("PO-000901.json") && names.contains("PO-000904.json"), "\(names)")
      #expect(!names.contains("PO-000902.json") && !names.contains("PO-000903.json"), "\(names)")
      let rejects = try ImportRejectsCommandTests.lines(dir + "/rejects.ndjson")
      #expect(rejects.map { $0["line"] as? Int } == [3, 5])
      #expect((rejects[0]["text"] as? String)?.hasSuffix("PO-000902,lost,\(stamp),\(stamp),101,6\n") == true)
      let messages = rejects.map { (($0["diagnostics"] as? [[String: Any]])?.first?["message"] as? String) ?? "" }
      #expect(messages[0].contains("3:11: status: \"lost\" is not one of"), "\(messages)")
      #expect(messages[1].contains("5:16: issue_date: \"3/1/2026\" is not an RFC 3339 datetime"), "\(messages)")
      // Issue 63: each names its document's id and the cell at fault, not column 1 of its first line.
      #expect(rejects.map { $0["id"] as? String } == ["PO-000902", "PO-000903"], "\(rejects)")
      let cells = rejects.map { line -> [Int] in
        let diagnostic = (line["diagnostics"] as? [[String: Any]])?.first
        return [diagnostic?["line"] as? Int ?? 0, diagnostic?["column"] as? Int ?? 0]
      }
      #expect(cells == [[3, 11], [5, 16]], "\(rejects)")
    }
  }

  /// Issue 63: a clerk's edits to an exported sheet were reported "unchanged" and dropped unless
  /// the timestamp cells were bumped too. Now the sheet names the file each row came from: the
  /// edits land while the document is still that file, and are refused, naming both, when not.
  @Test func aClerksEditsToAnExportedSheetLandOrAreRefusedSayingWhy() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      let path = store + "/data/purchase-orders/PO-000201.json"
      let export = try Formsctl.run(
        [
          "list", "purchase-order", "--format", "csv", "--explode", "items", "--where",
          "purchase_order_number == \"PO-000201\"",
        ], in: store, environment: env)
      #expect(export.status == 0 && export.stdout.hasPrefix("purchase_order_number,_hash,"), "\(export.stdout)")
      let edited = export.stdout.replacingOccurrences(of: "dock B", with: "gate 3")
      try #require(edited != export.stdout, "the sheet has a cell to edit: \(export.stdout)")
      try writeFile(edited, to: dir + "/edited.csv")
      let result = try Formsctl.run(["import", "purchase-order", dir + "/edited.csv"], in: store, environment: env)
      #expect(result.status == 0, "\(result.stderr)")
      #expect(result.stdout.hasPrefix("created 0, replaced 1,"), "\(result.stdout)")
      let now = try readFile(path)
      #expect(now.contains("gate 3") && !now.contains("dock B"), "\(now)")
      // The same sheet again: the document changed since it was exported; refused, naming both.
      let again = export.stdout.replacingOccurrences(of: "dock B", with: "pier 9")
      try writeFile(again, to: dir + "/again.csv")
      let stale = try Formsctl.run(["import", "purchase-order", dir + "/again.csv"], in: store, environment: env)
      #expect(stale.status == 65, "\(stale.stderr)")
      #expect(stale.stderr.contains("PO-000201 changed since the sheet was exported"), "\(stale.stderr)")
      #expect(stale.stderr.contains("the store now holds"), "\(stale.stderr)")
      #expect(try readFile(path) == now)
      // A sheet without the _hash column, edited but not its stamps: refused per row, never "unchanged".
      let fields = try Formsctl.run(
        [
          "list", "purchase-order", "--format", "csv", "--explode", "items", "--where",
          "purchase_order_number == \"PO-000201\"", "--fields",
          "purchase_order_number,last_updated,delivery_note,items[].product_item_id",
        ], in: store, environment: env)
      try writeFile(fields.stdout.replacingOccurrences(of: "gate 3", with: "quay 4"), to: dir + "/fields.csv")
      let left = try Formsctl.run(["import", "purchase-order", dir + "/fields.csv"], in: store, environment: env)
      #expect(left.status == 65, "\(left.stdout)\(left.stderr)")
      #expect(left.stderr.contains("the row's edits are left out"), "\(left.stderr)")
      #expect(try readFile(path) == now)
    }
  }
}
