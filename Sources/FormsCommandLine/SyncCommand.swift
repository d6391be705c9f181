import ArgumentParser
import FormsCore
import FormsStore
import Foundation
import Synchronization

/// `formsctl sync`: its arguments, help and completion, known to formsctl; its work is done by
/// the program formsctl-sync (``performer``), which formsctl runs from beside itself, so that
/// formsctl never links the PostgreSQL client.
package struct SyncCommand: ParsableCommand {
  package init() {}

  package static let configuration = CommandConfiguration(
    commandName: "sync",
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
    subcommands: [Run.self, Init.self, Status.self, Resolve.self],
    defaultSubcommand: Run.self
  )

  /// Does a parsed sync command's work: in formsctl-sync, sync itself; in formsctl, running
  /// formsctl-sync with the same arguments. Set once, as the program starts.
  package static let performer = Mutex<(@Sendable (any ParsableCommand) throws -> Void)?>(nil)

  static func perform(_ command: any ParsableCommand) throws {
    guard let perform = performer.withLock({ $0 }) else {
      // A program that lists sync without saying who does its work: a bug (exit 70), not a missing file.
      throw StoreError.internalError("sync has no performer in this program")
    }
    try perform(command)
  }
}

/// Where the database is.
package struct DatabaseOptions: ParsableArguments {
  package init() {}
  @Option(help: ArgumentHelp("The database (default: $FORMSCTL_DATABASE_URL).", valueName: "URL"))
  package var database: String?
  @Option(help: "The PostgreSQL schema that holds the tables.") package var schema = "formsctl"
}

extension SyncCommand {
  package struct Run: ParsableCommand {
    package init() {}
    package static let configuration = CommandConfiguration(
      commandName: "run",
      abstract: "Pull what changed in the database, push what changed here (the default of sync).",
      discussion: """
        Deletions on either side are bounded as import --prune's are: at most half of a kind unless --max-delete says otherwise. A run refused by the bound writes nothing, and `sync status` says so until a run goes through.

        --dry-run says what a run would write, in the store and in the database (side store, database or both; action create, update, delete, merge, conflict, rejected, waiting), and whether it would be refused, and writes nothing anywhere: no document, no row, no sync record. It exits as the run would: 65 when refused, 1 when conflicts or rejected rows would be left.

        Examples:
          formsctl sync --dry-run
          formsctl sync
          formsctl sync --push --max-delete 10
          formsctl sync --rejects ../sync-rejects.ndjson
        """)
    @OptionGroup package var options: StoreOptions
    @OptionGroup package var database: DatabaseOptions
    @Flag(help: "Only copy from the database to the store.") package var pull = false
    @Flag(help: "Only copy from the store to the database.") package var push = false
    @Option(help: ArgumentHelp("How many deletions a run may make on each side: N or P%.", valueName: "BOUND"))
    package var maxDelete: PruneBound?
    @Flag(help: "Reject a row whose workflow move the workflow does not list (else applied with a warning).")
    package var strictWorkflow = false
    @Option(help: "Output: table, json, ndjson or csv.") package var format: ReportFormat = .table
    @Option(
      help: ArgumentHelp(
        "After the run, write every row that waits rejected here, one JSON line each (as import --rejects).",
        valueName: "FILE"))
    package var rejects: String?
    @Flag(help: "Say what a sync would write on each side, and write nothing anywhere.")
    package var dryRun = false

    package func validate() throws {
      if pull && push { throw ValidationError("--pull and --push exclude each other (without either, sync does both)") }
      if dryRun && rejects != nil { throw ValidationError("--dry-run writes nothing: it takes no --rejects FILE") }
      if let rejects { try Self.validateRejects(rejects) }
    }

    /// A --rejects FILE names a file: not empty, and not `-` (a rejects list is a file a script
    /// reads after the run; standard output carries the report). Shared with `import --rejects`.
    package static func validateRejects(_ path: String) throws {
      if path.isEmpty { throw ValidationError("--rejects needs a file name") }
      if path == "-" { throw ValidationError("--rejects - is not standard output: name a file") }
    }

    package func run() throws { try SyncCommand.perform(self) }
  }

  package struct Init: ParsableCommand {
    package init() {}
    package static let configuration = CommandConfiguration(
      commandName: "init",
      abstract: "Create the tables, trigger and typed views (again after a migration: never drops data).",
      discussion: """
        Examples:
          formsctl sync init
          formsctl sync init --schema forms_test
        """)
    @OptionGroup package var options: StoreOptions
    @OptionGroup package var database: DatabaseOptions

    package func run() throws { try SyncCommand.perform(self) }
  }

  package struct Status: ParsableCommand {
    package init() {}
    package static let configuration = CommandConfiguration(
      commandName: "status",
      abstract: "Each document's sync state: synced, local-changed, remote-changed, conflict or rejected.",
      discussion: """
        Read from the store alone (what the last sync found); `formsctl list KIND --where '_sync == "conflict"'` selects the same way. When the last sync was refused (a deletion beyond the bound, a database that went back), it says so and why, and shows each change that waits (remote-changed, local-changed). Exit 1 when a conflict or a rejected row waits, or the last sync was refused.

        Examples:
          formsctl sync status
          formsctl sync status --format json | jq '.[] | select(.status != "synced")'
        """)
    @OptionGroup package var options: StoreOptions
    @Option(help: "Output: table, json, ndjson or csv.") package var format: ReportFormat = .table

    package func run() throws { try SyncCommand.perform(self) }
  }

  package struct Resolve: ParsableCommand {
    package init() {}
    package static let configuration = CommandConfiguration(
      commandName: "resolve",
      abstract: "Settle a sync conflict: keep this side, the database's, or a file's document.",
      discussion: """
        The conflict's two sides are in `formsctl sync status` (problem) and in .formsctl/sync/; --file takes a document you settled by hand. The chosen document goes through the store's write path and to the row, which must still be as the conflict found it.

        Examples:
          formsctl list purchase-order --where '_sync == "conflict"'
          formsctl sync resolve purchase-order PO-000201 --ours  # exit 65: no conflict
        """)
    @OptionGroup package var options: StoreOptions
    @OptionGroup package var database: DatabaseOptions
    @Argument(help: "The kind.", completion: Completions.kinds) package var kind: String
    @Argument(help: "The document's id.", completion: Completions.ids) package var id: String
    @Flag(help: "Keep the store's document.") package var ours = false
    @Flag(help: "Keep the database's document.") package var theirs = false
    @Option(help: ArgumentHelp("Keep this file's document.", valueName: "FILE")) package var file: String?

    package func validate() throws {
      guard [ours, theirs, file != nil].filter({ $0 }).count == 1 else {
        throw ValidationError("choose one of --ours, --theirs or --file FILE")
      }
    }

    package func run() throws { try SyncCommand.perform(self) }
  }
}
