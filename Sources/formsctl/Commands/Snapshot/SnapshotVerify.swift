import ArgumentParser
import FormsCore
import FormsStore
import Foundation

extension Formsctl.Snapshot {
  struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "verify",
      abstract: "Re-hash snapshot files against their manifests; exit 1 naming each missing or altered file.",
      discussion: """
        With a directory (a path holding a /), the copies `formsctl snapshot push` made there are checked instead, each against its own manifest.

        Examples:
          formsctl snapshot create && formsctl snapshot verify
          formsctl snapshot verify latest --full
          mkdir -p ../formsctl-backup && formsctl snapshot push ../formsctl-backup
          formsctl snapshot verify ../formsctl-backup/
        """)
    @OptionGroup var options: StoreOptions
    @Argument(
      help: "The snapshot (default: all), or a directory of pushed copies (./DIR, ../DIR or /DIR).",
      completion: Completions.snapshots) var id: String?
    @Flag(help: "Read every file of every snapshot, even the hard links one read already covers.") var full = false

    func run() throws {
      let (_, snapshots) = try Formsctl.Snapshot.open(options)
      let targets =
        if let id, id.contains("/") {
          try FormsStore.Snapshots.copies(in: id)
        } else {
          try id.map { [try snapshots.find($0)] } ?? snapshots.list()
        }
      let problems = try snapshots.verify(targets, full: full)
      for problem in problems { printOut("\(problem)") }
      printOut(
        "verified \(plural(targets.count, "snapshot")): \(problems.isEmpty ? "all files match" : "\(problems.count) problem(s)")"
      )
      if !problems.isEmpty { throw ExitStatus.problems }
    }
  }
}
