import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore
import Foundation

extension Formsctl.Keys {
  struct ListKeys: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "list",
      abstract: "Print the store's recipients and the signers of its roles, marking yours.",
      discussion: """
        Examples:
          formsctl keys list
          formsctl keys list --format json
        """
    )
    @OptionGroup var options: StoreOptions
    @Option(help: "Output: text or json.") var format: TextOrJSON = .text

    func run() throws {
      let store = try options.open()
      let mine = store.keyring.identity?.recipient
      if format == .json { return render(store.recipientsReport, as: .json) }
      for recipient in store.layout.recipients {
        printOut(recipient.description + (recipient == mine ? "  (yours)" : ""))
      }
      let signer = store.keyring.identity?.signer
      for (role, signers) in store.layout.roles.sorted(by: { $0.key < $1.key }) {
        for holder in signers { printOut("\(holder)  \(role)" + (holder == signer ? "  (yours)" : "")) }
      }
      if store.layout.recipients.isEmpty, !options.quiet {
        FileHandleOutput.standardError.write(
          "no recipients; `formsctl keygen` makes an identity, `formsctl keys add RECIPIENT` adds it\n")
      }
    }
  }
}
