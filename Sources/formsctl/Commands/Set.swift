import ArgumentParser
import FormsStore

extension Formsctl {
  struct Set: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Change fields of a document; values are typed by the schema.",
      discussion: """
        A change of the workflow field must be a transition the descriptor allows from the stored state, exactly as with `formsctl status`. The document's `updated` timestamp is set to the time of the write, and so is that of every list element that changed (the types that declare `timestamps:`, such as purchase-order items). The result is validated against the store under the lock, written only if valid, and recorded in the audit log (`formsctl log`).

        Examples:
          formsctl set purchase-order PO-000201 delivery_note="Dock B"
          formsctl set purchase-order PO-000201 items[1].quantity=7
          formsctl set acquisition ACQ-2026-001 estimated_value=125000.00
          formsctl set purchase-order PO-000201 items[3].product_item_id=200 \\
            items[3].quantity=1                 # index 3 appends to the list
        """
    )
    @OptionGroup var options: StoreOptions
    @Argument(help: "The kind.", completion: Completions.kinds) var kind: String
    @Argument(help: "The document's id (or a unique prefix of 4+ characters).", completion: Completions.ids) var id: String
    @Argument(help: ArgumentHelp("Fields to set.", valueName: "PATH=VALUE"), completion: Completions.assignments) var assignments: [String] = []
    @Option(name: .customLong("json"), help: ArgumentHelp("A field set to a JSON value.", valueName: "PATH=JSON"))
    var jsonSets: [String] = []
    @Option(help: "Print the file's path, or the document as JSON.") var format: WriteOutput = .path

    func validate() throws {
      if assignments.isEmpty && jsonSets.isEmpty { throw ValidationError("give at least one PATH=VALUE") }
    }

    func run() throws {
      let store = try options.open()
      let changes = try assignments.map { try Assignment($0) } + jsonSets.map { try Assignment($0, json: true) }
      printWritten(try store.update(kind: kind, id: try store.expand(kind: kind, id: id), assignments: changes), format: format, store: store)
    }
  }

  struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Move a document along its workflow (e.g. draft → in_review), if the descriptor allows it.",
      discussion: """
        A transition the workflow does not list is refused, naming the allowed next states; `set` and `edit` follow the same rule. The change is recorded in the audit log with the states from and to.

        Examples:
          formsctl status form 22e8dfd4 in_review
          formsctl status purchase-order PO-000201 partially_received
        """
    )
    @OptionGroup var options: StoreOptions
    @Argument(help: "The kind.", completion: Completions.kinds) var kind: String
    @Argument(help: "The document's id (or a unique prefix of 4+ characters).", completion: Completions.ids) var id: String
    @Argument(help: "The new state.") var state: String

    func run() throws {
      let store = try options.open()
      let document = try store.transition(kind: kind, id: try store.expand(kind: kind, id: id), to: state)
      printOut("\(kind) \(fileName(document.path).dropLast(5)) is now \(state)  (\(store.display(document.path)))")
    }
  }
}
