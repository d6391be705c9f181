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
      var all = JSONObject()
      var written: [String] = []
      for kind in registry.kinds {
        for schema in registry.schemas(of: kind) {
          let version = schema.version
          let exported = JSONSchemaExporter.export(schema)
          if let out {
            let directory = joinPath(FileIO.currentDirectory, out)
            try FileIO.makeDirectories(directory)
            let path = directory + "/\(kind)-\(version).schema.json"
            try AtomicWriter(boundary: directory).write(JSONWriter.canonical(exported), to: path)
            written.append(path)
          } else {
            all[schema.reference] = exported
          }
        }
      }
      if out == nil { FileHandleOutput.standardOutput.write(JSONWriter.canonicalString(.object(all))) }
      for path in written { printOut(PathDisplay(workingDirectory: FileIO.currentDirectory).show(path)) }
    }
  }

}
