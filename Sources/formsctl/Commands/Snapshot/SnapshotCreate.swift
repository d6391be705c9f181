import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore
import Foundation

extension Formsctl.Snapshot {
  struct Create: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "create",
      abstract: "Take a snapshot of data/, schemas/ and formsctl.yaml.",
      discussion: """
        Examples:
          formsctl snapshot create
          formsctl snapshot create -m "before the quarterly cleanup" --label q4
          formsctl snapshot create --quiet --label nightly
        """)
    @OptionGroup var options: StoreOptions
    @Option(name: .shortAndLong, help: "Why, in words (kept in the manifest).") var message: String?
    @Option(help: "A name appended to the time (letters, digits, . _ -).") var label: String?

    func run() throws {
      let (_, snapshots) = try Formsctl.Snapshot.open(options)
      let (snapshot, pruned) = try snapshots.createManual(message: message, label: label, wait: options.wait)
      if !options.quiet { printOut("created snapshot \(snapshot.name) (\(snapshot.summary?.files ?? 0) files)") }
      Formsctl.Snapshot.showPruned(pruned)
    }
  }
}
