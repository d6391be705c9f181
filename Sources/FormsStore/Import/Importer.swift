import FormsCore
import FormsYAML
import Foundation

/// `formsctl import`: merges a feed of records into the store by the rules of `FeedMerger`,
/// all or nothing, after a pre-import snapshot.
public struct Importer: Sendable {
  public let store: Store
  /// Runs `jq` steps of the mapping; by default the `jq` program.
  public var runJQ: JQRunner = JQProgram.run

  public init(store: Store) { self.store = store }

  public struct Request: Sendable {
    public var kind: String
    public var feed: String
    public var map: String?
    public var dryRun = false
    public var prune = false
    public var snapshot = true
    public init(kind: String, feed: String, map: String? = nil, dryRun: Bool = false, prune: Bool = false, snapshot: Bool = true) {
      self.kind = kind
      self.feed = feed
      self.map = map
      self.dryRun = dryRun
      self.prune = prune
      self.snapshot = snapshot
    }
  }

  public struct Report: Sendable {
    public var records: [(id: String, action: FeedMerger.Action)] = []
    public var pruned: [String] = []
    public var warnings: [String] = []
    /// Members the schema does not know, dropped, by path.
    public var dropped: [String: Int] = [:]
    public var snapshot: String?

    public func count(_ test: (FeedMerger.Action) -> Bool) -> Int { records.filter { test($0.action) }.count }

    /// `created 2, replaced 1, updated 1, unchanged 3, skipped 1 (local newer); dropped 14 unknown fields`.
    public var summary: String {
      let created = count { $0 == .create }
      let replaced = count { $0 == .replace }
      let updated = count { if case .update = $0 { true } else { false } }
      let skipped = count { $0 == .keep("keep (local newer)") }
      let unchanged = records.count - created - replaced - updated - skipped
      return "created \(created), replaced \(replaced), updated \(updated), unchanged \(unchanged), skipped \(skipped) (local newer)"
        + (pruned.isEmpty ? "" : ", pruned \(pruned.count)") + "; dropped \(dropped.values.reduce(0, +)) unknown field values"
    }
  }

  /// Reads a feed: a JSON array of records, or NDJSON (one record per line); errors name line:column.
  public static func records(_ path: String, display: String) throws(StoreError) -> [(line: Int, value: JSONValue)] {
    let bytes = try FileIO.read(path, limit: 1 << 30)
    let first = bytes.first { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }
    if first == UInt8(ascii: "[") {
      do {
        let (value, map) = try JSONParser().parseWithSourceMap(bytes)
        return (value.arrayValue ?? []).enumerated().map { (map.valuePosition(JSONPointer.root.appending(index: $0.offset)).line, $0.element) }
      } catch {
        throw StoreError.badRequest("\(display):\(error.location.line):\(error.location.column): \(error.message)")
      }
    }
    var out: [(Int, JSONValue)] = []
    for (index, line) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
      guard line.contains(where: { ![0x20, 0x0D, 0x09].contains($0) }) else { continue }
      do {
        out.append((index + 1, try JSONParser().parse(Array(line))))
      } catch {
        throw StoreError.badRequest("\(display):\(index + 1):\(error.location.column): \(error.message)")
      }
    }
    return out
  }

  /// The mapping file: a YAML list of `changes` steps.
  public static func mapping(_ path: String, display: String) throws(StoreError) -> [ChangeOp] {
    let bytes = try FileIO.read(path)
    let node: YAMLNode?
    do throws(YAMLError) {
      node = try YAMLReader().read(bytes)
    } catch {
      throw StoreError.badRequest("\(display):\(error.position.line):\(error.position.column): \(error.message)")
    }
    guard let steps = node?.sequence else { throw StoreError.badRequest("\(display):1:1: a mapping file is a YAML list of change steps") }
    var ops: [ChangeOp] = []
    for step in steps {
      do {
        ops.append(try ChangeOp.parse(try step.jsonValue()))
      } catch let error as MigrationError {
        throw StoreError.badRequest("\(display):\(step.position.line):\(step.position.column): \(error.message)")
      } catch {
        throw StoreError.badRequest("\(display):\(step.position.line):\(step.position.column): \(error)")
      }
    }
    return ops
  }

  /// Imports per `request`; with `dryRun`, reports and writes nothing.
  public func run(_ request: Request) throws(StoreError) -> Report {
    let schema = try store.schema(request.kind)
    let feed = try Self.records(request.feed, display: store.display(request.feed))
    var ops: [ChangeOp] = []
    if let map = request.map { ops = try Self.mapping(map, display: store.display(map)) }
    if request.dryRun { return try merge(feed, ops: ops, schema: schema, request: request) }
    return try store.withWriteLock("import \(request.kind)") { () throws(StoreError) -> Report in
      try merge(feed, ops: ops, schema: schema, request: request)
    }
  }

  func merge(_ feed: [(line: Int, value: JSONValue)], ops: [ChangeOp], schema: Schema, request: Request) throws(StoreError) -> Report {
    var report = Report()
    var failures: [Diagnostic] = []
    var steps: [Journal.Step] = []
    var seen: [String: Int] = [:]
    let shown = store.display(request.feed)
    let merger = FeedMerger(schema: schema, now: Int64(store.now().timeIntervalSince1970))
    func fail(_ line: Int, _ message: String) {
      failures.append(Diagnostic(file: shown, position: SourcePosition(line: line, column: 1), rule: "import", message: message))
    }
    // Checks that need the whole feed run in order; reading, merging and validating run in parallel.
    var accepted: [(number: Int, line: Int, id: String, record: JSONValue)] = []
    for (number, entry) in feed.enumerated() {
      var record = entry.value
      guard case .object = record else {
        fail(entry.line, "record \(number + 1) is a \(record.typeName), not an object")
        continue
      }
      do throws(MigrationError) {
        for op in ops { try op.apply(to: &record, runJQ: runJQ) }
      } catch {
        fail(entry.line, "record \(number + 1): the mapping failed: \(error.message)")
        continue
      }
      record["_schema"] = .string(schema.reference)
      record = FeedMerger.dropUnknown(record, type: schema.root, dropped: &report.dropped)
      guard let id = record[schema.idField].flatMap(DocumentID.text) else {
        fail(entry.line, "record \(number + 1) has no \(schema.idField)")
        continue
      }
      guard DocumentID.isValid(id) else {
        fail(entry.line, "record \(number + 1): \(DocumentID.problem(id))")
        continue
      }
      if let updated = schema.timestamps.updated, record[updated]?.stringValue.flatMap(Instant.init) == nil {
        fail(entry.line, "record \(number + 1) (\(id)) has no valid \(updated) timestamp")
        continue
      }
      if let first = seen.updateValue(number + 1, forKey: id) {
        fail(entry.line, "record \(number + 1): \(id) appears twice in the feed (also record \(first))")
        continue
      }
      accepted.append((number, entry.line, id, record))
    }
    let store = self.store
    let kind = request.kind
    let merged = parallelMap(accepted, chunkSize: 32) { item -> (path: String, result: JSONValue?, action: FeedMerger.Action, warnings: [String], findings: [Finding]) in
      let path = (try? store.path(kind: kind, id: item.id)) ?? ""
      let stored = FileIO.exists(path) ? (try? store.read(kind: kind, id: item.id))?.value : nil
      let (result, action, warnings) = merger.merge(stored: stored, feed: item.record)
      let findings = result.map { store.findings(for: $0, schema: schema, path: path) } ?? []
      return (path, result, action, warnings, findings)
    }
    for (item, outcome) in zip(accepted, merged) {
      report.warnings += outcome.warnings.map { "\(item.id): \($0)" }
      report.records.append((item.id, outcome.action))
      guard let result = outcome.result else { continue }
      if !outcome.findings.isEmpty {
        for finding in outcome.findings {
          fail(item.line, "record \(item.number + 1) (\(item.id)) after merging: \(finding.pointer.path.isEmpty ? "" : finding.pointer.path + ": ")\(finding.message) [\(finding.rule)]")
        }
        continue
      }
      steps.append(.write(path: outcome.path, bytes: JSONWriter.canonical(result)))
    }
    if request.prune {
      let directory = store.layout.dataDirectory + "/" + schema.directory
      for path in FileIO.files(under: directory, suffix: ".json") where seen[String(fileName(path).dropLast(5))] == nil {
        let id = String(fileName(path).dropLast(5))
        let plan = try store.planDelete(kind: request.kind, id: id)
        for blocker in plan.blockers { fail(1, "--prune cannot delete \(id): \(blocker.kind) \(blocker.id) \(blocker.reason)") }
        report.pruned.append(id)
        steps += plan.steps.filter { step in !steps.contains { $0.path == step.path } }
      }
    }
    guard failures.isEmpty else { throw StoreError.importFailed(records: Set(failures.map { $0.position?.line ?? 0 }).count, failures) }
    if request.dryRun || steps.isEmpty { return report }
    if request.snapshot {
      var snapshots = Snapshots(layout: store.layout)
      snapshots.now = store.now
      report.snapshot = try snapshots.create(reason: "pre-import", message: "before importing \(fileName(request.feed))").name
    }
    try Journal(layout: store.layout).apply(steps, operation: "import \(request.kind)")
    try History.append(JSONObject([
      "operation": .string("import"), "kind": .string(request.kind), "feed": .string(shown),
      "created": .number(JSONNumber(report.count { $0 == .create })), "replaced": .number(JSONNumber(report.count { $0 == .replace })),
      "updated": .number(JSONNumber(report.count { if case .update = $0 { true } else { false } })),
      "pruned": .number(JSONNumber(report.pruned.count)), "snapshot": report.snapshot.map(JSONValue.string) ?? .null,
    ]), layout: store.layout, now: store.now())
    return report
  }
}
