import FormsCore

/// `formsctl editor setup`: the JSON Schemas of every kind where they can be committed (the
/// store's `json-schema/`), and each editor's configuration at the project's root (the git
/// top-level around the store, which is where an editor opens the project): the association of
/// each kind's directory with its schema, and the store's language server (`formsctl lsp`).
public struct EditorSetup: Sendable {
  /// The editors whose configuration formsctl writes.
  public enum Editor: String, Sendable, CaseIterable {
    case vscode, neovim, helix, zed
  }

  /// One kind's documents and the schema that checks them (every version, chosen by `_schema`).
  public struct Association: Sendable, Equatable {
    public let kind: String
    /// The documents, from the project's root: `/examples/acquisitions/data/forms/*.json`.
    public let fileMatch: String
    /// The schema file, from the project's root: `./examples/acquisitions/json-schema/form.schema.json`.
    public let schema: String
  }

  /// A configuration file as it will be written, and what a person should know about it.
  public struct ConfigurationFile: Sendable, Equatable {
    public let path: String
    public let contents: [UInt8]
    public let note: String?
  }

  public let layout: StoreLayout
  public let registry: SchemaRegistry
  /// The git top-level around the store, else the store's root: where editors open the project
  /// and read their settings.
  public let workspace: String

  public init(layout: StoreLayout, registry: SchemaRegistry) throws(StoreError) {
    self.layout = layout
    self.registry = registry
    do {
      workspace = try GitRepository(around: layout.root).root
    } catch {
      // A store outside git (or without git installed) is its own project.
      switch error {
      case .refused(.notARepository), .refused(.gitMissing): workspace = layout.root
      default: throw error
      }
    }
  }

  /// Where the schemas go by default: committed with the store (DESIGN §13).
  public var defaultDirectory: String { layout.jsonSchemaDirectory }

  /// `path` from the project's root (`examples/acquisitions/json-schema`), or as given outside it.
  func fromWorkspace(_ path: String) -> String {
    let real = FileIO.realPath(path) ?? path
    let root = FileIO.realPath(workspace) ?? workspace
    if real == root { return "." }
    return FilePath(root).relative(FilePath(real)) ?? path
  }

  /// Writes `<kind>-<version>.schema.json` for every version and `<kind>.schema.json`, which picks
  /// the version by `_schema`, into `directory`; returns the associations.
  public func exportSchemas(to directory: String, draft: JSONSchemaExporter.Draft) throws(StoreError) -> [Association] {
    _ = try registry.writeJSONSchemas(to: directory, draft: draft, boundary: workspace)
    let schemas = fromWorkspace(directory)
    let data = fromWorkspace(layout.dataDirectory)
    return registry.latestByKind.map { kind, latest in
      Association(
        kind: kind, fileMatch: "/" + (data == "." ? "" : data + "/") + latest.directory + "/*.json",
        schema: (schemas.hasPrefix("/") ? "" : "./") + schemas + "/\(kind).schema.json")
    }
  }

  /// The store's root from the project's root, for the language server's configuration.
  var storeFromWorkspace: String { fromWorkspace(layout.root) }

  /// `editor`'s configuration with `associations` and the language server, merged into what is
  /// there: only formsctl's entries are replaced; JSON with comments and trailing commas is read
  /// and kept as written around them. A settings file that does not parse is refused, untouched.
  public func configuration(
    for editor: Editor, associations: [Association], schemaDirectory: String
  ) throws(StoreError) -> ConfigurationFile {
    switch editor {
    case .vscode:
      let path = (FilePath(workspace) / ".vscode/settings.json").string
      return ConfigurationFile(
        path: path,
        contents: try settingSchemas(associations, in: path, at: ["json.schemas"], schemaDirectory: schemaDirectory),
        note: "VS Code checks documents against the schemas as you type; for relations, workflow and the other "
          + "rules, run `formsctl lsp` through a generic language-server client extension")
    case .zed:
      let path = (FilePath(workspace) / ".zed/settings.json").string
      let key = ["lsp", "json-language-server", "settings", "json", "schemas"]
      return ConfigurationFile(
        path: path, contents: try settingSchemas(associations, in: path, at: key, schemaDirectory: schemaDirectory),
        note: "Zed checks documents against the schemas through its JSON language server; it starts other "
          + "language servers from extensions only")
    case .neovim:
      return ConfigurationFile(
        path: (FilePath(workspace) / ".nvim.lua").string, contents: Array(neovimConfiguration.utf8),
        note: "Neovim reads .nvim.lua with `vim.o.exrc = true` in your init.lua, once you :trust it")
    case .helix:
      return ConfigurationFile(
        path: (FilePath(workspace) / ".helix/languages.toml").string, contents: Array(helixConfiguration.utf8),
        note: "Helix reads .helix/languages.toml in the project; it replaces the file formsctl wrote before")
    }
  }

  /// The JSONC settings file `path` (or an empty object) with the schema list at `key` holding
  /// the entries formsctl did not write (their schema outside `schemaDirectory`), then one per
  /// association; the file is read once, and only that list's text changes.
  func settingSchemas(
    _ associations: [Association], in path: String, at key: [String], schemaDirectory: String
  ) throws(StoreError) -> [UInt8] {
    let bytes = FileIO.exists(path) ? try FileIO.read(path) : []
    func refused(_ error: JSONParseError) -> StoreError {
      .refused(.editorSettings(path: fromWorkspace(path), position: error.location, message: error.message))
    }
    let ours = fromWorkspace(schemaDirectory)
    let prefix = (ours.hasPrefix("/") ? "" : "./") + ours + "/"
    do {
      let blank = JSONText.blankingComments(bytes)
      let empty = blank.allSatisfy { [0x20, 0x0A, 0x0D, 0x09].contains($0) }
      var list = empty ? JSONValue.null : try JSONParser().parse(blank)
      for name in key { list = list[name] ?? .null }
      let kept = (list.arrayValue ?? []).filter { !($0["url"]?.stringValue?.hasPrefix(prefix) ?? false) }
      let entries = associations.map { association in
        JSONValue.object(
          JSONObject(["fileMatch": .array([.string(association.fileMatch)]), "url": .string(association.schema)]))
      }
      var out = try JSONText.setting(.array(kept + entries), at: key, in: bytes)
      if out.last != UInt8(ascii: "\n") { out.append(UInt8(ascii: "\n")) }
      return out
    } catch {
      throw refused(error)
    }
  }

  /// Writes `file` atomically under the project's root, never through a link.
  public func write(_ file: ConfigurationFile) throws(StoreError) {
    try FileIO.refuseLinks(FilePath(file.path).parent.string, below: workspace)
    try FileIO.makeDirectories(FilePath(file.path).parent.string)
    try AtomicWriter(boundary: workspace).write(file.contents, to: file.path)
  }

  /// `.nvim.lua`: starts `formsctl lsp` for the store's JSON and YAML files (Neovim 0.7 and later).
  var neovimConfiguration: String {
    let store = storeFromWorkspace == "." ? "" : "/" + storeFromWorkspace
    return """
      -- Written by `formsctl editor setup --editor neovim`. Neovim reads this file when `vim.o.exrc = true`
      -- is in your init.lua and you have trusted it (:trust). It starts the store's language server,
      -- `formsctl lsp`, for the store's documents and descriptors.
      local root = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
      local store = root .. '\(store)'
      local client
      vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
        pattern = { store .. '/*.json', store .. '/*.yaml' },
        callback = function(args)
          client = client or vim.lsp.start_client({ name = 'formsctl', cmd = { 'formsctl', 'lsp' }, cmd_cwd = store, root_dir = store })
          if client then vim.lsp.buf_attach_client(args.buf, client) end
        end,
      })

      """
  }

  /// `.helix/languages.toml`: `formsctl lsp` beside Helix's own JSON and YAML servers.
  var helixConfiguration: String {
    """
    # Written by `formsctl editor setup --editor helix`: the store's language server for JSON and YAML.
    # `formsctl lsp` finds the store from each file it is given.
    [language-server.formsctl]
    command = "formsctl"
    args = ["lsp"]

    [[language]]
    name = "json"
    language-servers = ["formsctl", "vscode-json-language-server"]

    [[language]]
    name = "yaml"
    language-servers = ["formsctl", "yaml-language-server"]

    """
  }
}
