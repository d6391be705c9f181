import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore

extension Formsctl {
  struct Diff: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "diff",
      abstract: "Compare two documents of a kind, field by field.",
      discussion: """
        Each side is a document's id (or a unique prefix of 4+ characters) as it is now, or ID@SNAPSHOT as a snapshot holds it (a snapshot's id, prefix, label, latest or latest~N). One row per JSON Pointer where they differ: a member added, removed or changed, a list element by its index. Sealed values are compared and shown as list shows them. Like diff(1), it exits 0 when the two are the same and 1 when they differ.

        Examples:
          formsctl diff purchase-order PO-000201 PO-000202
          formsctl diff forecast bb863f13 4dd65e8c --format json
          formsctl snapshot create --label before && formsctl set \\
            purchase-order PO-000201 delivery_note="Dock C"
          formsctl diff purchase-order PO-000201@before PO-000201
        """
    )
    @OptionGroup var options: StoreOptions
    @Argument(help: "The kind.", completion: Completions.kinds) var kind: String
    @Argument(help: ArgumentHelp("The left document.", valueName: "ID[@SNAPSHOT]"), completion: Completions.ids)
    var left: String
    @Argument(help: ArgumentHelp("The right document.", valueName: "ID[@SNAPSHOT]"), completion: Completions.ids)
    var right: String
    @Option(help: "Output: table, json, ndjson or csv.") var format: ReportFormat = .table

    func run() throws {
      let store = try options.open()
      let report = try store.comparison(
        kind: kind, try store.document(kind: kind, reference: left), try store.document(kind: kind, reference: right))
      render(report, as: format)
      if !report.rows.isEmpty { throw ExitStatus.problems }
    }
  }
}
