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
          formsctl snapshot create --label before-audit --keep
          formsctl snapshot create --dry-run
        """)
    @OptionGroup var options: StoreOptions
    @Option(name: .shortAndLong, help: "Why, in words (kept in the manifest).") var message: String?
    @Option(help: "A name appended to the time (letters, digits, . _ -).") var label: String?
    @Flag(help: "Mark it to keep: the retention policy never removes it (snapshot keep --off takes the mark off).")
    var keep = false
    @Flag(help: "Say what it would copy and what it would hard-link, and whether that fits; take nothing.")
    var dryRun = false

    func run() throws {
      let (layout, snapshots) = try Formsctl.Snapshot.open(options)
      if dryRun {
        let plan = try snapshots.planCreate()
        printOut(
          "would copy \(plural(plan.copied, "file")) (\(Storage.format(plan.copiedBytes))) and hard-link "
            + "\(plural(plan.linked, "file")) (\(Storage.format(plan.linkedBytes))) "
            + (plan.base.map { "to snapshot \($0)" } ?? "(no earlier snapshot to link to)")
            + "; needs about \(Storage.format(plan.needed)) free, \(plan.free.map(Storage.format) ?? "unknown") free here"
        )
        if keep { printOut("it would be kept (never removed by the retention policy)") }
        if let free = plan.free, !plan.fits {
          throw StoreError.insufficientSpace(what: "the snapshot", needed: plan.needed, free: free, at: layout.root)
        }
        return printOut("dry run: nothing written")
      }
      let (snapshot, pruned) = try snapshots.createManual(
        message: message, label: label, keep: keep, wait: options.wait)
      if !options.quiet {
        printOut("created snapshot \(snapshot.name) (\(snapshot.summary?.files ?? 0) files)\(keep ? ", kept" : "")")
      }
      Formsctl.Snapshot.showPruned(pruned)
    }
  }
}
