import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore
import Foundation

extension Formsctl.Snapshot {
  struct Restore: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "restore",
      abstract: "Make the live store (or the named documents) equal to a snapshot.",
      discussion: """
        First takes a pre-restore snapshot (unless --no-snapshot), then rewrites changed files, recreates missing ones and removes extra ones (documents created since the snapshot, within the directories named), atomically per file under a journal (`formsctl recover` finishes or undoes an interrupted restore). Refuses a snapshot whose files fail verification.

        Examples:
          formsctl snapshot create --label q4 && formsctl rm form 22e8dfd4
          formsctl snapshot restore q4 data/forms --dry-run
          formsctl snapshot restore latest data/forms     # back comes 22e8dfd4
          formsctl snapshot restore latest --dry-run --format json
        """
    )
    @OptionGroup var options: StoreOptions
    @Argument(
      help: "The snapshot: its id or a unique prefix, its label, latest, or latest~N.",
      completion: Completions.snapshots)
    var id: String
    @Argument(help: "Document files or directories under data/ (default: everything).") var paths: [String] = []
    @Flag(help: "Print what would change; change nothing.") var dryRun = false
    @Flag(help: "Do not take a pre-restore snapshot first.") var noSnapshot = false
    @Option(help: "Output: text or json.") var format: TextOrJSON = .text

    func run() throws {
      let (layout, snapshots) = try Formsctl.Snapshot.open(options)
      let selected = paths.isEmpty ? nil : try Self.snapshotPaths(paths, layout: layout)
      let (target, note) = try snapshots.resolve(id)
      if let note { printWarning(note) }
      let outcome = try snapshots.restore(
        target.name, paths: selected, dryRun: dryRun, snapshotFirst: !noSnapshot, wait: options.wait,
        command: auditCommandLine(Array(CommandLine.arguments.dropFirst())))
      guard format == .text else {
        return FileHandleOutput.standardOutput.write(JSONWriter.canonicalString(outcome.json(dryRun: dryRun)))
      }
      Self.show(outcome, dryRun: dryRun, scope: paths.isEmpty ? "the live store" : paths.joined(separator: ", "))
    }

    /// What was (or would be) restored, for people.
    static func show(_ outcome: FormsStore.Snapshots.RestoreOutcome, dryRun: Bool, scope: String) {
      let plan = outcome.plan
      let prefix = dryRun ? "would " : ""
      for path in plan.rewritten { printOut("\(prefix)rewrite  \(path)") }
      for path in plan.recreated { printOut("\(prefix)recreate \(path)") }
      for path in plan.removed { printOut("\(prefix)remove   \(path)") }
      if plan.isEmpty {
        return printOut("\(scope) already equals snapshot \(outcome.snapshot.name); nothing to restore")
      }
      if !dryRun {
        printOut("restored \(scope) from snapshot \(outcome.snapshot.name)")
        if let before = outcome.preRestoreSnapshot {
          printOut("the state before is snapshot \(before); to undo: formsctl snapshot restore \(before)")
        }
        Formsctl.Snapshot.showPruned(outcome.prunedSnapshots)
      }
    }

    /// Paths as they appear in a snapshot (`data/...`); anything outside data/ is refused.
    static func snapshotPaths(_ paths: [String], layout: StoreLayout) throws -> [String] {
      var out: [String] = []
      for given in paths {
        let absolute = FilePath(given).absolute(from: FileIO.currentDirectory).string
        guard let path = layout.snapshotPath(absolute) else {
          throw CommandError.badInput("\(given): not under the store's data directory; restore takes documents")
        }
        out.append(path)
      }
      return out
    }
  }
}
