import ArgumentParser
import FormsCore
import FormsStore
import Foundation

extension Formsctl {
  struct Migrate: ParsableCommand {
    static let configuration = CommandConfiguration(
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

    struct Run: ParsableCommand {
      static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Migrate (the default subcommand).",
        discussion: """
          Examples:
            formsctl migrate run --dry-run
            formsctl migrate run --kind purchase-order
          """)
      @OptionGroup var options: StoreOptions
      @Option(help: "Only this kind.") var kind: String?
      @Option(help: "The target version (needs --kind; default: each kind's newest).") var to: String?
      @Flag(help: "Print the plan, counts and a sample diff; write nothing.") var dryRun = false
      @Flag(help: "Leave documents that are invalid before migrating where they are, and say so.")
      var skipInvalid = false
      @Flag(help: "Do not take the pre-migrate snapshot.") var noSnapshot = false

      func run() throws {
        let store = try options.open()
        let migrator = Migrator(store: store)
        var target: SemanticVersion?
        if to != nil && kind == nil { throw CommandError.usage("--to needs --kind: versions belong to one kind") }
        if let to {
          guard let version = SemanticVersion(to) else {
            throw CommandError.usage("--to \(to): expected a version such as 2.0.0")
          }
          target = version
        }
        let report = try migrator.run(
          Migrator.Request(kind: kind, to: target, dryRun: dryRun, skipInvalid: skipInvalid, snapshot: !noSnapshot))
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
        if dryRun {
          for sample in report.samples {
            printOut("\nsample \(sample.kind): \(sample.path)\n" + lineDiff(sample.before, sample.after))
          }
          printOut(
            "\n"
              + Migrate.estimate(
                documents: report.groups.reduce(0) { $0 + $1.group.paths.count } - report.skipped.count,
                report: report, checking: report.seconds))
          printOut("dry run: nothing written")
        } else {
          printOut(
            String(format: "migrated %d documents in %.2f s", report.migrated, report.seconds)
              + (report.snapshot.map { "; the state before is snapshot \($0)" } ?? ""))
        }
      }
    }

    /// `would rewrite 40,032 documents (156 MB): needs about 330 MB free, 95 GB free here; about 9 s`.
    static func estimate(documents: Int, report: Migrator.Report, checking seconds: Double) -> String {
      // The run checks every document again while staging, then syncs: about twice the dry run.
      let time = max(1, Int((seconds * 2 + Double(report.bytes) / 100_000_000).rounded()))
      return "would rewrite \(plural(documents, "document")) (\(Storage.format(report.bytes))): "
        + "needs about \(Storage.format(report.needed)) free, \(report.free.map(Storage.format) ?? "unknown") free here; about \(time) s"
    }

    struct Status: ParsableCommand {
      static let configuration = CommandConfiguration(
        abstract: "Per kind: documents at each version, the target, and how far behind.",
        discussion: """
          Examples:
            formsctl migrate status
            formsctl migrate status --format json | jq '.[].kind'
          """)
      @OptionGroup var options: StoreOptions
      @Option(help: "Output: table or json.") var format: TableOrJSON = .table

      func run() throws {
        let store = try options.open()
        let statuses = try Migrator(store: store).status()
        if format == .json {
          FileHandleOutput.standardOutput.write(
            JSONWriter.canonicalString(
              .array(
                statuses.map { status in
                  .object(
                    JSONObject([
                      "kind": .string(status.kind), "target": .string(status.target.description),
                      "versions": .array(
                        status.versions.map {
                          .object(
                            JSONObject([
                              "version": .string($0.version.description),
                              "documents": .number(JSONNumber($0.documents)),
                              "behind": $0.behind.map { .number(JSONNumber($0)) } ?? .null,
                            ]))
                        }),
                      "unreadable": .array(status.unreadable.map { .string(store.display($0)) }),
                    ]))
                })))
          return
        }
        var rows = [["KIND", "VERSION", "DOCUMENTS", "TARGET", "STATE"]]
        for status in statuses {
          if status.versions.isEmpty {
            rows.append([status.kind, "-", "0", status.target.description, "no documents"])
          }
          for entry in status.versions {
            let state =
              entry.behind.map { $0 == 0 ? "current" : plural($0, "step") + " behind" }
              ?? "no path to the target"
            rows.append([
              status.kind, entry.version.description, String(entry.documents), status.target.description, state,
            ])
          }
          if !status.unreadable.isEmpty {
            rows.append([
              status.kind, "?", String(status.unreadable.count), status.target.description,
              "unreadable; run formsctl validate",
            ])
          }
        }
        FileHandleOutput.standardOutput.write(TextTable.render(rows))
        let estimate = try Migrator(store: store).estimate()
        if estimate.documents > 0 {
          printOut(
            "migrate would rewrite \(plural(estimate.documents, "document")) (\(Storage.format(estimate.bytes))): "
              + "needs about \(Storage.format(estimate.needed)) free, \(estimate.free.map(Storage.format) ?? "unknown") free here; "
              + "about \(estimate.seconds) s")
        }
      }
    }

    struct Repair: ParsableCommand {
      static let configuration = CommandConfiguration(
        abstract: "Accept edited descriptors that earlier migrations used (records their new checksums).",
        discussion: """
          migrate refuses while a descriptor it used before has changed; run this once you have checked the change was intended.

          Examples:
            formsctl migrate repair
          """)
      @OptionGroup var options: StoreOptions

      func run() throws {
        let changed = try Migrator(store: try options.open()).repair()
        printOut(
          changed.isEmpty
            ? "every descriptor matches its recorded checksum"
            : changed.map { "recorded the new checksum of \($0)" }.joined(separator: "\n"))
      }
    }
  }
}
