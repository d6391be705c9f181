import FormsCore
import Foundation

/// `formsctl merge-file`, git's merge driver: finds the store of the document from its repository
/// path, merges the three versions with the store's schema, and never merges a store document
/// without it.
public enum MergeDriver {
  /// The result: the text to leave in OURS, how many conflicts it holds, and why, when the merge
  /// was refused (a conflict too: OURS is left as it was).
  public struct Outcome: Sendable {
    public let text: String?
    public let conflicts: Int
    public let refusal: String?
    /// The next step after a refusal, when there is one.
    public var remedy: Remedy? = nil
  }

  /// The store holding the document at `path` (git's `%P`, relative to the work tree's top, which is
  /// `workTree`): the nearest `formsctl.yaml` walking up from its directory, not above `workTree`.
  /// Without a path, the store around `workTree` (a merge run by hand).
  public static func store(for path: String?, workTree: String) throws(StoreError) -> StoreLayout? {
    guard let path else {
      return try? StoreLayout.locate(explicit: nil, environment: [:], workingDirectory: workTree)
    }
    let parts = path.split(separator: "/", omittingEmptySubsequences: true)
    guard !path.hasPrefix("/"), !parts.contains(".."), !parts.isEmpty else {
      throw StoreError.refused(.badMergePath(path))
    }
    let directory = (FilePath(workTree) / parts.dropLast().joined(separator: "/")).string
    return try StoreLayout.nearest(holding: StoreLayout.manifestName, from: directory, ceiling: workTree).map(
      StoreLayout.init(root:))
  }

  /// Merges `base` (nil: added on both sides), `ours` and `theirs`, the versions of the document at
  /// `path`, with the schema of the store that holds it.
  /// git's merge driver (`formsctl merge-file %O %A %B %P`): reads the three versions from the
  /// files git names, merges them, and writes the result over `ours`, the file git reads back
  /// (with conflict markers where a conflict is left). An empty base is a file both sides added.
  package static func mergeFiles(
    base: String, ours: String, theirs: String, path: String?, workTree: String, preferNewer: Bool
  ) throws(StoreError) -> Outcome {
    let shown = path ?? ours
    func object(_ bytes: [UInt8], _ side: String) throws(StoreError) -> JSONValue {
      let value: JSONValue
      do throws(JSONParseError) { value = try JSONParser().parse(bytes) } catch {
        throw .refused(.mergeSide(shown: shown, side: side, position: error.location, message: error.message))
      }
      guard value.objectValue != nil else {
        throw .refused(.mergeSide(shown: shown, side: side, position: nil, message: "is not a JSON object"))
      }
      return value
    }
    let baseBytes = try FileIO.read(FilePath(base))
    let outcome = try merge(
      base: baseBytes.allSatisfy({ [0x20, 0x0A, 0x0D, 0x09].contains($0) }) ? nil : try object(baseBytes, "the base"),
      ours: try object(FileIO.read(FilePath(ours)), "ours"),
      theirs: try object(FileIO.read(FilePath(theirs)), "theirs"), path: path,
      workTree: workTree, preferNewer: preferNewer)
    if let text = outcome.text {
      try AtomicWriter(boundary: (FileIO.realPath(FilePath(ours)) ?? FilePath(ours)).parent).write(
        Array(text.utf8), to: FilePath(ours))
    }
    return outcome
  }

  public static func merge(
    base: JSONValue?, ours: JSONValue, theirs: JSONValue, path: String?, workTree: String, preferNewer: Bool
  )
    throws(StoreError) -> Outcome
  {
    let shown = path ?? "the document"
    guard let layout = try store(for: path, workTree: workTree) else {
      return Outcome(
        text: nil, conflicts: 1,
        refusal: "\(shown) is inside no formsctl store (no formsctl.yaml above it); "
          + "not merging it without its schema: resolve it by hand")
    }
    let registry = try SchemaRegistry.load(directory: layout.schemasDirectory) { $0 }
    if !registry.diagnostics.isEmpty {
      return Outcome(
        text: nil, conflicts: 1,
        refusal: "the descriptors of the store at \(layout.root) have \(registry.diagnostics.count) "
          + "problem(s); not merging \(shown) without its schema", remedy: .checkSchemas)
    }
    let references = [ours, theirs].map { $0["_schema"]?.stringValue ?? "" }
    if references[0] != references[1] {
      // Different versions (or kinds): nothing else is guessed; ours stays, with `_schema` in conflict.
      var base = ours
      base["_schema"] = .string("")
      var other = ours
      other["_schema"] = theirs["_schema"]
      let (text, conflicts) = ThreeWayMerge(schema: nil).merge(base: base, ours: ours, theirs: other)
      return Outcome(
        text: text, conflicts: conflicts,
        refusal: "\(shown): the sides are at different schema versions ("
          + references.joined(separator: " and ")
          + "); ours is kept with _schema in conflict. Migrate one branch, then merge again")
    }
    guard let schema = registry.schema(reference: references[0]) else {
      return Outcome(
        text: nil, conflicts: 1,
        refusal: "\(shown): unknown _schema \"\(references[0])\" in the store at \(layout.root)")
    }
    var (base, ours, theirs) = (base, ours, theirs)
    if schema.hasSensitiveFields,
      let keyring = try? Keyring.load(layout, registry: registry, environment: ProcessInfo.processInfo.environment)
    {
      keyring.align(base: &base, ours: &ours, theirs: &theirs, schema: schema)
    }
    let (text, conflicts) = ThreeWayMerge(schema: schema, preferNewer: preferNewer).merge(
      base: base, ours: ours, theirs: theirs)
    return Outcome(text: text, conflicts: conflicts, refusal: nil)
  }
}
