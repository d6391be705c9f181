import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore
import Foundation

extension Formsctl.Snapshot {
  struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "verify",
      abstract: "Re-hash snapshot files against their manifests; exit 1 naming each missing or altered file.",
      discussion: """
        With a directory (a path holding a /) or [user@]host:path, the copies `formsctl snapshot push` made there are checked instead, each against its own manifest. A remote's copies are fetched with rsync into the store's snapshots directory one at a time (files equal by checksum to the store's own copy are linked, not sent), re-hashed and removed.

        Examples:
          formsctl snapshot create && formsctl snapshot verify
          formsctl snapshot verify latest --full
          mkdir -p ../formsctl-backup && formsctl snapshot push ../formsctl-backup
          formsctl snapshot verify ../formsctl-backup/
        """)
    @OptionGroup var options: StoreOptions
    @Argument(
      help: "The snapshot (default: all), or a place of pushed copies (./DIR, ../DIR, /DIR or host:path).",
      completion: Completions.snapshots) var id: String?
    @Flag(help: "Read every file of every snapshot, even the hard links one read already covers.") var full = false

    func run() throws {
      let (_, snapshots) = try Formsctl.Snapshot.open(options)
      let (count, problems): (Int, [FormsStore.Snapshots.Problem])
      if let id, id.contains("/") || (try? FormsStore.Snapshots.Place(id).isRemote) == true {
        let copies = try snapshots.verifyCopies(at: try FormsStore.Snapshots.Place(id), full: full, wait: options.wait)
        (count, problems) = (copies.checked.count, copies.problems)
      } else {
        let targets = try id.map { [try snapshots.find($0)] } ?? snapshots.list()
        (count, problems) = (targets.count, try snapshots.verify(targets, full: full))
      }
      for problem in problems { printOut("\(problem)") }
      printOut(
        "verified \(plural(count, "snapshot")): \(problems.isEmpty ? "all files match" : "\(problems.count) problem(s)")"
      )
      if !problems.isEmpty { throw ExitStatus.problems }
    }
  }
}
