import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore
import Foundation

extension Formsctl.Snapshot {
  struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "show",
      abstract: "Summarize one snapshot's manifest (ID or \"latest\").",
      discussion: """
        Examples:
          formsctl snapshot create --label q4 && formsctl snapshot show q4
          formsctl snapshot show latest
        """)
    @OptionGroup var options: StoreOptions
    @Argument(help: "The snapshot.", completion: Completions.snapshots) var id: String

    func run() throws {
      let (_, snapshots) = try Formsctl.Snapshot.open(options)
      let (info, note) = try snapshots.resolve(id)
      if let note { printWarning(note) }
      guard let manifest = try info.loadManifest() else {
        throw StoreError.refused(.snapshotWithoutManifest(name: info.name))
      }
      printOut(manifest.summary.joined(separator: "\n"))
    }
  }
}
