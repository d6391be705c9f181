import ArgumentParser
import FormsCore
import FormsStore

extension Formsctl.Schema {
  struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Write a JSON Schema (draft 2020-12) per kind and version, for editors and other tools.",
      discussion: """
        A document is valid for formsctl exactly when it is valid for the exported schema, except for the checks across documents (ids, file names, relations). Files are named <kind>-<version>.schema.json.

        Examples:
          formsctl schema export --json-schema --out ../json-schemas
          formsctl schema export --json-schema | jq keys
        """
    )
    @OptionGroup var options: StoreOptions
    @Flag(name: .customLong("json-schema"), help: "Export JSON Schema (the only format).") var jsonSchema = false
    @Option(
      help: ArgumentHelp(
        "Directory to write into (default: print one JSON object keyed by kind@version).", valueName: "DIR"))
    var out: String?

    func run() throws {
      guard jsonSchema else { throw CommandError.usage("say which format: --json-schema") }
      let (_, registry) = try Formsctl.Schema.load(options)
      guard let out else {
        let all = JSONObject(registry.jsonSchemas.map { JSONObject.Member(key: $0.reference, value: $0.schema) })
        return FileHandleOutput.standardOutput.write(JSONWriter.canonicalString(.object(all)))
      }
      let display = PathDisplay(workingDirectory: FileIO.currentDirectory).show
      for path in try registry.writeJSONSchemas(to: joinPath(FileIO.currentDirectory, out)) { printOut(display(path)) }
    }
  }

}
