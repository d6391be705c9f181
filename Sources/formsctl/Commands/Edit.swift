import Foundation
import ArgumentParser
import FormsStore

extension Formsctl {
  struct Edit: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Edit a document in $VISUAL, $EDITOR or vi; only a valid result is written.",
      discussion: """
        An invalid result reopens with the problems listed in a # comment block at the top. Leave
        the file unchanged, or empty it, to cancel. If the stored file changes while you edit, it
        is not overwritten. The `updated` timestamp is maintained for you.
        """
    )
    @OptionGroup var options: StoreOptions
    @Argument(help: "The kind.") var kind: String
    @Argument(help: "The document's id.") var id: String

    func run() throws {
      let store = try options.open()
      let environment = ProcessInfo.processInfo.environment
      switch try store.edit(kind: kind, id: try store.expand(kind: kind, id: id), runEditor: { Store.runEditor($0, environment: environment) }) {
      case .saved(let document): printOut("saved \(store.display(document.path))")
      case .unchanged: printOut("unchanged; nothing written")
      case .emptied: printOut("the file was emptied; edit cancelled, nothing written")
      }
    }
  }
}
