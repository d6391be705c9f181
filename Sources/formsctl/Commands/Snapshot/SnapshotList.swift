import ArgumentParser
import FormsCore
import FormsStore
import Foundation

extension Formsctl.Snapshot {
  struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "List the snapshots, oldest first, with their labels and reasons.",
      discussion: """
        Examples:
          formsctl snapshot create --label q4 && formsctl snapshot list
          formsctl snapshot list --format json | jq -r '.[].name'
        """)
    @OptionGroup var options: StoreOptions
    @Option(help: "Output: table or json.") var format: TableOrJSON = .table

    func run() throws {
      let (_, snapshots) = try Formsctl.Snapshot.open(options)
      let all = try snapshots.list()
      switch format {
      case .json:
        FileHandleOutput.standardOutput.write(
          JSONWriter.canonicalString(
            .array(
              all.map { info in
                .object(
                  JSONObject([
                    "name": .string(info.name), "reason": info.manifest.map { .string($0.reason) } ?? .null,
                    "time": info.manifest.map { .string($0.time) } ?? .null,
                    "message": info.manifest?.message.map(JSONValue.string) ?? .null,
                    "files": info.manifest.map { .number(JSONNumber($0.files.count)) } ?? .null,
                    "label": info.manifest?.label.map(JSONValue.string) ?? .null,
                    "scope": info.manifest.map { .string($0.covers == nil ? "store" : "documents") } ?? .null,
                  ]))
              })))
      case .table, .text:
        var rows = [["ID", "LABEL", "REASON", "SCOPE", "FILES", "MESSAGE"]]
        for info in all {
          rows.append([
            info.name, info.manifest?.label ?? "", info.manifest?.reason ?? "(no manifest)",
            info.manifest.map { Formsctl.Snapshot.scope($0) } ?? "", info.manifest.map { String($0.files.count) } ?? "",
            info.manifest?.message ?? "",
          ])
        }
        FileHandleOutput.standardOutput.write(TextTable.render(rows))
      }
    }
  }
}
