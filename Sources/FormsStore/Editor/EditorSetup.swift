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
  /// ``workspace`` as a path.
  var workspacePath: FilePath { FilePath(workspace) }

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

  /// Where the schemas go by default: committed with the store (docs/design.md §13).
  public var defaultDirectory: String { layout.jsonSchemaDirectory }

  /// `path` from the project's root (`examples/acquisitions/json-schema`), or as given outside it.
  func fromWorkspace(_ path: FilePath) -> String {
    let real = FileIO.realPath(path) ?? path
    let root = FileIO.realPath(workspacePath) ?? workspacePath
    if real == root { return "." }
    return root.relative(real) ?? path.string
  }

  /// Writes `<kind>-<version>.schema.json` for every version and `<kind>.schema.json`, which picks
  /// the version by `_schema`, into `directory`; returns the associations.
  package func exportSchemas(to directory: String, draft: JSONSchemaExporter.Draft) throws(StoreError) -> [Association]
  {
    // Every file the export replaces, and the directories above it, must be what they seem: a
    // link there would carry the write elsewhere (into a store document, say).
    try FileIO.refuseLinks(FilePath(directory), below: workspacePath)
    for exported in registry.jsonSchemaFiles(draft: draft) {
      try refuseLink(FilePath(directory) / exported.file)
    }
    _ = try registry.writeJSONSchemas(to: directory, draft: draft, boundary: workspace)
    let schemas = fromWorkspace(FilePath(directory))
    let data = fromWorkspace(layout.dataPath)
    return registry.latestByKind.map { kind, latest in
      Association(
        kind: kind,
        fileMatch: "/" + Self.uriPath((data == "." ? "" : data + "/") + latest.directory) + "/*.json",
        schema: (schemas.hasPrefix("/") ? "" : "./") + schemas + "/\(kind).schema.json")
    }
  }

  /// `path` as it appears in a `file:` URI as VS Code's JSON language service writes one
  /// (vscode-uri): every byte but `A-Z a-z 0-9 - . _ ~ /` percent-encoded, hex in capitals.
  /// `fileMatch` patterns are matched against that form of a document's URI, and the glob syntax
  /// there (`* ? [ ] { } ,`) has no escape, so a directory named `forms [EU]` or `x{a,b}` is
  /// written `forms%20%5BEU%5D` and `x%7Ba%2Cb%7D`: nothing special is left in it.
  static func uriPath(_ path: String) -> String {
    var out = ""
    for byte in path.utf8 {
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
        UInt8(ascii: "~"), UInt8(ascii: "/"):
        out.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        let hex = Array("0123456789ABCDEF".utf8)
        out += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]], as: UTF8.self)
      }
    }
    return out
  }

  /// Refuses `path` when it is a symbolic link (or anything but a regular file): editor setup
  /// writes nothing through a link, wherever it leads.
  func refuseLink(_ path: FilePath) throws(StoreError) {
    switch FileIO.entry(path) {
    case .file, .missing: return
    case .symlink:
      throw StoreError.wrongFileType(fromWorkspace(path), found: "a symbolic link", expected: "a regular file")
    case .directory:
      throw StoreError.wrongFileType(fromWorkspace(path), found: "a directory", expected: "a regular file")
    case .other:
      throw StoreError.wrongFileType(fromWorkspace(path), found: "not a regular file", expected: "a regular file")
    }
  }

  /// Refuses `path` when it, or a directory between it and the project's root, is a link.
  func refuseLinks(at path: FilePath) throws(StoreError) {
    try refuseLink(path)
    try FileIO.refuseLinks(path.parent, below: workspacePath)
  }

  /// The store's root from the project's root, for the language server's configuration.
  var storeFromWorkspace: String { fromWorkspace(layout.rootPath) }

  /// `editor`'s configuration with `associations` and the language server, merged into what is
  /// there: only formsctl's entries are replaced; JSON with comments and trailing commas is read
  /// and kept as written around them. A settings file that does not parse is refused, untouched.
  public func configuration(
    for editor: Editor, associations: [Association], schemaDirectory: String
  ) throws(StoreError) -> ConfigurationFile {
    // Nothing is read or written through a link: the file formsctl merges into (a committed
    // settings.json that links to a store document, say) would be changed behind the store's back.
    try refuseLinks(at: workspacePath / Self.file(editor))
    switch editor {
    case .vscode:
      let path = workspacePath / ".vscode/settings.json"
      return ConfigurationFile(
        path: path.string,
        contents: try settingSchemas(associations, in: path, at: ["json.schemas"], schemaDirectory: schemaDirectory),
        note: "VS Code checks documents against the schemas as you type; for relations, workflow and the other "
          + "rules, run `formsctl lsp` through a generic language-server client extension")
    case .zed:
      let path = workspacePath / ".zed/settings.json"
      let key = ["lsp", "json-language-server", "settings", "json", "schemas"]
      return ConfigurationFile(
        path: path.string,
        contents: try settingSchemas(associations, in: path, at: key, schemaDirectory: schemaDirectory),
        note: "Zed checks documents against the schemas through its JSON language server; it starts other "
          + "language servers from extensions only")
    case .neovim:
      let path = workspacePath / ".nvimrc"
      return ConfigurationFile(
        path: path.string, contents: Array(try neovimConfiguration(in: path).utf8),
        note: "Neovim runs .nvimrc when it starts in the project's root with 'exrc' set (`set exrc` in init.vim; "
          + "in init.lua, `vim.o.exrc = true` from Neovim 0.9 on, which asks once to :trust it)")
    case .helix:
      return ConfigurationFile(
        path: (workspacePath / ".helix/languages.toml").string, contents: Array(helixConfiguration.utf8),
        note: "Helix reads .helix/languages.toml in the project; it replaces the file formsctl wrote before")
    }
  }

  /// The JSONC settings file `path` (or an empty object) with the schema list at `key` holding
  /// the entries formsctl did not write (their schema outside `schemaDirectory`), then one per
  /// association; the file is read once, and only that list's text changes.
  func settingSchemas(
    _ associations: [Association], in path: FilePath, at key: [String], schemaDirectory: String
  ) throws(StoreError) -> [UInt8] {
    let bytes = FileIO.exists(path) ? try FileIO.read(path) : []
    func refused(_ error: JSONParseError) -> StoreError {
      .refused(.editorSettings(path: fromWorkspace(path), position: error.location, message: error.message))
    }
    let ours = fromWorkspace(FilePath(schemaDirectory))
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

  /// Where `editor`'s configuration goes, from the project's root.
  static func file(_ editor: Editor) -> String {
    switch editor {
    case .vscode: return ".vscode/settings.json"
    case .zed: return ".zed/settings.json"
    case .neovim: return ".nvimrc"
    case .helix: return ".helix/languages.toml"
    }
  }

  /// Writes `file` atomically under the project's root, never through a link: neither the file
  /// nor a directory above it may be one (checked again just before the write).
  public func write(_ file: ConfigurationFile) throws(StoreError) {
    let path = FilePath(file.path)
    try refuseLinks(at: path)
    try AtomicWriter(boundary: workspacePath).makeDirectories(path.parent)
    try refuseLinks(at: path)
    try AtomicWriter(boundary: workspacePath).write(file.contents, to: path)
  }

  /// The line of `.nvimrc` that lists its stores (from the project's root) as a JSON array.
  static let neovimStoresMarker = "\" formsctl-stores: "

  /// `.nvimrc`: Vim script that Neovim 0.7 and later run with 'exrc' (0.9 and later once it is
  /// trusted), starting `formsctl lsp` for the JSON and YAML files of each store set up in the
  /// project: the stores already in the file at `path` that still exist, and this one. A file
  /// formsctl did not write is refused, untouched. No glob or pattern holds a store's path: a
  /// file belongs to the store of the nearest `formsctl.yaml` above it, compared as a string.
  func neovimConfiguration(in path: FilePath) throws(StoreError) -> String {
    var stores: Set<String> = [storeFromWorkspace]
    if FileIO.exists(path) {
      let text = String(decoding: try FileIO.read(path, followLinks: false), as: UTF8.self)
      guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(Self.neovimStoresMarker) }),
        let listed = try? JSONParser().parse(Array(line.dropFirst(Self.neovimStoresMarker.count).utf8)).arrayValue
      else {
        throw StoreError.refused(
          .editorSettings(
            path: fromWorkspace(path), position: nil,
            message: "not written by `formsctl editor setup`, so it is not replaced; move it away, or add the "
              + "lines `formsctl editor setup --editor neovim --print` shows to it by hand"))
      }
      for store in listed.compactMap(\.stringValue) {
        let root = store == "." ? workspacePath : workspacePath / store
        if FileIO.entry(root / "formsctl.yaml") == .file { stores.insert(store) }
      }
    }
    let sorted = stores.sorted()
    let list = JSONWriter.compact(.array(sorted.map { JSONValue.string($0) }))
    let entries = sorted.map { "  " + Self.luaString($0) + "," }.joined(separator: "\n")
    return """
      " Written by `formsctl editor setup --editor neovim`, which keeps the list of stores below (run it once
      " for each store of the project). Neovim runs this file when it starts in this directory with 'exrc'
      " set (see formsctl's README, "Editing in your editor"). It starts each store's language server,
      " `formsctl lsp`, for the store's JSON and YAML files.
      \(Self.neovimStoresMarker)\(list)
      lua << FORMSCTL_EOF
      local stores = {
      \(entries)
      }
      local clients = {}
      -- The store around a file (the nearest directory holding formsctl.yaml), when it is one of the
      -- stores above and the project's root there holds this file.
      local function store_of(file)
        if file == nil or file == '' then return nil end
        local dir = vim.fn.fnamemodify(vim.fn.resolve(vim.fn.fnamemodify(file, ':p')), ':h')
        while vim.fn.filereadable(dir .. '/formsctl.yaml') == 0 do
          local parent = vim.fn.fnamemodify(dir, ':h')
          if parent == dir then return nil end
          dir = parent
        end
        for _, store in ipairs(stores) do
          local root = dir
          if store ~= '.' then
            root = dir:sub(-#store - 1) == '/' .. store and dir:sub(1, -#store - 2) or nil
          end
          if root and vim.fn.filereadable(root .. '/.nvimrc') == 1 then return dir end
        end
        return nil
      end
      vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
        pattern = { '*.json', '*.yaml' },
        callback = function(args)
          local store = store_of(args.file)
          if not store then return end
          clients[store] = clients[store]
            or vim.lsp.start_client({ name = 'formsctl', cmd = { 'formsctl', 'lsp' }, cmd_cwd = store, root_dir = store })
          if clients[store] then vim.lsp.buf_attach_client(args.buf, clients[store]) end
        end,
      })
      FORMSCTL_EOF

      """
  }

  /// `text` as a Lua string literal: quotes and backslashes escaped, control bytes as `\ddd`,
  /// other UTF-8 as it is.
  static func luaString(_ text: String) -> String {
    var out: [UInt8] = [UInt8(ascii: "\"")]
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), byte]
      case 0..<0x20, 0x7F:
        out += [UInt8(ascii: "\\"), 0x30 + byte / 100, 0x30 + byte / 10 % 10, 0x30 + byte % 10]
      default: out.append(byte)
      }
    }
    return String(decoding: out + [UInt8(ascii: "\"")], as: UTF8.self)
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
