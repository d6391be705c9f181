import ArgumentParser
import FormsCore
import FormsStore
import Foundation

extension Formsctl.Migrate {
  struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Per kind: documents at each version, the target, and how far behind.",
      discussion: """
        Examples:
          formsctl migrate status
          formsctl migrate status --format json | jq '.[].kind'
        """)
    @OptionGroup var options: StoreOptions
    @Option(help: "Output: table or json.") var format: TableOrJSON = .table

    func run() throws {
      let store = try options.open()
      let statuses = try Migrator(store: store).status()
      if format == .json {
        FileHandleOutput.standardOutput.write(
          JSONWriter.canonicalString(
            .array(
              statuses.map { status in
                .object(
                  JSONObject([
                    "kind": .string(status.kind), "target": .string(status.target.description),
                    "versions": .array(
                      status.versions.map {
                        .object(
                          JSONObject([
                            "version": .string($0.version.description),
                            "documents": .number(JSONNumber($0.documents)),
                            "behind": $0.behind.map { .number(JSONNumber($0)) } ?? .null,
                          ]))
                      }),
                    "unreadable": .array(status.unreadable.map { .string(store.display($0)) }),
                  ]))
              })))
        return
      }
      var rows = [["KIND", "VERSION", "DOCUMENTS", "TARGET", "STATE"]]
      for status in statuses {
        if status.versions.isEmpty {
          rows.append([status.kind, "-", "0", status.target.description, "no documents"])
        }
        for entry in status.versions {
          let state =
            entry.behind.map { $0 == 0 ? "current" : plural($0, "step") + " behind" }
            ?? "no path to the target"
          rows.append([
            status.kind, entry.version.description, String(entry.documents), status.target.description, state,
          ])
        }
        if !status.unreadable.isEmpty {
          rows.append([
            status.kind, "?", String(status.unreadable.count), status.target.description,
            "unreadable; run formsctl validate",
          ])
        }
      }
      FileHandleOutput.standardOutput.write(TextTable.render(rows))
      let estimate = try Migrator(store: store).estimate()
      if estimate.documents > 0 {
        printOut(
          "migrate would rewrite \(plural(estimate.documents, "document")) (\(Storage.format(estimate.bytes))): "
            + "needs about \(Storage.format(estimate.needed)) free, \(estimate.free.map(Storage.format) ?? "unknown") free here; "
            + "about \(estimate.seconds) s")
      }
    }
  }
}
