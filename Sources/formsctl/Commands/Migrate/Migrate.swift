import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore
import Foundation

extension Formsctl {
  struct Migrate: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "migrate",
      abstract: "Move documents between schema versions, all or nothing.",
      discussion: """
        Plans the chain of versions for each kind (1.0.0 → 1.1.0 → 2.0.0) from the descriptors' from:/changes:, transforms every document and validates each result against the target; if any fails, nothing is written and every failure is listed. Otherwise it takes a pre-migrate snapshot, stages the new files under a journal, commits, and records the run in .formsctl/history.jsonl. `formsctl recover` finishes or undoes an interrupted run.

        Examples:
          formsctl migrate status
          formsctl migrate --dry-run        # the plan, counts per step, a sample
          formsctl migrate                  # every kind to its newest version
          formsctl migrate --kind form --dry-run
        """,
      subcommands: [Run.self, Status.self, Repair.self],
      defaultSubcommand: Run.self
    )

    /// `would rewrite 40,032 documents (156 MB): needs about 330 MB free, 95 GB free here; about 9 s`.
    static func estimate(documents: Int, report: Migrator.Report, checking seconds: Double) -> String {
      estimate(documents: documents, bytes: report.bytes, needed: report.needed, free: report.free, checking: seconds)
    }

    /// The dry run's estimate, in the words `migrate --dry-run` and `import --dry-run` share:
    /// `verb` the documents, their `bytes`, what the run `needed` free (snapshot included) and
    /// what is `free`; the time from how long the dry run took `checking` them.
    static func estimate(
      verb: String = "rewrite", documents: Int, bytes: Int64, needed: Int64, free: Int64?, checking seconds: Double
    ) -> String {
      "would \(verb) \(plural(documents, "document")) (\(Storage.format(bytes))): "
        + "needs about \(Storage.format(needed)) free, \(free.map(Storage.format) ?? "unknown") free here; "
        + "about \(estimatedSeconds(bytes: bytes, checking: seconds)) s"
    }

    /// The run checks every document again while staging, then syncs: about twice the dry run.
    static func estimatedSeconds(bytes: Int64, checking seconds: Double) -> Int {
      max(1, Int((seconds * 2 + Double(bytes) / 100_000_000).rounded()))
    }

  }
}
