import FormsCore
import FormsYAML

/// Every descriptor of a store's `schemas/<kind>/<version>.yaml`, compiled, with every problem found
/// in them. Directories starting with `_` (such as `_shared/`) hold included files, not kinds.
public struct SchemaRegistry: Sendable {
  /// Compiled schemas by kind, then version.
  public let schemas: [String: [SemanticVersion: Schema]]
  /// Problems in the descriptors, as `schemas/<kind>/<version>.yaml:LINE:COL: error: ...`.
  public let diagnostics: [Diagnostic]
  /// The descriptor files read, by `kind@version`, with their paths (for checksums and `schema show`).
  public let files: [String: String]
  /// What `stat` said, as they were loaded, of the schemas directory, each kind's folder and each
  /// descriptor: a write refuses once one changed (`Store.checkRulesUnchanged`).
  package private(set) var stamps: [(path: String, stamp: FileStamp?)] = []

  /// The kinds, sorted.
  public var kinds: [String] { schemas.keys.sorted() }

  /// The names of every sensitive field of every kind and version.
  public var sensitiveFieldNames: Set<String> {
    Set(schemas.values.flatMap(\.values).flatMap(\.sensitiveFieldNames))
  }

  /// Schemas by their `kind@version` reference, for the lookup every document makes.
  private let byReference: [String: Schema]
  /// The directory of each kind's newest version, for the relation checks every document makes.
  private let latestDirectories: [String: String]

  init(schemas: [String: [SemanticVersion: Schema]], diagnostics: [Diagnostic], files: [String: String]) {
    self.schemas = schemas
    self.diagnostics = diagnostics
    self.files = files
    var byReference: [String: Schema] = [:]
    for versions in schemas.values { for schema in versions.values { byReference[schema.reference] = schema } }
    self.byReference = byReference
    latestDirectories = schemas.compactMapValues { versions in versions.keys.max().flatMap { versions[$0]?.directory } }
  }

  /// The schema for a document's `_schema` value (`kind@version`).
  public func schema(reference: String) -> Schema? { byReference[reference] }

  /// The schema a document names in `_schema`.
  public func schema(of document: JSONValue) -> Schema? { document["_schema"]?.stringValue.flatMap(schema(reference:)) }

  /// The newest version of `kind`.
  public func latest(_ kind: String) -> Schema? {
    schemas[kind].flatMap { versions in versions.keys.max().flatMap { versions[$0] } }
  }

  /// The directory of the newest version of `kind` (what `latest(kind)?.directory` says, without
  /// copying the schema).
  public func latestDirectory(_ kind: String) -> String? { latestDirectories[kind] }

  /// Each kind with its newest version, by kind.
  public var latestByKind: [(kind: String, schema: Schema)] {
    kinds.compactMap { kind in latest(kind).map { (kind, $0) } }
  }

  /// The versions of `kind` compiled, oldest first.
  public func schemas(of kind: String) -> [Schema] {
    (schemas[kind] ?? [:]).sorted { $0.key < $1.key }.map(\.value)
  }

  /// The `_schema` of each version of `kind`, oldest first.
  public func references(_ kind: String) -> [String] { schemas(of: kind).map(\.reference) }

  /// The versions of `kind`, oldest first.
  public func versions(_ kind: String) -> [SemanticVersion] { (schemas[kind]?.keys).map { $0.sorted() } ?? [] }

  /// Loads every descriptor under `directory`; `display` turns a path into what messages show. A
  /// directory that cannot be listed is an error (never "no descriptors there").
  /// `overlay` holds texts to read instead of the files at those paths (an editor's unsaved buffers).
  public static func load(
    directory: String, display: (String) -> String, overlay: [String: [UInt8]] = [:]
  ) throws(StoreError) -> SchemaRegistry {
    var schemas: [String: [SemanticVersion: Schema]] = [:]
    var diagnostics: [Diagnostic] = []
    var files: [String: String] = [:]
    let root = FileIO.realPath(FilePath(directory)) ?? FilePath(directory)
    // The directory itself as the manifest names it (`StoreLayout` checks it); no link below it.
    let (found, irregular) = try FileIO.walk(FilePath(directory), suffix: ".yaml", followingTop: true)
    for path in irregular {
      diagnostics.append(
        Diagnostic(
          file: display(path), position: nil, rule: "schema",
          message:
            "\(FileIO.describe(FilePath(path))), not a regular file: formsctl reads no descriptor through a link; "
            + "replace it with the file (or the directory) it points to"))
    }
    for path in found {
      let relative = FilePath(directory).relative(FilePath(path)) ?? path
      let parts = relative.split(separator: "/")
      if parts.first?.hasPrefix("_") == true { continue }
      let shown = display(path)
      guard parts.count == 2 else {
        diagnostics.append(
          Diagnostic(
            file: shown, position: nil, rule: "schema",
            message: "descriptors live at schemas/<kind>/<version>.yaml; this file is not one"))
        continue
      }
      let (kindName, versionName) = (String(parts[0]), String(parts[1].dropLast(5)))
      guard let yaml = readYAML(path, shown: shown, overlay: overlay, into: &diagnostics) else { continue }
      let descriptorDirectory = FilePath(path).parent.string
      let result = DescriptorCompiler.compile(yaml, file: shown) { include in
        let includePath = FilePath(include).absolute(from: descriptorDirectory).string
        guard let real = FileIO.realPath(FilePath(includePath)), root.relative(real) != nil else {
          throw StoreError.fileNotFound(display(includePath))
        }
        var includeDiagnostics: [Diagnostic] = []
        guard
          let node = readYAML(includePath, shown: display(includePath), overlay: overlay, into: &includeDiagnostics)
        else {
          throw YAMLError(
            message: includeDiagnostics.first?.message ?? "empty file",
            position: includeDiagnostics.first?.position ?? SourcePosition(line: 1, column: 1))
        }
        return (display(includePath), node)
      }
      diagnostics += result.diagnostics
      guard let schema = result.schema else { continue }
      if schema.kind != kindName || schema.version.description != versionName {
        diagnostics.append(
          Diagnostic(
            file: shown, position: yaml["kind"]?.position ?? yaml.position, rule: "schema",
            message: "the descriptor says \(schema.reference) but lives at \(kindName)/\(versionName).yaml; "
              + "move it to \(schema.kind)/\(schema.version).yaml"))
        continue
      }
      schemas[schema.kind, default: [:]][schema.version] = schema
      files[schema.reference] = path
    }
    diagnostics += crossCheck(schemas, files: files, display: display)
    // A shared file included by several descriptors reports its problems once.
    var seen = Set<Diagnostic>()
    diagnostics = diagnostics.filter { seen.insert($0).inserted }
    var registry = SchemaRegistry(schemas: schemas, diagnostics: diagnostics, files: files)
    registry.stamps = stampFiles(directory: directory, files: files)
    return registry
  }

  /// The schemas `directory`, each kind's folder (a descriptor added or removed) and every
  /// descriptor in `files`, with what `stat` says of each now.
  static func stampFiles(directory: String, files: [String: String]) -> [(path: String, stamp: FileStamp?)] {
    let descriptors = Set(files.values)
    let folders = Set(descriptors.map { FilePath($0).parent.string })
    return ([directory] + folders.sorted() + descriptors.sorted()).map { ($0, FileStamp(FilePath($0))) }
  }

  static func readYAML(
    _ path: String, shown: String, overlay: [String: [UInt8]], into diagnostics: inout [Diagnostic]
  ) -> YAMLNode? {
    do {
      let bytes = try overlay[path] ?? FileIO.read(FilePath(path))
      guard let node = try YAMLReader().read(bytes) else {
        diagnostics.append(
          Diagnostic(
            file: shown, position: SourcePosition(line: 1, column: 1), rule: "schema",
            message: "the file is empty"))
        return nil
      }
      return node
    } catch let error as YAMLError {
      diagnostics.append(Diagnostic(file: shown, position: error.position, rule: "yaml", message: error.message))
    } catch {
      diagnostics.append(Diagnostic(file: shown, position: nil, rule: "read", message: "\(error)"))
    }
    return nil
  }

  /// Checks between descriptors: relations to known kinds, one directory per kind, `from:` exists.
  static func crossCheck(
    _ schemas: [String: [SemanticVersion: Schema]], files: [String: String], display: (String) -> String
  )
    -> [Diagnostic]
  {
    var diagnostics: [Diagnostic] = []
    var directories: [String: String] = [:]
    for (kind, versions) in schemas.sorted(by: { $0.key < $1.key }) {
      for (version, schema) in versions.sorted(by: { $0.key < $1.key }) {
        let shown = display(files[schema.reference] ?? "")
        func report(_ message: String) {
          diagnostics.append(Diagnostic(file: shown, position: nil, rule: "schema", message: message))
        }
        for relation in schema.relations where schemas[relation.kind] == nil {
          let hint =
            didYouMean(relation.kind, among: schemas.keys.sorted())
          report("relation \(relation.field) points to the unknown kind \"\(relation.kind)\"\(hint)")
        }
        if let from = schema.from, schemas[kind]?[from] == nil {
          report("from: \(from) names a version of \(kind) that does not exist")
        } else if let parent = MigrationPlanner.parents(versions)[version] {
          do throws(MigrationError) {
            _ = try MigrationPlanner.stepInto(version, from: parent, versions: versions)
          } catch {
            report(error.message)
          }
        }
        if let owner = directories[schema.directory], owner != kind {
          report("directory \"\(schema.directory)\" is already used by \(owner)")
        }
        directories[schema.directory] = kind
      }
    }
    return diagnostics
  }
}
