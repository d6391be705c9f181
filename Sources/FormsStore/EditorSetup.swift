import FormsCore

/// `formsctl editor setup`: the JSON Schemas of every kind where editors can read them, and the
/// association of each kind's directory with its schema, so editors complete and check documents
/// while they are typed.
public struct EditorSetup: Sendable {
  /// One kind's documents and the schema that checks them (every version, chosen by `_schema`).
  public struct Association: Sendable, Equatable {
    public let kind: String
    /// VS Code's `fileMatch`, from the store's root: `/data/forms/*.json`.
    public let fileMatch: String
    /// The schema file, from the store's root when inside it (`./.formsctl/schemas-json/form.schema.json`).
    public let schema: String
  }

  public let layout: StoreLayout
  public let registry: SchemaRegistry

  public init(layout: StoreLayout, registry: SchemaRegistry) {
    self.layout = layout
    self.registry = registry
  }

  /// Where the schemas go by default (ignored by git with the rest of `.formsctl/`).
  public var defaultDirectory: String { layout.stateDirectory + "/schemas-json" }

  var settingsPath: String { layout.root + "/.vscode/settings.json" }

  /// Writes `<kind>-<version>.schema.json` for every version and `<kind>.schema.json`, which picks
  /// the version by `_schema`, into `directory`; returns the associations.
  public func exportSchemas(to directory: String) throws(StoreError) -> [Association] {
    // Nothing is written through a link (DESIGN §13), and nothing at all when the settings'
    // directory is one: checked before the first file.
    try FileIO.refuseLinks(directory, below: layout.root)
    try FileIO.refuseLinks(parentDirectory(settingsPath), below: layout.root)
    try FileIO.makeDirectories(directory)
    let writer = AtomicWriter(boundary: directory)
    var associations: [Association] = []
    for kind in registry.kinds {
      let versions = registry.versions(kind).compactMap { registry.schemas[kind]?[$0] }
      var cases: [JSONValue] = []
      for schema in versions {
        let name = "\(kind)-\(schema.version).schema.json"
        try writer.write(JSONWriter.canonical(JSONSchemaExporter.export(schema)), to: directory + "/" + name)
        cases.append(
          .object(
            JSONObject([
              "if": .object(
                JSONObject([
                  "properties": .object(
                    JSONObject(["_schema": .object(JSONObject(["const": .string(schema.reference)]))])),
                  "required": .array([.string("_schema")]),
                ])),
              "then": .object(JSONObject(["$ref": .string(name)])),
            ])))
      }
      let dispatcher = JSONValue.object(
        JSONObject([
          "$schema": .string("https://json-schema.org/draft/2020-12/schema"),
          "title": .string("\(kind) (any version formsctl knows; _schema picks it)"),
          "properties": .object(
            JSONObject(["_schema": .object(JSONObject(["enum": .array(versions.map { .string($0.reference) })]))])),
          "allOf": .array(cases),
        ]))
      try writer.write(JSONWriter.canonical(dispatcher), to: directory + "/\(kind).schema.json")
      guard let latest = versions.last else { continue }
      let data = "/" + layout.relative(layout.dataDirectory) + "/" + latest.directory + "/*.json"
      let schemaPath = directory + "/\(kind).schema.json"
      let shown = schemaPath.hasPrefix(layout.root + "/") ? "./" + layout.relative(schemaPath) : schemaPath
      associations.append(Association(kind: kind, fileMatch: data, schema: shown))
    }
    return associations
  }

  /// Merges `associations` into `.vscode/settings.json` (`json.schemas`): entries formsctl wrote
  /// before (their schema in `directory`) are replaced, every other setting is kept. A settings
  /// file that is not JSON is refused and left as it is.
  public func writeVSCodeSettings(_ associations: [Association], directory: String) throws(StoreError) {
    var settings = JSONObject()
    if FileIO.exists(settingsPath) {
      let bytes = try FileIO.read(settingsPath)
      do {
        guard case .object(let existing) = try JSONParser().parse(bytes) else {
          throw StoreError.refused(
            .editorSettings(path: layout.relative(settingsPath), position: nil, message: "not a JSON object"))
        }
        settings = existing
      } catch let error as JSONParseError {
        throw StoreError.refused(
          .editorSettings(
            path: layout.relative(settingsPath), position: error.location,
            message: "\(error.message) (formsctl reads strict JSON: no comments or trailing commas); fix or remove it"))
      } catch let error as StoreError {
        throw error
      } catch {
        throw StoreError.internalError("\(error)")
      }
    }
    let ours = directory.hasPrefix(layout.root + "/") ? "./" + layout.relative(directory) + "/" : directory + "/"
    let kept = (settings["json.schemas"]?.arrayValue ?? []).filter { entry in
      !(entry["url"]?.stringValue?.hasPrefix(ours) ?? false)
    }
    settings["json.schemas"] = .array(
      kept
        + associations.map { association in
          .object(
            JSONObject(["fileMatch": .array([.string(association.fileMatch)]), "url": .string(association.schema)]))
        })
    try FileIO.makeDirectories(parentDirectory(settingsPath))
    try AtomicWriter(boundary: layout.root).write(JSONWriter.canonical(.object(settings)), to: settingsPath)
  }
}
