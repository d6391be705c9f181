import FormsTestSupport
import Foundation
import Testing

struct ImportCommandTests {
  static let feed = Formsctl.packageRoot.appendingPathComponent("examples/feeds/purchase-orders.json").path
  static let map = Formsctl.packageRoot.appendingPathComponent("examples/feeds/purchase-orders.map.yaml").path

  @Test func exampleFeedTwiceChangesNothingTheSecondTime() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      let first = try Formsctl.run(
        ["import", "purchase-order", Self.feed, "--map", Self.map], in: store, environment: env)
      #expect(first.status == 0, "\(first.stderr)")
      #expect(
        first.stdout.hasSuffix(
          "created 2, replaced 4, updated 0, unchanged 0, skipped 0 (local newer); dropped 120 unknown field values; the state before is snapshot 2026-11-22T08-00-00Z\n"
        ), "\(first.stdout)")
      let after = try treeContents(store)
      let second = try Formsctl.run(
        ["import", "purchase-order", Self.feed, "--map", Self.map], in: store, environment: env)
      #expect(
        second.stdout.hasSuffix(
          "created 0, replaced 0, updated 0, unchanged 6, skipped 0 (local newer); dropped 120 unknown field values\n"))
      #expect(try treeContents(store) == after)
      #expect(try Formsctl.run(["validate"], in: store).status == 0)
      #expect(try readFile(store + "/data/purchase-orders/PO-000305.json").contains("\"status\": \"open\""))
      #expect(try readFile(store + "/.formsctl/history.jsonl").contains("\"operation\":\"import\""))
    }
  }

  @Test func aFeedOnStandardInputIsReadLikeAFile() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      let fromFile = try Formsctl.run(
        ["import", "purchase-order", Self.feed, "--map", Self.map, "--dry-run"], in: store, environment: env)
      let fromInput = try Formsctl.run(
        ["import", "purchase-order", "-", "--map", Self.map, "--dry-run"], in: store, environment: env,
        input: try readFile(Self.feed))
      #expect(fromInput.status == 0 && fromInput.stdout == fromFile.stdout, "\(fromInput.stderr)")
      let broken = try Formsctl.run(
        ["import", "purchase-order", "-", "--dry-run"], in: store, environment: env, input: "[{\"a\": 1,]")
      #expect(broken.status == 65)
      #expect(broken.stderr.contains("<stdin>:1:"), "\(broken.stderr)")
    }
  }

  @Test func badFeedsAndMapsWriteNothing() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      let before = try treeContents(store)
      try writeFile("[{\"purchase_order_number\": \"X\", \"purchase_order_number\": \"Y\"}]", to: dir + "/dup.json")
      try writeFile(
        "{\"purchase_order_number\": \"PO-1\", \"last_updated\": \"2026-11-01T00:00:00Z\", \"items\": []}\nnot json\n",
        to: dir + "/feed.ndjson")
      try writeFile(
        """
        {"last_updated": "2026-11-01T00:00:00Z", "items": []}
        {"purchase_order_number": "../etc", "last_updated": "2026-11-01T00:00:00Z", "items": []}
        {"purchase_order_number": "PO-7", "items": []}
        {"purchase_order_number": "PO-8", "last_updated": "2026-11-01T00:00:00Z", "status": "lost", "items": []}

        """, to: dir + "/records.ndjson")
      try writeFile("- renam: {from: a, to: b}\n", to: dir + "/bad.map.yaml")
      let cases: [([String], String)] = [
        (
          ["import", "purchase-order", dir + "/dup.json"],
          "dup.json:1:33: duplicate key \"purchase_order_number\" (first at 1:3)"
        ),
        (["import", "purchase-order", dir + "/feed.ndjson"], "feed.ndjson:2:1: invalid literal; expected 'null'"),
        (
          ["import", "purchase-order", Self.feed, "--map", dir + "/bad.map.yaml"],
          "bad.map.yaml:1:3: unknown operation \"renam\""
        ),
        (["import", "purchase-order", dir + "/records.ndjson"], "4 feed records cannot be imported"),
      ]
      for (args, message) in cases {
        let result = try Formsctl.run(args, in: dir, environment: env.merging(["FORMSCTL_STORE": store]) { $1 })
        #expect(result.status == 65, "\(args)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
      }
      let records = try Formsctl.run(
        ["import", "purchase-order", dir + "/records.ndjson"], in: store, environment: env)
      #expect(records.stderr.contains("records.ndjson:1:1: error: record 1 has no purchase_order_number [import]"))
      #expect(records.stderr.contains("records.ndjson:2:1: error: record 2: \"../etc\" is not a valid id"))
      #expect(records.stderr.contains("records.ndjson:3:1: error: record 3 (PO-7) has no valid last_updated timestamp"))
      #expect(
        records.stderr.contains(
          "records.ndjson:4:1: error: record 4 (PO-8) after merging: status: \"lost\" is not one of"))
      #expect(try treeContents(store) == before)
      #expect(!FileManager.default.fileExists(atPath: store + "/.formsctl/snapshots"))
    }
  }

  @Test func killedImportIsRecovered() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      let process = try startPaused(
        ["import", "purchase-order", Self.feed, "--map", Self.map], at: "after-commit", in: store, environment: env)
      let second = try Formsctl.run(
        ["import", "purchase-order", Self.feed, "--map", Self.map, "--wait", "0.2"], in: store, environment: env)
      #expect(second.status == 75, "a second writer waits, then gives up")
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      #expect(try Formsctl.run(["recover"], in: store).stdout == "finished the interrupted import purchase-order\n")
      let again = try Formsctl.run(
        ["import", "purchase-order", Self.feed, "--map", Self.map, "--no-snapshot"], in: store, environment: env)
      #expect(again.stdout.contains("unchanged 6"), "the recovered import is complete: \(again.stdout)")
    }
  }
}
