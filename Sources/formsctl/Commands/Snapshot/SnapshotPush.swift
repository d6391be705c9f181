import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore
import Foundation

extension Formsctl.Snapshot {
  struct Push: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "push",
      abstract: "Copy the snapshots a backup place lacks to it (a directory, or host:path over SSH), then check them.",
      discussion: """
        DEST is a directory outside the store (a mounted drive) or [user@]host:path, copied to with rsync (over SSH; RSYNC_RSH names another remote shell). Only the snapshots DEST lacks are copied; files unchanged since the previous snapshot stay hard links there too, and a snapshot counts at DEST once its manifest is there, so an interrupted push is finished by the next one. After copying, each copy there, new or already there, is checked against its manifest (a directory) or against the store's copy by checksum (a remote); a copy already there that does not match is sent again from the store and checked once more ("repaired"), and what still does not match exits 1 naming the file. Keep marks travel too: a mark set or taken off in the store since a snapshot was pushed is set or taken off at DEST; a mark that is a symbolic link or a directory is never followed: DEST gets a mark of its own, and a warning names it. `formsctl snapshot verify DEST` re-checks the copies at any time. Needs rsync (apt-get install rsync, as root or with sudo).

        Examples:
          mkdir -p ../formsctl-backup && formsctl snapshot create
          formsctl snapshot push ../formsctl-backup
          formsctl snapshot verify ../formsctl-backup
        """)
    @OptionGroup var options: StoreOptions
    @Argument(help: "Where the copies go: a directory, or [user@]host:path.", completion: .directory) var destination:
      String
    @Argument(help: "Only these snapshots (default: every one).", completion: Completions.snapshots) var ids: [String] =
      []
    @Option(help: "Output: text or json.") var format: TextOrJSON = .text

    func run() throws {
      let (_, snapshots) = try Formsctl.Snapshot.open(options)
      let names = ids.isEmpty ? nil : try ids.map { try snapshots.find($0).name }
      let transfer = try snapshots.push(
        to: try FormsStore.Snapshots.Place(destination), names: names, wait: options.wait)
      try Formsctl.Snapshot.show(transfer, verb: "pushed", place: destination, format: format)
    }
  }

  struct Pull: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "pull",
      abstract: "Copy the snapshots the store lacks from a backup place (a directory, or host:path over SSH).",
      discussion: """
        SRC is a copy made by `formsctl snapshot push`. Each snapshot the store lacks arrives under a hidden name, is checked against its manifest and made durable, and only then appears in `formsctl snapshot list`; one that does not match is left out and named (exit 1). `formsctl snapshot restore` then works on it as on any snapshot. A snapshot SRC keeps (its keep mark) is kept in the store too, one the store already had included; a mark is never taken off by a pull. Needs rsync.

        Examples:
          mkdir -p ../formsctl-backup && formsctl snapshot push ../formsctl-backup
          formsctl snapshot pull ../formsctl-backup
        """)
    @OptionGroup var options: StoreOptions
    @Argument(help: "Where the copies are: a directory, or [user@]host:path.", completion: .directory) var source:
      String
    @Argument(help: "Only these snapshots, by full name (default: every one the store lacks).") var names: [String] = []
    @Option(help: "Output: text or json.") var format: TextOrJSON = .text

    func run() throws {
      let (_, snapshots) = try Formsctl.Snapshot.open(options)
      let transfer = try snapshots.pull(
        from: try FormsStore.Snapshots.Place(source), names: names.isEmpty ? nil : names, wait: options.wait)
      try Formsctl.Snapshot.show(transfer, verb: "pulled", place: source, format: format)
    }
  }
}

extension Formsctl.Snapshot {
  /// A push's or a pull's report: each snapshot copied, the problems, a summary; exit 1 on problems.
  static func show(_ transfer: FormsStore.Snapshots.Transfer, verb: String, place: String, format: TextOrJSON)
    throws
  {
    if format == .json {
      FileHandleOutput.standardOutput.write(JSONWriter.canonicalString(transfer.json))
    } else {
      for name in transfer.copied { printOut("\(verb) \(name)") }
      for problem in transfer.repaired { printOut("repaired \(problem) (sent again from the store)") }
      for problem in transfer.problems { printOut("\(problem)") }
      let (here, there) = verb == "pushed" ? ("the store", place) : (place, "the store")
      for name in transfer.marked { printOut("kept \(name) (its keep mark \(verb))") }
      for name in transfer.unmarked { printOut("no longer kept \(name) at \(there) (its keep mark taken off)") }
      for name in transfer.damagedMarks {
        printWarning(
          "the keep mark of \(name) in \(here) is not a regular file (a symbolic link or a directory); it was not"
            + " followed, and \(name) is kept in \(there) with a mark of its own"
            + (verb == "pushed" ? "; `formsctl snapshot keep \(name)` writes it anew" : ""))
      }
      printOut(
        "\(verb) \(plural(transfer.copied.count, "snapshot")) (\(transfer.present.count) already there"
          + (transfer.repaired.isEmpty
            ? "" : ", \(Set(transfer.repaired.map(\.snapshot)).count) of them repaired")
          + ")"
          + (transfer.problems.isEmpty
            ? "; every copied file matches its manifest" : "; \(transfer.problems.count) problem(s)")
      )
    }
    if !transfer.problems.isEmpty { throw ExitStatus.problems }
  }
}
