import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore

extension Formsctl {
  struct Remove: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "rm",
      abstract: "Delete a document, following its relations (cascade, nullify, restrict).",
      discussion: """
        cascade deletes the documents that refer to it (recursively); nullify clears their field; restrict refuses and names them. Every file changes together or not at all (a journal; `formsctl recover` finishes or undoes an interrupted run). --dry-run lists the changes.

        A nullified reference in a submitted or approved form voids its signatures: refused (exit 65, naming the forms) unless --void-approvals.

        With --where instead of an id, every matching document is deleted in one journaled operation, all or nothing, each following its relations as for one; --all selects every document of the kind.

        Examples:
          formsctl rm acquisition ACQ-2026-001 --dry-run   # cascades, nullifies
          formsctl rm form 22e8dfd4
          formsctl rm form --where 'status == "rejected"' --dry-run
        """
    )
    @OptionGroup var options: StoreOptions
    @Argument(help: "The kind.", completion: Completions.kinds) var kind: String
    @Argument(
      help: "The document's id (or a unique prefix of 4+ characters); not with --where.", completion: Completions.ids)
    var id: String?
    @Option(
      name: .customLong("where"),
      help: ArgumentHelp("Delete every document this holds for (instead of an id).", valueName: "EXPR"),
      completion: Completions.paths)
    var filters: [String] = []
    @Flag(help: "Delete every document of the kind.") var all = false
    @Flag(help: "List what would change; change nothing.") var dryRun = false
    @Flag(help: "Delete even though nullified references void signatures (their rounds end).")
    var voidApprovals = false
    @Option(help: "Output: text or json.") var format: TextOrJSON = .text

    func run() throws {
      let store = try options.open(toWrite: true)
      let plan: Store.ChangePlan
      switch try Selection.from(id: id, filters: filters, all: all) {
      case .one(let id):
        plan = try store.delete(
          kind: kind, id: try store.expand(kind: kind, id: id), dryRun: dryRun, voidingApprovals: voidApprovals)
      case .matching(let filters):
        if id != nil { throw CommandError.usage("name an id or use --where, not both") }
        plan = try store.delete(
          kind: kind, matching: try parseFilters(filters, kind: kind, store: store), dryRun: dryRun)
        if plan.deletes.isEmpty && !options.quiet {
          FileHandleOutput.standardError.write("no \(kind) matches; nothing deleted\n")
        }
      }
      printPlan(plan, store: store, dryRun: dryRun, format: format)
      if dryRun && !plan.blockers.isEmpty { throw ExitStatus.problems }
    }
  }

}
