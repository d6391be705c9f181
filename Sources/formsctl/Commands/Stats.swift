import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore

extension Formsctl {
  struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "stats",
      abstract:
        "Count documents by fields or months, with exact sums, averages, minimums and maximums; or the workflow's times.",
      discussion: """
        Counts the documents of KIND that --where selects, grouped by the values --by reaches (one group without it), with each group's share of the documents and, per --sum, --avg, --min and --max, exact figures: decimals stay exact, an average that does not end is rounded half to even 6 digits past the numbers' decimals, and a minimum or maximum is shown as written. A document whose --by path reaches several values (items[].product_item_id) counts in each group; one that reaches none is in (none). A null or missing number is skipped: `n PATH` says how many numbers each average, minimum and maximum has.

        --by takes a path, or day(PATH), week(PATH), month(PATH), quarter(PATH) or year(PATH) of a date or datetime field (2026-11-27, 2026-W48, 2026-11, 2026-Q4, 2026; a datetime in the day it is written in, at its own offset). A second --by groups each group again.

        --workflow reads the audit log instead: per workflow state, how often documents entered it, how long they stayed before moving on (median and 90th percentile of the stays that ended), and how many are in it now; then how many of the documents created in the log reached a final state. A document the log does not see created (a migrated or imported store) is taken from git history: each commit that added it or changed its state, at the commit's author time.

        Examples:
          formsctl stats form --by status
          formsctl stats form --by form_type --where 'acquisition_id == "ACQ-2026-001"'
          formsctl stats acquisition --by agency --sum estimated_value --format csv
          formsctl stats acquisition --by 'month(created_date)' --avg estimated_value
          formsctl stats acquisition --by agency --max estimated_value
          formsctl stats form --by status --by 'quarter(created_date)' --format json
          formsctl stats purchase-order --by 'items[].product_item_id' --format json
          formsctl stats form --workflow
        """
    )
    @OptionGroup var options: StoreOptions
    @Argument(help: "The kind.", completion: Completions.kinds) var kind: String
    @Option(
      help: ArgumentHelp(
        "Group by this path's values, or by day, week, month, quarter or year of a date: 'month(created_at)'. "
          + "Twice for groups within groups.", valueName: "PATH"), completion: Completions.paths)
    var by: [String] = []
    @Option(help: ArgumentHelp("Sum this path's numbers per group.", valueName: "PATH"), completion: Completions.paths)
    var sum: [String] = []
    @Option(
      help: ArgumentHelp("Average this path's numbers per group, exactly.", valueName: "PATH"),
      completion: Completions.paths)
    var avg: [String] = []
    @Option(
      help: ArgumentHelp("The smallest of this path's numbers per group.", valueName: "PATH"),
      completion: Completions.paths)
    var min: [String] = []
    @Option(
      help: ArgumentHelp("The largest of this path's numbers per group.", valueName: "PATH"),
      completion: Completions.paths)
    var max: [String] = []
    @Option(
      name: .customLong("where"), help: ArgumentHelp("Only documents matching this filter.", valueName: "EXPR"),
      completion: Completions.paths)
    var filters: [String] = []
    @Flag(help: "Times in each workflow state and the completion rate, from the audit log (and git history).")
    var workflow = false
    @Option(help: "Output: table, json, ndjson or csv.") var format: ReportFormat = .table

    func run() throws {
      // Usage errors, one line each as every other bad --by (a ValidationError adds a help line).
      if workflow && (!by.isEmpty || !sum.isEmpty || !avg.isEmpty || !min.isEmpty || !max.isEmpty || !filters.isEmpty) {
        throw CommandError.usage("--workflow reads the audit log: drop --by, --sum, --avg, --min, --max and --where")
      }
      if by.count > 2 { throw CommandError.usage("--by is given \(by.count) times; stats groups by at most two") }
      let store = try options.open()
      guard !workflow else {
        let (report, warnings) = try store.workflowStatistics(kind: kind, from: .auditLogAndGit)
        for warning in warnings { printWarning(warning) }
        return render(report, as: format)
      }
      func numbers(_ texts: [String], _ option: String, _ verb: String) throws -> [FilterExpression.Path] {
        try texts.map { text in
          let path = try Self.path(text, option, kind, store)
          // A sum over a path that holds no number would print 0, as if the numbers added up to it.
          guard store.registry.schemas(of: kind).contains(where: { Self.mayHold(Self.numberKinds, path, in: $0.root) })
          else {
            throw CommandError.usage(
              "\(option) \(text): not a number field in any version of \(kind); \(option) \(verb)")
          }
          return path
        }
      }
      let groups = try by.map { try Self.grouping($0, kind, store) }
      if groups.count == 2, groups[0] == groups[1] {
        throw CommandError.usage("--by \(by[1]): given twice; a second --by groups by another field")
      }
      // A grouping column named as a figure's JSON key would lose its labels in --format json.
      var keys = ["count", "percent"]
      for (option, paths) in [("sum", sum), ("avg", avg), ("min", min), ("max", max)] {
        keys += paths.map { "\(option)_\($0)" }
      }
      keys += (avg + min + max).map { "n_\($0)" }
      for (text, grouping) in zip(by, groups) where keys.contains(grouping.description) {
        throw CommandError.usage(
          "--by \(text): its column would take the name of the report's \(grouping.description) figure; "
            + "group by another field")
      }
      let request = Store.StatisticsRequest(
        query: Store.Query(filters: try parseFilters(filters, kind: kind, store: store)), groups: groups,
        sums: try numbers(sum, "--sum", "adds numbers"), averages: try numbers(avg, "--avg", "averages numbers"),
        minimums: try numbers(min, "--min", "compares numbers"), maximums: try numbers(max, "--max", "compares numbers")
      )
      let (report, skipped) = try store.statistics(kind: kind, request)
      // As list: counts taken while an interrupted operation waits may be half-changed.
      if let operation = try Journal(layout: store.layout).pending() {
        printWarning("an interrupted \(operation) awaits `formsctl recover`; what is counted may be half-changed")
      }
      for file in skipped {
        printWarning("\(store.display(file.path)): \(file.reason); not counted (formsctl validate says why; exit 1)")
      }
      render(report, as: format)
      // As list: counts that had to leave files out say so in their status.
      if !skipped.isEmpty { throw ExitStatus.problems }
    }

    /// The kinds of value a number option reads.
    static let numberKinds: Set<FormsCore.SchemaType.Kind> = [.integer, .decimal, .number, .any]
    /// The kinds of value a calendar bucket reads.
    static let dateKinds: Set<FormsCore.SchemaType.Kind> = [.date, .datetime, .any]

    /// A `--by`: a path of the kind, or a calendar bucket of a date or datetime path of it.
    static func grouping(_ text: String, _ kind: String, _ store: Store) throws -> StatsGrouping {
      let grouping: StatsGrouping
      do {
        grouping = try StatsGrouping(parsing: text)
      } catch {
        throw CommandError.usage("--by \(text): \(error)")
      }
      if let problem = FormsCore.Schema.pathProblem(grouping.path, in: store.registry.schemas(of: kind)) {
        throw CommandError.usage("--by \(text): \(problem)")
      }
      if let bucket = grouping.bucket,
        !store.registry.schemas(of: kind).contains(where: { mayHold(dateKinds, grouping.path, in: $0.root) })
      {
        throw CommandError.usage(
          "--by \(text): \(grouping.path) is not a date or datetime field in any version of \(kind); "
            + "\(bucket.rawValue)(...) groups dates")
      }
      return grouping
    }

    /// True when `path`, from a value of `type`, can reach a value of one of `kinds` (or of any type).
    static func mayHold(
      _ kinds: Set<FormsCore.SchemaType.Kind>, _ path: FilterExpression.Path, in type: FormsCore.SchemaType
    ) -> Bool {
      func reach(_ steps: ArraySlice<FilterExpression.Path.Step>, _ type: FormsCore.SchemaType) -> Bool {
        type.alternatives.contains { type in
          guard let step = steps.first else { return kinds.contains(type.kind) || type.kind == .any }
          switch (step, type.kind) {
          case (_, .any): return true
          case (.member, .object) where type.additional: return true
          case (.member, .map): return type.element.map { reach(steps.dropFirst(), $0) } ?? false
          case (.member(let name), _): return type.fields[name].map { reach(steps.dropFirst(), $0.type) } ?? false
          case (.index, .list), (.each, .list), (.each, .map):
            return type.element.map { reach(steps.dropFirst(), $0) } ?? false
          default: return false
          }
        }
      }
      return reach(path.steps[...], type)
    }

    /// A path of the kind (any version), for `option`.
    static func path(_ text: String, _ option: String, _ kind: String, _ store: Store) throws -> FilterExpression.Path {
      guard let path = FilterExpression.Path(text) else {
        throw CommandError.usage("\(option) \(text): not a field path")
      }
      if let problem = FormsCore.Schema.pathProblem(path, in: store.registry.schemas(of: kind)) {
        throw CommandError.usage("\(option) \(text): \(problem)")
      }
      return path
    }
  }
}
