import FormsCore
import Foundation

extension Store {
  /// What `stats` counts: the documents `query` finds, grouped by up to two `StatsGrouping`s (FormsCore)
  /// (a field's values or a calendar bucket of a date), with exact sums, averages, minimums and
  /// maximums of number paths per group.
  public struct StatisticsRequest: Sendable {
    /// The filters (sort, offset and limit are not used).
    public var query: Query
    /// The groupings, outermost first: none (one group, `all`), one or two.
    public var groups: [StatsGrouping]
    /// Paths whose numbers are summed.
    public var sums: [FilterExpression.Path]
    /// Paths whose numbers are averaged exactly.
    public var averages: [FilterExpression.Path]
    /// Paths whose smallest number is shown, as written.
    public var minimums: [FilterExpression.Path]
    /// Paths whose largest number is shown, as written.
    public var maximums: [FilterExpression.Path]

    /// A request; every part optional.
    public init(
      query: Query = Query(), groups: [StatsGrouping] = [], sums: [FilterExpression.Path] = [],
      averages: [FilterExpression.Path] = [], minimums: [FilterExpression.Path] = [],
      maximums: [FilterExpression.Path] = []
    ) {
      self.query = query
      self.groups = groups
      self.sums = sums
      self.averages = averages
      self.minimums = minimums
      self.maximums = maximums
    }

    /// Every number path, each once, in the order first named (sums, averages, minimums, maximums).
    var numberPaths: [FilterExpression.Path] {
      var seen: [FilterExpression.Path] = []
      for path in sums + averages + minimums + maximums where !seen.contains(path) { seen.append(path) }
      return seen
    }
  }

  /// `stats`: the documents of `kind` that `query` finds, counted by the values `by` reaches (one
  /// group, `all`, without it), with each group's share of the documents and, per path of `sums`,
  /// the exact sum of its numbers. As ``statistics(kind:_:)`` with one plain grouping.
  public func statistics(
    kind: String, query: Query, by: FilterExpression.Path?, sums: [FilterExpression.Path]
  ) throws(StoreError)
    -> (report: TableReport, skipped: [Skipped])
  {
    try statistics(
      kind: kind, StatisticsRequest(query: query, groups: by.map { [StatsGrouping(path: $0)] } ?? [], sums: sums))
  }

  /// `stats`: the documents of `kind` that the request's query finds, counted per group, with each
  /// group's share of the documents and, per number path, exact figures: the sum (written with the
  /// most decimals any summed number has), the average (`NumberSummary.average(decimals:)` in FormsCore), the
  /// smallest and largest as written, and for averages, minimums and maximums how many numbers
  /// there were (`n PATH`; a null or missing value is skipped, and the table's notes count them).
  ///
  /// A document whose grouping path reaches several values (a list) counts in each of their groups
  /// (with two groupings, in each pair); one that reaches none is in `(none)`. Groups by values are
  /// ordered by count (most first), calendar buckets in calendar order; with two groupings, the
  /// rows of each outer group together. Files that do not parse are left out of every count and
  /// named in `skipped`, as `list` names them.
  ///
  /// The sealed values the filters read and those the groupings and number paths reach are opened
  /// values the report shows: they are recorded first, in one access record, and when that cannot
  /// be written nothing is counted (as `get`).
  public func statistics(kind: String, _ request: StatisticsRequest) throws(StoreError)
    -> (report: TableReport, skipped: [Skipped])
  {
    let numberPaths = request.numberPaths
    let reached = request.groups.map(\.path) + numberPaths
    try refuseSealedReads(kind: kind, reached)
    let found = try listed(kind: kind, query: Query(filters: request.query.filters))
    let documents = found.documents
    try recordAccess(
      Self.merged(
        found.read
          + documents.compactMap { document in
            document.opened.isEmpty
              ? nil
              : access(document, kind: kind, shown: reached.flatMap { $0.located(in: document.value).map(\.pointer) })
          }))
    var groups: [[String?]: (count: Int, numbers: [NumberSummary])] = [:]
    // Documents per outer group, each once, to order the outer groups of two levels.
    var outer: [String?: Int] = [:]
    // Values a number path reaches that stay sealed (no identity here opens them), per path.
    var unopened = Array(repeating: 0, count: numberPaths.count)
    // Documents where a number path reaches no number.
    var without = Array(repeating: 0, count: numberPaths.count)
    for document in documents {
      let labels = request.groups.map { Array(Set($0.labels(in: document.value))) }
      // Each number once, whatever the groups it counts in.
      let reachedValues = numberPaths.map { $0.values(in: document.value) }
      for (index, values) in reachedValues.enumerated() {
        unopened[index] += values.filter(SealedText.isSealed).count
      }
      let numbers = reachedValues.map { values in
        values.compactMap { value -> JSONNumber? in
          guard case .number(let number) = value else { return nil }
          return number
        }
      }
      for (index, found) in numbers.enumerated() where found.isEmpty { without[index] += 1 }
      // Two lists multiply: a document's pairs, and the groups in all, are bounded.
      let pairs = labels.reduce(1) { total, level in
        let (product, overflow) = total.multipliedReportingOverflow(by: level.count)
        return overflow ? Int.max : product
      }
      if pairs > Self.maximumGroups {
        throw StoreError.refused(.tooManyGroups(limit: Self.maximumGroups, file: display(document.path)))
      }
      var keys: [[String?]] = [[]]
      for level in labels { keys = keys.flatMap { key in level.map { key + [$0] } } }
      if request.groups.isEmpty { keys = [["all"]] }
      for first in Set(keys.compactMap(\.first)) { outer[first, default: 0] += 1 }
      for key in keys {
        var group = groups[key] ?? (0, Array(repeating: NumberSummary(), count: numberPaths.count))
        group.count += 1
        for (index, path) in numberPaths.enumerated() {
          for number in numbers[index] where !group.numbers[index].add(number) {
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
        groups[key] = group
      }
      if groups.count > Self.maximumGroups {
        throw StoreError.refused(.tooManyGroups(limit: Self.maximumGroups, file: display(document.path)))
      }
    }
    // A value sealed for someone else would drop out of a sum, as if it were null: refused, as
    // without any identity (``refuseSealedReads(kind:_:)``).
    if let index = unopened.firstIndex(where: { $0 > 0 }) {
      throw StoreError.refused(
        .sealedForOthers(expression: numberPaths[index].description, values: unopened[index]))
    }
    let rows = Self.ordered(Array(groups.keys), request.groups, count: { groups[$0]?.count ?? 0 }, outer: outer)
    return (
      Self.report(
        kind: kind, request, rows: rows.map { ($0, groups[$0] ?? (0, [])) }, total: documents.count, without: without),
      found.skipped
    )
  }

  /// The most groups a report has (and pairs one document makes); more is refused.
  static let maximumGroups = 100_000

  /// The group keys in report order: level by level, a calendar bucket's labels in calendar order
  /// (what it cannot place last), others by count, most first, then by name.
  static func ordered(
    _ keys: [[String?]], _ groupings: [StatsGrouping], count: ([String?]) -> Int, outer: [String?: Int]
  ) -> [[String?]] {
    func calendar(_ label: String?) -> (Int, String) {
      (label == nil || label == StatsGrouping.notADate ? 1 : 0, label ?? "")
    }
    // By name, the group of nothing (null or missing) after every string.
    func named(_ a: String?, _ b: String?) -> Bool { (a == nil ? 1 : 0, a ?? "") < (b == nil ? 1 : 0, b ?? "") }
    return keys.sorted { a, b in
      for level in a.indices where a[level] != b[level] {
        let byCalendar = level < groupings.count && groupings[level].bucket != nil
        if byCalendar { return calendar(a[level]) < calendar(b[level]) }
        // The outer level of two orders by its own count, the innermost by the pair's.
        let (x, y) =
          level + 1 < a.count ? (outer[a[level]] ?? 0, outer[b[level]] ?? 0) : (count(a), count(b))
        return x != y ? x > y : named(a[level], b[level])
      }
      return false
    }
  }

  /// The report of `rows`: the grouping columns, count, percent, then per number path asked for
  /// its sum, average, minimum, maximum and count of numbers.
  static func report(
    kind: String, _ request: StatisticsRequest, rows: [([String?], (count: Int, numbers: [NumberSummary]))],
    total: Int, without: [Int]
  ) -> TableReport {
    let paths = request.numberPaths
    let names = request.groups.isEmpty ? ["group"] : request.groups.map(\.description)
    // Each sum and average is written with the decimals of the widest number of its path in any group.
    let decimals = paths.indices.map { index in rows.map { $0.1.numbers[index].sum.decimals }.max() ?? 0 }
    let counted = paths.filter {
      request.averages.contains($0) || request.minimums.contains($0) || request.maximums.contains($0)
    }
    // Each figure: its column, its JSON key, and its value in a group (nil: no number there).
    var figures: [(column: String, key: String, value: ([NumberSummary]) -> JSONNumber?)] = []
    for (name, key, chosen, value) in [
      ("sum", "sum", request.sums, { (s: NumberSummary, d: Int) in Optional(s.sum.text(decimals: d)) }),
      ("avg", "avg", request.averages, { (s: NumberSummary, d: Int) in s.average(decimals: d) }),
      ("min", "min", request.minimums, { (s: NumberSummary, _: Int) in s.minimum?.text }),
      ("max", "max", request.maximums, { (s: NumberSummary, _: Int) in s.maximum?.text }),
    ] {
      for path in chosen {
        guard let index = paths.firstIndex(of: path) else { continue }
        figures.append(
          (
            "\(name) \(path)", "\(key)_\(path)",
            { numbers in value(numbers[index], decimals[index]).map(JSONNumber.init(unchecked:)) }
          ))
      }
    }
    for path in counted {
      guard let index = paths.firstIndex(of: path) else { continue }
      figures.append(("n \(path)", "n_\(path)", { numbers in JSONNumber(numbers[index].count) }))
    }
    var notes = ["\(plural(total, "document")) of \(kind)"]
    for path in counted {
      guard let index = paths.firstIndex(of: path), without[index] > 0 else { continue }
      notes.append(
        "\(path): \(plural(without[index], "document")) without a number there (null or missing), skipped")
    }
    return TableReport(
      records: rows.map { key, group in
        var object = JSONObject()
        for (name, label) in zip(names, key) { object[name] = label.map(JSONValue.string) ?? .null }
        object["count"] = .number(JSONNumber(group.count))
        object["percent"] = .number(Self.percent(group.count, total))
        for figure in figures { object[figure.key] = figure.value(group.numbers).map(JSONValue.number) ?? .null }
        return .object(object)
      },
      columns: names + ["count", "percent"] + figures.map(\.column),
      rows: rows.map { key, group in
        key.map { $0 ?? StatsGrouping.none } + [String(group.count), Self.percent(group.count, total).text]
          + figures.map { $0.value(group.numbers)?.text ?? "" }
      },
      notes: notes)
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

  /// `seconds` for people: `2d 3h`, `5h 10m`, `12m`, `40s`.
  static func duration(_ seconds: Int64) -> String {
    let (days, hours, minutes) = (seconds / 86400, seconds % 86400 / 3600, seconds % 3600 / 60)
    if days > 0 { return "\(days)d \(hours)h" }
    if hours > 0 { return "\(hours)h \(minutes)m" }
    return minutes > 0 ? "\(minutes)m" : "\(seconds)s"
  }
}
