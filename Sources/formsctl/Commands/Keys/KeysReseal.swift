import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore
import Foundation

extension Formsctl.Keys {
  struct Reseal: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "reseal",
      abstract: "Seal sensitive values stored in plain text, and those sealed for other recipients.",
      discussion: """
        What `validate` reports as [sensitive] plain text (a value typed into a file by hand, or a field made sensitive by a new descriptor) is sealed; values sealed for another list of recipients (a merge from a branch) are sealed for the current one; the rest is left as it is.

        \(Formsctl.Keys.reopenNote)

        Examples:
          formsctl keys reseal --dry-run
          formsctl keys reseal
        """
    )
    @OptionGroup var options: StoreOptions
    @Flag(help: "Say what would change; write nothing.") var dryRun = false
    @Flag(help: "Seal signed documents too, ending their approval rounds (approved ones go back to review).")
    var reopen = false

    func run() throws {
      let store = try options.open()
      try Formsctl.Keys.reseal(store, "keys reseal", dryRun: dryRun, reopen: reopen, quiet: options.quiet) {
        current throws(StoreError) in
        current
      }
    }
  }
}
