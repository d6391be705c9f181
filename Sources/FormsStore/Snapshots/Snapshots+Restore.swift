import FormsCore
import Foundation

extension Snapshots {
  /// What a restore changes in the live store.
  public struct RestorePlan: Sendable {
    public var rewritten: [String] = []
    public var recreated: [String] = []
    public var removed: [String] = []
    var steps: [Journal.Step] = []
    public var isEmpty: Bool { steps.isEmpty }
  }

  /// Plans making the live store (or the named snapshot paths, `data/...`) equal to `info`.
  /// Refuses, naming them, when the snapshot's files fail verification.
  public func planRestore(_ info: Info, paths: [String]? = nil) throws(StoreError) -> RestorePlan {
    guard let manifest = info.manifest else { throw StoreError.badRequest("snapshot \(info.name) has no readable manifest") }
    let selected = paths.map(Set.init)
    let entries = manifest.files.filter { selected?.contains($0.path) ?? true }
    let problems = verify(info, paths: Set(entries.map(\.path)))
    guard problems.isEmpty else {
      throw StoreError.badRequest("snapshot \(info.name) fails verification; not restoring from it: "
        + problems.map { "\($0.path) \($0.problem)" }.joined(separator: "; "))
    }
    let live = liveEntries()
    var plan = RestorePlan()
    for entry in entries where live[entry.path]?.sha256 != entry.sha256 {
      let bytes = try FileIO.read(info.path + "/" + entry.path, limit: Int.max)
      let target = livePath(entry.path)
      if live[entry.path] == nil { plan.recreated.append(entry.path) } else { plan.rewritten.append(entry.path) }
      plan.steps.append(.write(path: target, bytes: bytes))
    }
    let inSnapshot = Set(manifest.files.map(\.path))
    let candidates = selected.map { Array($0) } ?? Array(live.keys)
    for path in candidates.sorted() where !inSnapshot.contains(path) && live[path] != nil {
      // A file the snapshot does not have is removed, within what the snapshot covers.
      if path.hasPrefix("schemas/") && !manifest.files.contains(where: { $0.path.hasPrefix("schemas/") }) { continue }
      plan.removed.append(path)
      plan.steps.append(.delete(path: livePath(path)))
    }
    return plan
  }

  /// Applies a restore plan under a journal (the caller holds the lock and took the pre-restore snapshot).
  public func restore(_ plan: RestorePlan, from info: Info) throws(StoreError) {
    try Journal(layout: layout).apply(plan.steps, operation: "snapshot restore \(info.name)")
  }

  /// Prune decisions for every snapshot under `policy` (and `keepLast`); deletes when not a dry run.
  public func prune(keepWithin: Int, keepWeeklyWithin: Int, keepLast: Int, dryRun: Bool) throws(StoreError)
    -> [RetentionPlanner.Decision]
  {
    let all = list()
    let decisions = RetentionPlanner.decide(
      all.map { RetentionPlanner.Snapshot(name: $0.name, time: $0.time) }, now: Int64(now().timeIntervalSince1970),
      keepWithin: keepWithin, keepWeeklyWithin: keepWeeklyWithin, keepLast: keepLast)
    if !dryRun {
      for decision in decisions where !decision.keep { Self.removeTree(directory + "/" + decision.name) }
      try AtomicWriter.syncDirectory(directory)
    }
    return decisions
  }
}

/// `.formsctl/history.jsonl`: one line per completed migrate, restore or import (committed to git).
public enum History {
  /// Appends `record` (with `time` and `user` added) as one line, durably.
  public static func append(_ record: JSONObject, layout: StoreLayout, now: Date) throws(StoreError) {
    var record = record
    record["time"] = .string(Store.rfc3339(now))
    record["user"] = .string(ProcessInfo.processInfo.environment["USER"] ?? ProcessInfo.processInfo.environment["LOGNAME"] ?? "unknown")
    let path = layout.stateDirectory + "/history.jsonl"
    let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw StoreError.io(path, operation: "open", errno: errno) }
    defer { close(fd) }
    try writeAll(fd, Array((JSONWriter.compact(.object(record)) + "\n").utf8), path: path)
    if fsync(fd) != 0 { throw StoreError.io(path, operation: "fsync", errno: errno) }
  }
}
