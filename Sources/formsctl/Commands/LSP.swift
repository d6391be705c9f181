import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsLanguageServer
import FormsStore
import Foundation

extension Formsctl {
  struct LSP: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "lsp",
      abstract: "Run the language server for editors (LSP 3.17, JSON-RPC over stdin and stdout).",
      discussion: """
        An editor starts it and talks to it; `formsctl editor setup --editor neovim` (or helix) writes the configuration that does. It finds the store of each file the editor opens from the file's directory (descriptors kept outside the store, as `schemas: ../schemas` allows, belong to the store of --store, FORMSCTL_STORE or the working directory), and answers for documents (data/KIND/ID.json) and descriptors (schemas/KIND/VERSION.yaml): diagnostics as you type, from the unsaved text, with the messages and rule names of `formsctl validate` and `formsctl schema check` (parse errors, the schema, relations to documents that do not exist, workflow moves the saved document may not make, immutable fields, sealed fields); completion of field names, enum values, the next workflow states and related ids with their titles; hover; go to definition on a relation id or on _schema; references to the document; formatting to the canonical form; and fixes (a misspelt field, a _schema, the next state, canonical formatting). It watches each store's data directory, so a file changed on disk (another process, git checkout) checks the open buffers again. It never writes a file: its edits are the editor's to apply. Sealed values are never opened.

        --diagnose FILE prints, as JSON, the diagnostics the server would publish for FILE as saved, and exits (1 when there are any): to see from a terminal what the editor should show.

        Examples:
          formsctl lsp --diagnose data/purchase-orders/PO-000201.json
        """
    )
    @Option(
      help: ArgumentHelp(
        "The store whose descriptors to use for files in no store (default: the working directory's).", valueName: "DIR"
      ))
    var store: String?
    @Option(
      help: ArgumentHelp("Print the diagnostics of FILE as the server would publish them, and exit.", valueName: "FILE")
    )
    var diagnose: String?

    func run() throws {
      let server = LanguageServer(
        store: store, environment: ProcessInfo.processInfo.environment, workingDirectory: FileIO.currentDirectory)
      guard let diagnose else {
        // A client that goes away fails the next write (EPIPE), which ends the server cleanly.
        signal(SIGPIPE, SIG_IGN)
        throw ExitStatus.exit(server.run())
      }
      let published = try server.diagnostics(ofFile: (FilePath(FileIO.currentDirectory) / diagnose).string)
      FileHandleOutput.standardOutput.write(JSONWriter.canonicalString(published))
      if published["diagnostics"]?.arrayValue?.isEmpty == false { throw ExitStatus.problems }
    }
  }
}
