import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore
import Foundation

extension Formsctl.Snapshot {
  struct Prune: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "prune",
      abstract: "Delete snapshots the retention policy does not keep (the manifest's policy by default).",
      discussion: """
        Keeps every snapshot younger than --keep-within, then the newest of each ISO week younger than --keep-weekly-within, the newest --keep-last, and always the newest one. Durations: 30s, 90m, 12h, 7d, 2w.

        With --sensitive, the policy is set aside: every snapshot that holds in plain text a value the store's descriptors now mark sensitive is deleted, whatever its age, except a kept one (marked, or kept by its label through keep_labels): it is named on stderr with what keeps it (`snapshot keep --off NAME`, or its pattern taken out of keep_labels, first) and the exit is 1. Snapshots are copies, so the values `keys reseal` sealed (or a field made sensitive) stay readable in the snapshots taken before; `keys reseal` names them. Git history may hold them too (docs/guide/sensitive-fields.md, "What formsctl protects against").

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
    @Option(
      help: ArgumentHelp("Then the newest whole-store snapshot of each month younger than this.", valueName: "DURATION")
    )
    var keepMonthlyWithin: String?
    @Option(help: "Also keep the newest N.") var keepLast: Int = 0
    @Flag(help: "Delete instead every snapshot holding sensitive values in plain text.") var sensitive = false

    func run() throws {
      guard keepLast >= 0 else { throw CommandError.usage("--keep-last must be 0 or more") }
      if sensitive { return try pruneSensitive() }
      let (layout, snapshots) = try Formsctl.Snapshot.open(options)
      let within = try Self.seconds(keepWithin, default: layout.retention.keepWithin)
      let weekly = try Self.seconds(keepWeeklyWithin, default: layout.retention.keepWeeklyWithin)
      let monthly = try Self.seconds(keepMonthlyWithin, default: layout.retention.keepMonthlyWithin)
      if within == 0 && weekly == 0 && monthly == 0 && keepLast == 0 {
        throw CommandError.usage(
          "this policy keeps no snapshot by age; only the newest would survive. Pass --keep-last 1 to mean that")
      }
      let decisions = try snapshots.prune(
        keepWithin: within, keepWeeklyWithin: weekly, keepMonthlyWithin: monthly, keepLast: keepLast, dryRun: dryRun,
        wait: options.wait)
      for decision in decisions {
        printOut("\(decision.keep ? "keep  " : "delete") \(decision.name)  (\(decision.reason))")
      }
    }

    /// A duration option in seconds, or the manifest's when not given.
    static func seconds(_ text: String?, default fallback: Int) throws -> Int {
      guard let text else { return fallback }
      guard let value = RetentionPolicy.seconds(text) else {
        throw CommandError.usage("\(text): " + RetentionPolicy.durationProblem(text))
      }
      return value
    }

    func pruneSensitive() throws {
      if keepWithin != nil || keepWeeklyWithin != nil || keepMonthlyWithin != nil || keepLast != 0 {
        throw CommandError.usage("--sensitive deletes by content, not by age: it takes no --keep-* option")
      }
      let store = try options.open()
      let (_, snapshots) = try Formsctl.Snapshot.open(options)
      let found = try snapshots.deleteExposed(registry: store.registry, dryRun: dryRun, wait: options.wait)
      guard !found.isEmpty else {
        return printOut("no snapshot holds sensitive values in plain text; nothing to delete")
      }
      for exposure in found where !exposure.kept {
        printOut(
          "\(dryRun ? "would delete" : "deleted") \(exposure.snapshot.name)  (\(Formsctl.Snapshot.exposed(exposure)))")
      }
      // A kept snapshot is never deleted: named, with how to delete it; exit 1, as values the
      // store now seals stay in plain text.
      let kept = found.filter(\.kept)
      for exposure in kept {
        let name = exposure.snapshot.name
        // Each reason that keeps it, and what takes that reason away.
        let steps = exposure.keeping.map { reason in
          switch reason {
          case .marked: return "formsctl snapshot keep --off \(name)"
          case .label(_, let pattern): return "take \(pattern) out of keep_labels in formsctl.yaml"
          }
        }
        printWarning(
          "kept \(name) not deleted (\(Formsctl.Snapshot.exposed(exposure)); kept: "
            + exposure.keeping.map(\.description).joined(separator: ", ") + "); to delete it: "
            + steps.joined(separator: " and ") + ", then snapshot prune --sensitive")
      }
      if !kept.isEmpty { throw ExitStatus.problems }
    }
  }
}
