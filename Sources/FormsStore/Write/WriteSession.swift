import FormsCore
import Foundation

/// What a change is called in the lock file, the journal and the audit log.
public struct Operation: Sendable {
  /// The verb, the audit log's `operation`: `new`, `set`, `edit`, `status`, `rm`, `mv`, `import`,
  /// `migrate`, `snapshot restore`...
  public var name: String
  /// The verb and its arguments (`rm acquisition ACQ-2026-001`): named by the lock file while the
  /// change runs, and by `recover` when it was interrupted.
  public var summary: String
  /// The command line as typed, the audit log's `command` (the summary when not given).
  public var command: String
  /// Records the change in the audit log even when no document changed (`migrate repair`).
  public var recordsWithoutDocuments = false

  public init(_ name: String, summary: String? = nil, command: String? = nil) {
    self.name = name
    self.summary = summary ?? name
    self.command = command ?? summary ?? name
  }
}

/// One change to the store, from the lock to the audit record: the single write path (DESIGN §12).
///
/// `StoreLayout.write` (and `Store.write`, which adds the document rules) takes the lock, refuses
/// while an interrupted operation awaits `recover`, and hands a session to the caller, who stages
/// documents through it; when the caller returns, everything staged is committed in one journaled
/// step together with one audit record, or, when the caller throws, dropped. A dry-run session
/// takes no lock and writes nothing, but goes through the same checks and reports the same entries.
///
/// Concurrency: `prepare` (see `Store+Pipeline`) only reads the session, so callers may run it in
/// parallel; staging is serial.
public final class WriteSession: @unchecked Sendable {
  public let layout: StoreLayout
  /// The operation; its summary may be made more precise until the first file is staged.
  public var operation: Operation
  public let dryRun: Bool
  /// The store, for document rules; nil for layout-level work (restoring a snapshot while a
  /// descriptor is broken).
  public let store: Store?
  /// The write time: timestamps and the audit record.
  public let now: Date
  let user: String
  private var transaction: Journal.Transaction?
  /// Every document changed so far, in order.
  public private(set) var entries: [AuditEntry] = []
  /// Extra members of the audit record (`feed`, `snapshot`, `descriptors`...).
  public var details = JSONObject()
  /// Files staged for writing, and for deleting, by this session (what `willExist` answers from).
  private var writtenPaths = Set<String>()
  private var deletedPaths = Set<String>()

  init(layout: StoreLayout, operation: Operation, dryRun: Bool, store: Store?, now: Date, user: String) {
    self.layout = layout
    self.operation = operation
    self.dryRun = dryRun
    self.store = store
    self.now = now
    self.user = user
  }

  /// Stages `bytes` as the new content of `path` (visible only when the session commits).
  public func stage(_ bytes: [UInt8], to path: String, entry: AuditEntry?) throws(StoreError) {
    // Every reader refuses a larger file, so no write path may make one.
    if bytes.count > FileIO.maxFileSize {
      throw StoreError.fileTooLarge(layout.relative(path), size: bytes.count, limit: FileIO.maxFileSize)
    }
    if !dryRun { try journal().stage(bytes, for: path) }
    writtenPaths.insert(path)
    deletedPaths.remove(path)
    if let entry { entries.append(entry) }
  }

  /// Stages the deletion of `path`.
  public func delete(_ path: String, entry: AuditEntry?) throws(StoreError) {
    if !dryRun { try journal().delete(path) }
    deletedPaths.insert(path)
    writtenPaths.remove(path)
    if let entry { entries.append(entry) }
  }

  /// True when `path` holds a document once this session commits.
  public func willExist(_ path: String) -> Bool {
    if writtenPaths.contains(path) { return true }
    if deletedPaths.contains(path) { return false }
    return FileIO.exists(path)
  }

  private func journal() throws(StoreError) -> Journal.Transaction {
    if let transaction { return transaction }
    let started = try Journal(layout: layout).begin(operation: operation.summary)
    transaction = started
    return started
  }

  /// Commits everything staged with the audit record (nothing when nothing changed).
  func commit() throws(StoreError) {
    guard !dryRun, !entries.isEmpty || operation.recordsWithoutDocuments || transaction != nil else { return }
    let record = AuditLog.record(
      time: now, user: user, operation: operation.name, command: operation.command,
      documents: entries, details: details)
    try journal().commit(record: record)
    transaction = nil
  }

  /// Drops everything staged after `error` and throws it (see `Journal.Transaction.abort`).
  func abort(after error: StoreError) throws(StoreError) -> Never {
    guard let transaction else { throw error }
    self.transaction = nil
    try transaction.abort(after: error)
  }
}

extension StoreLayout {
  /// Runs `body` with a write session for `operation` (see `WriteSession`), then commits what it
  /// staged with one audit record; a dry run takes no lock and writes nothing.
  public func write<T>(
    _ operation: Operation, dryRun: Bool = false, wait: Double, clock: () -> Date, user: () -> String,
    store: Store? = nil, _ body: (WriteSession) throws(StoreError) -> T
  ) throws(StoreError) -> T {
    if dryRun {
      return try body(
        WriteSession(layout: self, operation: operation, dryRun: true, store: store, now: clock(), user: ""))
    }
    return try withWriteLock(operation.summary, wait: wait) { () throws(StoreError) -> T in
      // The time is read once the lock is held, so stamps follow the order of the writes.
      let session = WriteSession(
        layout: self, operation: operation, dryRun: false, store: store, now: clock(), user: user())
      // The body's errors roll back; the commit decides its own outcome (rolled back before its
      // commit record, kept for `recover` after it).
      let result: T
      do throws(StoreError) {
        result = try body(session)
      } catch {
        try session.abort(after: error)
      }
      try session.commit()
      return result
    }
  }
}
