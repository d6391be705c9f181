import ArgumentParser
import FormsStore

extension Formsctl {
  struct Init: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Create a new store: manifest, built-in schemas, data/, .formsctl/ and a .gitignore.",
      discussion: """
        Refuses a directory that already holds a store (formsctl.yaml). The schemas are built into formsctl.

        Examples:
          formsctl init ../new-store
          formsctl init ../other-store && formsctl validate --store ../other-store
        """
    )
    @Argument(help: "The directory for the new store.") var directory: String = "."

    func run() throws {
      let layout = try Store.initialize(at: directory)
      printOut(
        "initialized a formsctl store in \(PathDisplay(workingDirectory: FileIO.currentDirectory).show(layout.root))")
    }
  }

  struct Recover: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Finish or roll back an operation that was interrupted (kill, power loss, full disk).",
      discussion: """
        Before the operation's commit record: its staged files are dropped and the store is as it was. After: the remaining renames are done. Safe to run again.

        Examples:
          formsctl recover
        """
    )
    @OptionGroup var options: StoreOptions

    func run() throws {
      let outcome = try Store.recover(options.locate(), wait: options.wait)
      printOut(outcome ?? "nothing to recover")
    }
  }
}
