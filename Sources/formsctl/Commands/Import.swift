import ArgumentParser
import FormsCore
import FormsStore

extension Formsctl {
  struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Merge a feed of records (JSON array or NDJSON) into the store, newest wins.",
      discussion: """
        Per record, keyed by the kind's id and comparing the `updated` timestamps as instants:
        a new id is created; a newer record replaces the stored document; otherwise each list with
        a `unique` key is merged element by element (a newer feed element replaces the stored one,
        a feed-only element is added, a store-only element is kept, and nested keyed lists are
        merged the same way). Equal timestamps keep the stored version. --map applies migration
        steps to each record first; fields the schema does not know are dropped and counted.
        Every result is validated before anything is written; then a pre-import snapshot, one
        journaled write, and a line in .formsctl/history.jsonl.

        Example:
          formsctl import purchase-order feed.json --map examples/feeds/purchase-orders.map.yaml --dry-run
        """
    )
    @OptionGroup var options: StoreOptions
    @Argument(help: "The kind.") var kind: String
    @Argument(help: "The feed file: a JSON array of records, or one record per line.") var feed: String
    @Option(help: ArgumentHelp("A YAML list of change steps applied to each record first.", valueName: "FILE")) var map: String?
    @Flag(help: "Print what would happen to each record; write nothing.") var dryRun = false
    @Flag(help: "Delete stored documents the feed does not have (following on_delete).") var prune = false
    @Flag(help: "Do not take the pre-import snapshot.") var noSnapshot = false
    @Option(help: "Output: text, or json (one object: every record's action, counts, dropped fields).") var format: TextOrJSON = .text

    func run() throws {
      let store = try options.open()
      let report = try Importer(store: store).run(Importer.Request(
        kind: kind, feed: feed, map: map, dryRun: dryRun, prune: prune, snapshot: !noSnapshot))
      if format == .json {
        FileHandleOutput.standardOutput.write(JSONWriter.canonicalString(.object(JSONObject([
          "dry_run": .bool(dryRun),
          "records": .array(report.records.map { .object(JSONObject(["id": .string($0.id), "action": .string($0.action.description)])) }),
          "pruned": .array(report.pruned.map(JSONValue.string)),
          "dropped": .object(JSONObject(report.dropped.map { JSONObject.Member(key: $0.key, value: .number(JSONNumber($0.value))) })),
          "warnings": .array(report.warnings.map(JSONValue.string)),
          "snapshot": report.snapshot.map(JSONValue.string) ?? .null,
          "summary": .string(report.summary),
        ]))))
        return
      }
      if dryRun {
        // Per record only in a dry run: a real import of 10,000 records prints its summary.
        for record in report.records { printOut("\(record.action.description)  \(record.id)") }
        for id in report.pruned { printOut("would delete  \(id)  (not in the feed; --prune)") }
      }
      for warning in report.warnings.prefix(5) { printWarning(warning) }
      if report.warnings.count > 5 { printWarning("\(report.warnings.count - 5) more records have timestamps in the future") }
      if !report.dropped.isEmpty {
        printOut("dropped unknown fields: " + report.dropped.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", "))
      }
      printOut(report.summary + (dryRun ? "; dry run: nothing written" : "") + (report.snapshot.map { "; the state before is snapshot \($0)" } ?? ""))
    }
  }
}
