import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore
import Foundation

extension Formsctl {
  struct MergeFile: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "merge-file",
      abstract: "Three-way structural merge of one document (git's merge driver; see `formsctl git install`).",
      discussion: """
        Git runs it from the top of the work tree as `formsctl merge-file %O %A %B %P`; the store is found by walking up from the document's directory (%P) to formsctl.yaml, so stores in subdirectories merge with their own schemas. A document inside no store, or in a store whose descriptors do not load, is not merged: it is left conflicted with a message.

        Members merge independently; lists with a unique key merge element by element; a change on one side is taken; the same change on both sides is taken once. An `updated` timestamp both sides changed becomes the later one, so two people editing different fields of one record merge cleanly. A real conflict is written as git conflict markers around exactly the conflicting member's lines, placed so that keeping either side leaves valid JSON, and the exit code is 1 so git marks the file conflicted. The result is written to OURS (as git expects). Sides at different schema versions are not merged: ours is kept with _schema in conflict.

        --prefer newer settles each remaining conflict inside a record that has an `updated` timestamp in favour of the side whose record is newer (no markers); other conflicts stay.

        Examples:
          P=data/purchase-orders/PO-000201.json; cp $P base.json; cp $P ours.json
          formsctl merge-file base.json ours.json $P $P     # git passes %O %A %B %P
        """
    )
    @Argument(help: "The common ancestor (git's %O; empty when both sides added the file).") var base: String
    @Argument(help: "Our version, overwritten with the result (git's %A).") var ours: String
    @Argument(help: "Their version (git's %B).") var theirs: String
    @Argument(help: "The document's path from the top of the work tree (git's %P): finds its store.") var path: String?
    @Option(help: "newer: on a conflict inside a record with an `updated` timestamp, take the newer side.") var prefer:
      Prefer?

    enum Prefer: String, ExpressibleByArgument, CaseIterable { case newer }

    func run() throws {
      let outcome = try MergeDriver.mergeFiles(
        base: base, ours: ours, theirs: theirs, path: path, workTree: FileIO.currentDirectory,
        preferNewer: prefer == .newer)
      if let refusal = outcome.refusal {
        printError(refusal + (outcome.remedy.map { "; " + ErrorText.advice(for: $0) } ?? ""))
      }
      guard outcome.conflicts > 0 else { return }
      if outcome.refusal == nil {
        printError(
          "\(path ?? ours): \(plural(outcome.conflicts, "conflict")) left as markers; resolve them, then run formsctl fmt"
        )
      }
      throw ExitStatus.problems
    }
  }
}
