import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore

extension Formsctl.Schema {
  struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "list",
      abstract: "List the kinds and their versions.",
      discussion: """
        Examples:
          formsctl schema list
          formsctl schema list --format json | jq '.[].kind'
        """)
    @OptionGroup var options: StoreOptions
    @Option(help: "Output: table, json, ndjson or csv.") var format: ReportFormat = .table

    func run() throws {
      let (_, registry) = try Formsctl.Schema.load(options)
      render(registry.kindsReport, as: format)
    }
  }
}
