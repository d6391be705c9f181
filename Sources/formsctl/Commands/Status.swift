import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore
import Foundation

extension Formsctl {
  struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "status",
      abstract: "Move a document along its workflow (e.g. draft → in_review), if the descriptor allows it.",
      discussion: """
        A transition the workflow does not list is refused, naming the allowed next states; `set` and `edit` follow the same rule. The change is recorded in the audit log with the states from and to. A move into the review state of an approval chain submits the document: your identity signs the submission, which names you the preparer (`formsctl approve` says more); a state a chain guards is reached only by the approval that completes the chain. A move out of review while the round is live (submitted, not rejected) ends it without a signed decision: refused (exit 65) unless --void-approvals; a rejection is signed with `formsctl reject`.

        Examples:
          formsctl status form 22e8dfd4 in_review
          formsctl status form 1b772abc rejected
        """
    )
    @OptionGroup var options: StoreOptions
    @Argument(help: "The kind.", completion: Completions.kinds) var kind: String
    @Argument(help: "The document's id (or a unique prefix of 4+ characters).", completion: Completions.ids) var id:
      String
    @Argument(help: "The new state.", completion: Completions.nextStates) var state: String
    @Flag(help: "Move a document out of review even though that ends its round without a signed decision.")
    var voidApprovals = false

    func run() throws {
      let store = try options.open(toWrite: true)
      // A move into an approval chain's review state is a submission, signed by the one who makes it.
      let submits = (try store.schema(kind)).approvals?.reviewing(state) != nil
      let identity = submits ? try store.signingIdentity(environment: ProcessInfo.processInfo.environment) : nil
      let document = try store.transition(
        kind: kind, id: try store.expand(kind: kind, id: id), to: state, identity: identity,
        voidingApprovals: voidApprovals)
      warnStale(document.staleApprovals.map { [$0] } ?? [])
      printOut(
        "\(kind) \(StoreLayout.id(fromFile: document.path) ?? "") is now \(state)  (\(store.display(document.path)))")
    }
  }
}
