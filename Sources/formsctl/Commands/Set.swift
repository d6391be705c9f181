import ArgumentParser
import FormsStore

extension Formsctl {
  struct Set: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Change fields of a document; values are typed by the schema.",
      discussion: """
        Updates the kind's `updated` timestamp, validates, and writes only a valid result.
        Examples:
          formsctl set purchase-order PO-000201 status=received items[1].quantity=7
          formsctl set form 3f2c... --json 'metadata={"agency": "GSA"}'
        """
    )
    @OptionGroup var options: StoreOptions
    @Argument(help: "The kind.") var kind: String
    @Argument(help: "The document's id.") var id: String
    @Argument(help: ArgumentHelp("Fields to set.", valueName: "PATH=VALUE")) var assignments: [String] = []
    @Option(name: .customLong("json"), help: ArgumentHelp("A field set to a JSON value.", valueName: "PATH=JSON"))
    var jsonSets: [String] = []
    @Option(help: "Print the file's path, or the document as JSON.") var format: WriteOutput = .path

    func validate() throws {
      if assignments.isEmpty && jsonSets.isEmpty { throw ValidationError("give at least one PATH=VALUE") }
    }

    func run() throws {
      let store = try options.open()
      let changes = try assignments.map { try Assignment($0) } + jsonSets.map { try Assignment($0, json: true) }
      printWritten(try store.update(kind: kind, id: id, assignments: changes), format: format, store: store)
    }
  }

  struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Move a document along its workflow (e.g. draft → in_review), if the descriptor allows it.",
      discussion: "A transition the workflow does not list is refused, naming the allowed next states."
    )
    @OptionGroup var options: StoreOptions
    @Argument(help: "The kind.") var kind: String
    @Argument(help: "The document's id.") var id: String
    @Argument(help: "The new state.") var state: String

    func run() throws {
      let store = try options.open()
      let document = try store.transition(kind: kind, id: id, to: state)
      printOut("\(kind) \(id) is now \(state)  (\(store.display(document.path)))")
    }
  }
}
