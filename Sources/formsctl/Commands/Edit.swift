import ArgumentParser
import FormsCommandLine
import FormsStore
import Foundation

extension Formsctl {
  struct Edit: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "edit",
      abstract: "Edit a document in $VISUAL, $EDITOR or vi; only a valid result is written.",
      discussion: """
        An invalid result reopens with the problems listed in a # comment block at the top. Leave the stored text unchanged, or empty the file, to cancel. Whenever an edit ends without writing after you changed the text — the stored file changed while you edited (it is never overwritten), the editor failed, a refused text was saved unchanged — your text is kept under .formsctl/edit/ (the message names the file; no earlier kept copy is overwritten), and --resume FILE opens it again. A kept copy never holds a sensitive value in plain text: those are sealed again, and a text that is not JSON is kept sealed whole (<kind>-<id>.json.sealed; --resume opens it with your identity). The `updated` timestamp is maintained for you. An edit of signed content that would void the signatures given (a document submitted for approval) is not written: it is kept, and --resume FILE --void-approvals writes it.

        Examples:
          formsctl edit form 22e8dfd4
          VISUAL=true formsctl edit purchase-order PO-000201   # any editor command
        """
    )
    @OptionGroup var options: StoreOptions
    @Flag(help: "Write a change of signed content even though it voids the signatures given (a round ends).")
    var voidApprovals = false
    @Argument(help: "The kind.", completion: Completions.kinds) var kind: String
    @Argument(help: "The document's id (or a unique prefix of 4+ characters).", completion: Completions.ids) var id:
      String
    @Option(
      help: ArgumentHelp("Start from the text an earlier edit kept (the file its message named).", valueName: "FILE"))
    var resume: String?

    func run() throws {
      let store = try options.open(toWrite: true)
      let environment = ProcessInfo.processInfo.environment
      switch try store.edit(
        kind: kind, id: try store.expand(kind: kind, id: id),
        resuming: resume.map { (FilePath(FileIO.currentDirectory) / $0).string }, voidingApprovals: voidApprovals,
        runEditor: { Store.runEditor($0, environment: environment) })
      {
      case .saved(let document):
        warnStale(document.staleApprovals.map { [$0] } ?? [])
        printOut("saved \(store.display(document.path))")
      case .unchanged: printOut("unchanged; nothing written")
      case .emptied: printOut("the file was emptied; edit cancelled, nothing written")
      }
    }
  }
}
