import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore

extension Formsctl.Schema {
  struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "export",
      abstract: "Write a JSON Schema per kind and version (draft-07 or 2020-12), for editors and other tools.",
      discussion: """
        A document is valid for the exported schema exactly when formsctl finds nothing wrong with it on its own, except for what JSON Schema cannot say: the checks across documents (ids, file names, relations), unique keys within lists, the digits a decimal has after the point as written, and rules that compare fields (each named in a $comment). With --out, the files are <kind>-<version>.schema.json and <kind>.schema.json, which picks the version a document names in _schema. Draft-07 is the default: it is what VS Code's JSON language service and yaml-language-server support fully.

        Examples:
          formsctl schema export --json-schema --out ../json-schemas
          formsctl schema export --json-schema --draft 2020-12 | jq keys
        """
    )
    @OptionGroup var options: StoreOptions
    @Flag(name: .customLong("json-schema"), help: "Export JSON Schema (the only format).") var jsonSchema = false
    @Option(help: "The JSON Schema draft: 07 or 2020-12.") var draft: JSONSchemaExporter.Draft = .draft07
    @Option(
      help: ArgumentHelp(
        "Directory to write into (default: print one JSON object keyed by kind@version).", valueName: "DIR"))
    var out: String?

    func run() throws {
      guard jsonSchema else { throw CommandError.usage("say which format: --json-schema") }
      let (layout, registry) = try Formsctl.Schema.load(options)
      guard let out else {
        let all = JSONObject(
          registry.jsonSchemas(draft: draft).map { JSONObject.Member(key: $0.reference, value: $0.schema) })
        return FileHandleOutput.standardOutput.write(JSONWriter.canonicalString(.object(all)))
      }
      try layout.checkOutput(out)
      let display = PathDisplay(workingDirectory: FileIO.currentDirectory).show
      let directory = (FilePath(FileIO.currentDirectory) / out).string
      for path in try registry.writeJSONSchemas(to: directory, draft: draft, boundary: directory) {
        printOut(display(path))
      }
    }
  }
}
