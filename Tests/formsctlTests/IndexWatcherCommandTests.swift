import FormsTestSupport
import Foundation
import Testing

/// `formsctl watch --serve-index` as a person runs it: a process serving the store's other
/// commands, which use it when it runs and check every file when it does not.
@Suite struct IndexWatcherCommandTests {
  /// Starts `formsctl watch --serve-index` in `store`; returns once it says it serves, with its
  /// process and the file its stderr goes to.
  static func start(_ store: String) throws -> (Process, String) {
    let log = store + "/../watcher-\(UUID().uuidString).log"
    FileManager.default.createFile(atPath: log, contents: nil)
    let process = Process()
    process.executableURL = Formsctl.binary
    process.arguments = ["watch", "--serve-index"]
    process.currentDirectoryURL = URL(fileURLWithPath: store)
    process.environment = testEnvironment()
    process.standardOutput = FileHandle.nullDevice
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
    try process.run()
    let deadline = Date().addingTimeInterval(120)
    while Date() < deadline, process.isRunning, !(try readFile(log)).contains("serving the index") { usleep(20_000) }
    let said = try readFile(log)
    #expect(said.contains("serving the index"), "\(said)")
    return (process, log)
  }

  static func list(_ store: String, _ extra: [String] = []) throws -> RunResult {
    try Formsctl.run(
      ["list", "purchase-order", "--sort", "purchase_order_number"] + extra, in: store,
      environment: ["FORMSCTL_INDEX_TRACE": "1"])
  }

  @Test func queriesUseARunningWatcherAndCheckEveryFileWithoutOne() throws {
    try withTemporaryDirectory { dir in
      let store = dir + "/acquisitions"
      try copyExampleStore(to: store)
      let (watcher, log) = try Self.start(store)
      defer {
        if watcher.isRunning { kill(watcher.processIdentifier, SIGKILL) }
        watcher.waitUntilExit()
      }
      let plain = try Self.list(store, ["--no-index"])
      let first = try Self.list(store)
      #expect(first.stdout == plain.stdout)
      #expect(
        first.stderr.contains("watcher: every file checked (no earlier query through this watcher)"), "\(first.stderr)")
      let second = try Self.list(store)
      #expect(second.stdout == plain.stdout)
      #expect(second.stderr.contains("watcher: 0 files checked"), "\(second.stderr)")
      // A change by hand is seen, and only its file is checked.
      let path = store + "/data/purchase-orders/PO-000201.json"
      try writeFile(try readFile(path).replacingOccurrences(of: "\"open\"", with: "\"closed\""), to: path)
      let third = try Self.list(store)
      #expect(third.stdout == (try Self.list(store, ["--no-index"])).stdout)
      #expect(third.stderr.contains("watcher: 1 file checked"), "\(third.stderr)")

      // One watcher a store: a second is refused with 75, naming the socket.
      let second2 = try Formsctl.run(["watch", "--serve-index"], in: store)
      #expect(second2.status == 75)
      #expect(second2.stderr.contains("another watcher already serves this store's index"), "\(second2.stderr)")

      // Killed, it leaves a socket nobody answers on: commands check every file, silently.
      kill(watcher.processIdentifier, SIGKILL)
      watcher.waitUntilExit()
      let alone = try Self.list(store)
      let scanned = try Self.list(store, ["--no-index"])
      #expect(alone.status == 0 && alone.stdout == scanned.stdout)
      #expect(alone.stderr.contains("no watcher: every file checked"), "\(alone.stderr)")
      // The next watcher replaces the stale socket; SIGTERM stops it with 0 and removes its socket.
      let (again, _) = try Self.start(store)
      #expect(try Self.list(store).stderr.contains("watcher: every file checked (the watcher was started again"))
      kill(again.processIdentifier, SIGTERM)
      again.waitUntilExit()
      #expect(again.terminationStatus == 0)
      #expect(!FileManager.default.fileExists(atPath: store + "/.formsctl/watcher/socket"))
      #expect((try readFile(log)).contains("inotify watch"))
    }
  }

  @Test func badArgumentsAreRefused() throws {
    try withTemporaryDirectory { dir in
      let store = dir + "/acquisitions"
      try copyExampleStore(to: store)
      for arguments in [["form"], ["--query"], ["--format", "json"], ["--where", "status == 1"]] {
        let result = try Formsctl.run(["watch", "--serve-index"] + arguments, in: store)
        #expect(result.status == 64, "\(arguments)")
        #expect(result.stderr.contains("--serve-index takes no KIND"), "\(arguments): \(result.stderr)")
      }
      // Its directory replaced by a link: refused, nothing served.
      try FileManager.default.createDirectory(atPath: dir + "/elsewhere", withIntermediateDirectories: true)
      try FileManager.default.createDirectory(atPath: store + "/.formsctl", withIntermediateDirectories: true)
      #expect(symlink(dir + "/elsewhere", store + "/.formsctl/watcher") == 0)
      let linked = try Formsctl.run(["watch", "--serve-index"], in: store)
      #expect(linked.status == 65, "\(linked.stderr)")
      #expect(!FileManager.default.fileExists(atPath: dir + "/elsewhere/socket"))
    }
  }
}
