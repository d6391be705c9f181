import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore
import FormsSync
import Foundation
import Synchronization

/// The program formsctl-sync: `formsctl sync` runs it from beside formsctl, with the same
/// arguments (`formsctl-sync sync status` is `formsctl sync status`), and it does sync's work.
@main
struct SyncProgram: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "formsctl",
    abstract: "The program behind `formsctl sync` (run it as formsctl sync ...).",
    version: formsctlVersion,
    subcommands: [SyncCommand.self]
  )

  static func main() {
    // Set by formsctl for the program it runs; not for what this one runs in turn.
    unsetenv(Door.environmentKey)
    SyncCommand.performer.withLock { $0 = perform }
    CommandLineMain.run(SyncProgram.self)
  }

  @Sendable static func perform(_ command: any ParsableCommand) throws {
    switch command {
    case let command as SyncCommand.Run where command.dryRun:
      var sync = try command.database.sync(try command.options.open())
      sync.strictWorkflow = command.strictWorkflow
      let preview = try sync.dryRun(
        command.pull ? .pull : command.push ? .push : .both, maxDelete: command.maxDelete)
      render(preview.report, as: command.format)
      if let refusal = preview.refusal { throw refusal }
      if preview.hasProblems { throw ExitStatus.problems }
    case let command as SyncCommand.Run:
      let store = try command.options.open()
      if let rejects = command.rejects { try ImportRejects.check(rejects, layout: store.layout) }
      var sync = try command.database.sync(store)
      sync.strictWorkflow = command.strictWorkflow
      let entries = try sync.run(
        command.pull ? .pull : command.push ? .push : .both, maxDelete: command.maxDelete)
      render(Sync.report(entries), as: command.format)
      if let rejects = command.rejects {
        // After the run: its rows are in; the rejected ones also wait in the state, so a file
        // that cannot be written (74) loses nothing.
        let lines = try Sync.rejects(store)
        try ImportRejects.write(lines: lines, to: rejects, layout: store.layout, afterRun: true)
        if !lines.isEmpty {
          printWarning("\(plural(lines.count, "rejected row")) waiting; they are listed in \(rejects)")
        }
      }
      // Rejected rows and conflicts left from earlier runs count as much as new ones.
      if entries.contains(where: \.isProblem) { throw ExitStatus.problems }
    case let command as SyncCommand.Init:
      for view in try command.database.sync(try command.options.open()).initialize() {
        printOut("view \(command.database.schema).\(view)")
      }
    case let command as SyncCommand.Status:
      let store = try command.options.open()
      let report = try Sync.status(store)
      render(report, as: command.format)
      let waiting = report.records.filter { ["conflict", "rejected"].contains($0["status"]?.stringValue ?? "") }
      let refused = try Sync.lastRunRefused(store)
      if !waiting.isEmpty || refused { throw ExitStatus.problems }
    case let command as SyncCommand.Resolve:
      let resolution: Sync.Resolution =
        command.ours ? .ours : command.theirs ? .theirs : .file(command.file ?? "")
      let entry = try command.database.sync(try command.options.open()).resolve(
        kind: command.kind, id: command.id, resolution)
      printOut("\(entry.kind) \(entry.id): \(entry.detail)")
    default:
      throw CommandError.badInput("formsctl-sync does not run \(type(of: command))")
    }
  }
}

extension DatabaseOptions {
  /// Sync between `store` and the database these options name.
  func sync(_ store: Store) throws -> Sync {
    try Sync(
      store: store, url: try Sync.url(database, environment: ProcessInfo.processInfo.environment), schema: schema)
  }
}
