import ArgumentParser
import FormsStore
import Foundation

extension Formsctl {
  struct Edit: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Edit a document in $VISUAL, $EDITOR or vi; only a valid result is written.",
      discussion: """
        An invalid result reopens with the problems listed in a # comment block at the top. Leave the file unchanged, or empty it, to cancel. If the stored file changes while you edit, it is not overwritten: your text is kept at .formsctl/edit/<kind>-<id>.json (the message names it) so you can merge it, and so it is on every other refusal. The `updated` timestamp is maintained for you.

        Examples:
          formsctl edit form 22e8dfd4
          VISUAL=true formsctl edit purchase-order PO-000201   # any editor command
        """
    )
    @OptionGroup var options: StoreOptions
    @Argument(help: "The kind.", completion: Completions.kinds) var kind: String
    @Argument(help: "The document's id (or a unique prefix of 4+ characters).", completion: Completions.ids) var id:
      String

    func run() throws {
      let store = try options.open()
      let environment = ProcessInfo.processInfo.environment
      switch try store.edit(
        kind: kind, id: try store.expand(kind: kind, id: id),
        runEditor: { Store.runEditor($0, environment: environment) })
      {
      case .saved(let document): printOut("saved \(store.display(document.path))")
      case .unchanged: printOut("unchanged; nothing written")
      case .emptied: printOut("the file was emptied; edit cancelled, nothing written")
      }
    }
  }
}
