import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore
import FormsSync
import Foundation

/// `formsctl sync`: a program of its own (`formsctl-sync`, which `formsctl sync` runs), so that
/// formsctl itself never links the PostgreSQL client.
@main
struct SyncCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "formsctl sync",
    abstract: "Keep the store and a PostgreSQL database in step, both ways.",
    discussion: """
      The database is named by --database URL or FORMSCTL_DATABASE_URL, in libpq's form (postgresql://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=require). The URL is never written to the store or the audit log. `sync init` makes one table per kind in a PostgreSQL schema (default formsctl) and one typed view per kind and version; `sync` then copies what changed on one side to the other, merges what changed on both (as merge-file does), and leaves real conflicts for `sync resolve`. Rows come into the store through its write path (workflow, validation, stamps, an audit record with operation sync and the row's updated_by as the user); a row the store refuses is reported as rejected. Sealed values travel sealed. Per document, the state of each database is kept under .formsctl/sync/ (git-ignored); `sync status` prints it.

      Exit status: 0 when all is in step, 1 when conflicts or rejected rows are left, 65 when the database refuses (a wrong password, no formsctl schema, a table changed by hand, a deletion beyond the bound), 75 when it cannot be reached (run again: a sync stopped anywhere converges on the next run).

      Examples:
        formsctl sync init
        formsctl sync
        formsctl sync --pull --format json
        formsctl sync status
      """,
    version: formsctlVersion,
    subcommands: [Run.self, Init.self, Status.self, Resolve.self],
    defaultSubcommand: Run.self
  )

  static func main() {
    CommandLineMain.run(SyncCommand.self, words: ["sync"])
  }
}

/// Where the database is.
struct DatabaseOptions: ParsableArguments {
  @Option(help: ArgumentHelp("The database (default: $FORMSCTL_DATABASE_URL).", valueName: "URL")) var database: String?
  @Option(help: "The PostgreSQL schema that holds the tables.") var schema = "formsctl"

  func sync(_ store: Store) throws -> Sync {
    try Sync(
      store: store, url: try Sync.url(database, environment: ProcessInfo.processInfo.environment), schema: schema)
  }
}

extension SyncCommand {
  struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "run",
      abstract: "Pull what changed in the database, push what changed here (the default of sync).",
      discussion: """
        Deletions on either side are bounded as import --prune's are: at most half of a kind unless --max-delete says otherwise.

        Examples:
          formsctl sync
          formsctl sync --push --max-delete 10
        """)
    @OptionGroup var options: StoreOptions
    @OptionGroup var database: DatabaseOptions
    @Flag(help: "Only copy from the database to the store.") var pull = false
    @Flag(help: "Only copy from the store to the database.") var push = false
    @Option(help: ArgumentHelp("How many deletions a run may make on each side: N or P%.", valueName: "BOUND"))
    var maxDelete: PruneBound?
    @Flag(help: "Reject a row whose workflow move the workflow does not list (else applied with a warning).")
    var strictWorkflow = false
    @Option(help: "Output: table, json, ndjson or csv.") var format: ReportFormat = .table

    func validate() throws {
      if pull && push { throw ValidationError("--pull and --push exclude each other (without either, sync does both)") }
    }

    func run() throws {
      var sync = try database.sync(try options.open())
      sync.strictWorkflow = strictWorkflow
      let entries = try sync.run(pull ? .pull : push ? .push : .both, maxDelete: maxDelete)
      render(Sync.report(entries), as: format)
      // Rejected rows and conflicts left from earlier runs count as much as new ones.
      if entries.contains(where: \.isProblem) { throw ExitStatus.problems }
    }
  }

  struct Init: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "init",
      abstract: "Create the tables, trigger and typed views (again after a migration: never drops data).",
      discussion: """
        Examples:
          formsctl sync init
          formsctl sync init --schema forms_test
        """)
    @OptionGroup var options: StoreOptions
    @OptionGroup var database: DatabaseOptions

    func run() throws {
      for view in try database.sync(try options.open()).initialize() { printOut("view \(database.schema).\(view)") }
    }
  }

  struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "status",
      abstract: "Each document's sync state: synced, local-changed, remote-changed, conflict or rejected.",
      discussion: """
        Read from the store alone (what the last sync found); `formsctl list KIND --where '_sync == "conflict"'` selects the same way.

        Examples:
          formsctl sync status
          formsctl sync status --format json | jq '.[] | select(.status != "synced")'
        """)
    @OptionGroup var options: StoreOptions
    @Option(help: "Output: table, json, ndjson or csv.") var format: ReportFormat = .table

    func run() throws {
      render(try Sync.status(try options.open()), as: format)
    }
  }

  struct Resolve: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "resolve",
      abstract: "Settle a sync conflict: keep this side, the database's, or a file's document.",
      discussion: """
        The conflict's two sides are in `formsctl sync status` (problem) and in .formsctl/sync/; --file takes a document you settled by hand. The chosen document goes through the store's write path and to the row, which must still be as the conflict found it.

        Examples:
          formsctl list purchase-order --where '_sync == "conflict"'
          formsctl sync resolve purchase-order PO-000201 --ours  # exit 65: no conflict
        """)
    @OptionGroup var options: StoreOptions
    @OptionGroup var database: DatabaseOptions
    @Argument(help: "The kind.", completion: Completions.kinds) var kind: String
    @Argument(help: "The document's id.", completion: Completions.ids) var id: String
    @Flag(help: "Keep the store's document.") var ours = false
    @Flag(help: "Keep the database's document.") var theirs = false
    @Option(help: ArgumentHelp("Keep this file's document.", valueName: "FILE")) var file: String?

    func validate() throws {
      guard [ours, theirs, file != nil].filter({ $0 }).count == 1 else {
        throw ValidationError("choose one of --ours, --theirs or --file FILE")
      }
    }

    func run() throws {
      let resolution: Sync.Resolution = ours ? .ours : theirs ? .theirs : .file(file ?? "")
      let entry = try database.sync(try options.open()).resolve(kind: kind, id: id, resolution)
      printOut("\(entry.kind) \(entry.id): \(entry.detail)")
    }
  }
}
