import FormsCore
import Foundation

extension Store {
  /// The manifest `init` writes.
  static let initialManifest = """
    formsctl: 1                 # manifest format version
    schemas: schemas            # schema descriptors: schemas/<kind>/<version>.yaml
    data: data                  # documents: data/<directory>/<id>.json
    snapshots:
      keep_within: 7d           # keep every snapshot younger than this
      keep_weekly_within: 30d   # then the newest of each ISO week until this age
      auto_prune: true          # applied after every command that takes a snapshot

    """

  /// What `initialize` did.
  public struct Initialized: Sendable {
    public let layout: StoreLayout
    /// Files that were already there and differ from what init writes (store-relative paths):
    /// kept as they are, never overwritten.
    public let kept: [String]
  }

  /// Creates a new store in `directory` (made if missing): manifest, the built-in schemas, `data/`,
  /// `.formsctl/` and a `.gitignore` that keeps tool state out of git except `history.jsonl`.
  /// Refuses a directory that already holds a store or lies inside one. Never overwrites: a file
  /// that is there already is kept (and reported when it differs from the built-in); nothing is
  /// written through a symbolic link, and a link where init would write refuses the whole init
  /// before its first file.
  public static func initialize(at directory: String) throws(StoreError) -> Initialized {
    let absolute = FilePath(directory).absolute(from: FileIO.currentDirectory).string
    if FileIO.exists(StoreLayout.manifestPath(root: absolute)) { throw StoreError.storeExists(directory) }
    if absolute != "/",
      let outer = StoreLayout.nearest(holding: StoreLayout.manifestName, from: FilePath(absolute).parent.string)
    {
      throw StoreError.refused(.storeInsideStore(directory: directory, outer: outer))
    }
    try FileIO.makeDirectories(FilePath(directory))
    let root = FileIO.realPath(FilePath(directory)) ?? FilePath(directory)
    let gitignore = root / ".gitignore"
    let ignore = ".formsctl/*\n!.formsctl/history.jsonl\n"
    var files = BuiltinSchemas.files.map {
      (path: root / "schemas" / $0.path, contents: Array($0.contents.utf8))
    }
    if FileIO.entry(gitignore) != .missing {
      let text = String(decoding: try FileIO.read(gitignore), as: UTF8.self)
      let added = text + (text.hasSuffix("\n") || text.isEmpty ? "" : "\n") + ignore
      files.append((gitignore, Array((text.contains(".formsctl/*") ? text : added).utf8)))
    } else {
      files.append((gitignore, Array(ignore.utf8)))
    }
    let directories = [root / "data", root / ".formsctl"] + Set(files.map { $0.path.parent }).sorted()
    // Every check before the first write: a link anywhere init would write refuses it all.
    for path in directories { try FileIO.refuseLinks(path, below: root) }
    var kept: [String] = []
    var missing: [(path: FilePath, contents: [UInt8])] = []
    for file in files {
      switch FileIO.entry(file.path) {
      case .missing: missing.append(file)
      case .file:
        if try FileIO.read(file.path) != file.contents, file.path != gitignore {
          kept.append(root.relative(file.path) ?? file.path.string)
        }
        if file.path == gitignore { missing.append(file) }  // the rule is added to what is there
      default:
        throw StoreError.wrongFileType(file.path.string, found: FileIO.describe(file.path), expected: "a regular file")
      }
    }
    let writer = AtomicWriter(boundary: root)
    for path in directories { try writer.makeDirectories(path) }
    for file in missing { try writer.write(file.contents, to: file.path) }
    // The manifest last: a store exists only once everything it names does.
    try writer.write(Array(initialManifest.utf8), to: StoreLayout.manifestPath(root: root.string))
    return Initialized(layout: try StoreLayout(root: root.string), kept: kept)
  }

  /// Finishes or rolls back an interrupted operation, under the lock; with `abandon`, drops its
  /// journal and records that in the audit log.
  public static func recover(_ layout: StoreLayout, wait: Double, abandon: Bool = false, now: () -> Date = Date.init)
    throws(StoreError) -> String?
  {
    // Not `withWriteLock`: recovery is the one writer that runs while a journal waits.
    let lock = try StoreLock(store: layout, command: abandon ? "recover --abandon" : "recover", wait: wait)
    defer { withExtendedLifetime(lock) {} }
    let journal = Journal(layout: layout)
    if abandon, let operation = try journal.pending() {
      // Recorded before the journal goes, once: a run that failed after the append finds its
      // record (by the plan's hash) and does not add a second.
      let plan = sha256Hex(try FileIO.read(journal.planPath, limit: Int.max, followLinks: false))
      if try AuditLog.read(layout).records.last?.value["abandoned_plan"]?.stringValue != plan {
        let record = AuditLog.record(
          time: now(), user: AuditLog.currentUser(root: layout.root), operation: "recover --abandon",
          command: "recover --abandon", documents: [],
          details: JSONObject(["abandoned": .string(operation), "abandoned_plan": .string(plan)]))
        try AuditLog.appendOnce(record, layout: layout, at: AuditLog.size(layout.historyPath))
      }
    }
    let outcome = try journal.recover(abandon: abandon)
    let swept = try journal.removeLeftovers()
    guard outcome != nil || swept != nil else { return nil }
    return [outcome, swept].compactMap { $0 }.joined(separator: "; ")
  }
}
