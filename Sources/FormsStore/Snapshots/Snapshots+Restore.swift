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

  /// Plans making the live store, or the part `paths` names (files or directories as a snapshot
  /// holds them, `data/forms`), equal to `info`: files the snapshot has are rewritten or
  /// recreated, and files in that part it does not have (created since) are removed. Refuses,
  /// naming them, when the snapshot's files fail verification, or a path names nothing in either.
  public func planRestore(_ info: Info, paths: [String]? = nil) throws(StoreError) -> RestorePlan {
    guard let manifest = try info.loadManifest() else {
      throw StoreError.refused(.snapshotWithoutManifest(name: info.name))
    }
    // A partial snapshot speaks only for the documents it covers; the rest of the store is left alone.
    if let stray = manifest.covers?.first(where: {
      !($0.hasPrefix("data/") || $0.hasPrefix("attachments/")) || !SnapshotManifest.Entry.isSafe($0)
    }) {
      throw StoreError.refused(.snapshotUnsafePath(name: info.name, path: stray, partial: true))
    }
    let covered = manifest.covers.map(Set.init)
    // A document restored by name brings its attachment folder with it (a partial snapshot covers
    // documents only, so there its files are left as they are).
    let scopes = paths.map { $0 + $0.compactMap(Self.attachmentFolder(ofDocument:)) }
    func inScope(_ path: String) -> Bool {
      (scopes?.contains { FilePath($0).contains(FilePath(path)) } ?? true) && (covered?.contains(path) ?? true)
    }
    let entries = manifest.files.filter { inScope($0.path) }
    let problems = try verify(info, paths: Set(entries.map(\.path)))
    guard problems.isEmpty else {
      throw StoreError.refused(
        .snapshotFailsVerification(name: info.name, problems: problems.map { "\($0.path) \($0.problem)" }))
    }
    let live: [String: (sha256: String, path: String)]
    if let covers = manifest.covers {
      live = try liveEntries(only: covers.filter(inScope))
    } else {
      live = try liveEntries()
    }
    for scope in paths ?? [] {
      func within(_ path: String) -> Bool { FilePath(scope).contains(FilePath(path)) }
      if let covers = manifest.covers {
        guard !covers.contains(where: within) else { continue }
        throw StoreError.refused(
          .notCovered(path: scope, snapshot: info.name, covers: covers.count, reason: manifest.reason))
      }
      if !manifest.files.contains(where: { within($0.path) }) && !live.keys.contains(where: within) {
        throw StoreError.refused(.restoreNowhere(path: scope, snapshot: info.name))
      }
    }
    var plan = RestorePlan()
    for entry in entries where live[entry.path]?.sha256 != entry.sha256 {
      let bytes = try FileIO.read(info.directory / entry.path, limit: Int.max)
      let target = layout.livePath(entry.path)
      if live[entry.path] == nil { plan.recreated.append(entry.path) } else { plan.rewritten.append(entry.path) }
      plan.steps.append(.write(path: target, bytes: bytes))
    }
    let inSnapshot = Set(manifest.files.map(\.path))
    for path in live.keys.sorted() where inScope(path) && !inSnapshot.contains(path) {
      // A file the snapshot does not have is removed, within what the snapshot covers.
      if path.hasPrefix("schemas/") && !manifest.files.contains(where: { $0.path.hasPrefix("schemas/") }) { continue }
      // Whatever a snapshot holds, a restore never removes the manifest that makes the store one.
      if path == StoreLayout.manifestName {
        throw StoreError.refused(.restoreWithoutManifest(snapshot: info.name, path: path))
      }
      plan.removed.append(path)
      plan.steps.append(.delete(path: layout.livePath(path)))
    }
    return plan
  }

  /// The attachments a restore of the snapshot path `path` takes with it: `attachments/<directory>/<id>`
  /// for `data/<directory>/<id>.json`, `attachments/<directory>` for `data/<directory>`,
  /// `attachments` for `data`; nil for any other.
  static func attachmentFolder(ofDocument path: String) -> String? {
    let parts = path.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.first == "data" else { return nil }
    switch parts.count {
    case 1: return "attachments"
    case 2: return "attachments/\(parts[1])"
    case 3: return StoreLayout.id(fromFile: String(parts[2])).map { "attachments/\(parts[1])/\($0)" }
    default: return nil
    }
  }

  /// What `restore` did, or in a dry run would do.
  public struct RestoreOutcome: Sendable {
    public let snapshot: Info
    public let plan: RestorePlan
    /// The snapshot of the state before, taken first (nil in a dry run, with `snapshotFirst` off,
    /// or when nothing changes).
    public let preRestoreSnapshot: String?
    /// The snapshots the retention policy removed after the pre-restore one (`auto_prune`).
    public let prunedSnapshots: [String]
  }

  /// Makes the live store (or the named snapshot paths) equal to the snapshot `reference`,
  /// through the write path: the lock, a pre-restore snapshot, one journaled step, and one audit
  /// record naming every document restored. Needs no compiled schemas, so a store whose
  /// descriptor is broken can be restored.
  package func restore(
    _ reference: String, paths: [String]? = nil, dryRun: Bool = false, snapshotFirst: Bool = true,
    wait: Double, command: String? = nil
  ) throws(StoreError) -> RestoreOutcome {
    let operation = WriteOperation("snapshot restore", summary: "snapshot restore \(reference)", command: command)
    let layout = self.layout
    let user = { AuditLog.currentUser(root: layout.root) }
    return try layout.write(operation, dryRun: dryRun, wait: wait, clock: now, user: user) {
      session throws(StoreError) -> RestoreOutcome in
      let info = try find(reference)
      let plan = try planRestore(info, paths: paths)
      session.operation.summary = "snapshot restore \(info.name)"
      if dryRun || plan.isEmpty {
        return RestoreOutcome(snapshot: info, plan: plan, preRestoreSnapshot: nil, prunedSnapshots: [])
      }
      let written = plan.steps.reduce(Int64(0)) { total, step in
        if case .write(_, let bytes) = step { return total + Int64(bytes.count) }
        return total
      }
      try Storage.require(
        written, at: layout.root, for: "snapshot restore (\(plan.rewritten.count + plan.recreated.count) files)")
      let before =
        snapshotFirst ? try create(reason: "pre-restore", message: "before restoring \(info.name)").name : nil
      let pruned = snapshotFirst ? try autoPrune(sparing: info.name) : []
      for step in plan.steps {
        let old =
          FileIO.entry(FilePath(step.path)) == .missing ? nil : try FileIO.read(FilePath(step.path), limit: Int.max)
        switch step {
        case .write(let path, let bytes):
          try session.stage(bytes, to: path, entry: auditEntry(path, old: old, new: bytes))
        case .delete(let path): try session.delete(path, entry: auditEntry(path, old: old, new: nil))
        }
      }
      session.details = JSONObject([
        "snapshot": .string(info.name), "pre_restore_snapshot": before.map(JSONValue.string) ?? .null,
        "rewritten": .number(JSONNumber(plan.rewritten.count)), "recreated": .number(JSONNumber(plan.recreated.count)),
        "removed": .number(JSONNumber(plan.removed.count)),
      ])
      return RestoreOutcome(snapshot: info, plan: plan, preRestoreSnapshot: before, prunedSnapshots: pruned)
    }
  }

  /// The audit entry for a restored file under data/: its kind from `_schema`, its id from its
  /// name, the pointers that change when both versions parse. Other files are not documents.
  func auditEntry(_ path: String, old: [UInt8]?, new: [UInt8]?) -> AuditEntry? {
    guard layout.dataPath.relative(FilePath(path)) != nil, let id = StoreLayout.id(fromFile: path) else {
      return nil
    }
    let before = old.flatMap { try? JSONParser().parse($0) }
    let after = new.flatMap { try? JSONParser().parse($0) }
    let kind = (after ?? before)?["_schema"]?.stringValue?.split(separator: "@").first.map(String.init) ?? ""
    switch (before, after) {
    case (let before?, let after?):
      return AuditEntry(kind: kind, id: id, action: .update, pointers: before.changedPointers(to: after))
    case (nil, _?) where old == nil: return AuditEntry(kind: kind, id: id, action: .create, pointers: [.root])
    case (_, nil) where new == nil: return AuditEntry(kind: kind, id: id, action: .delete, pointers: [.root])
    default: return AuditEntry(kind: kind, id: id, action: .update, pointers: [.root])
    }
  }

  /// Prune decisions for every snapshot under `policy` (and `keepLast`); deletes when not a dry run.
  /// `keepMonthlyWithin` nil: the manifest's `keep_monthly_within`.
  public func prune(
    keepWithin: Int, keepWeeklyWithin: Int, keepMonthlyWithin: Int? = nil, keepLast: Int, dryRun: Bool, wait: Double
  ) throws(StoreError) -> [RetentionPlanner.Decision] {
    try layout.withWriteLock("snapshot prune", wait: wait) { () throws(StoreError) in
      try prune(
        keepWithin: keepWithin, keepWeeklyWithin: keepWeeklyWithin,
        keepMonthlyWithin: keepMonthlyWithin ?? layout.retention.keepMonthlyWithin, keepLast: keepLast,
        dryRun: dryRun)
    }
  }

  /// The retention policy of the manifest applied after a command took a snapshot, unless it
  /// says `auto_prune: false` (docs/design.md §10); the caller holds the lock. `sparing` (the snapshot a
  /// restore reads) and the snapshot just taken are kept whatever their age (a clock set back
  /// dates the one just taken before the newest). The names removed, newest first.
  func autoPrune(sparing: String? = nil) throws(StoreError) -> [String] {
    let policy = layout.retention
    guard policy.autoPrune else { return [] }
    return try prune(
      keepWithin: policy.keepWithin, keepWeeklyWithin: policy.keepWeeklyWithin,
      keepMonthlyWithin: policy.keepMonthlyWithin, keepLast: 0, dryRun: false, sparing: sparing, sparingTaken: true
    ).filter { !$0.keep }.map(\.name)
  }

  /// `prune`, the caller holding the lock.
  func prune(
    keepWithin: Int, keepWeeklyWithin: Int, keepMonthlyWithin: Int = 0, keepLast: Int, dryRun: Bool,
    sparing: String? = nil, sparingTaken: Bool = false
  )
    throws(StoreError)
    -> [RetentionPlanner.Decision]
  {
    let justTaken = sparingTaken ? taken.last : nil
    let all = try list()
    let decisions = RetentionPlanner.decide(
      // A snapshot whose summary cannot be read cannot stand for the store either.
      all.map {
        RetentionPlanner.Snapshot(
          name: $0.name, time: $0.time, whole: $0.summary?.scope == "whole store", kept: $0.marked,
          label: $0.summary?.label)
      },
      now: Int64(now().timeIntervalSince1970),
      keepWithin: keepWithin, keepWeeklyWithin: keepWeeklyWithin, keepMonthlyWithin: keepMonthlyWithin,
      keepLast: keepLast, keepLabels: layout.retention.keepLabels
    ).map {
      guard !$0.keep else { return $0 }
      if $0.name == sparing { return RetentionPlanner.Decision(name: $0.name, keep: true, reason: "restored from") }
      return $0.name == justTaken ? RetentionPlanner.Decision(name: $0.name, keep: true, reason: "just taken") : $0
    }
    if !dryRun && decisions.contains(where: { !$0.keep }) {
      let removing = ProgressCounter("pruning", total: decisions.filter { !$0.keep }.count, progress)
      for decision in decisions where !decision.keep {
        try delete(decision.name)
        removing?.add(1)
      }
    }
    return decisions
  }
}
