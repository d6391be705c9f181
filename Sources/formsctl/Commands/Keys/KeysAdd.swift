import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore
import Foundation

extension Formsctl.Keys {
  struct Add: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "add",
      abstract: "Add recipients and seal every sensitive value for them too.",
      discussion: """
        \(Formsctl.Keys.identityNote)

        \(Formsctl.Keys.reopenNote)

        Examples:
          formsctl keys add "$(formsctl keygen --out ../colleague-identity)" --dry-run
          formsctl keys add x25519:8mR0k6lq2Hq1y4nAl2bE0v3W7c0dZbq0m9U6h5yZ7Ck=
        """
    )
    @OptionGroup var options: StoreOptions
    @Argument(help: "Recipients, as `formsctl keygen` prints them (x25519:...).") var recipients: [String]
    @Flag(help: "Say what would change; write nothing.") var dryRun = false
    @Flag(help: "Seal signed documents too, ending their approval rounds (approved ones go back to review).")
    var reopen = false

    func run() throws {
      let store = try options.open()
      let given = try Formsctl.Keys.parse(recipients)
      try Formsctl.Keys.reseal(store, "keys add", dryRun: dryRun, reopen: reopen, quiet: options.quiet) {
        current throws(StoreError) in
        var list = current
        for recipient in given {
          if list.contains(recipient) { throw StoreError.usage("\(recipient) is already a recipient") }
          list.append(recipient)
        }
        return list
      }
    }
  }
}
