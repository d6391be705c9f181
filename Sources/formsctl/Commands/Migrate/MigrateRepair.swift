import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore
import Foundation

extension Formsctl.Migrate {
  struct Repair: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "repair",
      abstract: "Accept edited descriptors that earlier migrations used (records their new checksums).",
      discussion: """
        migrate refuses while a descriptor it used before has changed; run this once you have checked the change was intended.

        Examples:
          formsctl migrate repair
        """)
    @OptionGroup var options: StoreOptions

    func run() throws {
      let changed = try Migrator(store: try options.open()).repair()
      printOut(
        changed.isEmpty
          ? "every descriptor matches its recorded checksum"
          : changed.map { "recorded the new checksum of \($0)" }.joined(separator: "\n"))
    }
  }
}
