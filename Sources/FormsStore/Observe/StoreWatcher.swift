import FormsCore
import Foundation

/// The loop behind ``Store/changes(kinds:options:)``: kernel events mark files dirty; once the
/// store has been quiet for the debounce window and no operation is under way, the dirty files
/// are looked at, the audit records appended meanwhile are read, and the batches are reported.
///
/// Consistency with the journal: nothing is reported while `.formsctl/journal/plan.ndjson` exists
/// (an operation is between its start and its end, or awaits `recover`), nor while git holds its
/// index lock (a checkout is rewriting files); a look that overlapped an operation (the plan or
/// the audit log changed meanwhile) is thrown away and made again. So an operation is seen once,
/// whole, after its commit; one rolled back is never seen.
struct StoreWatcher {
  let store: Store
  let options: Store.ObserveOptions
  let cancellation: WatchCancellation
  private let events: DirectoryEvents
  private var detector: ChangeDetector
  /// The kinds reported (nil: all).
  private let kinds: Set<String>?
  /// How far the audit log has been read.
  private var auditOffset: Int
  private let gitIndexLock: FilePath?

  init(store: Store, kinds: Set<String>?, options: Store.ObserveOptions, cancellation: WatchCancellation)
    throws(StoreError)
  {
    self.store = store
    self.options = options
    self.cancellation = cancellation
    self.kinds = kinds
    for kind in kinds ?? [] { _ = try store.schema(kind) }
    var directories: [String: String] = [:]
    for (kind, schema) in store.registry.latestByKind where kinds?.contains(kind) ?? true {
      directories[store.layout.documents(in: schema.directory)] = kind
    }
    events = try DirectoryEvents(cancellation: cancellation)
    detector = ChangeDetector(kinds: directories)
    gitIndexLock = StoreLayout.nearest(holding: ".git", from: store.layout.root).flatMap { top in
      FileIO.entry(FilePath(top) / ".git") == .directory ? FilePath(top) / ".git/index.lock" : nil
    }
    // Watches first, then the first look: nothing that changes in between is missed.
    try events.watch(store.layout.root)
    try events.watch(store.layout.dataDirectory)
    auditOffset = AuditLog.size(store.layout.historyPath)
    for directory in directories.keys.sorted() { try watchTree(directory) }
    detector.adopt(try detector.scan(nil).updates)
  }

  /// Reports batches to `body` until cancelled.
  mutating func run(_ body: (Store.ChangeBatch) throws(StoreError) -> Void) throws(StoreError) {
    var dirty = Set<String>()
    var everything = false
    var lastEvent: ContinuousClock.Instant?
    var nextRescan = ContinuousClock.now + options.rescanInterval
    while !cancellation.isCancelled {
      let now = ContinuousClock.now
      let timeout = lastEvent.map { $0 + options.debounce - now } ?? (nextRescan - now)
      let batch = try events.wait(max(timeout, .zero))
      if batch.cancelled { return }
      if batch.overflowed { everything = true }
      for event in batch.events {
        if event.directoryGone
          && (event.directory == store.layout.root || event.directory == store.layout.dataDirectory)
        {
          try requireStore()
        }
        if event.isDirectoryCreated, event.directory == store.layout.root,
          (FilePath(event.directory) / event.name).string == store.layout.dataDirectory
        {
          // data/ made again (removed, then restored by a checkout or a copy): its watch and its
          // kinds' went with it. Watch them again and look at everything.
          try events.watch(store.layout.dataDirectory)
          for directory in detector.kinds.keys.sorted() { try watchTree(directory) }
          everything = true
        } else if event.isDirectoryCreated, event.directory == store.layout.dataDirectory {
          // A kind's directory made again (a checkout that emptied it, then filled it): watch it
          // and look at all of it.
          let directory = (FilePath(event.directory) / event.name).string
          if detector.kinds[directory] != nil, try watchTree(directory) { everything = true }
        } else if event.isDirectoryCreated, holdsDocuments(event.directory) {
          // A folder made (or moved in) below a kind's directory: `list` reads its documents, so
          // the watch does too.
          _ = try watchTree((FilePath(event.directory) / event.name).string)
          everything = true
        } else if event.isDirectory && !event.isDirectoryCreated
          && (event.directory == store.layout.root || event.directory == store.layout.dataDirectory
            || holdsDocuments(event.directory))
        {
          // A kind's directory, or one below it, moved or removed as a whole: its files raise no
          // event of their own. Look at everything.
          everything = true
        } else if event.directoryGone,
          holdsDocuments(event.directory) || event.directory == store.layout.dataDirectory
        {
          everything = true
        } else if holdsDocuments(event.directory), ChangeDetector.isDocumentName(event.name) {
          dirty.insert((FilePath(event.directory) / event.name).string)
        }
      }
      if !batch.events.isEmpty || batch.overflowed { lastEvent = ContinuousClock.now }
      if ContinuousClock.now >= nextRescan {
        everything = true
        lastEvent = lastEvent ?? ContinuousClock.now - options.debounce
      }
      guard dirty.count > 0 || everything, let last = lastEvent, ContinuousClock.now - last >= options.debounce else {
        continue
      }
      try requireStore()
      guard let reported = try look(everything ? nil : dirty) else {
        lastEvent = ContinuousClock.now  // an operation is under way: look again once it is quiet
        continue
      }
      dirty = []
      everything = false
      lastEvent = nil
      nextRescan = ContinuousClock.now + options.rescanInterval
      for batch in reported { try body(batch) }
    }
  }

  /// True when `directory` is a watched kind's directory or a folder below one.
  private func holdsDocuments(_ directory: String) -> Bool {
    detector.kinds[directory] != nil || detector.kindDirectory(holding: directory + "/-") != nil
  }

  /// Watches `directory` and every folder below it (no link followed); true when the first
  /// watch was new.
  @discardableResult
  private func watchTree(_ directory: String) throws(StoreError) -> Bool {
    let added = try events.watch(directory)
    for entry in try FileIO.entries(of: FilePath(directory)) where entry.kind == .directory {
      try watchTree((FilePath(directory) / entry.name).string)
    }
    return added
  }

  /// The store is still there (its manifest), or the watch ends with an error.
  private func requireStore() throws(StoreError) {
    guard FileIO.entry(StoreLayout.manifestPath(root: store.layout.root)) == .file else {
      throw StoreError.storeGone(store.layout.root)
    }
  }

  /// True while a change is under way: an operation's journal, or git's index lock.
  private func busy() -> Bool {
    FileIO.entry(Journal(layout: store.layout).planPath) != .missing
      || gitIndexLock.map { FileIO.entry($0) != .missing } ?? false
  }

  /// Looks at `paths` (nil: everything) and returns the batches, or nil when an operation
  /// overlapped the look (nothing adopted; the caller looks again later).
  private mutating func look(_ paths: Set<String>?) throws(StoreError) -> [Store.ChangeBatch]? {
    guard !busy() else { return nil }
    let logSize = AuditLog.size(store.layout.historyPath)
    let (records, end) = try auditRecords()
    let (changes, updates) = try detector.scan(paths)
    guard !busy(), AuditLog.size(store.layout.historyPath) == logSize else { return nil }
    detector.adopt(updates)
    auditOffset = end
    return batches(records, changes)
  }

  /// The complete audit records appended since the last look, and where they end. A log that
  /// shrank (a checkout of another branch's history) is read from its new end.
  private func auditRecords() throws(StoreError) -> ([JSONValue], Int) {
    let size = AuditLog.size(store.layout.historyPath)
    guard size > auditOffset else { return ([], size) }
    let bytes = try AuditLog.bytes(store.layout, from: auditOffset)
    var records: [JSONValue] = []
    var start = 0
    for index in bytes.indices where bytes[index] == 0x0A {
      let line = Array(bytes[start..<index])
      start = index + 1
      // A line that does not parse is someone's edit of the log, not a record: skipped.
      if let record = try? JSONParser().parse(line) { records.append(record) }
    }
    return (records, auditOffset + start)
  }

  /// One batch per audit record (its documents, in its order), then one for the changes no
  /// record accounts for (made outside formsctl).
  private func batches(_ records: [JSONValue], _ detected: [Store.Change]) -> [Store.ChangeBatch] {
    let seen = Date()
    var unexplained = detected
    var out: [Store.ChangeBatch] = []
    for record in records {
      var changes: [Store.Change] = []
      for document in record["documents"]?.arrayValue ?? [] {
        guard let kind = document["kind"]?.stringValue, let id = document["id"]?.stringValue,
          kinds?.contains(kind) ?? true
        else { continue }
        let previous = document["previous_id"]?.stringValue
        let operation = document["action"]?.stringValue.flatMap(Store.Change.Operation.init) ?? .update
        let pointers = (document["pointers"]?.arrayValue ?? []).compactMap { $0.stringValue.flatMap(JSONPointer.init) }
        changes.append(
          Store.Change(kind: kind, id: id, operation: operation, pointers: pointers, previousID: previous))
        unexplained.removeAll { $0.kind == kind && ($0.id == id || $0.id == previous) && $0.problem == nil }
      }
      if !changes.isEmpty { out.append(Store.ChangeBatch(seen: seen, changes: changes, audit: record)) }
    }
    if !unexplained.isEmpty { out.append(Store.ChangeBatch(seen: seen, changes: unexplained, audit: nil)) }
    return out
  }
}
