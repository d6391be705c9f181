import FormsCore
import Foundation

extension Store {
  /// `stats`: the documents of `kind` that `query` finds, counted by the values `by` reaches (one
  /// group, `all`, without it), with each group's share of the documents and, per path of `sums`,
  /// the exact sum of its numbers. A document whose `by` path reaches several values (a list)
  /// counts in each of their groups; one that reaches none is in `(none)`. Files that do not
  /// parse are left out of every count and named in `skipped`, as `list` names them.
  ///
  /// The sealed values the filters read and those `by` and `sums` reach are opened values the
  /// report shows (a group's name, a sum): they are recorded first, in one access record, and
  /// when that cannot be written nothing is counted (as `get`).
  public func statistics(
    kind: String, query: Query, by: FilterExpression.Path?, sums: [FilterExpression.Path]
  ) throws(StoreError)
    -> (report: TableReport, skipped: [Skipped])
  {
    try refuseSealedReads(kind: kind, (by.map { [$0] } ?? []) + sums)
    let found = try listed(kind: kind, query: Query(filters: query.filters))
    let documents = found.documents
    let reached = (by.map { [$0] } ?? []) + sums
    try recordAccess(
      Self.merged(
        found.read
          + documents.compactMap { document in
            document.opened.isEmpty
              ? nil
              : access(document, kind: kind, shown: reached.flatMap { $0.located(in: document.value).map(\.pointer) })
          }))
    var order: [String] = []
    // Each sum is written with the most decimals any of its numbers has (125000.00 stays so).
    var groups: [String: (count: Int, sums: [DecimalSum])] = [:]
    for document in documents {
      let keys = by.map { path in path.values(in: document.value).map(TableReport.cell) } ?? ["all"]
      // Each number once, whatever the groups it counts in; a sum is the same for every group.
      let numbers = sums.map { path in
        path.values(in: document.value).compactMap { value -> JSONNumber? in
          guard case .number(let number) = value else { return nil }
          return number
        }
      }
      for key in Set(keys.isEmpty ? ["(none)"] : keys) {
        if groups[key] == nil {
          order.append(key)
          groups[key] = (0, Array(repeating: DecimalSum(), count: sums.count))
        }
        groups[key]?.count += 1
        for (index, path) in sums.enumerated() {
          for number in numbers[index] where groups[key]?.sums[index].add(number) == false {
            // The number is not quoted: it may be a sealed value.
            throw StoreError.invalidDocument(
              display(document.path),
              [
                Diagnostic(
                  file: display(document.path), position: nil,
                  pointer: path.located(in: document.value).first?.pointer ?? .root, rule: "sum",
                  message: "a number too far from the others summed to add them exactly (more than "
                    + "\(DecimalSum.maximumDigits) digits from the lowest to the highest); leave it out with --where")
              ])
          }
        }
      }
    }
    // Every group's sum is written with the decimals of the widest number summed in any group.
    let decimals = sums.indices.map { index in groups.values.map { $0.sums[index].decimals }.max() ?? 0 }
    let total = documents.count
    let rows = order.sorted { (groups[$0]?.count ?? 0, $1) > (groups[$1]?.count ?? 0, $0) }
    let by = by?.description ?? "group"
    let report = TableReport(
      records: rows.map { key in
        let group = groups[key] ?? (0, [])
        var object = JSONObject([
          by: .string(key), "count": .number(JSONNumber(group.count)),
          "percent": .number(Self.percent(group.count, total)),
        ])
        for (index, path) in sums.enumerated() {
          object["sum_" + path.description] = .number(
            JSONNumber(unchecked: Self.text(group.sums[index], decimals[index])))
        }
        return .object(object)
      },
      columns: [by, "count", "percent"] + sums.map { "sum " + $0.description },
      rows: rows.map { key in
        let group = groups[key] ?? (0, [])
        return [key, String(group.count), Self.percent(group.count, total).text]
          + group.sums.enumerated().map { Self.text($0.element, decimals[$0.offset]) }
      },
      notes: ["\(plural(total, "document")) of \(kind)"])
    return (report, found.skipped)
  }

  /// An exact sum written with at least `decimals` digits after the point (every group of a
  /// column alike).
  static func text(_ sum: DecimalSum, _ decimals: Int) -> String { sum.text(decimals: decimals) }

  /// `part` of `whole` as a percentage with one decimal.
  static func percent(_ part: Int, _ whole: Int) -> JSONNumber {
    guard whole > 0 else { return JSONNumber(0) }
    let tenths = (part * 1000 + whole / 2) / whole
    return JSONNumber(unchecked: "\(tenths / 10).\(tenths % 10)")
  }

  /// From the audit log: for each workflow state of `kind`, how many times documents entered it,
  /// how long they stayed before moving on (median and 90th percentile, over the stays that
  /// ended), and how many are in it now; and how many of the documents created in the log
  /// reached a final state (one the workflow leads out of to nowhere).
  public func workflowStatistics(kind: String) throws(StoreError) -> TableReport {
    guard let workflow = try schema(kind).workflow else { throw StoreError.refused(.noWorkflow(kind: kind)) }
    var entered: [String: Int] = [:]
    var stays: [String: [Int64]] = [:]
    var current: [String: (state: String, since: Int64)] = [:]
    var created = Set<String>()
    for (_, record) in try AuditLog.read(layout).records {
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
          if let stay = current[id] { stays[stay.state, default: []].append(time - stay.since) }
          current[id] = (to, time)
          entered[to, default: 0] += 1
        }
      }
    }
    let states = Array(Set(workflow.transitions.keys).union(workflow.transitions.values.joined())).sorted()
    let now = Dictionary(grouping: current.values, by: \.state).mapValues(\.count)
    let final = Set(states.filter { workflow.next(from: $0).isEmpty })
    let completed = created.filter { current[$0].map { final.contains($0.state) } ?? false }.count
    func quantile(_ values: [Int64], _ q: Double) -> Int64? {
      guard !values.isEmpty else { return nil }
      let sorted = values.sorted()
      return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * q).rounded()))]
    }
    return TableReport(
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
        "completion: \(completed) of \(plural(created.count, "\(kind) document")) created in the audit log "
          + "reached a final state (\(Self.percent(completed, created.count).text)%)"
      ])
  }

  /// `seconds` for people: `2d 3h`, `5h 10m`, `12m`, `40s`.
  static func duration(_ seconds: Int64) -> String {
    let (days, hours, minutes) = (seconds / 86400, seconds % 86400 / 3600, seconds % 3600 / 60)
    if days > 0 { return "\(days)d \(hours)h" }
    if hours > 0 { return "\(hours)h \(minutes)m" }
    return minutes > 0 ? "\(minutes)m" : "\(seconds)s"
  }
}
