import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore

extension Formsctl {
  struct SetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "set",
      abstract: "Change fields of a document; values are typed by the schema.",
      discussion: """
        A change of the workflow field must be a transition the descriptor allows from the stored state, exactly as with `formsctl status`. The document's `updated` timestamp is set to the time of the write, and so is that of every list element that changed (the types that declare `timestamps:`, such as purchase-order items). The result is validated against the store under the lock, written only if valid, and recorded in the audit log (`formsctl log`).

        PATH- removes an optional field or a list element (a required field stays: the result would not be valid). items[+].FIELD=VALUE appends an element to a list; every [+] of one list in one command is the same new element.

        A change of signed content (a document submitted for approval, or an approved one whose descriptor says on_change: reopen) would void the signatures given: its round ends and it must be submitted and signed again. set says so and writes nothing (exit 65), unless --void-approvals says to go on.

        With --where instead of an id, every matching document is changed in one journaled operation, all or nothing (one audit record lists them all); each change follows the same rules as for one document. --dry-run lists them and writes nothing. --all selects every document of the kind.

        Examples:
          formsctl set purchase-order PO-000201 delivery_note="Dock B"
          formsctl set purchase-order PO-000201 preferred_delivery_date=2026-04-01
          formsctl set acquisition ACQ-2026-001 estimated_value=125000.00
          formsctl set purchase-order PO-000201 'items[+].product_item_id=200' \\
            'items[+].quantity=1'               # one new item
          formsctl set purchase-order PO-000201 delivery_note-
          formsctl set purchase-order --where 'status == "open"' \\
            delivery_note="Dock B" --dry-run
        """
    )
    @OptionGroup var options: StoreOptions
    @Argument(help: "The kind.", completion: Completions.kinds) var kind: String
    @Argument(
      help: "The document's id (or a unique prefix of 4+ characters); not with --where.", completion: Completions.ids)
    var id: String?
    @Argument(
      help: ArgumentHelp("Fields to set (PATH- removes one).", valueName: "PATH=VALUE"),
      completion: Completions.assignments)
    var assignments: [String] = []
    @Option(name: .customLong("json"), help: ArgumentHelp("A field set to a JSON value.", valueName: "PATH=JSON"))
    var jsonSets: [String] = []
    @Option(
      name: .customLong("where"),
      help: ArgumentHelp("Change every document this holds for (instead of an id).", valueName: "EXPR"),
      completion: Completions.paths)
    var filters: [String] = []
    @Flag(help: "Change every document of the kind.") var all = false
    @Flag(help: "With --where: list the documents that would change; write nothing.") var dryRun = false
    @Flag(help: "Write a change of signed content even though it voids the signatures given (a round ends).")
    var voidApprovals = false
    @Option(help: "Print the file's path, or the document as JSON.") var format: WriteOutput = .path

    func run() throws {
      let store = try options.open(toWrite: true)
      let (selection, changes) = try parsed()
      switch selection {
      case .one(let id):
        if dryRun {
          throw CommandError.usage("--dry-run goes with --where; a single set is checked before it is written anyway")
        }
        let written = try store.update(
          kind: kind, id: try store.expand(kind: kind, id: id), assignments: changes, voidingApprovals: voidApprovals)
        warnStale(written.staleApprovals.map { [$0] } ?? [])
        printWritten(written, format: format, store: store)
      case .matching(let filters):
        let written = try store.update(
          kind: kind, matching: try parseFilters(filters, kind: kind, store: store), assignments: changes,
          dryRun: dryRun, voidingApprovals: voidApprovals || dryRun)
        warnStale(written.compactMap(\.staleApprovals), dryRun: dryRun)
        printBatch(written, store: store)
      }
    }

    /// The selection and the changes. With --where or --all there is no id: the first word after
    /// the kind is already a change.
    func parsed() throws -> (Selection, [Assignment]) {
      let batch = !filters.isEmpty || all
      let selection = try Selection.from(id: batch ? nil : id, filters: filters, all: all)
      let texts = (batch ? id.map { [$0] } ?? [] : []) + assignments
      guard !texts.isEmpty || !jsonSets.isEmpty else { throw CommandError.usage("give at least one PATH=VALUE") }
      return (selection, try texts.map { try Assignment($0) } + jsonSets.map { try Assignment($0, json: true) })
    }

    /// What a set by query wrote (or would write): the paths or the documents, and a count on stderr.
    func printBatch(_ written: [Store.Document], store: Store) {
      if format == .json {
        return FileHandleOutput.standardOutput.write(JSONWriter.canonicalString(.array(written.map(\.value))))
      }
      for document in written { printOut((dryRun ? "would set " : "") + store.display(document.path)) }
      guard !options.quiet else { return }
      FileHandleOutput.standardError.write(
        written.isEmpty
          ? "no \(kind) matches; nothing changed\n"
          : "\(dryRun ? "would change" : "changed") \(plural(written.count, "\(kind) document"))"
            + "\(dryRun ? "; dry run: nothing written" : "")\n")
    }
  }

}
