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
    /// The feed's path, or with `feedBytes`, the name it is shown by (`<stdin>`).
    public var feed: String
    /// The feed itself, when it is not a file (standard input).
    public var feedBytes: [UInt8]?
    public var map: String?
    public var dryRun = false
    public var prune = false
    /// How much `prune` may remove; nil for the default bound (`PruneBound.standard`, and never
    /// on an empty feed).
    public var maxPrune: PruneBound?
    public var snapshot = true
    /// Refuse records that move the workflow field along no declared transition.
    public var strictWorkflow = false
    /// Leave out the records that cannot be imported, import the rest, and list the refused ones
    /// in `Report.rejected` (and in `rejects`, unless a dry run).
    public var skipInvalid = false
    /// With `skipInvalid`, the NDJSON file the refused records are written to (`ImportRejects`),
    /// before the store changes; required unless `dryRun`.
    public var rejects: String?
    /// The feed's format; nil: by its name (`.csv` is CSV, else JSON).
    public var format: FeedFormat?
    /// A CSV feed's `--columns` file (``Importer/columnMap(_:display:)``).
    public var columns: String?
    public init(
      kind: String, feed: String, map: String? = nil, dryRun: Bool = false, prune: Bool = false, snapshot: Bool = true,
      strictWorkflow: Bool = false, maxPrune: PruneBound? = nil
    ) {
      self.maxPrune = maxPrune
      self.kind = kind
      self.feed = feed
      self.map = map
      self.dryRun = dryRun
      self.prune = prune
      self.snapshot = snapshot
      self.strictWorkflow = strictWorkflow
    }
  }

  /// What happened (or, in a dry run, would happen) to one feed record.
  public struct Record: Sendable {
    public var id: String
    public var action: FeedMerger.Action
    /// `replace (kept: acquisition_id, unit_price ×3)`.
    public var description: String
  }

  public struct Report: Sendable {
    public var records: [Record] = []
    /// What `--prune` deletes (the documents the feed lacks, then their cascades) and rewrites
    /// (references cleared by `nullify`): every document it touches.
    public var pruned = Store.ChangePlan()
    public var warnings: [String] = []
    /// Transitions the workflow does not list, applied because the feed says so.
    public var workflowWarnings: [String] = []
    /// Members the schema does not know, dropped, by path.
    public var dropped: [String: Int] = [:]
    public var snapshot: String?
    /// The snapshots the retention policy removed after it (`auto_prune`).
    /// Signed documents whose approvals the import makes stale (their rounds end; approved ones
    /// go back to review where the descriptor says `on_change: reopen`).
    public var staleApprovals: [StaleApprovals] = []
    public var prunedSnapshots: [String] = []
    /// With `skipInvalid`: the records left out, in feed order, each with its diagnostics.
    public var rejected: [ImportRejects.Record] = []
    /// Why `--prune` did not run, when it was asked for: with `skipInvalid`, a refused record
    /// might have stood for any stored document, so the prune waits for a clean feed.
    public var pruneSkipped: String?
    /// The rejects file written (nil in a dry run or without `skipInvalid`).
    public var rejectsFile: String?
    /// The documents the run writes or deletes, the bytes it stages, what it needs free (with
    /// the snapshot and the margin) and what is free: a dry run's estimate, as `migrate`'s.
    public var documents = 0
    public var bytes: Int64 = 0
    public var needed: Int64 = 0
    public var free: Int64?
    /// How long the run (or the dry run) took to check the feed, in seconds.
    public var seconds: Double = 0

    public func count(_ test: (FeedMerger.Action) -> Bool) -> Int { records.filter { test($0.action) }.count }

    /// `created 2, replaced 1, updated 1, unchanged 3, skipped 1 (local newer); pruned 4 ...`.
    public var summary: String {
      let created = count { $0 == .create }
      let replaced = count { $0 == .replace }
      let updated = count { if case .update = $0 { true } else { false } }
      let skipped = count { $0 == .localNewer }
      let unchanged = records.count - created - replaced - updated - skipped
      var text =
        "created \(created), replaced \(replaced), updated \(updated), unchanged \(unchanged), skipped \(skipped) (local newer)"
      let roots = pruned.deletes.filter { $0.reason == Importer.pruneReason }.count
      if !pruned.deletes.isEmpty || !pruned.rewrites.isEmpty {
        text += ", pruned \(roots)"
        if pruned.deletes.count > roots { text += " (+\(pruned.deletes.count - roots) deleted by cascade)" }
        if !pruned.rewrites.isEmpty { text += ", references cleared in \(pruned.rewrites.count)" }
      }
      if !workflowWarnings.isEmpty { text += ", \(workflowWarnings.count) outside the workflow" }
      if !rejected.isEmpty { text += ", refused \(rejected.count)" }
      return text + "; dropped \(dropped.values.reduce(0, +)) unknown field values"
    }
  }

  /// Why `--prune` deletes a document.
  /// The largest feed read (1 GiB): a feed is many records, each at most `recordLimit`.
  public static let feedLimit = 1 << 30
  public static let pruneReason = "not in the feed; --prune"

  /// The largest feed record, as compact JSON: a document is far smaller; a record beyond it is
  /// refused before any work (a 4 MiB value would otherwise cost seconds and a 4 MiB message).
  public static let recordLimit = 16 << 20

  /// Reads a feed: a JSON array of records, or NDJSON (one record per line); errors name line:column.
  /// With `unparsed`, an NDJSON line that does not parse is handed to it (line, text, message)
  /// and stands in the list as its text, instead of failing the feed.
  public static func records(
    _ path: String, display: String, bytes given: [UInt8]? = nil,
    unparsed: ((Int, String, String) -> Void)? = nil
  ) throws(StoreError) -> [(line: Int, value: JSONValue)] {
    let bytes: [UInt8]
    if let given { bytes = given } else { bytes = try FileIO.read(FilePath(path), limit: feedLimit) }
    func tooLarge(_ line: Int, _ size: Int) -> StoreError {
      StoreError.refused(.recordTooLarge(path: display, line: line, size: size, limit: recordLimit))
    }
    let first = bytes.first { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }
    if first == UInt8(ascii: "[") {
      let records: [(line: Int, value: JSONValue)]
      do {
        let (value, map) = try JSONParser().parseWithSourceMap(bytes)
        records = (value.arrayValue ?? []).enumerated().map {
          (map.valuePosition(JSONPointer.root.appending(index: $0.offset)).line, $0.element)
        }
      } catch {
        throw StoreError.refused(.badInputFile(path: display, position: error.location, message: error.message))
      }
      if bytes.count > recordLimit {
        for record in records {
          let size = JSONWriter.compact(record.value).utf8.count
          if size > recordLimit { throw tooLarge(record.line, size) }
        }
      }
      return records
    }
    var out: [(Int, JSONValue)] = []
    for (index, line) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
      guard line.contains(where: { ![0x20, 0x0D, 0x09].contains($0) }) else { continue }
      if line.count > recordLimit { throw tooLarge(index + 1, line.count) }
      do {
        out.append((index + 1, try JSONParser().parse(Array(line))))
      } catch {
        if let unparsed {
          let text = String(decoding: line, as: UTF8.self)
          unparsed(index + 1, text, "\(index + 1):\(error.location.column): \(error.message)")
          out.append((index + 1, .string(text)))
          continue
        }
        throw StoreError.refused(
          .badInputFile(
            path: display, position: SourcePosition(line: index + 1, column: error.location.column),
            message: error.message))
      }
    }
    return out
  }

  /// The YAML a map or columns file holds (nil when empty); one that does not parse is refused at its place.
  static func yamlFile(_ path: String, display: String) throws(StoreError) -> YAMLNode? {
    let bytes = try FileIO.read(FilePath(path))
    do throws(YAMLError) {
      return try YAMLReader().read(bytes)
    } catch {
      throw StoreError.refused(.badInputFile(path: display, position: error.position, message: error.message))
    }
  }

  /// The mapping file: a YAML list of `changes` steps.
  public static func mapping(_ path: String, display: String) throws(StoreError) -> [ChangeOp] {
    let node = try yamlFile(path, display: display)
    guard let steps = node?.sequence else {
      throw StoreError.refused(
        .badInputFile(
          path: display, position: SourcePosition(line: 1, column: 1),
          message: "a mapping file is a YAML list of change steps"))
    }
    var ops: [ChangeOp] = []
    for step in steps {
      do {
        ops.append(try ChangeOp.parse(try step.jsonValue()))
      } catch let error as MigrationError {
        throw StoreError.refused(.badInputFile(path: display, position: step.position, message: error.message))
      } catch {
        throw StoreError.refused(.badInputFile(path: display, position: step.position, message: "\(error)"))
      }
    }
    return ops
  }

  /// Imports per `request` through the store's write path; with `dryRun`, reports and writes nothing.
  public func run(_ request: Request) throws(StoreError) -> Report {
    let schema = try store.schema(request.kind)
    if let rejects = request.rejects, request.skipInvalid {
      try ImportRejects.check(rejects, layout: store.layout, feed: request.feedBytes == nil ? request.feed : nil)
    }
    var unparsed: [Int: Unparsed] = [:]
    let feed = try feedRecords(
      request, schema: schema, unparsed: request.skipInvalid ? { line, problem in unparsed[line] = problem } : nil)
    var ops: [ChangeOp] = []
    if let map = request.map { ops = try Self.mapping(map, display: store.display(map)) }
    let started = Date()
    var report = try store.write("import", summary: "import \(request.kind)", dryRun: request.dryRun) {
      session throws(StoreError) -> Report in
      try merge(feed, unparsed: unparsed, ops: ops, schema: schema, request: request, session: session)
    }
    report.seconds = Date().timeIntervalSince(started)
    return report
  }

  /// A feed record that passed the checks that need the whole feed.
  struct Accepted: Sendable {
    let number: Int
    let line: Int
    let id: String
    let record: JSONValue
    /// A CSV row's `_hash`: the SHA-256 of the file it was exported from (its edits apply to that).
    var base: String? = nil
  }

  func merge(
    _ feed: [(line: Int, value: JSONValue)], unparsed: [Int: Unparsed] = [:], ops: [ChangeOp], schema: Schema,
    request: Request, session: WriteSession
  )
    throws(StoreError) -> Report
  {
    var report = Report()
    var failures: [Diagnostic] = []
    let shown = store.display(request.feed)
    func fail(_ line: Int, _ message: String) {
      failures.append(
        Diagnostic(file: shown, position: SourcePosition(line: line, column: 1), rule: "import", message: message))
    }
    // Problems of one record, by its number: the import's failures, or with --skip-invalid its rejects.
    var refusals = ImportRejects.Collector(
      feed: feed, file: shown, kind: request.kind, schema: schema,
      unparsed: unparsed.mapValues(\.position), mapped: !ops.isEmpty)
    func refuse(_ number: Int, _ message: String, _ id: String?) { refusals.add(number, message, id: id) }
    let accepted = check(
      feed, unparsed: unparsed, ops: ops, schema: schema, report: &report, refuseDuplicates: request.skipInvalid,
      csv: (request.format ?? FeedFormat.of(request.feed)) == .csv, fail: refuse)
    // Reading, merging and the write path's checks run in parallel; staging is serial, below.
    let store = self.store
    let kind = request.kind
    let merger = FeedMerger(schema: schema, now: Int64(session.now.timeIntervalSince1970))
    let source = ChangeSource.feed(strictWorkflow: request.strictWorkflow)
    let merging = ProgressCounter("merging", total: accepted.count, store.progress)
    let csv = (request.format ?? FeedFormat.of(request.feed)) == .csv
    let outcomes = parallelMap(accepted, chunkSize: 32, progress: merging) {
      item -> (FeedMerger.Merge, Result<WriteSession.Prepared?, StoreError>) in
      let path = (try? store.path(kind: kind, id: item.id)) ?? ""
      let stored: Store.Document?
      do throws(StoreError) {
        stored = FileIO.exists(FilePath(path)) ? try store.read(kind: kind, id: item.id) : nil
      } catch {
        return (merger.merge(stored: nil, feed: item.record), .failure(error))
      }
      // A sealed value brought back as it was shown («encrypted») is the envelope it stands for.
      let record = stored.map { schema.root.restoringSealed(in: item.record, from: $0.value) } ?? item.record
      if let base = item.base {
        return Self.edit(record, base: base, stored: stored, kind: kind, merger: merger, session: session)
      }
      let merge = merger.merge(stored: stored?.value, feed: record)
      if csv, merge.action == .unchanged, let stored, let updated = schema.timestamps.updated {
        // A sheet without the _hash column, edited but with its stamps as exported: the edits
        // would be left out without a word ("unchanged"); they are refused instead, saying why.
        var kept: [String: Int] = [:]
        if merger.overlay(record, onto: stored.value, type: schema.root, parent: nil, kept: &kept) != stored.value {
          return (
            merge,
            .failure(
              .refused(
                .changedMeanwhile(
                  path: "\(kind) \(item.id)",
                  during: "in the sheet, but its \(updated) is the stored one, not newer, so an import keeps the "
                    + "stored version and the row's edits are left out (a sheet exported whole carries "
                    + "\(CSVDocuments.baseColumn), with which they apply)")))
          )
        }
      }
      guard let result = merge.result else { return (merge, .success(nil)) }
      do throws(StoreError) {
        return (merge, .success(try session.prepare(result, replacing: stored, kind: kind, source: source)))
      } catch {
        return (merge, .failure(error))
      }
    }
    var prepared: [WriteSession.Prepared] = []
    for (item, (merge, outcome)) in zip(accepted, outcomes) {
      report.warnings += merge.warnings.map { "\(item.id): \($0)" }
      let record = Record(id: item.id, action: merge.action, description: merge.description)
      switch outcome {
      case .success(let version?):
        report.workflowWarnings += version.warnings
        prepared.append(version)
        report.records.append(record)
      case .success(nil):
        report.records.append(record)
      case .failure(.invalidDocument(_, let diagnostics)):
        // An id the kind refuses (its type or pattern) is no id: the rejects line says null.
        let id = diagnostics.contains { $0.pointer.tokens == [schema.idField] } ? nil : item.id
        for diagnostic in diagnostics {
          let at = diagnostic.pointer.path.isEmpty ? "" : diagnostic.pointer.path + ": "
          refusals.add(
            item.number,
            "record \(item.number + 1) (\(item.id)) after merging: \(at)\(diagnostic.message) [\(diagnostic.rule)]",
            id: id, detail: diagnostic)
        }
      case .failure(let error):
        refusals.add(item.number, "record \(item.number + 1): \(error.description)", id: item.id, rule: "refused")
      }
    }
    if !request.skipInvalid { failures = refusals.failures }
    var pruning = request.prune
    if pruning && request.skipInvalid && !refusals.isEmpty {
      // A refused record might have stood for any stored document (its id before --map, a
      // mapping that failed, an id the kind refuses): nothing is pruned until a clean feed.
      pruning = false
      report.pruneSkipped =
        "--prune skipped: \(refusals.count == 1 ? "1 feed record was" : "\(refusals.count) feed records were") refused;"
        + " the prune waits for a feed with none refused"
    }
    if pruning {
      let seen = Set(accepted.map(\.id))
      let stored = try store.layout.ids(in: schema.directory)
      let roots = stored.filter { !seen.contains($0) }
      let bound = request.maxPrune ?? .standard
      if let reason = bound.refusal(
        removing: roots.count, of: stored.count, feedRecords: feed.count, explicit: request.maxPrune != nil)
      {
        throw StoreError.pruneRefused(kind: kind, removing: roots.count, of: stored.count, reason: reason)
      }
      let plan = try store.planDelete(roots.map { (kind, $0) }, reason: Self.pruneReason)
      for blocker in plan.blockers {
        fail(1, "--prune cannot delete what \(blocker.kind) \(blocker.id) refers to: \(blocker.reason)")
      }
      let written = Set(prepared.map(\.path))
      for entry in plan.deletes + plan.rewrites where written.contains(entry.path) {
        fail(
          1,
          "--prune would change \(entry.kind) \(entry.id) (\(entry.reason)), which the feed also changes; import without --prune first"
        )
      }
      report.pruned = plan
    }
    guard failures.isEmpty else {
      throw StoreError.importFailed(records: Set(failures.map { $0.position?.line ?? 0 }).count, failures)
    }
    if request.skipInvalid {
      report.rejected = refusals.records
      // Written before the store changes: a rejects file that cannot be written stops the import
      // with nothing imported, so no refused record passes unnoticed.
      if !request.dryRun, let path = request.rejects {
        try ImportRejects.write(report.rejected, to: path, layout: store.layout)
        report.rejectsFile = path
      }
    }
    report.staleApprovals = prepared.compactMap(\.staleApprovals)
    if prepared.isEmpty && report.pruned.deletes.isEmpty { return report }
    // The safety copy holds just the documents this import changes (a partial snapshot): its
    // cost follows the feed, not the store, and restoring it undoes exactly this import.
    let changing = prepared.map(\.path) + (report.pruned.deletes + report.pruned.rewrites).map(\.path)
    let staged = prepared.reduce(Int64(0)) { $0 + Int64($1.bytes.count) }
    // What the run takes is counted in the file system's blocks (a small document takes a whole
    // one), with a directory entry per file: the dry run promises what the run finds.
    let block = Storage.blockSize(at: store.layout.root) ?? Storage.assumedBlockSize
    let stagedOnDisk = prepared.reduce(Int64(0)) {
      $0
        + Storage.allocated(
          size: Int64($1.bytes.count), nameLength: FilePath($1.path).name.utf8.count, blockSize: block)
    }
    let copied = request.snapshot ? Storage.allocated(of: changing.map(FilePath.init), at: store.layout.root) : 0
    report.documents = changing.count
    report.bytes = staged
    report.needed = Storage.withMargin(stagedOnDisk + copied)
    report.free = Storage.freeBytes(at: store.layout.root)
    if !request.dryRun {
      try Storage.require(stagedOnDisk + copied, at: store.layout.root, for: "import (\(prepared.count) documents)")
    }
    if request.snapshot && !request.dryRun {
      var snapshots = Snapshots(layout: store.layout)
      snapshots.progress = store.progress
      snapshots.now = store.now
      report.snapshot = try snapshots.create(
        reason: "pre-import", message: "before importing \(FilePath(request.feed).name)", only: changing
      ).name
      report.prunedSnapshots = try snapshots.autoPrune()
    }
    for version in prepared { try session.stage(version) }
    try store.stage(report.pruned, in: session)
    session.details = JSONObject([
      "kind": .string(request.kind), "feed": .string(shown),
      "created": .number(JSONNumber(report.count { $0 == .create })),
      "replaced": .number(JSONNumber(report.count { $0 == .replace })),
      "updated": .number(JSONNumber(report.count { if case .update = $0 { true } else { false } })),
      "pruned": .number(JSONNumber(report.pruned.deletes.count)),
      "snapshot": report.snapshot.map(JSONValue.string) ?? .null,
    ])
    return report
  }

  /// The checks that need the whole feed, in order: each record an object, mapped, unknown
  /// members dropped, with a valid id and `updated` timestamp, and its id once.
  /// `fail` takes the record's number (0-based), the message and the record's id after `--map`
  /// when it is known and valid. With `refuseDuplicates`, every
  /// record of an id that appears more than once is refused, the first too (which is right is unknown).
  func check(
    _ feed: [(line: Int, value: JSONValue)], unparsed: [Int: Unparsed] = [:], ops: [ChangeOp], schema: Schema,
    report: inout Report, refuseDuplicates: Bool = false, csv: Bool = false, fail: (Int, String, String?) -> Void
  ) -> [Accepted] {
    var accepted: [Accepted] = []
    var seen: [String: Int] = [:]
    var duplicated: Set<String> = []
    for (number, entry) in feed.enumerated() {
      var record = entry.value
      if let problem = unparsed[entry.line] {
        // A CSV document names its id even when a cell does not type; an id the kind refuses is none.
        let id = problem.id.flatMap { DocumentID.isValid($0) ? $0 : nil }
        fail(number, "record \(number + 1) does not parse: \(problem.message)", ops.isEmpty ? id : nil)
        continue
      }
      guard case .object = record else {
        fail(number, "record \(number + 1) is a \(record.typeName), not an object", nil)
        continue
      }
      do throws(MigrationError) {
        for op in ops { try op.apply(to: &record, runJQ: runJQ) }
      } catch {
        fail(number, "record \(number + 1): the mapping failed: \(error.message)", nil)
        continue
      }
      let base = csv ? record[CSVDocuments.baseColumn]?.stringValue : nil
      if csv { record[CSVDocuments.baseColumn] = nil }
      record["_schema"] = .string(schema.reference)
      record = FeedMerger.dropUnknown(record, type: schema.root, dropped: &report.dropped)
      guard let id = record[schema.idField].flatMap(DocumentID.text) else {
        fail(number, "record \(number + 1) has no \(schema.idField)", nil)
        continue
      }
      guard DocumentID.isValid(id) else {
        fail(number, "record \(number + 1): \(DocumentID.problem(id))", nil)
        continue
      }
      if let updated = schema.timestamps.updated, record[updated]?.stringValue.flatMap(Instant.init) == nil {
        fail(number, "record \(number + 1) (\(id)) has no valid \(updated) timestamp", id)
        continue
      }
      if let first = seen.updateValue(number + 1, forKey: id) {
        fail(number, "record \(number + 1): \(id) appears twice in the feed (also record \(first))", id)
        duplicated.insert(id)
        continue
      }
      accepted.append(Accepted(number: number, line: entry.line, id: id, record: record, base: base))
    }
    if refuseDuplicates && !duplicated.isEmpty {
      for item in accepted where duplicated.contains(item.id) {
        fail(
          item.number, "record \(item.number + 1): \(item.id) appears more than once in the feed; none is imported",
          item.id)
      }
      accepted.removeAll { duplicated.contains($0.id) }
    }
    return accepted
  }
}
