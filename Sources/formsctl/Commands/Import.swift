import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore

extension Formsctl {
  struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "import",
      abstract: "Merge a feed of records (JSON array, NDJSON or CSV) into the store, newest wins.",
      discussion: """
        Per record, keyed by the kind's id and comparing the `updated` timestamps (a date against a datetime by calendar day): a new id is created; a newer record replaces the stored document; otherwise each list with a `unique` key is merged element by element (a newer feed element replaces the stored one, a feed-only element is added, a store-only element is kept, and nested keyed lists are merged the same way). Equal timestamps keep the stored version.

        Whatever replaces keeps local work: members the feed record does not carry at all (say acquisition_id, or an item's unit_price) are kept from the stored document, and defaults are filled as `new` fills them. The dry run names them per record: `replace (kept: acquisition_id, unit_price ×3)`.

        The feed is the source of truth for the states it sends: a workflow transition the descriptor does not list is applied, listed as a warning and recorded in the audit log; --strict-workflow refuses such records instead. --map applies migration steps to each record first; fields the schema does not know are dropped and counted. --prune deletes the stored documents the feed lacks and lists every document that changes with them (cascades, references cleared). It refuses (exit 65, nothing written, the dry run too) to remove more than half of the kind, or anything on an empty feed, and says how many it would remove; --max-prune N or --max-prune P% sets another bound (as rsync's --max-delete), --max-prune 100% none. Every result is validated before anything is written; then a pre-import snapshot, one journaled write, and one record in .formsctl/history.jsonl.

        Unattended runs: --skip-invalid --rejects FILE leaves out each record that cannot be imported (does not parse, mapping, id, timestamp, validation, a workflow refusal under --strict-workflow, a relation to a missing document, an id sent twice) and imports the rest; FILE (outside the store and its schemas, not the feed, never through a symbolic link) gets one JSON line per refused record — {kind, index, line, id, record, diagnostics} — before the store changes, so an unwritable FILE stops the import (exit 74, nothing imported). Exit 1 when some were refused. With --prune, any refused record skips the prune (a warning says so): it waits for a clean feed. With --dry-run it lists them and writes no file.

        A feed named .csv (or --input-format csv) is a spreadsheet: a header row whose columns name fields as `list --format csv --explode` prints them (purchase_order_number, metadata.agency, items[].quantity), or as a --columns file maps them (a YAML mapping of header to field path; ~ leaves a column out). Cells are typed by the schema: numbers keep their exact digits (no thousands separators), booleans are true or false, lists and objects not spread over columns are JSON. With a column under a list, the rows of one document (grouped by its id column) rebuild the list, one element per row, and must agree on the document's other fields. The records then go through everything above.

        Examples:
          formsctl list purchase-order --format csv --explode items > orders.csv
          formsctl import purchase-order orders.csv --dry-run
          formsctl import purchase-order ../feeds/orders.csv \\
            --columns ../feeds/orders.columns.yaml
          formsctl import purchase-order ../feeds/purchase-orders.json \\
            --map ../feeds/purchase-orders.map.yaml --dry-run
          formsctl import purchase-order ../feeds/purchase-orders.json \\
            --map ../feeds/purchase-orders.map.yaml \\
            --skip-invalid --rejects ../rejects.ndjson
          formsctl import purchase-order ../feeds/purchase-orders.json \\
            --map ../feeds/purchase-orders.map.yaml && formsctl log --limit 1
          jq -c '.[]' ../feeds/purchase-orders.json | \\
            formsctl import purchase-order - --dry-run \\
            --map ../feeds/purchase-orders.map.yaml
        """
    )
    @OptionGroup var options: StoreOptions
    @Argument(help: "The kind.", completion: Completions.kinds) var kind: String
    @Argument(help: "The feed file (- for standard input): a JSON array of records, or one record per line.")
    var feed: String
    @Option(help: ArgumentHelp("A YAML list of change steps applied to each record first.", valueName: "FILE")) var map:
      String?
    @Option(
      help: ArgumentHelp(
        "A CSV feed's YAML mapping of column header to field path (~ leaves a column out).", valueName: "FILE"))
    var columns: String?
    @Option(help: "The feed's format: json (an array or NDJSON) or csv (default: csv for a .csv file, else json).")
    var inputFormat: Importer.FeedFormat?
    @Flag(help: "Print what would happen to each record; write nothing.") var dryRun = false
    @Flag(help: "Delete stored documents the feed does not have (following on_delete).") var prune = false
    @Option(
      help: ArgumentHelp(
        "The most --prune may remove: a count, or a percentage of the kind (default: 50%, and nothing on an empty feed).",
        valueName: "N|P%"))
    var maxPrune: PruneBound?
    @Flag(help: "Refuse records whose state change the workflow does not allow (default: apply them with a warning).")
    var strictWorkflow = false
    @Flag(help: "Import the records that can be imported; list the others in --rejects FILE, and exit 1.")
    var skipInvalid = false
    @Option(
      help: ArgumentHelp(
        "With --skip-invalid: where the refused records go, one JSON line each (required unless --dry-run).",
        valueName: "FILE"))
    var rejects: String?
    @Flag(help: "Do not take the pre-import snapshot.") var noSnapshot = false
    @Option(help: "Output: text, or json (one object: every record's action, counts, dropped fields).") var format:
      TextOrJSON = .text

    func validate() throws {
      if columns != nil && inputFormat == .json { throw ValidationError("--columns maps the columns of a CSV feed") }
      if maxPrune != nil && !prune { throw ValidationError("--max-prune bounds --prune; pass --prune too") }
      if rejects != nil && !skipInvalid {
        throw ValidationError("--rejects names where --skip-invalid puts refused records; pass --skip-invalid too")
      }
      if let rejects { try SyncCommand.Run.validateRejects(rejects) }
      if skipInvalid && rejects == nil && !dryRun {
        throw ValidationError("--skip-invalid needs --rejects FILE: where the refused records go")
      }
    }

    func run() throws {
      let store = try options.open()
      var request = Importer.Request(
        kind: kind, feed: feed == "-" ? "<stdin>" : feed, map: map, dryRun: dryRun, prune: prune,
        snapshot: !noSnapshot, strictWorkflow: strictWorkflow, maxPrune: maxPrune)
      request.skipInvalid = skipInvalid
      request.rejects = rejects
      request.format = inputFormat ?? (columns != nil ? .csv : nil)
      request.columns = columns
      if feed == "-" { request.feedBytes = try readStandardInput(limit: Importer.feedLimit) }
      let report = try Importer(store: store).run(request)
      if let skipped = report.pruneSkipped { printWarning(skipped) }
      if format == .text {
        Self.show(report, dryRun: dryRun, store: store)
      } else {
        FileHandleOutput.standardOutput.write(
          JSONWriter.canonicalString(report.json(dryRun: dryRun, display: store.display)))
      }
      guard report.rejected.isEmpty else {
        let written = report.rejectsFile.map { "; they are listed in \($0)" } ?? "; dry run: no rejects file written"
        printWarning("\(plural(report.rejected.count, "feed record")) refused\(written)")
        throw ExitStatus.problems
      }
    }

    /// The report for people: per record in a dry run, what the prune removes, warnings, the summary.
    static func show(_ report: Importer.Report, dryRun: Bool, store: Store) {
      if dryRun {
        // Per record only in a dry run: a real import of 10,000 records prints its summary.
        // The id first, padded, so the actions line up whatever they say.
        let width = report.records.map(\.id.count).max() ?? 0
        for record in report.records {
          printOut(record.id + String(repeating: " ", count: width - record.id.count) + "  " + record.description)
        }
        // What --skip-invalid would leave out, one line per problem, as the import would print it.
        for rejected in report.rejected {
          for diagnostic in rejected.diagnostics { printOut("rejected: " + diagnostic.compilerStyle) }
        }
      }
      // What --prune deletes or rewrites is listed always: it is the part that removes data.
      printPlan(report.pruned, store: store, dryRun: dryRun, format: .text)
      for warning in report.workflowWarnings { printWarning(warning) }
      warnStale(report.staleApprovals, dryRun: dryRun)
      for warning in report.warnings.prefix(5) { printWarning(warning) }
      if report.warnings.count > 5 {
        printWarning("\(report.warnings.count - 5) more records have timestamps in the future")
      }
      if !report.dropped.isEmpty {
        printOut(
          "dropped unknown fields: "
            + report.dropped.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", "))
      }
      if dryRun && report.documents > 0 {
        printOut(
          Formsctl.Migrate.estimate(
            verb: "write", documents: report.documents, bytes: report.bytes, needed: report.needed, free: report.free,
            checking: report.seconds))
      }
      printOut(
        report.summary + (dryRun ? "; dry run: nothing written" : "")
          + (report.snapshot.map { "; the state before is snapshot \($0)" } ?? ""))
      Formsctl.Snapshot.showPruned(report.prunedSnapshots)
    }
  }
}

extension Importer.FeedFormat: ExpressibleByArgument {}
