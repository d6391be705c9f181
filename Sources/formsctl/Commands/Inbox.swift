import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore
import Foundation

extension Formsctl {
  struct Inbox: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "inbox",
      abstract: "What waits for your signature, across kinds, oldest first.",
      discussion: """
        Lists every document, of every kind whose descriptor declares approval chains, that waits for a step you may sign now: in a chain's review state, submitted, not rejected, its content still what was submitted, with a step next in the chain for a role your identity holds (roles: in formsctl.yaml). Your own submissions and the rounds you already signed are left out, as `formsctl approve` would refuse them. Oldest submission first; each row names the step and role you would sign in, who submitted it and when. Your identity is FORMSCTL_IDENTITY, else ~/.config/formsctl/identity. Each one is checked as an approval that writes nothing would be: one `approve` would refuse (a signature that no longer counts, a chain changed since, a rule the approval would break) is named on stderr with why, not listed, and the exit status is 1; so are files that cannot be read, as list does. While an interrupted operation awaits `formsctl recover`, inbox refuses as approve does (exit 75).

        The bundled example store declares no chain, so its inbox is empty; the Approvals guide (docs/guide/approvals.md) builds a store whose inbox is not.

        Examples:
          formsctl inbox
          formsctl inbox --format json | jq -r '.[] | "\\(.kind) \\(.id)"'
        """
    )
    @OptionGroup var options: StoreOptions
    @Option(help: "Output: table, json, ndjson or csv.") var format: ReportFormat = .table

    func run() throws {
      let store = try options.open()
      let identity = try store.signingIdentity(environment: ProcessInfo.processInfo.environment)
      let inbox = try store.inbox(for: identity)
      for file in inbox.skipped {
        printWarning("\(store.display(file.path)): \(file.reason); not judged (formsctl validate says why; exit 1)")
      }
      for (item, reason) in inbox.blocked {
        var why = ErrorText.message(for: reason)
        if case .invalidDocument(_, let diagnostics) = reason, let first = diagnostics.first {
          why += ": \(first.pointer): \(first.message) [\(first.rule)]"
        }
        printWarning(
          "\(item.kind) \(item.id) waits for your step \(item.step), but approve refuses it: \(why); not listed")
      }
      render(inbox.report(display: store.display), as: format)
      if !inbox.skipped.isEmpty || !inbox.blocked.isEmpty { throw ExitStatus.problems }
    }
  }
}
