import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore

extension Formsctl {
  struct Move: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "mv",
      abstract: "Rename a document and rewrite every reference to it, in one journaled step.",
      discussion: """
        Examples:
          formsctl mv acquisition ACQ-2026-001 ACQ-2026-101 --dry-run
          formsctl mv purchase-order PO-000201 PO-000301

        A reference is signed content: a rename that rewrites the reference of a submitted or approved form voids its signatures, so it is refused (exit 65, naming the forms) unless --void-approvals; --dry-run lists them.
        """
    )
    @OptionGroup var options: StoreOptions
    @Argument(help: "The kind.", completion: Completions.kinds) var kind: String
    @Argument(help: "The current id (or a unique prefix).", completion: Completions.ids) var oldID: String
    @Argument(help: "The new id.") var newID: String
    @Flag(help: "List what would change; change nothing.") var dryRun = false
    @Flag(help: "Rename even though rewritten references void signatures (their rounds end).")
    var voidApprovals = false
    @Option(help: "Output: text or json.") var format: TextOrJSON = .text

    func run() throws {
      let store = try options.open(toWrite: true)
      let plan = try store.move(
        kind: kind, from: try store.expand(kind: kind, id: oldID), to: newID, dryRun: dryRun,
        voidingApprovals: voidApprovals)
      printPlan(plan, store: store, dryRun: dryRun, format: format)
    }
  }
}
