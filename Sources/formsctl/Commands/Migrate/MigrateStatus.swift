import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore
import Foundation

extension Formsctl.Migrate {
  struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "status",
      abstract: "Per kind: documents at each version, the target, and how far behind.",
      discussion: """
        Examples:
          formsctl migrate status
          formsctl migrate status --format json | jq '.[].kind'
        """)
    @OptionGroup var options: StoreOptions
    @Option(help: "Output: table, json, ndjson or csv.") var format: ReportFormat = .table

    func run() throws {
      let store = try options.open()
      render(try Migrator(store: store).statusReport(), as: format)
    }
  }
}
