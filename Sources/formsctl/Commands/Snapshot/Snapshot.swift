import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore
import Foundation

extension Formsctl {
  struct Snapshot: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "snapshot",
      abstract: "Timestamped, deduplicated, verifiable backups of the store, with restore and retention.",
      discussion: """
        Snapshots live in .formsctl/snapshots/<UTC time>[-label]/ as plain read-only files you can browse with ls and cat; a file unchanged since the previous snapshot is a hard link to its copy, so an unchanged store costs almost no disk. migrate, restore and import take one first, and every command that takes one applies the retention policy after it (auto_prune: false under snapshots: in formsctl.yaml turns that off). push and pull keep a copy elsewhere: a mounted drive, or a host over SSH.

        Examples:
          formsctl snapshot create -m "before the cleanup" --label q4
          formsctl snapshot list
          formsctl snapshot restore q4 data/forms --dry-run
          mkdir -p ../formsctl-backup && formsctl snapshot push ../formsctl-backup
        """,
      subcommands: [
        Create.self, List.self, Show.self, Diff.self, Restore.self, Verify.self, Prune.self, Keep.self, Push.self,
        Pull.self,
      ]
    )

    /// The store's snapshots. Only the layout is needed (no schemas are compiled), so a broken
    /// descriptor can still be restored from a snapshot.
    static func open(_ options: StoreOptions) throws -> (StoreLayout, FormsStore.Snapshots) {
      let layout = try options.locate()
      var snapshots = FormsStore.Snapshots(layout: layout)
      snapshots.now = StoreOptions.clock
      snapshots.progress = options.progress
      return (layout, snapshots)
    }

    /// After a command took a snapshot: which old ones the retention policy removed, one line.
    static func showPruned(_ names: [String]) {
      guard !names.isEmpty else { return }
      printOut(
        "pruned \(plural(names.count, "snapshot")) by the retention policy (auto_prune: false in formsctl.yaml keeps them): "
          + names.joined(separator: ", "))
    }

    /// `3 sensitive values in plain text in 2 documents, first data/forms/F-1.json`.
    static func exposed(_ exposure: FormsStore.Snapshots.Exposure) -> String {
      "\(plural(exposure.values, "sensitive value")) in plain text in \(plural(exposure.documents.count, "document")), "
        + "first \(exposure.documents[0])"
    }
  }
}
