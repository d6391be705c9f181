import FormsCore
import FormsYAML
import Foundation

extension Migrator {
  /// What a migration did (or, in a dry run, would do).
  public struct Report: Sendable {
    /// Per group: the chain and how many documents each step changes.
    public var groups: [(group: Group, changedPerStep: [Int])] = []
    /// One document per kind, before and after, for the dry run's diff.
    public var samples: [(kind: String, path: String, before: String, after: String)] = []
    /// Documents left behind by `--skip-invalid`.
    public var skipped: [String] = []
    /// The signed documents whose signed content the migration changes (their rounds end).
    public var voids: [StaleApprovals] = []
    public var migrated = 0
    public var snapshot: String?
    /// The snapshots the retention policy removed after it (`auto_prune`).
    public var prunedSnapshots: [String] = []
    public var seconds: Double = 0
    /// The bytes of the documents to rewrite, what the run needs free (staged files, the safety
    /// copy, a margin) and what is free.
    public var bytes: Int64 = 0
    public var needed: Int64 = 0
    public var free: Int64?
  }

  /// What migrating every kind to its newest version would rewrite and need, without reading a
  /// document: for `migrate status`. `seconds` is a rough figure (6,000 documents and 100 MB a second).
  public func estimate() throws(StoreError) -> (documents: Int, bytes: Int64, needed: Int64, free: Int64?, seconds: Int)
  {
    let paths = try plan(Request()).flatMap(\.paths)
    let bytes = Storage.size(of: paths.map(FilePath.init))
    let needed = Storage.withMargin(bytes + (try Snapshots(layout: store.layout).firstSnapshotCost()))
    let seconds = Int((Double(paths.count) / 6000 + Double(bytes) / 100_000_000).rounded(.up))
    return (paths.count, bytes, needed, Storage.freeBytes(at: store.layout.root), seconds)
  }

  /// Migrates per `request`: all or nothing. Every document is transformed and validated first;
  /// if any fails, nothing is written and every failure is reported (as diagnostics).
  public func run(_ request: Request) throws(StoreError) -> Report {
    let started = Date()
    return try store.write("migrate", summary: "migrate", dryRun: request.dryRun) {
      session throws(StoreError) -> Report in
      // A dry run says what the run would: a plan over a changed descriptor is refused alike.
      try checkHistory()
      return try execute(request, started: started, session: session)
    }
  }

  func execute(_ request: Request, started: Date, session: WriteSession) throws(StoreError) -> Report {
    let groups = try plan(request)
    var report = Report()
    let total = groups.map(\.paths.count).reduce(0, +)
    // Pass 1: transform and validate everything; keep only counts, samples and failures.
    var failures: [Diagnostic] = []
    var skip = Set<String>()
    let checking = ProgressCounter("checking", total: total, store.progress)
    for group in groups {
      var changed = Array(repeating: 0, count: group.steps.count)
      let this = self
      let outcomes = parallelMap(group.paths, chunkSize: 32, progress: checking) { path -> (Transformed, String?) in
        let outcome = this.transform(path, group)
        if case .migrated(let before, let after, _, _, _) = outcome, path == group.paths.first {
          return (outcome, JSONWriter.canonicalString(before) + "\u{0}" + JSONWriter.canonicalString(after))
        }
        return (outcome, nil)
      }
      for (path, (outcome, sample)) in zip(group.paths, outcomes) {
        let shown = store.display(path)
        switch outcome {
        case .migrated(_, _, _, let steps, let voids):
          for index in steps { changed[index] += 1 }
          if let voids { report.voids.append(voids) }
          if let sample, !report.samples.contains(where: { $0.kind == group.kind }) {
            let parts = sample.split(separator: "\u{0}", omittingEmptySubsequences: false)
            report.samples.append((group.kind, shown, String(parts[0]), String(parts[1])))
          }
        case .invalidBefore(let findings):
          if request.skipInvalid {
            skip.insert(path)
            report.skipped.append(shown)
          } else {
            failures += findings.map {
              Diagnostic(
                file: shown, position: nil, pointer: $0.pointer, rule: "invalid-before-migrating",
                message: "\($0.message) (at \(group.kind)@\(group.from), before migrating)", remedy: .skipInvalid)
            }
          }
        case .failed(let step, let message, let remedy):
          failures.append(
            Diagnostic(file: shown, position: nil, rule: "migrate", message: "\(step): \(message)", remedy: remedy))
        case .invalidAfter(let findings):
          failures += findings.map {
            Diagnostic(
              file: shown, position: nil, pointer: $0.pointer, rule: $0.rule,
              message: "\($0.message) (after migrating \(group.kind) \(group.from) → \(group.to))")
          }
        }
      }
      report.groups.append((group, changed))
    }
    guard failures.isEmpty else {
      throw StoreError.migrationFailed(documents: Set(failures.map(\.file)).count, failures)
    }
    if !report.voids.isEmpty, !request.voidingApprovals, !request.dryRun {
      throw StoreError.refused(
        .migrationVoidsApprovals(
          documents: report.voids.map { "\($0.kind) \($0.id) (\($0.state ?? "no state"))" }))
    }
    // Space: the staged copies, about as large as the documents, and the safety copy.
    report.bytes = Storage.size(of: groups.flatMap { $0.paths.filter { !skip.contains($0) } }.map(FilePath.init))
    report.needed = Storage.withMargin(
      report.bytes + (request.snapshot ? try Snapshots(layout: store.layout).firstSnapshotCost() : 0))
    report.free = Storage.freeBytes(at: store.layout.root)
    if request.dryRun || total == skip.count {
      report.seconds = Date().timeIntervalSince(started)
      return report
    }
    try Storage.require(
      report.needed - Storage.withMargin(0), at: store.layout.root,
      for: "migrate (\(total - skip.count) documents, \(Storage.format(report.bytes)))")
    if request.snapshot {
      var snapshots = Snapshots(layout: store.layout)
      snapshots.progress = store.progress
      snapshots.now = store.now
      report.snapshot = try snapshots.create(reason: "pre-migrate", message: "before migrate").name
      report.prunedSnapshots = try snapshots.autoPrune()
    }
    // Pass 2: transform again in batches and stage, so memory stays flat however large the store.
    session.operation.summary = "migrate " + Set(groups.map(\.kind)).sorted().joined(separator: ", ")
    let writing = ProgressCounter("staging", total: total - skip.count, store.progress)
    for group in groups {
      let paths = group.paths.filter { !skip.contains($0) }
      for start in stride(from: 0, to: paths.count, by: 2048) {
        let batch = Array(paths[start..<min(paths.count, start + 2048)])
        let this = self
        let staged = parallelMap(batch, chunkSize: 32) {
          path -> (bytes: [UInt8], entry: AuditEntry, voids: StaleApprovals?)? in
          // Pass 1 validated every document under this same lock; do not pay for it twice.
          guard
            case .migrated(let before, let after, let bytes, _, let voids) = this.transform(
              path, group, validate: false)
          else { return nil }
          let id = StoreLayout.id(fromFile: path) ?? ""
          return (
            bytes, AuditEntry(kind: group.kind, id: id, action: .update, pointers: before.changedPointers(to: after)),
            voids
          )
        }
        for (path, outcome) in zip(batch, staged) {
          guard let outcome else {
            throw StoreError.refused(.changedMeanwhile(path: store.display(path), during: "during the migration"))
          }
          try session.stage(outcome.bytes, to: path, entry: outcome.entry)
          if let voids = outcome.voids { session.noteStale(voids) }
        }
        writing?.add(batch.count)
      }
      report.migrated += paths.count
    }
    report.seconds = Date().timeIntervalSince(started)
    session.details = try details(report)
    return report
  }

  /// The audit record's summary of a run: per kind the versions it came from and went to, the
  /// checksum of every descriptor it used (so a later edit of one is caught), the snapshot.
  func details(_ report: Report) throws(StoreError) -> JSONObject {
    var kinds = JSONObject()
    for (group, _) in report.groups {
      var entry = kinds[group.kind]?.objectValue ?? JSONObject()
      entry["to"] = .string(group.to.description)
      var from = entry["from"]?.objectValue ?? JSONObject()
      from[group.from.description] = .number(JSONNumber(group.paths.count))
      entry["from"] = .object(from)
      kinds[group.kind] = .object(entry)
    }
    var descriptors = JSONObject()
    for (group, _) in report.groups {
      for version in Set(group.steps.flatMap { [$0.from, $0.to] }) {
        let reference = "\(group.kind)@\(version)"
        if let path = store.registry.files[reference] {
          descriptors[store.layout.relative(path)] = .string(try descriptorChecksum(path))
        }
      }
    }
    return JSONObject([
      "kinds": .object(kinds), "migrated": .number(JSONNumber(report.migrated)),
      "skipped": .number(JSONNumber(report.skipped.count)), "snapshot": report.snapshot.map(JSONValue.string) ?? .null,
      "duration_ms": .number(JSONNumber(Int(report.seconds * 1000))), "descriptors": .object(descriptors),
    ])
  }

  /// SHA-256 of a descriptor's meaning: its YAML as canonical JSON, so reformatting does not count.
  func descriptorChecksum(_ path: String) throws(StoreError) -> String {
    let bytes = try FileIO.read(FilePath(path))
    // Text that does not parse as YAML (schema check reports it) is checksummed as it is.
    do {
      guard let json = try YAMLReader().read(bytes)?.jsonValue() else { return sha256Hex(bytes) }
      return sha256Hex(JSONWriter.canonical(json))
    } catch {
      return sha256Hex(bytes)
    }
  }

  /// The descriptors earlier migrations used, with the checksum each had (the latest record wins).
  func recordedChecksums() throws(StoreError) -> [String: (checksum: String, time: String)] {
    var recorded: [String: (String, String)] = [:]
    for entry in try AuditLog.read(store.layout).records {
      guard let descriptors = entry.value["descriptors"]?.objectValue else { continue }
      let time = entry.value["time"]?.stringValue ?? "?"
      for member in descriptors.members { if let sum = member.value.stringValue { recorded[member.key] = (sum, time) } }
    }
    return recorded
  }

  /// Refuses, naming the file, when a descriptor an earlier run used has changed since.
  public func checkHistory() throws(StoreError) {
    if let changed = try changedDescriptors().first {
      throw StoreError.refused(.descriptorChanged(path: changed.path, migratedAt: changed.migratedAt))
    }
  }

  /// The descriptors earlier runs used that changed since (by path in the store), with the time
  /// of the run that last recorded each: what `migrate` refuses until `migrate repair`.
  public func changedDescriptors() throws(StoreError) -> [(path: String, migratedAt: String)] {
    var changed: [(path: String, migratedAt: String)] = []
    for (relative, record) in try recordedChecksums().sorted(by: { $0.key < $1.key }) {
      let path = (store.layout.rootPath / relative).string
      guard FileIO.exists(FilePath(path)) else { continue }
      if try descriptorChecksum(path) != record.checksum { changed.append((relative, record.time)) }
    }
    return changed
  }

  /// Records the current checksums of the descriptors earlier runs used (after a deliberate edit).
  public func repair() throws(StoreError) -> [String] {
    try store.write("migrate repair", summary: "migrate repair") { session throws(StoreError) -> [String] in
      var changed: [String] = []
      var descriptors = JSONObject()
      for (relative, record) in try recordedChecksums().sorted(by: { $0.key < $1.key }) {
        let path = (store.layout.rootPath / relative).string
        guard FileIO.exists(FilePath(path)) else { continue }
        let current = try descriptorChecksum(path)
        if current != record.checksum {
          changed.append(relative)
          descriptors[relative] = .string(current)
        }
      }
      if !changed.isEmpty {
        session.operation.recordsWithoutDocuments = true
        session.details = JSONObject(["descriptors": .object(descriptors)])
      }
      return changed
    }
  }
}
