import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore
import Foundation

extension Formsctl {
  struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "list",
      abstract: "Query the documents of a kind.",
      discussion: """
        --where takes the expression language of rules: == != < <= > >= (numbers exactly, dates and datetimes as instants), ~ "regex", in [...], exists, and, or, not, parentheses, paths with . and [] (any element). Several --where must all hold.

        Examples:
          formsctl list form --where 'acquisition_id == "ACQ-2026-001"'
          formsctl list form --where 'form_type == "SF1449"' --fields id,status
          formsctl list purchase-order --sort -last_updated --limit 20
          formsctl list forecast --where 'created_at >= "2026-10-01"' --sort ticker
          formsctl list purchase-order --where 'items[].quantity >= 10' --format paths
          formsctl list form --watch --sort -last_modified_date --limit 20
          formsctl list purchase-order --format csv --explode items > orders.csv
          formsctl list forecast --format csv --explode outputs.projections \\
            --fields id,ticker,outputs.projections[].year,outputs.projections[].revenue

        --explode LIST (with --format csv) prints one row per element of LIST, the document's fields repeated on each, and a document whose list is empty as one row with empty element cells. Without --fields it prints every field: objects flattened (metadata.agency), the elements' members as items[].quantity, other lists as JSON in one cell; numbers keep their exact text. `formsctl import KIND FILE.csv` reads it back.

        --watch keeps the table on screen and redraws it after every change that alters it (formsctl watch --query, as a table), until Ctrl-C.
        """
    )
    enum Format: String, ExpressibleByArgument, CaseIterable { case table, json, ndjson, csv, paths }

    @OptionGroup var options: StoreOptions
    @Argument(help: "The kind (formsctl schema list names them).", completion: Completions.kinds) var kind: String?
    @Option(
      name: .customLong("where"), help: ArgumentHelp("A filter expression.", valueName: "EXPR"),
      completion: Completions.paths) var filters: [String] = []
    @Option(
      parsing: .unconditionalSingleValue,
      help: ArgumentHelp("Sort by a path; a leading - sorts descending.", valueName: "[-]PATH"),
      completion: Completions.paths)
    var sort: [String] = []
    @Option(help: "At most this many documents.") var limit: Int?
    @Option(help: "Skip this many documents first.") var offset: Int = 0
    @Option(
      help: ArgumentHelp(
        "Fields to show, comma-separated (table, csv; json and ndjson keep only these).", valueName: "A,B"),
      completion: Completions.paths)
    var fields: String?
    @Option(help: "Output: table, json, ndjson, csv or paths.") var format: Format = .table
    @Option(
      help: ArgumentHelp(
        "With --format csv: one row per element of this list, the document's fields repeated.", valueName: "LIST"),
      completion: Completions.paths)
    var explode: String?
    @Flag(help: "Show the table again after every change that alters it, until interrupted.") var watch = false
    @Flag(help: "Read every file instead of the index (.formsctl/index), which vouches for unchanged files.")
    var noIndex = false

    func validate() throws {
      if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
      if offset < 0 { throw ValidationError("--offset must be 0 or more") }
      if explode != nil && format != .csv { throw ValidationError("--explode shapes CSV rows; pass --format csv") }
      if watch && (format != .table || offset != 0) {
        throw ValidationError("--watch shows a table; drop --format and --offset")
      }
    }

    func run() throws {
      let store = try options.open(useIndex: !noIndex, watching: watch)
      guard let kind else {
        throw CommandError.usage("name a kind to list: \(store.registry.kinds.joined(separator: ", "))")
      }
      let query = Store.Query(
        filters: try parseFilters(filters, kind: kind, store: store), sort: try Self.sortKeys(sort, kind, store),
        offset: offset, limit: limit)
      if watch { return try self.watch(query, kind: kind, store: store) }
      if let explode {
        let sheet = try store.spreadsheet(
          kind: kind, query: query, explode: explode, columns: try fields.map { try Self.columns($0, kind, store) })
        Self.warn(sheet.listing, store: store)
        FileHandleOutput.standardOutput.write(sheet.text)
        if !sheet.listing.skipped.isEmpty { throw ExitStatus.problems }
        return
      }
      // --format paths shows no values: no columns (and no access record); a table shows its
      // columns only, so only the sealed values in them are recorded.
      let report = ReportFormat(rawValue: format.rawValue)
      let listing = try store.listing(
        kind: kind, query: query, columns: report == nil ? [] : try Self.shownColumns(fields, format, kind, store))
      Self.warn(listing, store: store)
      if let report {
        render(listing.report, as: report)
      } else {
        for document in listing.documents { printOut(store.display(document.path)) }
      }
      // Like validate: a listing that had to leave files out says so in its status.
      if !listing.skipped.isEmpty { throw ExitStatus.problems }
    }

    /// `--watch`: the listing as a live table until interrupted.
    func watch(_ query: Store.Query, kind: String, store: Store) throws {
      let interrupt = Interrupt()
      defer { withExtendedLifetime(interrupt) {} }
      try LiveResult(
        store: store, kind: kind, columns: try fields.map { try Self.columns($0, kind, store) }, format: .table
      )
      .run(query, options: Store.ObserveOptions(), cancellation: interrupt.cancellation)
    }

    /// What may make the listing incomplete or stale: an operation awaiting recovery, files skipped.
    static func warn(_ listing: Store.Listing, store: Store) {
      // FORMSCTL_INDEX_TRACE=1: how each kind's query used the index (a watcher, or every file).
      if ProcessInfo.processInfo.environment["FORMSCTL_INDEX_TRACE"] == "1" {
        for (kind, route) in store.indexRouteReport { printNote("index of \(kind): \(route)") }
      }
      if let operation = listing.pending {
        printWarning("an interrupted \(operation) awaits `formsctl recover`; what is listed may be half-changed")
      }
      for file in listing.skipped {
        printWarning("\(store.display(file.path)): \(file.reason); not listed (formsctl validate says why; exit 1)")
      }
    }

    /// `--sort` keys, each a path of the kind (any version), a leading `-` for descending.
    static func sortKeys(_ keys: [String], _ kind: String, _ store: Store) throws -> [(
      path: FilterExpression.Path, descending: Bool
    )] {
      let versions = store.registry.schemas(of: kind)
      return try keys.map { key in
        let descending = key.hasPrefix("-")
        guard let path = FilterExpression.Path(descending ? String(key.dropFirst()) : key) else {
          throw CommandError.usage("--sort \(key): not a field path")
        }
        if let problem = FormsCore.Schema.pathProblem(path, in: versions) {
          throw CommandError.usage("--sort \(key): \(problem)")
        }
        return (path, descending)
      }
    }

    /// `--fields A,B`: each a path of the kind (any version).
    /// The columns `--fields` names; without it, a table's default columns (what it shows), and
    /// nil for the formats that print whole documents.
    static func shownColumns(_ fields: String?, _ format: Format, _ kind: String, _ store: Store) throws
      -> [Store.Column]?
    {
      if let fields { return try columns(fields, kind, store) }
      return format == .table ? Store.defaultColumns(try store.schema(kind)) : nil
    }

    static func columns(_ list: String, _ kind: String, _ store: Store) throws -> [Store.Column] {
      try list.split(separator: ",").map { name in
        guard let path = FilterExpression.Path(String(name)) else {
          throw CommandError.usage("--fields: \(name) is not a field path")
        }
        if let problem = FormsCore.Schema.pathProblem(path, in: store.registry.schemas(of: kind)) {
          throw CommandError.usage("--fields \(name): \(problem)")
        }
        return (String(name), path)
      }
    }
  }
}
