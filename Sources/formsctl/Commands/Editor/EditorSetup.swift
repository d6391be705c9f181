import ArgumentParser
import FormsCore
import FormsStore

extension Formsctl.Editor {
  struct Setup: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Export the JSON Schemas and associate each kind's directory with its schema (VS Code).",
      discussion: """
        Writes <kind>-<version>.schema.json for every version and <kind>.schema.json, which picks the version a document names in _schema, into .formsctl/schemas-json/ (or --out DIR), then merges a json.schemas entry per kind into .vscode/settings.json at the store's root: entries formsctl wrote before are replaced, every other setting is kept (the file is rewritten as canonical JSON; one that is not strict JSON is refused and left alone). Form fields that form_type chooses export as if/then, so editors check them too. Run it again after changing a descriptor.

        --print writes the schemas but not the settings, and prints the mapping for other editors (a JSON language server's schema associations, yaml-language-server and the like).

        Examples:
          formsctl editor setup
          formsctl editor setup --print
          formsctl editor setup --out schemas-json      # a directory to commit
        """
    )
    @OptionGroup var options: StoreOptions
    @Option(help: ArgumentHelp("Where to write the schemas (default: .formsctl/schemas-json).", valueName: "DIR"))
    var out: String?
    @Flag(help: "Print the mapping of directories to schemas; do not touch .vscode/settings.json.") var print = false

    func run() throws {
      let store = try options.open()
      let setup = EditorSetup(layout: store.layout, registry: store.registry)
      let directory = out.map { joinPath(FileIO.currentDirectory, $0) } ?? setup.defaultDirectory
      let associations = try setup.exportSchemas(to: directory)
      if print {
        for association in associations { printOut("\(association.fileMatch)  \(association.schema)") }
        return
      }
      try setup.writeVSCodeSettings(associations, directory: directory)
      printOut(
        "wrote \(plural(associations.count, "schema association")) to \(store.display(store.layout.root + "/.vscode/settings.json")); schemas in \(store.display(directory))"
      )
    }
  }
}
