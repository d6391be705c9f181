import ArgumentParser
import FormsCore
import FormsStore
import Foundation

/// Options every store command shares.
package struct StoreOptions: ParsableArguments {
  package init() {}

  @Option(
    name: .long,
    help: ArgumentHelp(
      "The store's directory (default: FORMSCTL_STORE, else walk up to formsctl.yaml).", valueName: "DIR"))
  package var store: String?

  @Option(name: .long, help: "Seconds to wait for another writer to release the store lock.")
  package var wait: Double = 10

  @Flag(name: .shortAndLong, help: "No progress bar and no summary line.")
  package var quiet = false

  package func validate() throws {
    guard wait.isFinite, (0...86_400).contains(wait) else {
      throw ValidationError("--wait must be between 0 and 86400 seconds")
    }
  }

  /// The store this command works on.
  package func locate() throws -> StoreLayout {
    try StoreLayout.locate(
      explicit: store, environment: ProcessInfo.processInfo.environment, workingDirectory: FileIO.currentDirectory)
  }

  /// The store, opened: descriptors compiled, the lock wait, the clock and the command line set.
  /// `toWrite`: the command changes documents, so the audit record's user is looked up while the
  /// store opens (`Store.Configuration.opensToWrite`).
  /// `watching`: a long-lived command starts an index watcher of its own (decision 0120); others
  /// ask the store's, when one serves it.
  package func open(useIndex: Bool = true, toWrite: Bool = false, watching: Bool = false) throws -> Store {
    var configuration = Store.Configuration()
    configuration.useIndex = useIndex
    if watching {
      var options = IndexWatcher.Options()
      options.report = { printWarning($0) }
      configuration.indexWatching = .process(options)
    }
    configuration.opensToWrite = toWrite
    configuration.display = PathDisplay(workingDirectory: FileIO.currentDirectory).show
    configuration.lockWait = wait
    configuration.now = Self.clock
    configuration.arguments = Array(CommandLine.arguments.dropFirst())
    configuration.progress = progress
    let store = try Store.open(locate(), configuration: configuration)
    SensitiveNote.shared.track(store.keyring)
    return store
  }

  /// The progress line's handler (terminals only, not with --quiet).
  package var progress: ProgressHandler? { ProgressLine.handler(quiet: quiet) }

  /// The clock: `FORMSCTL_NOW` (an RFC 3339 time) fixes it, for reproducible tests and examples.
  package static let clock: @Sendable () -> Date = {
    guard let fixed = ProcessInfo.processInfo.environment["FORMSCTL_NOW"], let instant = Instant(fixed) else {
      return { Date() }
    }
    let date = Date(timeIntervalSince1970: TimeInterval(instant.seconds))
    return { date }
  }()
}
