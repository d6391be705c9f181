import ArgumentParser
import FormsCore
import FormsStore
import Foundation

extension Formsctl {
  struct Snapshot: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Timestamped, deduplicated, verifiable backups of the store, with restore and retention.",
      discussion: """
        Snapshots live in .formsctl/snapshots/<UTC time>[-label]/ as plain read-only files you can browse with ls and cat; a file unchanged since the previous snapshot is a hard link to its copy, so an unchanged store costs almost no disk. migrate, restore and import take one first.

        Examples:
          formsctl snapshot create -m "before the cleanup" --label q4
          formsctl snapshot list
          formsctl snapshot restore q4 data/forms --dry-run
        """,
      subcommands: [Create.self, List.self, Show.self, Diff.self, Restore.self, Verify.self, Prune.self]
    )

    /// The store's snapshots. Only the layout is needed (no schemas are compiled), so a broken
    /// descriptor can still be restored from a snapshot.
    static func open(_ options: StoreOptions) throws -> (StoreLayout, FormsStore.Snapshots) {
      let layout = try options.locate()
      var snapshots = FormsStore.Snapshots(layout: layout)
      snapshots.now = StoreOptions.clock
      snapshots.progress = options.progress
      return (layout, snapshots)
    }

    /// `whole store`, or for a partial snapshot `1000 documents (400 did not exist yet)`.
    static func scope(_ manifest: SnapshotManifest) -> String {
      guard let covers = manifest.covers else { return "whole store" }
      let absent = manifest.absent.count
      return plural(covers.count, "document")
        + (absent == 0 ? "" : " (\(absent) did not exist yet)")
    }

    struct Create: ParsableCommand {
      static let configuration = CommandConfiguration(
        abstract: "Take a snapshot of data/, schemas/ and formsctl.yaml.",
        discussion: """
          Examples:
            formsctl snapshot create
            formsctl snapshot create -m "before the quarterly cleanup" --label q4
          """)
      @OptionGroup var options: StoreOptions
      @Option(name: .shortAndLong, help: "Why, in words (kept in the manifest).") var message: String?
      @Option(help: "A name appended to the time (letters, digits, . _ -).") var label: String?

      func run() throws {
        let (layout, snapshots) = try Snapshot.open(options)
        let manifest = try layout.withWriteLock("snapshot create", wait: options.wait) { () throws(StoreError) in
          try snapshots.create(reason: "manual", message: message, label: label)
        }
        printOut("created snapshot \(manifest.name) (\(manifest.files.count) files)")
      }
    }

    struct List: ParsableCommand {
      static let configuration = CommandConfiguration(
        abstract: "List the snapshots, oldest first, with their labels and reasons.",
        discussion: """
          Examples:
            formsctl snapshot create --label q4 && formsctl snapshot list
            formsctl snapshot list --format json | jq -r '.[].name'
          """)
      @OptionGroup var options: StoreOptions
      @Option(help: "Output: table or json.") var format: TableOrJSON = .table

      func run() throws {
        let (_, snapshots) = try Snapshot.open(options)
        let all = try snapshots.list()
        switch format {
        case .json:
          FileHandleOutput.standardOutput.write(
            JSONWriter.canonicalString(
              .array(
                all.map { info in
                  .object(
                    JSONObject([
                      "name": .string(info.name), "reason": info.manifest.map { .string($0.reason) } ?? .null,
                      "time": info.manifest.map { .string($0.time) } ?? .null,
                      "message": info.manifest?.message.map(JSONValue.string) ?? .null,
                      "files": info.manifest.map { .number(JSONNumber($0.files.count)) } ?? .null,
                      "label": info.manifest?.label.map(JSONValue.string) ?? .null,
                      "scope": info.manifest.map { .string($0.covers == nil ? "store" : "documents") } ?? .null,
                    ]))
                })))
        case .table, .text:
          var rows = [["ID", "LABEL", "REASON", "SCOPE", "FILES", "MESSAGE"]]
          for info in all {
            rows.append([
              info.name, info.manifest?.label ?? "", info.manifest?.reason ?? "(no manifest)",
              info.manifest.map { Snapshot.scope($0) } ?? "", info.manifest.map { String($0.files.count) } ?? "",
              info.manifest?.message ?? "",
            ])
          }
          FileHandleOutput.standardOutput.write(TextTable.render(rows))
        }
      }
    }

    struct Show: ParsableCommand {
      static let configuration = CommandConfiguration(
        abstract: "Summarize one snapshot's manifest (ID or \"latest\").",
        discussion: """
          Examples:
            formsctl snapshot create --label q4 && formsctl snapshot show q4
            formsctl snapshot show latest
          """)
      @OptionGroup var options: StoreOptions
      @Argument(help: "The snapshot.") var id: String

      func run() throws {
        let (_, snapshots) = try Snapshot.open(options)
        let (info, note) = try snapshots.resolve(id)
        if let note { printWarning(note) }
        guard let manifest = try info.loadManifest() else {
          throw StoreError.refused(.snapshotWithoutManifest(name: info.name))
        }
        var lines = ["snapshot \(manifest.name)", "time      \(manifest.time)", "reason    \(manifest.reason)"]
        if let label = manifest.label { lines.append("label     \(label)") }
        if let message = manifest.message { lines.append("message   \(message)") }
        lines.append("formsctl  \(manifest.formsctlVersion)")
        lines.append("scope     \(Snapshot.scope(manifest))")
        lines.append("files     \(manifest.files.count), \(manifest.files.map(\.size).reduce(0, +)) bytes")
        for (kind, versions) in manifest.counts.sorted(by: { $0.key < $1.key }) {
          for (version, count) in versions.sorted(by: { $0.key < $1.key }) {
            lines.append("  \(kind)@\(version): \(count)")
          }
        }
        printOut(lines.joined(separator: "\n"))
      }
    }

    struct Diff: ParsableCommand {
      static let configuration = CommandConfiguration(
        abstract: "Documents added, removed and changed between two snapshots, or a snapshot and the live store.",
        discussion: """
          Examples:
            formsctl snapshot create --label q4
            formsctl set acquisition ACQ-2026-001 title="New title"
            formsctl snapshot diff q4                    # q4 against the live store
          """)
      @OptionGroup var options: StoreOptions
      @Argument(help: "The older snapshot.") var id: String
      @Argument(help: "The newer snapshot (default: the live store).") var other: String?
      @Option(help: "Output: text or json.") var format: TableOrJSON = .table

      func run() throws {
        let (_, snapshots) = try Snapshot.open(options)
        let difference = try snapshots.diff(from: try snapshots.find(id), to: try other.map { try snapshots.find($0) })
        if format == .json {
          FileHandleOutput.standardOutput.write(
            JSONWriter.canonicalString(
              .object(
                JSONObject([
                  "added": .array(difference.added.map(JSONValue.string)),
                  "removed": .array(difference.removed.map(JSONValue.string)),
                  "changed": .array(
                    difference.changed.map {
                      .object(
                        JSONObject(["path": .string($0.path), "pointers": .array($0.pointers.map(JSONValue.string))]))
                    }),
                ]))))
          return
        }
        for path in difference.added { printOut("+ \(path)") }
        for path in difference.removed { printOut("- \(path)") }
        for change in difference.changed { printOut("~ \(change.path)  \(change.pointers.joined(separator: " "))") }
        printOut(
          "\(difference.added.count) added, \(difference.removed.count) removed, \(difference.changed.count) changed")
      }
    }

    struct Restore: ParsableCommand {
      static let configuration = CommandConfiguration(
        abstract: "Make the live store (or the named documents) equal to a snapshot.",
        discussion: """
          First takes a pre-restore snapshot (unless --no-snapshot), then rewrites changed files, recreates missing ones and removes extra ones (documents created since the snapshot, within the directories named), atomically per file under a journal (`formsctl recover` finishes or undoes an interrupted restore). Refuses a snapshot whose files fail verification.

          Examples:
            formsctl snapshot create --label q4 && formsctl rm form 22e8dfd4
            formsctl snapshot restore q4 data/forms --dry-run
            formsctl snapshot restore latest data/forms     # back comes 22e8dfd4
            formsctl snapshot restore latest --dry-run --format json
          """
      )
      @OptionGroup var options: StoreOptions
      @Argument(help: "The snapshot: its id or a unique prefix, its label, latest, or latest~N.") var id: String
      @Argument(help: "Document files or directories under data/ (default: everything).") var paths: [String] = []
      @Flag(help: "Print what would change; change nothing.") var dryRun = false
      @Flag(help: "Do not take a pre-restore snapshot first.") var noSnapshot = false
      @Option(help: "Output: text or json.") var format: TextOrJSON = .text

      func run() throws {
        let (layout, snapshots) = try Snapshot.open(options)
        let selected = paths.isEmpty ? nil : try Self.snapshotPaths(paths, layout: layout)
        let (target, note) = try snapshots.resolve(id)
        if let note { printWarning(note) }
        let outcome = try snapshots.restore(
          target.name, paths: selected, dryRun: dryRun, snapshotFirst: !noSnapshot, wait: options.wait,
          command: auditCommandLine(Array(CommandLine.arguments.dropFirst())))
        let plan = outcome.plan
        if format == .json {
          return FileHandleOutput.standardOutput.write(
            JSONWriter.canonicalString(
              .object(
                JSONObject([
                  "snapshot": .string(outcome.snapshot.name), "dry_run": .bool(dryRun),
                  "pre_restore_snapshot": outcome.preRestoreSnapshot.map(JSONValue.string) ?? .null,
                  "rewritten": .array(plan.rewritten.map(JSONValue.string)),
                  "recreated": .array(plan.recreated.map(JSONValue.string)),
                  "removed": .array(plan.removed.map(JSONValue.string)),
                ]))))
        }
        let prefix = dryRun ? "would " : ""
        for path in plan.rewritten { printOut("\(prefix)rewrite  \(path)") }
        for path in plan.recreated { printOut("\(prefix)recreate \(path)") }
        for path in plan.removed { printOut("\(prefix)remove   \(path)") }
        let scope = paths.isEmpty ? "the live store" : paths.joined(separator: ", ")
        if plan.isEmpty {
          return printOut("\(scope) already equals snapshot \(outcome.snapshot.name); nothing to restore")
        }
        if !dryRun {
          printOut("restored \(scope) from snapshot \(outcome.snapshot.name)")
          if let before = outcome.preRestoreSnapshot {
            printOut("the state before is snapshot \(before); to undo: formsctl snapshot restore \(before)")
          }
        }
      }

      /// Paths as they appear in a snapshot (`data/...`); anything outside data/ is refused.
      static func snapshotPaths(_ paths: [String], layout: StoreLayout) throws -> [String] {
        var out: [String] = []
        for given in paths {
          let absolute = absolutePath(given, from: FileIO.currentDirectory)
          guard let path = layout.snapshotPath(absolute) else {
            throw CommandError.badInput("\(given): not under the store's data directory; restore takes documents")
          }
          out.append(path)
        }
        return out
      }
    }

    struct Verify: ParsableCommand {
      static let configuration = CommandConfiguration(
        abstract: "Re-hash snapshot files against their manifests; exit 1 naming each missing or altered file.",
        discussion: """
          Examples:
            formsctl snapshot create && formsctl snapshot verify
            formsctl snapshot verify latest --full
          """)
      @OptionGroup var options: StoreOptions
      @Argument(help: "The snapshot (default: all).") var id: String?
      @Flag(help: "Read every file of every snapshot, even the hard links one read already covers.") var full = false

      func run() throws {
        let (_, snapshots) = try Snapshot.open(options)
        let targets = try id.map { [try snapshots.find($0)] } ?? snapshots.list()
        let problems = try snapshots.verify(targets, full: full)
        for problem in problems { printOut("\(problem)") }
        printOut(
          "verified \(plural(targets.count, "snapshot")): \(problems.isEmpty ? "all files match" : "\(problems.count) problem(s)")"
        )
        if !problems.isEmpty { throw ExitStatus.problems }
      }
    }

    struct Prune: ParsableCommand {
      static let configuration = CommandConfiguration(
        abstract: "Delete snapshots the retention policy does not keep (the manifest's policy by default).",
        discussion: """
          Keeps every snapshot younger than --keep-within, then the newest of each ISO week younger than --keep-weekly-within, the newest --keep-last, and always the newest one. Durations: 30s, 90m, 12h, 7d, 2w.

          With --sensitive, the policy is set aside: every snapshot that holds in plain text a value the store's descriptors now mark sensitive is deleted, whatever its age. Snapshots are copies, so the values `keys reseal` sealed (or a field made sensitive) stay readable in the snapshots taken before; `keys reseal` names them. Git history may hold them too (README, "What formsctl protects against").

          Examples:
            formsctl snapshot prune --dry-run
            formsctl snapshot prune --keep-within 30d --keep-last 5
            formsctl snapshot prune --sensitive --dry-run
          """
      )
      @OptionGroup var options: StoreOptions
      @Flag(help: "Print the decisions; delete nothing.") var dryRun = false
      @Option(help: ArgumentHelp("Keep everything younger than this.", valueName: "DURATION")) var keepWithin: String?
      @Option(help: ArgumentHelp("Then the newest of each ISO week younger than this.", valueName: "DURATION"))
      var keepWeeklyWithin: String?
      @Option(help: "Also keep the newest N.") var keepLast: Int = 0
      @Flag(help: "Delete instead every snapshot holding sensitive values in plain text.") var sensitive = false

      func run() throws {
        guard keepLast >= 0 else { throw CommandError.usage("--keep-last must be 0 or more") }
        if sensitive { return try pruneSensitive() }
        let (layout, snapshots) = try Snapshot.open(options)
        func seconds(_ text: String?, _ fallback: Int) throws -> Int {
          guard let text else { return fallback }
          guard let value = RetentionPolicy.seconds(text) else {
            throw CommandError.usage("\(text): " + RetentionPolicy.durationProblem(text))
          }
          return value
        }
        let within = try seconds(keepWithin, layout.retention.keepWithin)
        let weekly = try seconds(keepWeeklyWithin, layout.retention.keepWeeklyWithin)
        if within == 0 && weekly == 0 && keepLast == 0 {
          throw CommandError.usage(
            "this policy keeps no snapshot by age; only the newest would survive. Pass --keep-last 1 to mean that")
        }
        let decisions = try layout.withWriteLock("snapshot prune", wait: options.wait) { () throws(StoreError) in
          try snapshots.prune(keepWithin: within, keepWeeklyWithin: weekly, keepLast: keepLast, dryRun: dryRun)
        }
        for decision in decisions {
          printOut("\(decision.keep ? "keep  " : "delete") \(decision.name)  (\(decision.reason))")
        }
      }

      func pruneSensitive() throws {
        if keepWithin != nil || keepWeeklyWithin != nil || keepLast != 0 {
          throw CommandError.usage("--sensitive deletes by content, not by age: it takes no --keep-* option")
        }
        let store = try options.open()
        let (layout, snapshots) = try Snapshot.open(options)
        let found = try layout.withWriteLock("snapshot prune", wait: options.wait) { () throws(StoreError) in
          try snapshots.deleteExposed(registry: store.registry, dryRun: dryRun)
        }
        guard !found.isEmpty else {
          return printOut("no snapshot holds sensitive values in plain text; nothing to delete")
        }
        for exposure in found {
          printOut("\(dryRun ? "would delete" : "deleted") \(exposure.snapshot.name)  (\(Snapshot.exposed(exposure)))")
        }
      }
    }

    /// `3 sensitive values in plain text in 2 documents, first data/forms/F-1.json`.
    static func exposed(_ exposure: FormsStore.Snapshots.Exposure) -> String {
      "\(plural(exposure.values, "sensitive value")) in plain text in \(plural(exposure.documents.count, "document")), "
        + "first \(exposure.documents[0])"
    }
  }
}
