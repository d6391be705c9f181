import ArgumentParser
import FormsCommandLine
import FormsStore

extension Formsctl {
  struct Recover: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "recover",
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
