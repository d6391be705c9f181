import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore
import Foundation

extension Formsctl.Snapshot {
  struct Keep: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "keep",
      abstract: "Mark a snapshot to keep: the retention policy never removes it (--off takes the mark off).",
      discussion: """
        A kept snapshot is shown as kept by snapshot list and is never removed by snapshot prune or by the pruning after a command takes a snapshot. snapshot create --keep marks the snapshot it takes; keep_labels: under snapshots: in formsctl.yaml keeps every snapshot whose label matches. After --off the policy decides again, at the next prune, unless keep_labels still keeps the snapshot by its label (--off says so).

        Examples:
          formsctl snapshot create --label before-audit
          formsctl snapshot keep before-audit
          formsctl snapshot keep --off before-audit
        """)
    @OptionGroup var options: StoreOptions
    @Flag(help: "Take the mark off.") var off = false
    @Argument(help: "The snapshot (id, unique prefix, label, latest, latest~N).", completion: Completions.snapshots)
    var id: String

    func run() throws {
      let (_, snapshots) = try Formsctl.Snapshot.open(options)
      let info = try snapshots.setKept(id, !off, wait: options.wait)
      guard !options.quiet else { return }
      guard off else { return printOut("snapshot \(info.name) is kept") }
      // The mark is off; a label keep_labels matches still keeps it: said, not hidden.
      let labels = snapshots.keeping(info).compactMap { reason -> String? in
        guard case .label(let label, let pattern) = reason else { return nil }
        return "its label \(label) (keep_labels \(pattern))"
      }
      printOut(
        labels.isEmpty
          ? "snapshot \(info.name) is no longer kept"
          : "snapshot \(info.name) is no longer marked, but is still kept by \(labels.joined(separator: ", "))")
    }
  }
}
