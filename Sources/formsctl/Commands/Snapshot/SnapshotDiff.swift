import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore
import Foundation

extension Formsctl.Snapshot {
  struct Diff: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "diff",
      abstract: "Documents added, removed and changed between two snapshots, or a snapshot and the live store.",
      discussion: """
        Examples:
          formsctl snapshot create --label q4
          formsctl set acquisition ACQ-2026-001 title="New title"
          formsctl snapshot diff q4                    # q4 against the live store
        """)
    @OptionGroup var options: StoreOptions
    @Argument(help: "The older snapshot.", completion: Completions.snapshots) var id: String
    @Argument(help: "The newer snapshot (default: the live store).", completion: Completions.snapshots)
    var other: String?
    @Option(help: "Output: table (text is the same), or json.") var format: TableOrJSON = .table

    func run() throws {
      let (_, snapshots) = try Formsctl.Snapshot.open(options)
      let difference = try snapshots.diff(from: try snapshots.find(id), to: try other.map { try snapshots.find($0) })
      if format == .json { return FileHandleOutput.standardOutput.write(JSONWriter.canonicalString(difference.json)) }
      for path in difference.added { printOut("+ \(path)") }
      for path in difference.removed { printOut("- \(path)") }
      for change in difference.changed { printOut("~ \(change.path)  \(change.pointers.joined(separator: " "))") }
      printOut(
        "\(difference.added.count) added, \(difference.removed.count) removed, \(difference.changed.count) changed")
    }
  }
}
