import ArgumentParser
import FormsStore

extension Formsctl {
  struct Init: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Create a new store: manifest, built-in schemas, data/, .formsctl/ and a .gitignore.",
      discussion: """
        Refuses a directory that already holds a store (formsctl.yaml) or lies inside one. Never overwrites a file: in a directory that has some of what init writes (schemas/ from another store, a .gitignore), init adds only what is missing and names the files it kept that differ from the built-ins. Nothing is written through a symbolic link: a link where init would write refuses the whole init before its first file. The schemas are built into formsctl.

        Examples:
          formsctl init ../new-store
          formsctl init ../other-store && formsctl validate --store ../other-store
        """
    )
    @Argument(help: "The directory for the new store.") var directory: String = "."

    func run() throws {
      let initialized = try Store.initialize(at: directory)
      let shown = PathDisplay(workingDirectory: FileIO.currentDirectory).show(initialized.layout.root)
      printOut("initialized a formsctl store in \(shown)")
      if !initialized.kept.isEmpty {
        printWarning(
          "kept as they were, differing from the built-ins (init never overwrites): "
            + initialized.kept.joined(separator: ", "))
      }
    }
  }

  struct Recover: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Finish or roll back an operation that was interrupted (kill, power loss, full disk).",
      discussion: """
        Before the operation's commit record: its staged files are dropped and the store is as it was. After: the remaining steps are done, and the operation's audit record is appended. Every file recover puts in place or removes is checked against the SHA-256 the journal recorded; when a staged file is missing (`git clean` removes them) or altered, recover refuses (exit 65) and keeps the journal. Safe to run again, also after it failed.

        --abandon drops the journal and leaves every document as it is (some changed, some not), recording that in the audit log; restoring the operation's safety snapshot (`formsctl snapshot list`) is the other way out.

        Examples:
          formsctl recover
          formsctl recover --abandon
        """
    )
    @OptionGroup var options: StoreOptions

    @Flag(help: "Drop the interrupted operation's journal without finishing or undoing it.")
    var abandon = false

    func run() throws {
      let outcome = try Store.recover(options.locate(), wait: options.wait, abandon: abandon)
      printOut(outcome ?? "nothing to recover")
    }
  }
}
