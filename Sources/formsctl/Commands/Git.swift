import Foundation
import ArgumentParser
import FormsCore
import FormsStore

extension Formsctl {
  struct MergeFile: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "merge-file",
      abstract: "Three-way structural merge of one document (git's merge driver; see `formsctl git install`).",
      discussion: """
        Members merge independently; lists with a unique key merge element by element; a change on
        one side is taken; the same change on both sides is taken once. A real conflict is written
        as git conflict markers around exactly the conflicting member's lines, and the exit code is
        1 so git marks the file conflicted. The result is written to OURS (as git expects).
        """
    )
    @Argument(help: "The common ancestor (git's %O; may be empty).") var base: String
    @Argument(help: "Our version, overwritten with the result (git's %A).") var ours: String
    @Argument(help: "Their version (git's %B).") var theirs: String
    @Argument(help: "The document's path in the repository (git's %P), for messages.") var path: String?
    @Option(help: "On a conflict inside a record with an `updated` timestamp, take the newer side.") var prefer: Prefer?

    enum Prefer: String, ExpressibleByArgument { case newer }

    func run() throws {
      let shown = path ?? ours
      func load(_ file: String, _ role: String, emptyAllowed: Bool) throws -> JSONValue? {
        let bytes = try FileIO.read(file)
        if emptyAllowed && bytes.allSatisfy({ [0x20, 0x0A, 0x0D, 0x09].contains($0) }) { return nil }
        do {
          let value = try JSONParser().parse(bytes)
          guard value.objectValue != nil else { throw CommandError.badInput("\(shown): \(role) is not a JSON object") }
          return value
        } catch let error as JSONParseError {
          throw CommandError.badInput("\(shown) (\(role)):\(error.location.line):\(error.location.column): \(error.message)")
        }
      }
      let baseValue = try load(base, "the base", emptyAllowed: true)
      let oursValue = try load(ours, "ours", emptyAllowed: false)!
      let theirsValue = try load(theirs, "theirs", emptyAllowed: false)!
      let kinds = [baseValue, oursValue, theirsValue].compactMap { $0?["_schema"]?.stringValue?.split(separator: "@").first }
      guard Swift.Set(kinds).count <= 1 else {
        throw CommandError.badInput("\(shown): the versions are documents of different kinds (\(Swift.Set(kinds).sorted().joined(separator: ", ")))")
      }
      // The store (found by walking up from the working directory) supplies the unique keys.
      let store = try? StoreLayout.locate(explicit: nil, environment: ProcessInfo.processInfo.environment, workingDirectory: FileIO.currentDirectory)
      let registry = store.map { SchemaRegistry.load(directory: $0.schemasDirectory) { $0 } }
      let schema = oursValue["_schema"]?.stringValue.flatMap { registry?.schema(reference: $0) }
      let (text, conflicts) = ThreeWayMerge(schema: schema, preferNewer: prefer == .newer).merge(base: baseValue, ours: oursValue, theirs: theirsValue)
      try AtomicWriter(boundary: parentDirectory(FileIO.realPath(ours) ?? ours)).write(Array(text.utf8), to: ours)
      if conflicts > 0 {
        printError("\(shown): \(conflicts) conflict\(conflicts == 1 ? "" : "s") left as markers; resolve them, then run formsctl fmt")
        throw ExitCode(ExitStatus.problemsFound)
      }
    }
  }

  struct Git: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Git integration.",
      subcommands: [Install.self]
    )

    struct Install: ParsableCommand {
      static let configuration = CommandConfiguration(
        abstract: "Make git merge documents with formsctl: .gitattributes and the merge driver in .git/config.",
        discussion: "Idempotent. --uninstall removes both again.")
      @OptionGroup var options: StoreOptions
      @Flag(help: "Remove the .gitattributes line and the merge driver.") var uninstall = false

      func run() throws {
        let layout = try options.locate()
        let repository = try GitRepository(around: layout.root)
        let done = try repository.installMergeDriver(layout: layout, uninstall: uninstall)
        printOut(done.isEmpty ? (uninstall ? "nothing to remove" : "already installed") : done.joined(separator: "\n"))
      }
    }
  }
}
