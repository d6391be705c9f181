import ArgumentParser
import Dispatch
import FormsCommandLine
import FormsCore
import FormsStore
import Foundation

extension Formsctl {
  struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "watch",
      abstract: "Print each change to the store as it happens, until interrupted.",
      discussion: """
        One line per changed document: the time, what happened to it (create, update, delete, rename), the kind and id, the JSON Pointers that changed, and who changed it with which command. Changes made by formsctl or an app using its library are seen once each, after their commit, with the audit record's user and exact pointers; a multi-document operation (mv with dependants, an rm cascade, an import) is one batch, and one that was rolled back is never seen. Changes made behind formsctl's back (an editor saving a file, git checkout, cp) are seen too, as one batch once the store has been quiet for --debounce milliseconds, named by the top-level members that changed; a file that no longer parses is shown with "does not parse", never as a deletion.

        With --serve-index it prints nothing of the changes: it serves the index to the store's other commands instead. A `list`, `query` or `watch --query` run while it serves asks it (over .formsctl/watcher/socket) which files changed since its last query, and `stat`s only those instead of every file; a command finds it by itself, and checks every file as before when none runs, when it does not answer within a second, or when it answers that everything may have changed (its event queue overflowed, a directory was replaced, it was restarted, the store is on a network or FUSE file system). It takes one inotify watch per directory of documents and says so as it starts; only one serves a store at a time (a second exits 75). Set FORMSCTL_INDEX_TRACE=1 to have `list` say how it used the index.

        With --query, the whole result of KIND and --where (and --sort, --limit) is printed again after each change that alters it, with what was inserted, updated, removed and moved: `formsctl list --watch` shows it as a live table. SIGINT (Ctrl-C) and SIGTERM end it with exit 0; it exits 74 when the store is removed. On Linux it uses inotify: when the system's limit on watches is reached it says which sysctl to raise. Every --rescan seconds it also looks at every document, whatever the kernel said.

        Examples:
          formsctl watch
          formsctl watch form --where 'status == "in_review"'
          formsctl watch purchase-order --format ndjson | jq -c .
          formsctl watch form --query --format ndjson | jq '.documents | length'
          formsctl watch --serve-index & sleep 1
          FORMSCTL_INDEX_TRACE=1 formsctl list purchase-order --limit 20
          kill $!
        """
    )
    enum Format: String, ExpressibleByArgument, CaseIterable { case table, json, ndjson }

    @OptionGroup var options: StoreOptions
    @Argument(help: "Only changes to documents of this kind.", completion: Completions.kinds) var kind: String?
    @Option(
      name: .customLong("where"),
      help: ArgumentHelp("Only documents matching this filter (needs KIND).", valueName: "EXPR"),
      completion: Completions.paths) var filters: [String] = []
    @Flag(help: "Print the whole result of the query again on each change (needs KIND).") var query = false
    @Option(
      parsing: .unconditionalSingleValue,
      help: ArgumentHelp("With --query: sort by a path; a leading - sorts descending.", valueName: "[-]PATH"),
      completion: Completions.paths)
    var sort: [String] = []
    @Option(help: "With --query: at most this many documents.") var limit: Int?
    @Option(help: "Output: table (one line per change), json (one object per batch) or ndjson (one per change).")
    var format: Format = .table
    @Option(help: "Milliseconds of quiet that end a batch of changes.") var debounce: Int = 40
    @Option(help: "Seconds between full rescans.") var rescan: Int = 30
    @Flag(help: "Serve the index to the store's other commands (over .formsctl/watcher/socket) instead of printing.")
    var serveIndex = false

    func validate() throws {
      if serveIndex && (kind != nil || query || !filters.isEmpty || format != .table) {
        throw ValidationError("--serve-index takes no KIND, --where, --query or --format")
      }
      if kind == nil && (query || !filters.isEmpty) { throw ValidationError("--query and --where need a KIND") }
      if !query && (!sort.isEmpty || limit != nil) { throw ValidationError("--sort and --limit need --query") }
      if debounce < 1 || debounce > 60_000 { throw ValidationError("--debounce takes 1 to 60000 milliseconds") }
      if rescan < 1 { throw ValidationError("--rescan must be at least 1 second") }
      if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
    }

    func run() throws {
      // A live query is asked again after each change: a watcher of its own vouches for what changed.
      let store = try options.open(watching: query)
      if serveIndex { return try serve(store) }
      if let kind { _ = try store.schema(kind) }
      let observe = Store.ObserveOptions(debounce: .milliseconds(debounce), rescanInterval: .seconds(rescan))
      let interrupt = Interrupt()
      defer { withExtendedLifetime(interrupt) {} }
      guard query, let kind else {
        let filters = try kind.map { try parseFilters(self.filters, kind: $0, store: store) } ?? []
        return try store.watchChanges(
          kinds: kind.map { [$0] }, matching: filters, options: observe, cancellation: interrupt.cancellation
        ) { print($0, as: format) }
      }
      let request = Store.Query(
        filters: try parseFilters(filters, kind: kind, store: store),
        sort: try ListCommand.sortKeys(sort, kind, store), limit: limit)
      try LiveResult(store: store, kind: kind, columns: nil, format: format)
        .run(request, options: observe, cancellation: interrupt.cancellation)
    }

    /// Serves the index until interrupted.
    func serve(_ store: Store) throws {
      let interrupt = Interrupt()
      defer { withExtendedLifetime(interrupt) {} }
      var watching = IndexWatcher.Options()
      watching.report = { printWarning($0) }
      let service = try IndexService(layout: store.layout, registry: store.registry, options: watching)
      let limit = IndexWatcher.systemLimit.map { " of the system's \($0) (fs.inotify.max_user_watches)" } ?? ""
      let kinds = store.registry.latestByKind.count
      printNote(
        "serving the index of \(plural(kinds, "kind")) on \(store.display(service.socketPath.string)), "
          + "with \(service.watcher.watchCount) inotify watch\(service.watcher.watchCount == 1 ? "" : "es")\(limit); Ctrl-C stops it"
      )
      try service.run(until: interrupt.cancellation)
    }

    /// A batch as `format` asks: one line per change, or the batch as one JSON object.
    func print(_ batch: Store.ChangeBatch, as format: Format) {
      // A document name that is no regular file (a directory, a link, a FIFO) or cannot be read
      // is reported and warned about, as `list` warns; the watch goes on.
      for change in batch.changes where change.problem != nil && change.problem != "does not parse" {
        printWarning("\(change.kind) \(change.id): \(change.problem ?? "")")
      }
      switch format {
      case .json: FileHandleOutput.standardOutput.write(JSONWriter.canonicalString(batch.json))
      case .ndjson: for record in batch.records { printOut(JSONWriter.compact(record)) }
      case .table: for change in batch.changes { printOut(Self.line(change, in: batch)) }
      }
    }

    /// `TIME  OPERATION  KIND  ID  POINTERS  by USER (COMMAND)`, one line, control characters escaped.
    static func line(_ change: Store.Change, in batch: Store.ChangeBatch) -> String {
      let id = change.previousID.map { "\($0) → \(change.id)" } ?? change.id
      let pointers = change.pointers.map { $0.description.isEmpty ? "/" : $0.description }.joined(separator: ",")
      let who = batch.user.map { "by \($0) (\(batch.operation ?? "?"))" } ?? "outside formsctl"
      let problem = change.problem.map { "  (\($0))" } ?? ""
      return [Instant(batch.seen).rfc3339, change.operation.rawValue, change.kind, id, pointers, who]
        .joined(separator: "  ").escapingControlCharacters + problem
    }
  }
}

/// A query's result printed again on each change: `watch --query` and `list --watch`.
struct LiveResult {
  let store: Store
  let kind: String
  let columns: [Store.Column]?
  let format: Formsctl.Watch.Format

  func run(_ query: Store.Query, options: Store.ObserveOptions, cancellation: WatchCancellation) throws {
    try store.watchQuery(kind: kind, query: query, options: options, cancellation: cancellation) {
      (result) throws(StoreError) in
      // A table shows its columns only: only the sealed values in them are recorded.
      var shown = columns
      if shown == nil, format == .table { shown = Store.defaultColumns(try store.schema(kind)) }
      let (_, report) = try store.listingReport(kind: kind, result.documents, columns: shown)
      let out = FileHandleOutput.standardOutput
      switch format {
      case .json: out.write(JSONWriter.canonicalString(result.json(report.records, display: store.display)))
      case .ndjson: printOut(JSONWriter.compact(result.json(report.records, display: store.display)))
      case .table:
        // A terminal shows the table in place; a pipe gets each table after the last, with a rule.
        out.write(out.isTerminal ? "\u{1B}[H\u{1B}[2J" : (result.cause == nil ? "" : "\n"))
        render(report, as: .table)
        let changed = result.cause.map { Instant($0.seen).rfc3339 + ": " } ?? ""
        printOut(
          "\(changed)\(plural(result.documents.count, "document")) (\(result.inserted.count) new, "
            + "\(result.updated.count) updated, \(result.removed.count) removed, \(result.moved.count) moved)")
        for file in result.skipped { printWarning("\(store.display(file.path)): \(file.reason); skipped") }
      }
    }
  }
}

/// A cancellation that SIGINT and SIGTERM trigger (a watch then ends with exit 0), with the
/// signal sources that must live as long as the watch.
struct Interrupt {
  let cancellation = WatchCancellation()
  private let sources: [any DispatchSourceSignal]

  init() {
    let cancellation = cancellation
    sources = [SIGINT, SIGTERM].map { signal in
      Foundation.signal(signal, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: signal, queue: .global())
      source.setEventHandler { cancellation.cancel() }
      source.resume()
      return source
    }
  }
}
