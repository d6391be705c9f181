import ArgumentParser
import FormsCore
import FormsStore
import Foundation

/// Options every store command shares.
struct StoreOptions: ParsableArguments {
  @Option(name: .long, help: ArgumentHelp("The store's directory (default: FORMSCTL_STORE, else walk up to formsctl.yaml).", valueName: "DIR"))
  var store: String?

  @Option(name: .long, help: "Seconds to wait for another writer to release the store lock.")
  var wait: Double = 10

  @Flag(name: .shortAndLong, help: "No progress bar and no summary line.")
  var quiet = false

  /// The store this command works on.
  func locate() throws -> StoreLayout {
    try StoreLayout.locate(
      explicit: store, environment: ProcessEnvironment.values, workingDirectory: FileIO.currentDirectory)
  }

  /// The store, opened: descriptors compiled, the lock wait and the clock set.
  /// `FORMSCTL_NOW` (an RFC 3339 time) fixes the clock, for reproducible tests and examples.
  func open() throws -> Store {
    let store = try Store.open(locate(), display: PathDisplay(workingDirectory: FileIO.currentDirectory).show)
    store.lockWait = wait
    if let fixed = ProcessEnvironment.values["FORMSCTL_NOW"], let instant = Instant(fixed) {
      let date = Date(timeIntervalSince1970: TimeInterval(instant.seconds))
      store.now = { date }
    }
    return store
  }
}

enum ProcessEnvironment {
  static var values: [String: String] {
    var out: [String: String] = [:]
    var pointer = environ
    while let entry = pointer.pointee {
      let pair = String(cString: entry)
      if let equals = pair.firstIndex(of: "=") {
        out[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
      }
      pointer += 1
    }
    return out
  }
}

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
