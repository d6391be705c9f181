import ArgumentParser
import FormsCore
import FormsStore
import Foundation

extension Formsctl.Snapshot {
  struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Summarize one snapshot's manifest (ID or \"latest\").",
      discussion: """
        Examples:
          formsctl snapshot create --label q4 && formsctl snapshot show q4
          formsctl snapshot show latest
        """)
    @OptionGroup var options: StoreOptions
    @Argument(help: "The snapshot.") var id: String

    func run() throws {
      let (_, snapshots) = try Formsctl.Snapshot.open(options)
      let (info, note) = try snapshots.resolve(id)
      if let note { printWarning(note) }
      guard let manifest = try info.loadManifest() else {
        throw StoreError.refused(.snapshotWithoutManifest(name: info.name))
      }
      var lines = ["snapshot \(manifest.name)", "time      \(manifest.time)", "reason    \(manifest.reason)"]
      if let label = manifest.label { lines.append("label     \(label)") }
      if let message = manifest.message { lines.append("message   \(message)") }
      lines.append("formsctl  \(manifest.formsctlVersion)")
      lines.append("scope     \(manifest.scope)")
      lines.append("files     \(manifest.files.count), \(manifest.files.map(\.size).reduce(0, +)) bytes")
      for (kind, versions) in manifest.counts.sorted(by: { $0.key < $1.key }) {
        for (version, count) in versions.sorted(by: { $0.key < $1.key }) {
          lines.append("  \(kind)@\(version): \(count)")
        }
      }
      printOut(lines.joined(separator: "\n"))
    }
  }
}
