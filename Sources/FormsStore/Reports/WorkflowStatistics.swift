import FormsCore
import Foundation

extension Store {
  /// Where ``workflowStatistics(kind:from:)`` reads the workflow's history.
  public enum WorkflowHistorySource: Sendable {
    /// The audit log only.
    case auditLog
    /// The audit log, and for each document the log does not see created (a migrated or imported
    /// store, a log started late), the commits of git history before the log's first record of it.
    case auditLogAndGit
  }

  /// From the audit log: for each workflow state of `kind`, how many times documents entered it,
  /// how long they stayed before moving on (median and 90th percentile, over the stays that
  /// ended), and how many are in it now; and how many of the documents created in the log
  /// reached a final state (one the workflow leads out of to nowhere). Documents the log does not
  /// see created are seeded from git history (``workflowStatistics(kind:from:)``); what could not
  /// be is said in the report's notes.
  public func workflowStatistics(kind: String) throws(StoreError) -> TableReport {
    let (report, warnings) = try workflowStatistics(kind: kind, from: .auditLogAndGit)
    var noted = report
    noted.notes += warnings
    return noted
  }

  /// ``workflowStatistics(kind:)`` from `source`, and one sentence per thing left out (the
  /// store is not in a git repository, git is missing, or a version of a document there does
  /// not parse).
  ///
  /// With ``WorkflowHistorySource/auditLogAndGit``, a document of `kind` (in the store now) that
  /// the log does not see created gets, before the log's first record of it, a state entry for
  /// each commit that added it or changed its workflow field, at the commit's author time; a
  /// commit that deleted it ends its stay. One `git log` over the kind's directory and one
  /// `git cat-file --batch` read them all.
  public func workflowStatistics(kind: String, from source: WorkflowHistorySource) throws(StoreError)
    -> (report: TableReport, warnings: [String])
  {
    let schema = try schema(kind)
    guard let workflow = schema.workflow else { throw StoreError.refused(.noWorkflow(kind: kind)) }
    var entered: [String: Int] = [:]
    var stays: [String: [Int64]] = [:]
    var current: [String: (state: String, since: Int64)] = [:]
    var created = Set<String>()
    func enter(_ id: String, _ state: String, at time: Int64) {
      // Times are author or log times, not the order of history: a stay is never negative.
      if let stay = current[id] { stays[stay.state, default: []].append(max(0, time - stay.since)) }
      current[id] = (state, time)
      entered[state, default: 0] += 1
    }
    let records = try AuditLog.read(layout).records
    var warnings: [String] = []
    var seeded = 0
    if source == .auditLogAndGit {
      let history = try gitHistory(kind: kind, schema: schema, records: records, warnings: &warnings)
      for (id, changes) in history {
        seeded += 1
        for change in changes {
          switch change.state {
          case .created(let state):
            created.insert(id)
            if let state {
              current[id] = (state, change.time)
              entered[state, default: 0] += 1
            }
          case .moved(let state): enter(id, state, at: change.time)
          case .deleted: current[id] = nil
          }
        }
      }
    }
    for (_, record) in records {
      guard let time = record["time"]?.stringValue.flatMap(Instant.init)?.seconds else { continue }
      for document in record["documents"]?.arrayValue ?? [] where document["kind"]?.stringValue == kind {
        guard let id = document["id"]?.stringValue else { continue }
        if let previous = document["previous_id"]?.stringValue, let moved = current.removeValue(forKey: previous) {
          current[id] = moved
          if created.remove(previous) != nil { created.insert(id) }
        }
        switch document["action"]?.stringValue {
        case "create":
          created.insert(id)
          if let state = document["to"]?.stringValue {
            current[id] = (state, time)
            entered[state, default: 0] += 1
          }
        case "delete":
          current[id] = nil
        default:
          guard let to = document["to"]?.stringValue else { continue }
          enter(id, to, at: time)
        }
      }
    }
    let states = Array(Set(workflow.transitions.keys).union(workflow.transitions.values.joined())).sorted()
    // Which state each document is in now is what its file says (a hand edit, a merge's own
    // resolution or a rebase may have set it where history shows no step); files that do not
    // parse are in no state.
    var present: [String: String] = [:]
    for document in try listed(kind: kind, query: Query()).documents {
      if let state = (registry.schema(of: document.value) ?? schema).workflowState(of: document.value) {
        present[document.id] = state
      }
    }
    let now = Dictionary(grouping: present.values, by: { $0 }).mapValues(\.count)
    let final = Set(states.filter { workflow.next(from: $0).isEmpty })
    let completed = created.filter { present[$0].map { final.contains($0) } ?? false }.count
    func quantile(_ values: [Int64], _ q: Double) -> Int64? {
      guard !values.isEmpty else { return nil }
      let sorted = values.sorted()
      return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * q).rounded()))]
    }
    let origin = seeded > 0 ? "the audit log or git history (\(plural(seeded, "document")) from git)" : "the audit log"
    let report = TableReport(
      records: states.map { state in
        .object(
          JSONObject([
            "state": .string(state), "entered": .number(JSONNumber(entered[state] ?? 0)),
            "median_seconds": quantile(stays[state] ?? [], 0.5).map { .number(JSONNumber(Int($0))) } ?? .null,
            "p90_seconds": quantile(stays[state] ?? [], 0.9).map { .number(JSONNumber(Int($0))) } ?? .null,
            "now": .number(JSONNumber(now[state] ?? 0)), "final": .bool(final.contains(state)),
          ]))
      },
      columns: ["state", "entered", "median stay", "p90 stay", "now"],
      rows: states.map { state in
        [
          state + (final.contains(state) ? " (final)" : ""), String(entered[state] ?? 0),
          quantile(stays[state] ?? [], 0.5).map(Self.duration) ?? "-",
          quantile(stays[state] ?? [], 0.9).map(Self.duration) ?? "-", String(now[state] ?? 0),
        ]
      },
      notes: [
        "completion: \(completed) of \(plural(created.count, "\(kind) document")) created in \(origin) "
          + "reached a final state (\(Self.percent(completed, created.count).text)%)"
      ])
    return (report, warnings)
  }

  /// A change of a document's workflow state found in git history.
  struct GitStateChange {
    enum State {
      case created(String?)
      case moved(String)
      case deleted
    }
    let time: Int64
    let state: State
  }

  /// For each document of `kind` in the store now that `records` (the audit log) do not see
  /// created, its state changes in git history before the log's first record of it, oldest first.
  /// Nothing, and a warning, when git cannot answer.
  func gitHistory(
    kind: String, schema: Schema, records: [(line: Int, value: JSONValue)], warnings: inout [String]
  ) throws(StoreError) -> [(String, [GitStateChange])] {
    // The log's first time for each id of the kind, and the ids it sees created (a rename keeps it).
    var first: [String: Int64] = [:]
    var logged = Set<String>()
    // The moves the log records, per id: a commit making the same move (amended onto an earlier
    // commit, so earlier than the log says) is that change, counted once, from the log.
    var recorded: [String: [(from: String?, to: String)]] = [:]
    for (_, record) in records {
      guard let time = record["time"]?.stringValue.flatMap(Instant.init)?.seconds else { continue }
      for document in record["documents"]?.arrayValue ?? [] where document["kind"]?.stringValue == kind {
        guard let id = document["id"]?.stringValue else { continue }
        if first[id] == nil { first[id] = time }
        if let previous = document["previous_id"]?.stringValue, logged.contains(previous) { logged.insert(id) }
        if document["action"]?.stringValue == "create" { logged.insert(id) }
        if let to = document["to"]?.stringValue {
          recorded[id, default: []].append((document["from"]?.stringValue, to))
        }
      }
    }
    let directory = layout.documents(in: schema.directory)
    guard FileIO.entry(FilePath(directory)) != .missing else { return [] }
    let unlogged = try layout.ids(in: schema.directory).filter { !logged.contains($0) }
    guard !unlogged.isEmpty else { return [] }
    let unseen = "\(plural(unlogged.count, "\(kind) document")) the audit log does not see created"
    let changes: [GitRepository.FileChange]
    let repository: GitRepository
    do {
      repository = try GitRepository(around: directory)
      changes = try repository.fileChanges(in: directory)
    } catch {
      // Not a repository, or no git: the log's times alone, as before git history was read.
      if case .refused(.gitMissing) = error {
        warnings.append("\(unseen): git is missing, so their times before the log are not counted")
      } else if case .refused(.notARepository) = error {
        warnings.append(
          "\(unseen): the store is not in a git repository, so their times before the log are not counted")
      } else {
        throw error
      }
      return []
    }
    if try repository.isShallow() {
      warnings.append(
        "\(unseen): the repository is a shallow clone, so their times before its first commit are missing "
          + "(git fetch --unshallow reads them)")
    }
    let wanted = Set(unlogged)
    let relevant = changes.filter { change in
      guard let id = StoreLayout.id(fromFile: change.name), wanted.contains(id) else { return false }
      return first[id].map { change.time < $0 } ?? true
    }
    let contents = try repository.blobs(Array(Set(relevant.flatMap { [$0.before, $0.after].compactMap { $0 } })))
    let parser = JSONParser()
    // The workflow field of every version, so an old version's state is read under its own.
    let fields = Set(registry.schemas(of: kind).compactMap(\.workflow?.field)).sorted()
    let projection = JSONProjection(paths: (["_schema"] + fields).compactMap { FilterExpression.Path($0) })
    var states: [String: String?] = [:]
    var unreadable = 0
    func state(_ blob: String) -> String? {
      if let known = states[blob] { return known }
      var found: String?
      do {
        // A blob git lacks (a shallow clone) is as unreadable as one that does not parse.
        let bytes = contents[blob] ?? []
        // Only `_schema` and the workflow field are built (the rest checked, as a full parse would).
        let document = try projection.flatMap { parser.parse(bytes, keeping: $0) } ?? parser.parse(bytes)
        found = (registry.schema(of: document) ?? schema).workflowState(of: document)
      } catch {
        unreadable += 1
      }
      states[blob] = found
      return found
    }
    var history: [String: [GitStateChange]] = [:]
    // Each document's state in the last version that parsed: a version that does not (conflict
    // markers) between two of one state is no move.
    var last: [String: String] = [:]
    for change in relevant {
      guard let id = StoreLayout.id(fromFile: change.name) else { continue }
      switch (change.before, change.after) {
      case (nil, let after?):
        let created = state(after)
        last[id] = created
        history[id, default: []].append(GitStateChange(time: change.time, state: .created(created)))
      case (_?, nil):
        last[id] = nil
        history[id, default: []].append(GitStateChange(time: change.time, state: .deleted))
      case (let before?, let after?):
        let from = last[id] ?? state(before)
        guard let to = state(after), to != from else { continue }
        last[id] = to
        if let match = recorded[id]?.firstIndex(where: { $0.to == to && ($0.from == nil || $0.from == from) }) {
          recorded[id]?.remove(at: match)
          continue
        }
        history[id, default: []].append(GitStateChange(time: change.time, state: .moved(to)))
      default: break
      }
    }
    if unreadable > 0 {
      warnings.append(
        "\(plural(unreadable, "version")) of \(kind) documents in git history do not parse; their states are not counted"
      )
    }
    // In history order (`fileChanges` gives the commit graph's); author times only as times.
    return history.keys.sorted().map { id in (id, history[id, default: []]) }
  }
}
