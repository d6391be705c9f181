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

    """

  /// Creates a new store in `directory` (made if missing): manifest, the built-in schemas, `data/`,
  /// `.formsctl/` and a `.gitignore` that keeps tool state out of git except `history.jsonl`.
  /// Refuses a directory that already holds a store.
  public static func initialize(at directory: String) throws(StoreError) -> StoreLayout {
    try FileIO.makeDirectories(directory)
    let root = FileIO.realPath(directory) ?? directory
    if FileIO.exists(root + "/" + StoreLayout.manifestName) { throw StoreError.storeExists(directory) }
    let writer = AtomicWriter(boundary: root)
    for (path, contents) in BuiltinSchemas.files {
      let target = root + "/schemas/" + path
      try FileIO.makeDirectories(parentDirectory(target))
      try writer.write(Array(contents.utf8), to: target)
    }
    try FileIO.makeDirectories(root + "/data")
    try FileIO.makeDirectories(root + "/.formsctl")
    let gitignore = root + "/.gitignore"
    let ignore = ".formsctl/*\n!.formsctl/history.jsonl\n"
    if FileIO.entry(gitignore) != .missing {
      let existing = try FileIO.read(gitignore)
      let text = String(decoding: existing, as: UTF8.self)
      if !text.contains(".formsctl/*") {
        try writer.write(
          Array((text + (text.hasSuffix("\n") || text.isEmpty ? "" : "\n") + ignore).utf8), to: gitignore)
      }
    } else {
      try writer.write(Array(ignore.utf8), to: gitignore)
    }
    // The manifest last: a store exists only once everything it names does.
    try writer.write(Array(initialManifest.utf8), to: root + "/" + StoreLayout.manifestName)
    return try StoreLayout(root: root)
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
        try AuditLog.appendOnce(record, layout: layout, at: AuditLog.size(AuditLog.path(layout)))
      }
    }
    let outcome = try journal.recover(abandon: abandon)
    let swept = try journal.removeLeftovers()
    guard outcome != nil || swept != nil else { return nil }
    return [outcome, swept].compactMap { $0 }.joined(separator: "; ")
  }
}
