import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore
import Foundation

extension Formsctl.Git {
  struct Install: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "install",
      abstract: "Make git merge documents with formsctl: .gitattributes and the merge driver in .git/config.",
      discussion: """
        Idempotent. --uninstall removes both again.

        Examples:
          formsctl git install
          git check-attr merge -- data/forms/x.json     # merge: formsctl
          formsctl git install --uninstall
        """)
    @OptionGroup var options: StoreOptions
    @Flag(help: "Remove the .gitattributes line and the merge driver.") var uninstall = false

    func run() throws {
      let layout = try options.locate()
      let repository = try GitRepository(around: layout.root)
      let done = try repository.installMergeDriver(layout: layout, uninstall: uninstall)
      printOut(done.isEmpty ? (uninstall ? "nothing to remove" : "already installed") : done.joined(separator: "\n"))
    }
  }
}
