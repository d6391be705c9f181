import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore
import Foundation

extension Formsctl.Keys {
  struct Remove: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "remove",
      abstract: "Remove recipients and seal every sensitive value again without them.",
      discussion: """
        \(Formsctl.Keys.identityNote)

        \(Formsctl.Keys.reopenNote)

        Examples:
          formsctl keys add x25519:8mR0k6lq2Hq1y4nAl2bE0v3W7c0dZbq0m9U6h5yZ7Ck=
          formsctl keys remove x25519:8mR0k6lq2Hq1y4nAl2bE0v3W7c0dZbq0m9U6h5yZ7Ck=
        """
    )
    @OptionGroup var options: StoreOptions
    @Argument(help: "Recipients to remove (x25519:...).") var recipients: [String]
    @Flag(help: "Say what would change; write nothing.") var dryRun = false
    @Flag(help: "Seal signed documents too, ending their approval rounds (approved ones go back to review).")
    var reopen = false

    func run() throws {
      let store = try options.open()
      let given = try Formsctl.Keys.parse(recipients)
      try Formsctl.Keys.reseal(store, "keys remove", dryRun: dryRun, reopen: reopen, quiet: options.quiet) {
        current throws(StoreError) in
        var list = current
        for recipient in given {
          guard let index = list.firstIndex(of: recipient) else {
            throw StoreError.usage("\(recipient) is not a recipient of this store")
          }
          list.remove(at: index)
        }
        if list.isEmpty {
          throw StoreError.usage("that would remove the last recipient, and nobody could open the sensitive values")
        }
        return list
      }
    }
  }
}
