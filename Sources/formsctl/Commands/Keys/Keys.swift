import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore
import Foundation

extension Formsctl {

  struct Keys: ParsableCommand {
    /// What every command that reseals says about the identity it needs.
    static let identityNote =
      "It needs a key holder's identity to open the values: FORMSCTL_IDENTITY names its file, which must be "
      + "readable by you alone (chmod 600; formsctl refuses it otherwise, as ssh does). In the bundled example "
      + "store: chmod 600 ../demo-identity && export FORMSCTL_IDENTITY=$PWD/../demo-identity."

    static let configuration = CommandConfiguration(
      commandName: "keys",
      abstract: "List, add or remove the recipients that sensitive values are sealed for.",
      discussion: """
        A field marked `sensitive: true` in a descriptor is stored as an enc:v1: envelope, sealed for every recipient listed under encryption: recipients: in formsctl.yaml. Adding or removing a recipient seals every sensitive value again for the new list, and rewrites formsctl.yaml, in one journaled operation with one audit record; it needs your identity (FORMSCTL_IDENTITY) to open the values, and your recipient must stay on the list. Someone removed cannot open values sealed from then on; what they could read before stays in git's history.

        \(identityNote)

        Examples:
          formsctl keys list
          formsctl keys add x25519:8mR0k6lq2Hq1y4nAl2bE0v3W7c0dZbq0m9U6h5yZ7Ck=
          formsctl keys reseal --dry-run
        """,
      subcommands: [ListKeys.self, Add.self, Remove.self, Reseal.self]
    )

    static func parse(_ texts: [String]) throws -> [Recipient] {
      try texts.map { text in
        guard let recipient = Recipient(text) else {
          throw CommandError.usage(Recipient.problem(text) + "; " + ErrorText.advice(for: .makeKey))
        }
        return recipient
      }
    }

    /// What every command that reseals says about signed documents.
    static let reopenNote =
      "Approvals sign the envelopes: when new envelopes would make a signed document's approvals stale, the "
      + "command names those documents and writes nothing, unless --reopen: then their rounds end (each is "
      + "submitted again and signed again) and approved ones go back to review, each named on stderr."

    static func reseal(
      _ store: Store, _ operation: String, dryRun: Bool, reopen: Bool, quiet: Bool,
      recipients change: ([Recipient]) throws(StoreError) -> [Recipient]
    ) throws {
      let report = try store.reseal(operation, dryRun: dryRun, reopen: reopen, recipients: change)
      warnStale(report.staleApprovals, dryRun: dryRun)
      if !quiet {
        let documents = "\(plural(report.documents, "document"))"
        let count = "\(plural(report.recipients.count, "recipient"))"
        printOut(
          dryRun
            ? "would seal \(plural(report.values, "value")) in \(documents) for \(count); nothing written"
            : "sealed \(plural(report.values, "value")) in \(documents) for \(count)")
      }
      // Snapshots are copies: what was plain text before this reseal stays so in them.
      let exposures = try FormsStore.Snapshots(layout: store.layout).exposures(registry: store.registry)
      guard !exposures.isEmpty else { return }
      let names = exposures.map(\.snapshot.name)
      printWarning(
        "\(plural(exposures.count, "snapshot")) still \(exposures.count == 1 ? "holds" : "hold") sensitive values in "
          + "plain text (\(names.prefix(3).joined(separator: ", "))\(names.count > 3 ? ", …" : "")); "
          + "`formsctl snapshot prune --sensitive` deletes them")
    }
  }
}
