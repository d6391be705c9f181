import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore
import Foundation
import Synchronization

@main
struct Formsctl: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "formsctl",
    abstract: "A document store of JSON files, with YAML schemas, validation, migration and snapshots.",
    discussion: """
      Each document is one canonical JSON file under data/; schemas/<kind>/<version>.yaml says what a valid document is. Commands find the store by walking up from the working directory to formsctl.yaml, or take --store DIR or FORMSCTL_STORE.

      Exit codes: 0 ok, 1 problems found, 64 bad arguments, 65 bad input data, 66 no input (no store, missing file), 70 internal error, 74 I/O error (disk full, EIO, permission denied, stdout), 75 locked or awaiting `formsctl recover`.

      Examples:
        formsctl list form --fields id,status,form_type
        formsctl validate
        formsctl snapshot create --label before-cleanup
      """,
    version: formsctlVersion,
    subcommands: [
      Init.self, New.self, Get.self, ListCommand.self, Watch.self, Diff.self, Stats.self, SetCommand.self, Edit.self,
      Status.self, Approve.self, Reject.self, Inbox.self,
      Remove.self,
      Move.self, Attach.self, Detach.self,
      Validate.self, Fmt.self, Schema.self, Migrate.self, Snapshot.self, Import.self, Log.self, Git.self,
      MergeFile.self, Editor.self, LSP.self, ServeCommand.self, Render.self, McpCommand.self, SyncCommand.self,
      Keygen.self, Keys.self, Recover.self,
    ]
  )

  static func main() {
    let arguments = Array(CommandLine.arguments.dropFirst())
    if let script = Completions.script(arguments) {
      print(script)
      return
    }
    do { try Door.checkNotStartedAsADoor() } catch {
      printError(ErrorText.message(for: error))
      Platform.exit(ExitStatus.code(for: error.kind))
    }
    // formsctl parses sync's arguments (its help and completion are formsctl's); the program
    // formsctl-sync, run with the same arguments, does the work.
    SyncCommand.performer.withLock { $0 = { _ in try Door.sync.run() } }
    ServeCommand.performer.withLock { $0 = { _ in try Door.serve.run() } }
    McpCommand.performer.withLock { $0 = { _ in try Door.mcp.run() } }
    CommandLineMain.run(Formsctl.self)
  }
}
