import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore
import Foundation

extension Formsctl.Migrate {
  struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "run", abstract: "Migrate (the default subcommand).",
      discussion: """
        Examples:
          formsctl migrate run --dry-run
          formsctl migrate run --kind purchase-order

        A change of version alone voids no signature. Steps that change the signed content of a submitted or approved form would end its round (approved forms go back to review): the run is refused, naming them, unless --void-approvals; --dry-run lists them.
        """)
    @OptionGroup var options: StoreOptions
    @Option(help: "Only this kind.") var kind: String?
    @Option(help: "The target version (needs --kind; default: each kind's newest).") var to: String?
    @Flag(help: "Print the plan, counts and a sample diff; write nothing.") var dryRun = false
    @Flag(help: "Leave documents that are invalid before migrating where they are, and say so.")
    var skipInvalid = false
    @Flag(help: "Do not take the pre-migrate snapshot.") var noSnapshot = false
    @Flag(help: "Migrate even though changed signed content voids signatures (their rounds end).")
    var voidApprovals = false

    func run() throws {
      let store = try options.open()
      if to != nil && kind == nil { throw CommandError.usage("--to needs --kind: versions belong to one kind") }
      let target = try to.map { text in
        guard let version = SemanticVersion(text) else {
          throw CommandError.usage("--to \(text): expected a version such as 2.0.0")
        }
        return version
      }
      let report = try Migrator(store: store).run(
        Migrator.Request(
          kind: kind, to: target, dryRun: dryRun, skipInvalid: skipInvalid, snapshot: !noSnapshot,
          voidingApprovals: voidApprovals))
      show(report)
    }

    /// Each kind's step from version to version, what it changed, then samples and an estimate
    /// (dry run) or the time it took.
    func show(_ report: Migrator.Report) {
      if report.groups.isEmpty { return printOut("every document is at its target version; nothing to do") }
      for (group, changed) in report.groups {
        printOut(
          "\(group.kind) \(group.from) → \(group.to): \(plural(group.paths.count, "document"))"
        )
        for (step, count) in zip(group.steps, changed) {
          printOut(
            "  \(step.description): \(plural(step.changes.count, "operation")), "
              + "\(plural(count, "document")) \(dryRun ? "would change" : "changed")")
        }
      }
      for path in report.skipped { printOut("skipped (invalid before migrating): \(path)") }
      warnStale(report.voids, dryRun: dryRun)
      if dryRun {
        for sample in report.samples {
          printOut("\nsample \(sample.kind): \(sample.path)\n" + lineDiff(sample.before, sample.after))
        }
        printOut(
          "\n"
            + Formsctl.Migrate.estimate(
              documents: report.groups.reduce(0) { $0 + $1.group.paths.count } - report.skipped.count,
              report: report, checking: report.seconds))
        printOut("dry run: nothing written")
      } else {
        printOut(
          String(format: "migrated %d documents in %.2f s", report.migrated, report.seconds)
            + (report.snapshot.map { "; the state before is snapshot \($0)" } ?? ""))
        Formsctl.Snapshot.showPruned(report.prunedSnapshots)
      }
    }
  }
}
