import ArgumentParser
import FormsCore
import FormsStore

extension Formsctl.Schema {
  struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "List the kinds and their versions.",
      discussion: """
        Examples:
          formsctl schema list
          formsctl schema list --format json | jq '.[].kind'
        """)
    @OptionGroup var options: StoreOptions
    @Option(help: "Output: table or json.") var format: ListFormat = .table

    enum ListFormat: String, ExpressibleByArgument { case table, json }

    func run() throws {
      let (_, registry) = try Formsctl.Schema.load(options)
      switch format {
      case .json:
        let kinds: [JSONValue] = registry.latestByKind.map { kind, latest in
          .object(
            JSONObject([
              "kind": .string(kind), "title": latest.title.map(JSONValue.string) ?? .null,
              "directory": .string(latest.directory), "latest": .string(latest.version.description),
              "versions": .array(registry.versions(kind).map { .string($0.description) }),
            ]))
        }
        FileHandleOutput.standardOutput.write(JSONWriter.canonicalString(.array(kinds)))
      case .table:
        var rows = [["KIND", "LATEST", "VERSIONS", "DIRECTORY", "TITLE"]]
        for (kind, latest) in registry.latestByKind {
          rows.append([
            kind, latest.version.description, registry.versions(kind).map(\.description).joined(separator: ", "),
            "data/" + latest.directory, latest.title ?? "",
          ])
        }
        FileHandleOutput.standardOutput.write(TextTable.render(rows))
      }
    }
  }
}
