import FormsCore
import Foundation

extension Store {
  /// One document's part in a change the store saw.
  public struct Change: Sendable, Equatable {
    /// What happened to the document: the audit log's four actions.
    public typealias Operation = AuditEntry.Action

    public var kind: String
    public var id: String
    public var operation: Operation
    /// Where the document changed. From the audit record for a change made through the write
    /// path (exact); for one made behind formsctl's back (an editor, `git checkout`), the
    /// top-level members that differ; the root for a document created or deleted.
    public var pointers: [JSONPointer]
    /// For a rename, the old id.
    public var previousID: String?
    /// Set when the file is there but is not a document (it does not parse: a merge conflict, a
    /// half-written file); such a file is never reported as a deletion.
    public var problem: String?

    public init(
      kind: String, id: String, operation: Operation, pointers: [JSONPointer], previousID: String? = nil,
      problem: String? = nil
    ) {
      self.kind = kind
      self.id = id
      self.operation = operation
      self.pointers = pointers
      self.previousID = previousID
      self.problem = problem
    }
  }

  /// Changes seen together: one committed operation (with its audit record), or what changed
  /// behind formsctl's back within one quiet window (a `git checkout` is one batch).
  public struct ChangeBatch: Sendable {
    /// When the watch saw it.
    public var seen: Date
    public var changes: [Change]
    /// The audit record of the operation (`history.jsonl`); nil for changes made outside formsctl.
    public var audit: JSONValue?

    /// The operation (`set`, `mv`, `import`...) from the audit record; nil outside formsctl.
    public var operation: String? { audit?["operation"]?.stringValue }
    /// Who made it, from the audit record.
    public var user: String? { audit?["user"]?.stringValue }
  }

  /// How a watch waits and looks.
  public struct ObserveOptions: Sendable {
    /// Events closer together than this are one batch: the watch reports once nothing changed
    /// for this long (and never while an operation's journal or git's index lock is present).
    public var debounce: Duration = .milliseconds(40)
    /// Every this often the watch rescans every document, whatever the kernel said: the
    /// fallback that never misses a change (and the only way where there is no inotify).
    public var rescanInterval: Duration = .seconds(30)
    /// Called once the watch has taken its first look: a change made after this is reported,
    /// one made before is part of what it saw (`formsctl lsp` checks its buffers again then).
    public var ready: (@Sendable () -> Void)?

    public init(
      debounce: Duration = .milliseconds(40), rescanInterval: Duration = .seconds(30),
      ready: (@Sendable () -> Void)? = nil
    ) {
      self.debounce = debounce
      self.rescanInterval = rescanInterval
      self.ready = ready
    }
  }

  /// Every committed change to the documents of `kinds` (nil: every kind), as batches, until the
  /// sequence is cancelled (which releases every kernel watch) or the store goes away (which
  /// ends it with ``StoreError/storeGone(_:)``).
  public func changes(kinds: Set<String>? = nil, options: ObserveOptions = ObserveOptions())
    -> AsyncThrowingStream<ChangeBatch, any Error>
  {
    stream { cancellation, yield throws(StoreError) in
      try self.watchChanges(kinds: kinds, options: options, cancellation: cancellation, yield)
    }
  }

  /// The result of `query` over the documents of `kind`: first as it is, then again after every
  /// change that alters it, with the difference.
  public func observe(kind: String, query: Query, options: ObserveOptions = ObserveOptions())
    -> AsyncThrowingStream<QueryResult, any Error>
  {
    stream { cancellation, yield throws(StoreError) in
      try self.watchQuery(kind: kind, query: query, options: options, cancellation: cancellation, yield)
    }
  }

  /// Runs `watch` on a thread of its own, its values a sequence; ending the sequence cancels it.
  private func stream<Element: Sendable>(
    _ watch: @escaping @Sendable (WatchCancellation, (Element) -> Void) throws(StoreError) -> Void
  ) -> AsyncThrowingStream<Element, any Error> {
    let (stream, continuation) = AsyncThrowingStream<Element, any Error>.makeStream()
    let cancellation = WatchCancellation()
    continuation.onTermination = { _ in cancellation.cancel() }
    let thread = Thread {
      do throws(StoreError) {
        try watch(cancellation) { continuation.yield($0) }
        continuation.finish()
      } catch {
        continuation.finish(throwing: error)
      }
    }
    thread.name = "formsctl watch"
    thread.start()
    return stream
  }

  /// ``changes(kinds:options:)`` on the calling thread: calls `body` with each batch until
  /// `cancellation` is cancelled (then returns) or `body` throws.
  /// With `filters` (and one kind), only changes to documents that match them before or after
  /// the change are reported.
  public func watchChanges(
    kinds: Set<String>? = nil, matching filters: [FilterExpression] = [],
    options: ObserveOptions = ObserveOptions(),
    cancellation: WatchCancellation, _ body: (ChangeBatch) throws(StoreError) -> Void
  ) throws(StoreError) {
    var watcher = try StoreWatcher(store: self, kinds: kinds, options: options, cancellation: cancellation)
    options.ready?()
    guard !filters.isEmpty else { return try watcher.run(body) }
    guard let kinds, kinds.count == 1, let kind = kinds.first else {
      throw StoreError.usage("a filter of changes needs exactly one kind")
    }
    var matching = Set(try list(kind: kind, query: Query(filters: filters)).documents.map(\.id))
    try watcher.run { (batch) throws(StoreError) in
      var kept = batch
      kept.changes = []
      for change in batch.changes {
        // A name that is no document now (a link, a directory, a FIFO) is never read or followed.
        let matches = change.problem == nil ? try currentlyMatches(kind: kind, id: change.id, filters) : false
        if matches || matching.contains(change.id) || change.previousID.map(matching.contains) == true {
          kept.changes.append(change)
        }
        if let previous = change.previousID { matching.remove(previous) }
        if matches { matching.insert(change.id) } else { matching.remove(change.id) }
      }
      if !kept.changes.isEmpty { try body(kept) }
    }
  }

  /// True when the document `kind` `id` exists, parses and satisfies every filter.
  private func currentlyMatches(kind: String, id: String, _ filters: [FilterExpression]) throws(StoreError) -> Bool {
    let document: Document
    do throws(StoreError) {
      document = try read(kind: kind, id: id)
    } catch {
      switch error.kind {
      case .noInput, .badInput: return false  // gone, or not a document now
      default: throw error
      }
    }
    return filters.allSatisfy { $0.evaluate(document.value) }
  }
}

extension Store {
  /// A query's result as a watch reports it: the documents, and how they differ from the result
  /// reported before (everything inserted, the first time).
  public struct QueryResult: Sendable {
    public var documents: [Document]
    /// Files of the kind that could not be read or parsed, with why; not in the result.
    public var skipped: [Skipped]
    /// Ids new to the result.
    public var inserted: [String]
    /// Ids in both results whose document changed.
    public var updated: [String]
    /// Ids no longer in the result.
    public var removed: [String]
    /// Ids in both results whose order among the ids in both changed: (id, old index, new index).
    public var moved: [(id: String, from: Int, to: Int)]
    /// The batch that made this result (nil for the first).
    public var cause: ChangeBatch?

    /// True when nothing differs from the result before.
    public var isUnchanged: Bool { inserted.isEmpty && updated.isEmpty && removed.isEmpty && moved.isEmpty }
  }

  /// ``observe(kind:query:options:)`` on the calling thread (see ``watchChanges(kinds:matching:options:cancellation:_:)``).
  public func watchQuery(
    kind: String, query: Query, options: ObserveOptions = ObserveOptions(), cancellation: WatchCancellation,
    _ body: (QueryResult) throws(StoreError) -> Void
  ) throws(StoreError) {
    var watcher = try StoreWatcher(store: self, kinds: [kind], options: options, cancellation: cancellation)
    var current = try queryResult(kind: kind, query: query, after: nil, cause: nil)
    try body(current)
    try watcher.run { (batch) throws(StoreError) in
      let next = try self.queryResult(kind: kind, query: query, after: current, cause: batch)
      guard !next.isUnchanged || next.skipped.map(\.path) != current.skipped.map(\.path) else { return }
      current = next
      try body(next)
    }
  }

  /// The result of `query` now, compared with `previous`.
  func queryResult(kind: String, query: Query, after previous: QueryResult?, cause: ChangeBatch?) throws(StoreError)
    -> QueryResult
  {
    let found = try list(kind: kind, query: query)
    let (documents, skipped) = (found.documents, found.skipped)
    let ids = documents.map(\.id)
    let before = previous?.documents ?? []
    let beforeIDs = before.map(\.id)
    let beforeIndex = Dictionary(beforeIDs.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
    let nowIndex = Dictionary(ids.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
    var result = QueryResult(
      documents: documents, skipped: skipped, inserted: ids.filter { beforeIndex[$0] == nil }, updated: [],
      removed: beforeIDs.filter { nowIndex[$0] == nil }, moved: [], cause: cause)
    // Moved: the order among the ids in both changed (an insertion above shifts, not moves).
    let kept = Set(ids).intersection(beforeIDs)
    let oldRank = Dictionary(
      beforeIDs.filter(kept.contains).enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
    for (rank, id) in ids.filter(kept.contains).enumerated() {
      guard let old = beforeIndex[id], let index = nowIndex[id] else { continue }
      if before[old].bytes != documents[index].bytes { result.updated.append(id) }
      if oldRank[id] != rank { result.moved.append((id, old, index)) }
    }
    return result
  }
}
