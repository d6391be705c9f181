import FormsCore
import Foundation

/// Changes many files together or not at all (docs/design.md §8). The whole life of a change, and what
/// each failure leaves, is in this file:
///
/// 1. **plan**: `plan.ndjson` starts with the operation; each step is appended before its file is
///    staged, with the SHA-256 of what it stages and of the file it replaces (`PlanStep`). Nothing
///    is made durable yet: a crash before step 4 leaves at most a plan, torn or empty, and staged
///    files, which the next `recover` rolls back (it sweeps staged files no plan line names).
/// 2. **stage**: each new file is written beside its target as a hidden `.NAME.formsctl-journal`.
/// 3. **audit**: the operation's record is staged as `journal/audit.jsonl`, with an `append` step
///    naming the size `history.jsonl` has now.
/// 4. **commit**: the plan, every staged file and the directories naming them are made durable
///    together (their write-back started on all, then fsyncs; or one `syncfs`), then the commit
///    record `COMMIT` is created (empty: its name is the record): that creation is the single
///    point of no return, and the journal's directory is fsynced after it.
/// 5. **apply**: staged files are renamed over their targets, deletions made, directories fsynced,
///    and the audit record appended to `history.jsonl` (once: an append that already happened, or
///    was torn, is recognised at the recorded offset).
/// 6. **finish**: the journal is removed, the plan last but for `COMMIT`.
///
/// An error in steps 1–4 rolls back: staged files and the journal are removed, and the store is
/// as it was, with no audit record. If the roll-back itself fails, the journal stays for
/// `recover` (which rolls back) and the error says so. An error in steps 5–6 keeps the journal:
/// the operation is committed, and `recover` finishes it and its audit record. `recover` verifies
/// every file it puts in place or removes against the plan's hashes, and refuses (exit 65, the
/// journal kept) when a staged file is missing or altered, naming `recover --abandon` and the
/// operation's safety snapshot as the ways out. Every step of `recover` is safe to run twice.
package struct Journal: Sendable {
  /// One change to one file (what a restore plans).
  package enum Step: Sendable, Equatable {
    case write(path: String, bytes: [UInt8])
    case delete(path: String)

    package var path: String {
      switch self {
      case .write(let path, _), .delete(let path): return path
      }
    }
  }

  /// The plan format this version writes: 2 adds the hashes `recover` verifies.
  static let planFormat = 2

  package let layout: StoreLayout
  var directory: FilePath { layout.journalDirectory }
  var planPath: FilePath { directory / "plan.ndjson" }
  var commitPath: FilePath { directory / "COMMIT" }
  /// The staged audit record; its target is always `AuditLog.path(layout)`, whatever a plan says.
  var auditPath: FilePath { directory / "audit.jsonl" }

  package init(layout: StoreLayout) { self.layout = layout }

  /// The operation an interrupted journal belongs to, or nil when none waits. A plan that cannot
  /// be read is an error, not "none".
  package func pending() throws(StoreError) -> String? {
    guard FileIO.entry(planPath) != .missing else { return nil }
    return try readPlan().operation
  }

  /// Refuses (exit 75) while an interrupted operation awaits `formsctl recover`.
  package func requireNone() throws(StoreError) {
    if let operation = try pending() { throw StoreError.recoveryNeeded(operation: operation) }
  }

  /// Starts a transaction to stage files into one by one. The caller holds the store lock.
  package func begin(operation: String) throws(StoreError) -> Transaction {
    try requireNone()
    try FileIO.makeDirectories(directory)
    // What a finished operation could not remove (its plan went first, so nothing waits).
    try removeJournalFiles()
    // Made durable with everything else at the commit (step 4).
    var fd: Int32 = -1
    do throws(StoreError) {
      fd = try Journal.createNew(planPath)
      let header = JSONObject(["operation": .string(operation), "format": .number(JSONNumber(Self.planFormat))])
      try writeAll(fd, Array((JSONWriter.compact(.object(header)) + "\n").utf8), path: planPath)
    } catch {
      if fd >= 0 { close(fd) }
      try rollBack([], after: error, operation: operation)
    }
    return Transaction(journal: self, operation: operation, planFD: fd)
  }

  /// A journaled change in progress.
  package final class Transaction {
    let journal: Journal
    let operation: String
    private var planFD: Int32
    let writer: AtomicWriter
    private(set) var steps: [PlannedStep] = []
    private var directories = Set<FilePath>()

    init(journal: Journal, operation: String, planFD: Int32) {
      self.journal = journal
      self.operation = operation
      self.planFD = planFD
      self.writer = AtomicWriter(boundary: journal.layout.rootPath)
    }

    deinit { closePlan() }

    private func closePlan() {
      if planFD >= 0 { close(planFD) }
      planFD = -1
    }

    /// Stages the new content of `path` (not yet visible).
    package func stage(_ bytes: [UInt8], for path: FilePath) throws(StoreError) {
      try writer.makeDirectories(path.parent)
      _ = try writer.resolveInsideBoundary(path)
      let step = PlannedStep.write(path, bytes: bytes, replaces: try Journal.hash(ofFileAt: path))
      try record(step)
      let fd = try Journal.createNew(step.stagedPath)
      defer { close(fd) }
      try writeAll(fd, bytes, path: step.stagedPath)
      directories.insert(path.parent)
    }

    /// Schedules the deletion of `path`. Its directory must be writable now: found after the
    /// commit record, that would leave the operation half-applied until permissions change.
    package func delete(_ path: FilePath) throws(StoreError) {
      _ = try writer.resolveInsideBoundary(path)
      if !directories.contains(path.parent) {
        try Journal.requireWritable(path.parent, toChange: path)
      }
      try record(.delete(path, replaces: try Journal.hash(ofFileAt: path)))
      directories.insert(path.parent)
    }

    private func record(_ step: PlannedStep) throws(StoreError) {
      try writeAll(planFD, step.line(journal.layout), path: journal.planPath)
      steps.append(step)
    }

    /// Makes everything durable, writes the commit record, and applies the steps; `record`, one
    /// line of the audit log, is appended to the history as the last step. An error before the
    /// commit record rolls back; at or after it, it is `unfinished` and the journal stays.
    package func commit(record: [UInt8]? = nil) throws(StoreError) {
      do throws(StoreError) {
        if let record {
          let history = journal.layout.historyPath
          try Journal.requireWritable(FileIO.exists(history) ? history : history.parent, toChange: history)
          let fd = try Journal.createNew(journal.auditPath)
          defer { close(fd) }
          try writeAll(fd, record, path: journal.auditPath)
          try self.record(.append(record, to: history, at: AuditLog.size(history)))
        }
        closePlan()
        // Everything the commit record stands for, durable before it: the staged files and their
        // directories, the plan, the staged audit record, and the journal's directory naming them.
        let staged = steps.compactMap(\.staged)
        let journalFiles = [journal.planPath] + (record == nil ? [] : [journal.auditPath])
        try FileIO.sync(
          staged + directories.filter(FileIO.isDirectory) + journalFiles + [journal.directory],
          orFileSystemOf: staged.count > 64 ? journal.layout.rootPath : nil)
        DebugPause.at("after-stage")
        try journal.writeCommitRecord()
      } catch {
        try abort(after: error)
      }
      DebugPause.at("after-commit")
      do throws(StoreError) {
        try AtomicWriter.syncDirectory(journal.directory)
        try journal.rollForward(steps, verify: false, operation: operation)
      } catch {
        throw StoreError.unfinished(operation: operation, cause: error.description)
      }
    }

    /// Drops everything staged after `error` (before the commit record) and throws it; the store
    /// is as it was. When that fails too, the journal stays for `recover`, and the error says so.
    package func abort(after error: StoreError) throws(StoreError) -> Never {
      closePlan()
      try journal.rollBack(steps, after: error, operation: operation)
    }
  }

  /// The commit record: `COMMIT` created, empty (its name is the record, made at once; `recover`
  /// asks only whether it is there). Throws only when it was not created, so the caller rolls
  /// back; the caller makes it durable (the journal's directory) after it.
  func writeCommitRecord() throws(StoreError) {
    let fd = POSIX.open(commitPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw StoreError.io(commitPath.string, operation: "create", errno: Errno(errno)) }
    close(fd)
  }

  /// Finishes or undoes an interrupted operation; returns what was done, or nil when nothing
  /// waited. With `abandon`, drops the journal and leaves every document as it is.
  package func recover(abandon: Bool = false) throws(StoreError) -> String? {
    guard FileIO.entry(planPath) != .missing else { return nil }
    let plan = try readPlan()
    if !plan.untrusted.isEmpty {
      throw StoreError.refused(.untrustedJournal(plan: layout.relative(planPath.string), names: plan.untrusted))
    }
    if abandon {
      for step in plan.steps { if let staged = step.staged { try FileIO.remove(staged) } }
      try finish()
      return "abandoned the interrupted \(plan.operation); every document is as it was found"
    }
    if FileIO.entry(commitPath) != .missing {
      do throws(StoreError) {
        try rollForward(plan.steps, verify: true, operation: plan.operation)
      } catch {
        if case .unverifiable = error { throw error }
        throw StoreError.unfinished(operation: plan.operation, cause: error.description)
      }
      return "finished the interrupted \(plan.operation)"
    }
    try rollBack(plan.steps)
    return "rolled back the interrupted \(plan.operation); the store is as it was before it"
  }

  static func stagedPath(for path: FilePath) -> FilePath {
    path.parent / ".\(path.name).formsctl-journal"
  }

  /// Applies the steps of a committed plan. With `verify` (`recover`), every staged file and
  /// every file to delete is checked against the plan's hashes first; a step already done (its
  /// target holds the new content, or is gone) is skipped, so this may run any number of times.
  /// Every step is checked before any is applied, so a refusal changes nothing.
  func rollForward(_ steps: [PlannedStep], verify: Bool, operation: String) throws(StoreError) {
    let writer = AtomicWriter(boundary: layout.rootPath)
    var remaining: [PlannedStep] = []
    var directories = Set<FilePath>()
    for step in steps {
      if step.action != .append {
        // A directory on the way may have become a symbolic link leading out since the plan was written.
        _ = try writer.resolveInsideBoundary(step.path)
        directories.insert(step.path.parent)
      }
      if try !isDone(step, verify: verify, operation: operation) { remaining.append(step) }
    }
    for step in remaining {
      switch step.action {
      case .write:
        if POSIX.rename(step.stagedPath, step.path) != 0 {
          throw StoreError.io(step.path.string, operation: "rename", errno: Errno(errno))
        }
      case .delete:
        try FileIO.remove(step.path)
      case .append:
        let record = try FileIO.read(auditPath, limit: Int.max, followLinks: false)
        try AuditLog.appendOnce(record, layout: layout, at: step.offset ?? AuditLog.size(step.path))
      }
    }
    for directory in directories.sorted() where FileIO.isDirectory(directory) {
      try AtomicWriter.syncDirectory(directory)
    }
    try finish()
  }

  /// True when `step` is done already (a roll-forward that ran before); throws when what it would
  /// apply is not what the plan recorded.
  private func isDone(_ step: PlannedStep, verify: Bool, operation: String) throws(StoreError) -> Bool {
    func unverifiable(_ path: FilePath, _ reason: String) -> StoreError {
      StoreError.unverifiable(operation: operation, path: layout.relative(path.string), reason: reason)
    }
    switch step.action {
    case .write:
      let staged = step.stagedPath
      guard FileIO.entry(staged) != .missing else {
        let found = try Journal.hash(ofFileAt: step.path)
        guard let expected = step.sha256, found == expected else {
          let what = found == step.replaces ? "its staged file is gone (a `git clean`?)" : "it was changed since"
          throw unverifiable(step.path, "\(what); the new version is nowhere")
        }
        return true
      }
      if verify, let expected = step.sha256, try Journal.hash(ofFileAt: staged) != expected {
        throw unverifiable(staged, "the staged file was altered since it was written")
      }
      return false
    case .delete:
      guard FileIO.entry(step.path) != .missing else { return true }
      if verify, let expected = step.replaces, try Journal.hash(ofFileAt: step.path) != expected {
        throw unverifiable(step.path, "it was changed since the operation planned to delete it")
      }
      return false
    case .append:
      guard FileIO.entry(auditPath) == .missing else {
        if verify, let expected = step.sha256,
          sha256Hex(try FileIO.read(auditPath, limit: Int.max, followLinks: false)) != expected
        {
          throw unverifiable(auditPath, "the staged audit record was altered since it was written")
        }
        return false
      }
      // Removed by a `finish` that did not complete: the log must hold it where the plan says.
      guard let offset = step.offset, let length = step.length, let expected = step.sha256,
        try AuditLog.hash(layout, at: offset, length: length) == expected
      else { throw unverifiable(auditPath, "the staged audit record is gone and the log does not hold it") }
      return true
    }
  }

  /// Removes what a plan staged, then the journal; the store is as it was.
  func rollBack(_ steps: [PlannedStep]) throws(StoreError) {
    for step in steps { if let staged = step.staged { try FileIO.remove(staged) } }
    // A file staged just before a crash may have outrun its plan line: sweep the data directory.
    try removeStrayStagedFiles(in: layout.dataPath)
    try finish()
  }

  /// Rolls back a live operation that failed with `error` before its commit record, then throws
  /// it; when rolling back fails too, throws an error that says the journal waits for `recover`.
  func rollBack(_ steps: [PlannedStep], after error: StoreError, operation: String) throws(StoreError) -> Never {
    do throws(StoreError) {
      try rollBack(steps)
    } catch let failure {
      throw StoreError.rollBackFailed(operation: operation, cause: error.description, failure: failure.description)
    }
    throw error
  }

  func removeStrayStagedFiles(in directory: FilePath) throws(StoreError) {
    for (name, kind) in try FileIO.entries(of: directory) {
      if name.hasSuffix(".formsctl-journal") {
        try FileIO.remove(directory / name)
      } else if !name.hasPrefix(".") && kind == .directory {
        try removeStrayStagedFiles(in: directory / name)
      }
    }
  }

  /// Removes the journal: the staged audit record and any leftover, then the plan (after which
  /// nothing waits), then the commit record.
  func finish() throws(StoreError) {
    try removeJournalFiles(keeping: [planPath, commitPath])
    try FileIO.remove(planPath)
    try FileIO.remove(commitPath)
    try AtomicWriter.syncDirectory(directory)
  }

  /// Removes the files of the journal directory but `keeping`.
  func removeJournalFiles(keeping: Set<FilePath> = []) throws(StoreError) {
    for (name, _) in try FileIO.entries(of: directory) where !keeping.contains(directory / name) {
      try FileIO.remove(directory / name)
    }
  }

  /// Removes what killed writers leave outside a journal: `AtomicWriter` temporaries
  /// (`.NAME.PID.RANDOM.tmp`) and write probes in the store, files of a finished journal, and
  /// unfinished snapshot directories. The caller holds the lock, so none of them belongs to a
  /// running writer. Returns what was removed, for people.
  func removeLeftovers() throws(StoreError) -> String? {
    var temporaries = 0
    func sweep(_ directory: FilePath, recursive: Bool) throws(StoreError) {
      for (name, kind) in try FileIO.entries(of: directory) {
        let path = directory / name
        if kind == .file && (AtomicWriter.isTemporaryName(name) || name.hasPrefix(Journal.probePrefix)) {
          try FileIO.remove(path)
          temporaries += 1
        } else if recursive && kind == .directory && !name.hasPrefix(".") {
          try sweep(path, recursive: true)
        }
      }
    }
    try sweep(layout.rootPath, recursive: false)
    try sweep(layout.state, recursive: false)
    // An index a reader could not finish saving (its temporary); the index itself is checked by its readers.
    try sweep(layout.indexDirectory, recursive: false)
    try sweep(layout.dataPath, recursive: true)
    if try layout.hasAttachments { try sweep(layout.attachmentsPath, recursive: true) }
    if layout.schemasInsideRoot { try sweep(layout.schemasPath, recursive: true) }
    if FileIO.entry(planPath) == .missing {
      let left = try FileIO.entries(of: directory).count
      try removeJournalFiles()
      temporaries += left
    }
    let snapshots = try Snapshots(layout: layout).removeStaleTemporaries()
    var parts: [String] = []
    if temporaries > 0 { parts.append(plural(temporaries, "leftover temporary file")) }
    if snapshots > 0 { parts.append(plural(snapshots, "unfinished snapshot")) }
    return parts.isEmpty ? nil : "removed " + parts.joined(separator: " and ") + " that interrupted writers left"
  }

  /// The name of the file `requireWritable` creates and removes at once (a kill may leave it).
  static let probePrefix = ".formsctl-probe-"

  /// Refuses unless `path` (a directory, or a file to append to) can be written now, naming what
  /// needs it. Tried, not asked (`access` says yes to root on an immutable or read-only directory).
  static func requireWritable(_ path: FilePath, toChange target: FilePath) throws(StoreError) {
    let probe = FileIO.entry(path) == .directory ? path / (probePrefix + "\(getpid())") : nil
    if let probe { try FileIO.remove(probe) }  // a killed writer's, under the lock this one now holds
    let fd =
      probe.map { POSIX.open($0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600) }
      ?? POSIX.open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else {
      if errno == ENOENT { return }
      throw StoreError.io(path.string, operation: "write (needed to change \(target.name))", errno: Errno(errno))
    }
    close(fd)
    if let probe { try FileIO.remove(probe) }
  }

  /// Creates `path` afresh for writing: whatever was there (a leftover, or a symbolic link planted
  /// in a checkout) is unlinked, never written through (`O_EXCL | O_NOFOLLOW`).
  static func createNew(_ path: FilePath) throws(StoreError) -> Int32 {
    try FileIO.remove(path)
    let fd = POSIX.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw StoreError.io(path.string, operation: "create", errno: Errno(errno)) }
    return fd
  }
}
