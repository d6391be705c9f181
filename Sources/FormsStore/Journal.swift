import FormsCore
import Foundation

/// Changes many files together or not at all (DESIGN §8).
///
/// 1. `plan.ndjson` starts with the operation; each step is appended before its file is staged.
/// 2. Each new file is staged beside its target as a hidden `.NAME.formsctl-journal` file.
/// 3. On commit, the operation's audit record is staged as `journal/audit.jsonl` with an `append`
///    step naming the size `history.jsonl` has now; the plan and every staged file are made durable
///    (fsyncs, or one `syncfs` for many files), then the commit record `COMMIT` is written: the
///    single point of no return.
/// 4. Staged files are renamed over their targets, deletions made, directories fsynced, and the
///    audit record appended to `history.jsonl` (once: an append that already happened, or was torn
///    by a crash, is recognised at the recorded offset).
/// 5. The journal is removed.
///
/// `recover` after a crash: without `COMMIT`, staged files (listed, or left over in the data
/// directory) are deleted and the store is as it was; with it, the remaining steps are done — a
/// staged file that is gone was already renamed, so running it twice is harmless.
public struct Journal: Sendable {
  /// One change to one file (what a restore plans).
  public enum Step: Sendable, Equatable {
    case write(path: String, bytes: [UInt8])
    case delete(path: String)

    public var path: String {
      switch self {
      case .write(let path, _), .delete(let path): return path
      }
    }
  }

  public let layout: StoreLayout
  var directory: String { layout.stateDirectory + "/journal" }
  var planPath: String { directory + "/plan.ndjson" }
  var commitPath: String { directory + "/COMMIT" }
  /// The staged audit record; its target is always `AuditLog.path(layout)`, whatever a plan says.
  var auditPath: String { directory + "/audit.jsonl" }

  public init(layout: StoreLayout) { self.layout = layout }

  /// The operation an interrupted journal belongs to, or nil when none waits.
  public func pending() -> String? {
    guard FileIO.exists(planPath) else { return nil }
    let bytes: [UInt8] = (try? FileIO.read(planPath)) ?? []
    let firstLine: [UInt8] = Array(bytes.prefix { byte in byte != 0x0A })
    let header: JSONValue? = try? JSONParser().parse(firstLine)
    return header?["operation"]?.stringValue ?? "operation"
  }

  /// Refuses (exit 75) while an interrupted operation awaits `formsctl recover`.
  public func requireNone() throws(StoreError) {
    if let operation = pending() { throw StoreError.recoveryNeeded(operation: operation) }
  }

  /// Starts a transaction to stage files into one by one. The caller holds the store lock.
  public func begin(operation: String) throws(StoreError) -> Transaction {
    try requireNone()
    try FileIO.makeDirectories(directory)
    let header = JSONValue.object(JSONObject(["operation": .string(operation)]))
    try Journal.writeDurably(Array((JSONWriter.compact(header) + "\n").utf8), to: planPath)
    try AtomicWriter.syncDirectory(directory)
    let fd = open(planPath, O_WRONLY | O_APPEND | O_CLOEXEC)
    guard fd >= 0 else { throw StoreError.io(planPath, operation: "open", errno: errno) }
    return Transaction(journal: self, operation: operation, planFD: fd)
  }

  /// A journaled change in progress.
  public final class Transaction: @unchecked Sendable {
    let journal: Journal
    let operation: String
    let planFD: Int32
    let writer: AtomicWriter
    var staged: [String] = []
    var directories = Set<String>()
    var closed = false

    init(journal: Journal, operation: String, planFD: Int32) {
      self.journal = journal
      self.operation = operation
      self.planFD = planFD
      self.writer = AtomicWriter(boundary: journal.layout.root)
    }

    deinit { if !closed { close(planFD) } }

    /// Stages the new content of `path` (not yet visible).
    public func stage(_ bytes: [UInt8], for path: String) throws(StoreError) {
      try writer.makeDirectories(parentDirectory(path))
      _ = try writer.resolveInsideBoundary(path)
      let stagedPath = Journal.stagedPath(for: path)
      try record([
        "action": .string("write"), "path": .string(journal.layout.relative(path)),
        "staged": .string(journal.layout.relative(stagedPath)),
      ])
      let fd = try Journal.createNew(stagedPath)
      defer { close(fd) }
      try writeAll(fd, bytes, path: stagedPath)
      staged.append(stagedPath)
      directories.insert(parentDirectory(path))
    }

    /// Schedules the deletion of `path`. Its directory must be writable now: found after the
    /// commit record, that would leave the operation half-applied until permissions change.
    public func delete(_ path: String) throws(StoreError) {
      _ = try writer.resolveInsideBoundary(path)
      if !directories.contains(parentDirectory(path)) {
        try Journal.requireWritable(parentDirectory(path), toChange: path)
      }
      try record(["action": .string("delete"), "path": .string(journal.layout.relative(path))])
      directories.insert(parentDirectory(path))
    }

    func record(_ pairs: KeyValuePairs<String, JSONValue>) throws(StoreError) {
      try writeAll(planFD, Array((JSONWriter.compact(.object(JSONObject(pairs))) + "\n").utf8), path: journal.planPath)
    }

    /// Makes everything durable, writes the commit record, and applies the steps; `record`, one
    /// line of the audit log, is appended to the history as the last step.
    public func commit(record: [UInt8]? = nil) throws(StoreError) {
      do throws(StoreError) {
        if let record {
          let history = AuditLog.path(journal.layout)
          try Journal.requireWritable(FileIO.exists(history) ? history : parentDirectory(history), toChange: history)
          let offset = AuditLog.size(history)
          try Journal.writeDurably(record, to: journal.auditPath)
          try self.record([
            "action": .string("append"), "path": .string(journal.layout.relative(history)),
            "offset": .number(JSONNumber(offset)),
          ])
        }
        if Platform.fsync(planFD) != 0 { throw StoreError.io(journal.planPath, operation: "fsync", errno: errno) }
        try FileIO.sync(
          staged + directories.filter(FileIO.isDirectory), orFileSystemOf: staged.count > 64 ? journal.layout.root : nil
        )
      } catch {
        abort()
        throw error
      }
      close(planFD)
      closed = true
      DebugPause.at("after-stage")
      try writer.write(Array("committed\n".utf8), to: journal.commitPath)
      DebugPause.at("after-commit")
      do throws(StoreError) {
        try journal.rollForward()
      } catch {
        throw StoreError.unfinished(operation: operation, cause: error.description)
      }
    }

    /// Drops everything staged; the store is as it was.
    public func abort() {
      if !closed {
        close(planFD)
        closed = true
      }
      journal.rollBack()
    }
  }

  /// Finishes or undoes an interrupted operation; returns what was done, or nil when nothing waited.
  public func recover() throws(StoreError) -> String? {
    guard let operation = pending() else { return nil }
    let untrusted = steps().untrusted
    if !untrusted.isEmpty {
      throw StoreError.badRequest(
        "\(layout.relative(planPath)) names \(untrusted.map { "\"\($0)\"" }.joined(separator: ", ")), "
          + "which no formsctl journal writes (outside the store's files); not recovering. Inspect .formsctl/journal and remove it by hand"
      )
    }
    if FileIO.exists(commitPath) {
      do throws(StoreError) {
        try rollForward()
      } catch {
        throw StoreError.unfinished(operation: operation, cause: error.description)
      }
      return "finished the interrupted \(operation)"
    }
    rollBack()
    return "rolled back the interrupted \(operation); the store is as it was before it"
  }

  static func stagedPath(for path: String) -> String {
    parentDirectory(path) + "/.\(fileName(path)).formsctl-journal"
  }

  /// The steps of the plan; a torn last line (a crash while appending) is ignored. A plan comes
  /// from a file a checkout may carry, so only steps a journal can have written are trusted: a
  /// relative path inside the store, outside `.formsctl/`, without `..`, staged (if at all) as its
  /// own `.NAME.formsctl-journal` beside it. The others come back apart, untouched.
  func steps() -> (trusted: [(action: String, path: String, staged: String?, offset: Int?)], untrusted: [String]) {
    guard let bytes = try? FileIO.read(planPath, limit: Int.max) else { return ([], []) }
    var trusted: [(action: String, path: String, staged: String?, offset: Int?)] = []
    var untrusted: [String] = []
    for line in bytes.split(separator: 0x0A).dropFirst() {
      guard let step = try? JSONParser().parse(Array(line)), let action = step["action"]?.stringValue,
        let relative = step["path"]?.stringValue
      else { continue }
      if action == "append" {
        // Its source and target are fixed (`auditPath`, the history); the plan only gives the offset.
        trusted.append((action, AuditLog.path(layout), nil, step["offset"]?.numberValue?.intValue))
        continue
      }
      let parts = relative.split(separator: "/", omittingEmptySubsequences: false)
      let path = joinPath(layout.root, relative)
      let staged = step["staged"]?.stringValue.map { joinPath(layout.root, $0) }
      guard ["write", "delete"].contains(action), !relative.hasPrefix("/"), !parts.contains(".."), !parts.contains(""),
        parts.first != ".formsctl", staged == nil || staged == Journal.stagedPath(for: path),
        action == "delete" || staged != nil
      else {
        untrusted.append(relative)
        continue
      }
      trusted.append((action, path, staged, nil))
    }
    return (trusted, untrusted)
  }

  func rollForward() throws(StoreError) {
    var directories = Set<String>()
    let writer = AtomicWriter(boundary: layout.root)
    for step in steps().trusted {
      // A directory on the way may have become a symbolic link leading out since the plan was written.
      if step.action != "append" { _ = try writer.resolveInsideBoundary(step.path) }
      if step.action == "write", let staged = step.staged {
        if FileIO.exists(staged) && rename(staged, step.path) != 0 {
          throw StoreError.io(step.path, operation: "rename", errno: errno)
        }
      } else if step.action == "delete" {
        try FileIO.remove(step.path)
      } else if step.action == "append", let offset = step.offset, FileIO.exists(auditPath) {
        try AuditLog.appendOnce(try FileIO.read(auditPath, limit: Int.max), layout: layout, at: offset)
        continue
      }
      directories.insert(parentDirectory(step.path))
    }
    for directory in directories where FileIO.isDirectory(directory) { try AtomicWriter.syncDirectory(directory) }
    try finish()
  }

  func rollBack() {
    for step in steps().trusted { if let staged = step.staged { try? FileIO.remove(staged) } }
    try? FileIO.remove(auditPath)
    // A file staged just before a crash may have outrun its plan line: sweep the data directory.
    removeStrayStagedFiles(in: layout.dataDirectory)
    try? finish()
  }

  func removeStrayStagedFiles(in directory: String) {
    for (name, kind) in FileIO.entries(of: directory) {
      if name.hasSuffix(".formsctl-journal") {
        unlink(directory + "/" + name)
      } else if !name.hasPrefix(".") && kind == .directory {
        removeStrayStagedFiles(in: directory + "/" + name)
      }
    }
  }

  /// Removes what killed writers leave outside a journal: `AtomicWriter` temporaries
  /// (`.NAME.PID.RANDOM.tmp`) and write probes in the store, and unfinished snapshot directories.
  /// The caller holds the lock, so none of them belongs to a running writer. Returns what was
  /// removed, for people.
  func removeLeftovers() -> String? {
    var temporaries = 0
    func sweep(_ directory: String, recursive: Bool) {
      for (name, kind) in FileIO.entries(of: directory) {
        let path = directory + "/" + name
        if kind == .file && (AtomicWriter.isTemporaryName(name) || name.hasPrefix(Journal.probePrefix)) {
          if unlink(path) == 0 { temporaries += 1 }
        } else if recursive && kind == .directory && !name.hasPrefix(".") {
          sweep(path, recursive: true)
        }
      }
    }
    sweep(layout.root, recursive: false)
    sweep(layout.stateDirectory, recursive: false)
    sweep(layout.dataDirectory, recursive: true)
    if layout.schemasDirectory.hasPrefix(layout.root + "/") { sweep(layout.schemasDirectory, recursive: true) }
    let snapshots = Snapshots(layout: layout).removeStaleTemporaries()
    var parts: [String] = []
    if temporaries > 0 { parts.append(plural(temporaries, "leftover temporary file")) }
    if snapshots > 0 { parts.append(plural(snapshots, "unfinished snapshot")) }
    return parts.isEmpty ? nil : "removed " + parts.joined(separator: " and ") + " that interrupted writers left"
  }

  func finish() throws(StoreError) {
    try FileIO.remove(auditPath)
    try FileIO.remove(commitPath)
    try FileIO.remove(planPath)
    try AtomicWriter.syncDirectory(directory)
  }

  /// The name of the file `requireWritable` creates and removes at once (a kill may leave it).
  static let probePrefix = ".formsctl-probe-"

  /// Refuses unless `path` (a directory, or a file to append to) can be written now, naming what
  /// needs it. Tried, not asked (`access` says yes to root on an immutable or read-only directory).
  static func requireWritable(_ path: String, toChange target: String) throws(StoreError) {
    let probe = FileIO.entry(path) == .directory ? path + "/" + probePrefix + "\(getpid())" : nil
    if let probe { unlink(probe) }  // a killed writer's, under the lock this one now holds
    let fd =
      probe.map { open($0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600) }
      ?? open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else {
      if errno == ENOENT { return }
      throw StoreError.io(path, operation: "write (needed to change \(fileName(target)))", errno: errno)
    }
    close(fd)
    if let probe { unlink(probe) }
  }

  /// Creates `path` afresh for writing: whatever was there (a leftover, or a symbolic link planted
  /// in a checkout) is unlinked, never written through (`O_EXCL | O_NOFOLLOW`).
  static func createNew(_ path: String) throws(StoreError) -> Int32 {
    if unlink(path) != 0 && errno != ENOENT { throw StoreError.io(path, operation: "unlink", errno: errno) }
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw StoreError.io(path, operation: "create", errno: errno) }
    return fd
  }

  /// Writes a new file and fsyncs it.
  static func writeDurably(_ bytes: [UInt8], to path: String) throws(StoreError) {
    let fd = try createNew(path)
    defer { close(fd) }
    try writeAll(fd, bytes, path: path)
    if Platform.fsync(fd) != 0 { throw StoreError.io(path, operation: "fsync", errno: errno) }
  }
}
