import FormsCore

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Changes many files together or not at all (DESIGN §8).
///
/// 1. `plan.json` lists every step (write a file, or delete one) and is made durable first.
/// 2. Each new file is staged beside its target as a hidden file and fsynced.
/// 3. The commit record `COMMIT` is written and fsynced: the single point of no return.
/// 4. Staged files are renamed over their targets and deletions made; directories are fsynced.
/// 5. The journal is removed.
///
/// `recover` after a crash: without `COMMIT`, staged files are deleted and the store is as it was;
/// with it, the remaining steps are done (a staged file that is gone was already renamed).
public struct Journal: Sendable {
  /// One change to one file.
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
  var planPath: String { directory + "/plan.json" }
  var commitPath: String { directory + "/COMMIT" }

  public init(layout: StoreLayout) { self.layout = layout }

  /// The operation an interrupted journal belongs to, or nil when none waits.
  public func pending() -> String? {
    guard FileIO.exists(planPath) else { return nil }
    let plan = (try? FileIO.read(planPath)).flatMap { try? JSONParser().parse($0) }
    return plan?["operation"]?.stringValue ?? "operation"
  }

  /// Refuses (exit 75) while an interrupted operation awaits `formsctl recover`.
  public func requireNone() throws(StoreError) {
    if let operation = pending() { throw StoreError.recoveryNeeded(operation: operation) }
  }

  /// Applies `steps` all or nothing. The caller holds the store lock.
  public func apply(_ steps: [Step], operation: String) throws(StoreError) {
    try requireNone()
    let writer = AtomicWriter(boundary: layout.root)
    try FileIO.makeDirectories(directory)
    var entries: [JSONValue] = []
    for (k, step) in steps.enumerated() {
      var entry = JSONObject()
      entry["path"] = .string(layout.relative(step.path))
      switch step {
      case .write(let path, _):
        entry["action"] = .string("write")
        entry["staged"] = .string(layout.relative(stagedPath(for: path, index: k)))
      case .delete:
        entry["action"] = .string("delete")
      }
      entries.append(.object(entry))
    }
    let plan = JSONValue.object(JSONObject(["operation": .string(operation), "steps": .array(entries)]))
    try writer.write(JSONWriter.canonical(plan), to: planPath)
    do throws(StoreError) {
      var directories = Set<String>()
      for (k, step) in steps.enumerated() {
        guard case .write(let path, let bytes) = step else { continue }
        try writer.makeDirectories(parentDirectory(path))
        _ = try writer.resolveInsideBoundary(path)
        try Self.writeDurably(bytes, to: stagedPath(for: path, index: k))
        directories.insert(parentDirectory(path))
      }
      for directory in directories { try AtomicWriter.syncDirectory(directory) }
    } catch {
      rollBack()
      throw error
    }
    DebugPause.at("after-stage")
    try writer.write(Array("committed\n".utf8), to: commitPath)
    DebugPause.at("after-commit")
    try rollForward()
  }

  /// Finishes or undoes an interrupted operation; returns what was done, or nil when nothing waited.
  public func recover() throws(StoreError) -> String? {
    guard let operation = pending() else { return nil }
    if FileIO.exists(commitPath) {
      try rollForward()
      return "finished the interrupted \(operation)"
    }
    rollBack()
    return "rolled back the interrupted \(operation); the store is as it was before it"
  }

  func stagedPath(for path: String, index: Int) -> String {
    parentDirectory(path) + "/.\(fileName(path)).formsctl-journal-\(index)"
  }

  func steps() throws(StoreError) -> [(action: String, path: String, staged: String?)] {
    let bytes = try FileIO.read(planPath)
    guard let plan = try? JSONParser().parse(bytes), let steps = plan["steps"]?.arrayValue else {
      throw StoreError.manifest(file: planPath, position: nil, message: "the journal plan is damaged")
    }
    return steps.map { step in
      (step["action"]?.stringValue ?? "", joinPath(layout.root, step["path"]?.stringValue ?? ""),
        step["staged"]?.stringValue.map { joinPath(layout.root, $0) })
    }
  }

  func rollForward() throws(StoreError) {
    var directories = Set<String>()
    for step in try steps() {
      if step.action == "write", let staged = step.staged {
        // A staged file that is gone was renamed into place before the interruption.
        if FileIO.exists(staged) && rename(staged, step.path) != 0 {
          throw StoreError.io(step.path, operation: "rename", errno: errno)
        }
      } else if step.action == "delete" {
        try FileIO.remove(step.path)
      }
      directories.insert(parentDirectory(step.path))
    }
    for directory in directories where FileIO.isDirectory(directory) { try AtomicWriter.syncDirectory(directory) }
    try finish()
  }

  func rollBack() {
    for step in (try? steps()) ?? [] {
      if let staged = step.staged { try? FileIO.remove(staged) }
    }
    try? finish()
  }

  func finish() throws(StoreError) {
    try FileIO.remove(commitPath)
    try FileIO.remove(planPath)
    try AtomicWriter.syncDirectory(directory)
  }

  /// Writes a new file and fsyncs it (the staging half of an atomic write).
  static func writeDurably(_ bytes: [UInt8], to path: String) throws(StoreError) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw StoreError.io(path, operation: "create", errno: errno) }
    defer { close(fd) }
    try writeAll(fd, bytes, path: path)
    if fsync(fd) != 0 { throw StoreError.io(path, operation: "fsync", errno: errno) }
  }
}
