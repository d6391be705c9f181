import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore

extension JSONSchemaExporter.Draft: ExpressibleByArgument {}
extension EditorSetup.Editor: ExpressibleByArgument {}

extension Formsctl.Editor {
  struct Setup: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "setup",
      abstract: "Export the JSON Schemas and configure an editor: schema associations and the language server.",
      discussion: """
        Writes <kind>-<version>.schema.json for every version and <kind>.schema.json, which picks the version a document names in _schema, into the store's json-schema/ directory (or --out DIR), to be committed, so that a fresh clone has them; `formsctl schema check` reports them stale when a descriptor changes. The schemas are JSON Schema draft-07 unless --draft says 2020-12.

        Then it writes the editor's configuration at the project's root, the git top-level around the store (the store's root outside git), with paths relative to it, and works the same from any directory of the repository. VS Code: json.schemas in .vscode/settings.json. Zed: the JSON language server's schemas in .zed/settings.json. Both files may hold comments and trailing commas: only formsctl's entries are replaced, the rest is kept as written. Neovim: .nvimrc (read by Neovim 0.7 and later with 'exrc' set), which starts `formsctl lsp` for the files of every store set up in the repository. Helix: .helix/languages.toml, the same. Nothing is read or written through a symbolic link: a configuration file, a directory above it or a schema file that is one is refused (exit 65).

        --print prints the configuration instead of writing it (the schemas are still written).

        Examples:
          formsctl editor setup
          formsctl editor setup --editor neovim --print
          formsctl editor setup --editor zed --print --out ../json-schemas
        """
    )
    @OptionGroup var options: StoreOptions
    @Option(help: "The editor to configure: vscode, neovim, helix or zed.") var editor: EditorSetup.Editor = .vscode
    @Option(help: ArgumentHelp("Where to write the schemas (default: the store's json-schema/).", valueName: "DIR"))
    var out: String?
    @Option(help: "The JSON Schema draft: 07 (what editors support fully) or 2020-12.")
    var draft: JSONSchemaExporter.Draft = .draft07
    @Flag(help: "Print the editor's configuration instead of writing it.") var print = false

    func run() throws {
      let store = try options.open()
      if let out { try store.layout.checkOutput(out) }
      let setup = try EditorSetup(layout: store.layout, registry: store.registry)
      let directory = out.map { (FilePath(FileIO.currentDirectory) / $0).string } ?? setup.defaultDirectory
      let associations = try setup.exportSchemas(to: directory, draft: draft)
      let file = try setup.configuration(for: editor, associations: associations, schemaDirectory: directory)
      if print { return printOut("# \(store.display(file.path))\n" + String(decoding: file.contents, as: UTF8.self)) }
      try setup.write(file)
      printOut(
        "wrote the schemas of \(plural(associations.count, "kind")) to \(store.display(directory)) and \(store.display(file.path))"
      )
      if let note = file.note, !options.quiet { printOut("note: \(note)") }
    }
  }
}
