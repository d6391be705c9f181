import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore
import Foundation

extension Formsctl.Snapshot {
  struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "list",
      abstract: "List the snapshots, oldest first, with their labels and reasons.",
      discussion: """
        Examples:
          formsctl snapshot create --label q4 && formsctl snapshot list
          formsctl snapshot list --format json | jq -r '.[].name'
        """)
    @OptionGroup var options: StoreOptions
    @Option(help: "Output: table, json, ndjson or csv.") var format: ReportFormat = .table

    func run() throws {
      let (_, snapshots) = try Formsctl.Snapshot.open(options)
      render(try snapshots.listReport(), as: format)
    }
  }
}
