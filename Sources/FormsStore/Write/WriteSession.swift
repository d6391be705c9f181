import FormsCore
import Foundation
import Synchronization

/// What a change is called in the lock file, the journal and the audit log.
package struct WriteOperation: Sendable {
  /// The verb, the audit log's `operation`: `new`, `set`, `edit`, `status`, `rm`, `mv`, `import`,
  /// `migrate`, `snapshot restore`...
  package var name: String
  /// The verb and its arguments (`rm acquisition ACQ-2026-001`): named by the lock file while the
  /// change runs, and by `recover` when it was interrupted.
  package var summary: String
  /// The command line as typed, the audit log's `command` (the summary when not given).
  package var command: String
  /// Records the change in the audit log even when no document changed (`migrate repair`).
  package var recordsWithoutDocuments = false

  package init(_ name: String, summary: String? = nil, command: String? = nil) {
    self.name = name
    self.summary = summary ?? name
    self.command = command ?? summary ?? name
  }
}

/// One change to the store, from the lock to the audit record: the single write path (docs/design.md §12).
///
/// `StoreLayout.write` (and `Store.write`, which adds the document rules) takes the lock, refuses
/// while an interrupted operation awaits `recover`, and hands a session to the caller, who stages
/// documents through it; when the caller returns, everything staged is committed in one journaled
/// step together with one audit record, or, when the caller throws, dropped. A dry-run session
/// takes no lock and writes nothing, but goes through the same checks and reports the same entries.
///
/// Concurrency: `prepare` (see `Store+Pipeline`) only reads the session, so callers may run it in
/// parallel; staging is serial.
package final class WriteSession: Sendable {
  package let layout: StoreLayout
  package let dryRun: Bool
  /// What a document must satisfy to be written (``DocumentRules``).
  let rules: DocumentRules
  /// Told what each commit wrote and removed, under the lock once it is durable: whoever keeps
  /// something derived from the files (the store's index) learns of the change here, not by name.
  private let onCommit: (@Sendable (Commit) -> Void)?
  /// The write time: timestamps and the audit record.
  package let now: Date

  /// What staging changes. Staging is serial, but `prepare` may read `willExist` from several
  /// threads meanwhile, so it lives behind a lock the compiler checks.
  private struct State {
    var operation: WriteOperation
    var transaction: Journal.Transaction?
    var entries: [AuditEntry] = []
    var details = JSONObject()
    /// Files staged for writing, and for deleting, by this session (what `willExist` answers from).
    var writtenPaths = Set<String>()
    var deletedPaths = Set<String>()
    var staleApprovals: [StaleApprovals] = []
    /// Attachment files staged, with the record that describes each (see `checkAttachments`).
    var attachments: [String: AttachmentRecord] = [:]
    /// True when the caller asked that signatures this session's changes make stale be voided.
    var voidsApprovals = false
  }
  private let state: Mutex<State>

  /// The files a commit wrote and removed.
  struct Commit: Sendable {
    let written: [String]
    let deleted: [String]
  }

  init(
    layout: StoreLayout, operation: WriteOperation, dryRun: Bool, rules: DocumentRules,
    onCommit: (@Sendable (Commit) -> Void)?, now: Date
  ) {
    self.layout = layout
    self.dryRun = dryRun
    self.rules = rules
    self.onCommit = onCommit
    self.now = now
    state = Mutex(State(operation: operation))
  }

  /// The operation; its summary may be made more precise until the first file is staged.
  package var operation: WriteOperation {
    get { state.withLock { $0.operation } }
    set { state.withLock { $0.operation = newValue } }
  }

  /// True when the caller asked to void the signatures its changes make stale: a person's or the
  /// store's own change of signed content is refused without it (see `prepare`).
  package var voidsApprovals: Bool {
    get { state.withLock { $0.voidsApprovals } }
    set { state.withLock { $0.voidsApprovals = newValue } }
  }

  /// Every document changed so far, in order.
  package var entries: [AuditEntry] { state.withLock { $0.entries } }

  /// Extra members of the audit record (`feed`, `snapshot`, `descriptors`...).
  package var details: JSONObject {
    get { state.withLock { $0.details } }
    set { state.withLock { $0.details = newValue } }
  }

  /// The documents whose approvals the versions staged so far make stale, in order (the audit
  /// record lists them as `stale_approvals`). A caller that reports what it wrote (import, sync,
  /// a reseal) reads this before it returns from the session.
  package var staleApprovals: [StaleApprovals] { state.withLock { $0.staleApprovals } }

  /// Notes a document whose approvals a staged version makes stale.
  func noteStale(_ stale: StaleApprovals) { state.withLock { $0.staleApprovals.append(stale) } }

  /// Stages `bytes` as the new content of `path` (visible only when the session commits).
  func stage(_ bytes: [UInt8], to path: String, entry: AuditEntry?) throws(StoreError) {
    // Every reader refuses a larger file, so no write path may make one.
    if bytes.count > FileIO.maxFileSize {
      throw StoreError.fileTooLarge(layout.relative(path), size: bytes.count, limit: FileIO.maxFileSize)
    }
    try state.withLock { (state) throws(StoreError) in
      if !dryRun { try journal(&state).stage(bytes, for: FilePath(path)) }
      state.writtenPaths.insert(path)
      state.deletedPaths.remove(path)
      if let entry { state.entries.append(entry) }
    }
  }

  /// Stages the deletion of `path`.
  func delete(_ path: String, entry: AuditEntry?) throws(StoreError) {
    try state.withLock { (state) throws(StoreError) in
      if !dryRun { try journal(&state).delete(FilePath(path)) }
      state.deletedPaths.insert(path)
      state.writtenPaths.remove(path)
      if let entry { state.entries.append(entry) }
    }
  }

  /// Notes that the file staged at `path` is an attachment described by `record`.
  func noteAttachment(_ record: AttachmentRecord, at path: String) {
    state.withLock { $0.attachments[path] = record }
  }

  /// The record of the attachment file staged at `path`, if one is (and not deleted since).
  func stagedAttachment(at path: String) -> AttachmentRecord? {
    state.withLock { $0.writtenPaths.contains(path) ? $0.attachments[path] : nil }
  }

  /// True when this session staged the deletion of `path`.
  func willDelete(_ path: String) -> Bool { state.withLock { $0.deletedPaths.contains(path) } }

  /// True when `path` holds a document once this session commits.
  package func willExist(_ path: String) -> Bool {
    let staged: Bool? = state.withLock { state in
      state.writtenPaths.contains(path) ? true : state.deletedPaths.contains(path) ? false : nil
    }
    return staged ?? FileIO.exists(FilePath(path))
  }

  /// The journal's transaction, begun on the first file staged.
  private func journal(_ state: inout State) throws(StoreError) -> Journal.Transaction {
    if let transaction = state.transaction { return transaction }
    let started = try Journal(layout: layout).begin(operation: state.operation.summary)
    state.transaction = started
    return started
  }

  /// Commits everything staged with the audit record naming `user` (nothing when nothing
  /// changed), then tells `onCommit` what it wrote and removed (still under the lock).
  func commit(user: () -> String) throws(StoreError) {
    guard !dryRun else { return }
    let committed = try state.withLock { (state) throws(StoreError) -> Commit? in
      guard !state.entries.isEmpty || state.operation.recordsWithoutDocuments || state.transaction != nil else {
        return nil
      }
      var details = state.details
      if !state.staleApprovals.isEmpty { details["stale_approvals"] = .array(state.staleApprovals.map(\.json)) }
      let record = AuditLog.record(
        time: now, user: user(), operation: state.operation.name, command: state.operation.command,
        documents: state.entries, details: details)
      try journal(&state).commit(record: record)
      state.transaction = nil
      return Commit(written: Array(state.writtenPaths), deleted: Array(state.deletedPaths))
    }
    if let committed { onCommit?(committed) }
  }

  /// Drops everything staged after `error` and throws it (see `Journal.Transaction.abort`).
  func abort(after error: StoreError) throws(StoreError) -> Never {
    try state.withLock { (state) throws(StoreError) -> Never in
      guard let transaction = state.transaction else { throw error }
      state.transaction = nil
      try transaction.abort(after: error)
    }
  }
}

extension StoreLayout {
  /// Runs `body` with a write session for `operation` (see `WriteSession`), then commits what it
  /// staged with one audit record; a dry run takes no lock and writes nothing. `rules` are what
  /// a document must satisfy (none: the session stages files only); `onCommit` hears each commit.
  func write<T>(
    _ operation: WriteOperation, dryRun: Bool = false, wait: Double, clock: () -> Date, user: () -> String,
    rules: DocumentRules? = nil, onCommit: (@Sendable (WriteSession.Commit) -> Void)? = nil,
    _ body: (WriteSession) throws(StoreError) -> T
  ) throws(StoreError) -> T {
    let rules = rules ?? .none(self)
    if dryRun {
      return try body(
        WriteSession(layout: self, operation: operation, dryRun: true, rules: rules, onCommit: nil, now: clock()))
    }
    return try withWriteLock(operation.summary, wait: wait) { () throws(StoreError) -> T in
      // The time is read once the lock is held, so stamps follow the order of the writes.
      let session = WriteSession(
        layout: self, operation: operation, dryRun: false, rules: rules, onCommit: onCommit, now: clock())
      // The body's errors roll back; the commit decides its own outcome (rolled back before its
      // commit record, kept for `recover` after it).
      let result: T
      do throws(StoreError) {
        result = try body(session)
      } catch {
        try session.abort(after: error)
      }
      // The user is asked for at the commit: a lookup started before the write (see
      // `Store.prefetchAuditUser`) runs while the change is made.
      try session.commit(user: user)
      return result
    }
  }
}
