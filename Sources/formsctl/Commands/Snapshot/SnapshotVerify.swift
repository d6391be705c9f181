import ArgumentParser
import FormsCore
import FormsStore
import Foundation

extension Formsctl.Snapshot {
  struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Re-hash snapshot files against their manifests; exit 1 naming each missing or altered file.",
      discussion: """
        Examples:
          formsctl snapshot create && formsctl snapshot verify
          formsctl snapshot verify latest --full
        """)
    @OptionGroup var options: StoreOptions
    @Argument(help: "The snapshot (default: all).", completion: Completions.snapshots) var id: String?
    @Flag(help: "Read every file of every snapshot, even the hard links one read already covers.") var full = false

    func run() throws {
      let (_, snapshots) = try Formsctl.Snapshot.open(options)
      let targets = try id.map { [try snapshots.find($0)] } ?? snapshots.list()
      let problems = try snapshots.verify(targets, full: full)
      for problem in problems { printOut("\(problem)") }
      printOut(
        "verified \(plural(targets.count, "snapshot")): \(problems.isEmpty ? "all files match" : "\(problems.count) problem(s)")"
      )
      if !problems.isEmpty { throw ExitStatus.problems }
    }
  }
}
