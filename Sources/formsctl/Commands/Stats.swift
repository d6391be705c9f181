import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore

extension Formsctl {
  struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "stats",
      abstract: "Count documents by a field, with shares and sums; or the workflow's times from the audit log.",
      discussion: """
        Counts the documents of KIND that --where selects, grouped by the values --by reaches (one group without it), with each group's share of the documents and, for each --sum, the exact sum of its numbers (decimals stay exact). A document whose --by path reaches several values (items[].product_item_id) counts in each group; one that reaches none is in (none).

        --workflow reads the audit log instead: per workflow state, how often documents entered it, how long they stayed before moving on (median and 90th percentile of the stays that ended), and how many are in it now; then how many of the documents created in the log reached a final state.

        Examples:
          formsctl stats form --by status
          formsctl stats form --by form_type --where 'acquisition_id == "ACQ-2026-001"'
          formsctl stats acquisition --by agency --sum estimated_value --format csv
          formsctl stats purchase-order --by 'items[].product_item_id' --format json
          formsctl stats form --workflow
        """
    )
    @OptionGroup var options: StoreOptions
    @Argument(help: "The kind.", completion: Completions.kinds) var kind: String
    @Option(help: ArgumentHelp("Group by this path's values.", valueName: "PATH"), completion: Completions.paths)
    var by: String?
    @Option(help: ArgumentHelp("Sum this path's numbers per group.", valueName: "PATH"), completion: Completions.paths)
    var sum: [String] = []
    @Option(
      name: .customLong("where"), help: ArgumentHelp("Only documents matching this filter.", valueName: "EXPR"),
      completion: Completions.paths)
    var filters: [String] = []
    @Flag(help: "Times in each workflow state and the completion rate, from the audit log.") var workflow = false
    @Option(help: "Output: table, json, ndjson or csv.") var format: ReportFormat = .table

    func validate() throws {
      if workflow && (by != nil || !sum.isEmpty || !filters.isEmpty) {
        throw ValidationError("--workflow reads the audit log: drop --by, --sum and --where")
      }
    }

    func run() throws {
      let store = try options.open()
      guard !workflow else { return render(try store.workflowStatistics(kind: kind), as: format) }
      let (report, skipped) = try store.statistics(
        kind: kind, query: Store.Query(filters: try parseFilters(filters, kind: kind, store: store)),
        by: try by.map { try Self.path($0, "--by", kind, store) },
        sums: try sum.map { text in
          let path = try Self.path(text, "--sum", kind, store)
          // A sum over a path that holds no number would print 0, as if the numbers added up to it.
          guard store.registry.schemas(of: kind).contains(where: { Self.mayHoldNumbers(path, in: $0.root) }) else {
            throw CommandError.usage("--sum \(text): not a number field in any version of \(kind); --sum adds numbers")
          }
          return path
        })
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

    /// True when `path`, from a value of `type`, can reach a number (an integer, decimal or
    /// number field, or a value of any type).
    static func mayHoldNumbers(_ path: FilterExpression.Path, in type: FormsCore.SchemaType) -> Bool {
      func reach(_ steps: ArraySlice<FilterExpression.Path.Step>, _ type: FormsCore.SchemaType) -> Bool {
        type.alternatives.contains { type in
          guard let step = steps.first else { return [.integer, .decimal, .number, .any].contains(type.kind) }
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
