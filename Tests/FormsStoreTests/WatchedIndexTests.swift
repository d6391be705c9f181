import FormsCore
import FormsTestSupport
import Foundation
import Synchronization
import Testing

@testable import FormsStore

/// A watcher may make a query faster, never different (decision 0120): every query through it
/// equals the same query reading every file, whatever changed the files, and each way the
/// watcher loses continuity is seen to make the query check every file.
@Suite(.serialized) struct WatchedIndexTests {
  /// The store's watcher, served on its socket from a thread of this process.
  final class Daemon: @unchecked Sendable {
    let service: IndexService
    let cancellation = WatchCancellation()
    let done = DispatchSemaphore(value: 0)

    init(_ store: Store, options: IndexWatcher.Options = IndexWatcher.Options()) throws {
      service = try IndexService(layout: store.layout, registry: store.registry, options: options)
      let (service, cancellation, done) = (service, cancellation, done)
      Thread {
        do throws(StoreError) { try service.run(until: cancellation) } catch {
          Issue.record("the watcher's service ended: \(error)")
        }
        done.signal()
      }.start()
    }

    func stop() {
      cancellation.cancel()
      done.wait()
    }
  }

  /// A store opened to ask `watching`, with `racy` as the racily-clean window.
  static func open(_ fixture: StoreFixture, _ watching: Store.IndexWatching, racy: Duration = .zero) throws -> Store {
    var configuration = fixture.store.configuration
    configuration.indexRacyWindow = racy
    configuration.indexWatching = watching
    configuration.indexWatcherWait = .seconds(60)
    return try Store.open(at: fixture.root, configuration: configuration)
  }

  static func scanning(_ fixture: StoreFixture) throws -> Store {
    var configuration = fixture.store.configuration
    configuration.useIndex = false
    return try Store.open(at: fixture.root, configuration: configuration)
  }

  static func route(_ store: Store) -> IndexRoute? { store.indexRoutes.withLock { $0["acquisition"] } }

  static func create(_ fixture: StoreFixture, _ id: String, agency: String = "GSA") throws {
    _ = try fixture.store.create(
      kind: "acquisition",
      assignments: [
        try Assignment("id=\(id)"), try Assignment("title=Chairs \(id)"), try Assignment("agency=\(agency)"),
      ])
  }

  /// A store of `documents` acquisitions whose watcher is served on its socket.
  static func served(_ dir: String, documents: Int = 1) throws -> (StoreFixture, Daemon) {
    let fixture = try StoreFixture(dir + "/store")
    for n in 0..<documents { try Self.create(fixture, "ACQ-2026-00\(n + 1)") }
    return (fixture, try Daemon(fixture.store))
  }

  static let all = Store.Query(sort: [(path: FilterExpression.Path("id")!, descending: false)])

  @Test(arguments: [UInt64(1), 2, 3])
  func everyQueryThroughTheWatcherEqualsAFullScan(_ seed: UInt64) throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      #expect(try IndexTests.runGit(["init", "-q", "."], in: fixture.root) == 0)
      var daemon = try Daemon(fixture.store)
      defer { daemon.stop() }
      var watched = try Self.open(fixture, .daemon)
      let scanning = try Self.scanning(fixture)
      var rng = SeededGenerator(state: seed)
      var ids: [String] = []
      func create() throws {
        let id = String(format: "ACQ-2026-%03d", ids.count + 1)
        ids.append(id)
        // Refused when a hand-made copy holds the same id already: the store's rule, not the index's.
        _ = try? Self.create(fixture, id, agency: IndexTests.agencies.randomElement(using: &rng)!)
      }
      for _ in 0..<20 { try create() }
      #expect(try IndexTests.runGit(["add", "-A"], in: fixture.root) == 0)
      #expect(try IndexTests.runGit(["commit", "-qm", "base"], in: fixture.root) == 0)
      let directory = fixture.root + "/data/acquisitions/"
      var routes: [String: Int] = [:]
      for step in 0..<36 {
        let id = ids.randomElement(using: &rng)!
        let path = directory + id + ".json"
        let exists = FileManager.default.fileExists(atPath: path)
        let change = Int.random(in: 0..<11, using: &rng)
        switch change {
        case 0 where exists:
          _ = try? fixture.store.update(
            kind: "acquisition", id: id,
            assignments: [try Assignment("agency=\(IndexTests.agencies.randomElement(using: &rng)!)")])
        case 1: try create()
        case 2 where exists: _ = try? fixture.store.delete(kind: "acquisition", id: id)
        case 3 where exists:
          // By hand, the same size, the same modification time put back.
          let before = IndexTests.modified(path)
          var text = try readFile(path)
          if let range = text.range(of: #""title": ""#) {
            text.replaceSubrange(range.upperBound...range.upperBound, with: text[range.upperBound] == "Z" ? "Y" : "Z")
          }
          try writeFile(text, to: path)
          IndexTests.setModified(path, to: before)
        case 4 where exists:
          // cp -p of another document over this one.
          let source = directory + ids.randomElement(using: &rng)! + ".json"
          if FileManager.default.fileExists(atPath: source) {
            try writeFile(try readFile(source), to: path)
            IndexTests.setModified(path, to: IndexTests.modified(source))
          }
        case 5:
          #expect(try IndexTests.runGit(["checkout", "-q", "--", "data"], in: fixture.root) == 0)
          #expect(try IndexTests.runGit(["clean", "-qfd", "data"], in: fixture.root) == 0)
        case 6 where exists:
          #expect(rename(path, directory + "moved-\(step).json") == 0)
        case 7:
          // The kind's directory replaced by a copy of itself (another inode, the same names).
          #expect(rename(directory, fixture.root + "/data/old") == 0)
          try FileManager.default.copyItem(atPath: fixture.root + "/data/old", toPath: directory)
          try FileManager.default.removeItem(atPath: fixture.root + "/data/old")
        case 8:
          // The watcher killed and started again: its tokens name another run.
          daemon.stop()
          daemon = try Daemon(fixture.store)
          // A command gives up on a watcher that stopped answering; the next one finds the new one.
          watched = try Self.open(fixture, .daemon)
        case 9 where exists:
          try FileManager.default.createDirectory(
            atPath: directory + "nested-\(step)", withIntermediateDirectories: true)
          try writeFile(try readFile(path), to: directory + "nested-\(step)/inner.json")
        case 10 where exists:
          try writeFile("{ not json", to: path)
        default: break
        }
        for _ in 0..<4 {
          let query = try IndexTests.query(&rng)
          let (got, expected) = (try IndexTests.answer(watched, query), try IndexTests.answer(scanning, query))
          #expect(
            got == expected,
            """
            seed \(seed), step \(step) (change \(change)), \(query.filters.map(\.description)), \
            \(Self.route(watched).map { "\($0)" } ?? "-"): only watched \(Set(got).subtracting(expected).map { $0.prefix(90) }), \
            only scanned \(Set(expected).subtracting(got).map { $0.prefix(90) })
            """)
          if let route = Self.route(watched) {
            routes[
              "\(route)".hasPrefix("watcher: every")
                ? "everything" : "\(route)".hasPrefix("watcher:") ? "watched" : "none", default: 0] += 1
          }
        }
      }
      // Not vacuous: most queries went through the watcher, and some had to check everything.
      #expect(routes["watched", default: 0] > 60, "\(routes)")
      #expect(routes["everything", default: 0] > 0, "\(routes)")
      #expect(routes["none", default: 0] == 0, "\(routes)")
    }
  }

  @Test func aQueryAfterAWriteChecksOnlyTheFileWritten() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      for n in 1...5 { try Self.create(fixture, "ACQ-2026-00\(n)") }
      let daemon = try Daemon(fixture.store)
      defer { daemon.stop() }
      let store = try Self.open(fixture, .daemon)
      _ = try store.list(kind: "acquisition", query: Self.all)
      #expect(Self.route(store) == .everything("no earlier query through this watcher"))
      _ = try store.list(kind: "acquisition", query: Self.all)
      #expect(Self.route(store) == .watched(checked: 0))
      _ = try fixture.store.update(kind: "acquisition", id: "ACQ-2026-002", assignments: [try Assignment("agency=VA")])
      let listed = try store.list(
        kind: "acquisition", query: Store.Query(filters: [try ExpressionParser.parse(#"agency == "VA""#)]))
      #expect(listed.documents.map(\.value["id"]?.stringValue) == ["ACQ-2026-002"])
      // The file the watcher named, and the log line the write appended for it.
      #expect(Self.route(store) == .watched(checked: 1))
      // A new process (a new store, the record on disk) goes on from where the last one stopped.
      let next = try Self.open(fixture, .daemon)
      _ = try next.list(kind: "acquisition", query: Self.all)
      #expect(Self.route(next) == .watched(checked: 0))
    }
  }

  @Test func withoutAWatcherEveryFileIsChecked() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      try Self.create(fixture, "ACQ-2026-001")
      let store = try Self.open(fixture, .daemon)
      #expect(try store.list(kind: "acquisition", query: Self.all).documents.count == 1)
      #expect(Self.route(store) == .unwatched)
    }
  }

  /// Runs `body` with a store asking a watcher of its own (made with `options`), after a first
  /// query that left a record; returns the route of the query `body` makes, and checks its answer.
  static func afterAFirstQuery(
    _ dir: String, options: IndexWatcher.Options = IndexWatcher.Options(),
    _ body: (StoreFixture, Store, IndexWatcher?) throws -> Void
  ) throws -> IndexRoute? {
    let fixture = try StoreFixture(dir + "/store")
    for n in 1...4 { try Self.create(fixture, "ACQ-2026-00\(n)") }
    let store = try Self.open(fixture, .process(options))
    _ = try store.list(kind: "acquisition", query: Self.all)
    let watcher = (store.indexSource as? ProcessIndexSource)?.watcher
    try body(fixture, store, watcher)
    let answer = try IndexTests.answer(store, Self.all)
    #expect(answer == (try IndexTests.answer(Self.scanning(fixture), Self.all)))
    return Self.route(store)
  }

  static func reason(_ route: IndexRoute?) -> String {
    if case .everything(let why) = route { return why }
    return "not everything: \(route.map { "\($0)" } ?? "nil")"
  }

  @Test func anOverflowedQueueMeansEverything() throws {
    try withTemporaryDirectory { dir in
      let route = try Self.afterAFirstQuery(dir) { fixture, _, watcher in
        // Events left in the kernel's queue while more than it holds happen.
        watcher?.holdEvents(true)
        let limit =
          Int(try readFile("/proc/sys/fs/inotify/max_queued_events").trimmingCharacters(in: .whitespacesAndNewlines))
          ?? 16384
        let directory = fixture.root + "/data/acquisitions/"
        for n in 0..<(limit / 2 + 100) {
          try writeFile(#"{"id": "X-\#(n)", "title": "T", "agency": "GSA"}"#, to: directory + "X-\(n).json")
        }
        watcher?.holdEvents(false)
      }
      #expect(Self.reason(route).contains("overflowed"))
    }
  }

  @Test func aWatchLimitReachedMeansEverythingAndIsSaid() throws {
    try withTemporaryDirectory { dir in
      let said = Mutex<[String]>([])
      var options = IndexWatcher.Options()
      options.report = { message in said.withLock { $0.append(message) } }
      let fixture = try StoreFixture(dir + "/store")
      try Self.create(fixture, "ACQ-2026-001")
      let fault = FaultInjection.arm(
        FilePath(fixture.root + "/data/acquisitions"),
        fault: .init(call: .watch, nth: 1, persistent: true, errno: ENOSPC))
      defer { fault.disarm() }
      let store = try Self.open(fixture, .process(options))
      _ = try store.list(kind: "acquisition", query: Self.all)
      _ = try store.list(kind: "acquisition", query: Self.all)
      #expect(Self.reason(Self.route(store)).contains("max_user_watches"))
      #expect(said.withLock { $0 }.contains { $0.contains("max_user_watches") && $0.contains("check every file") })
    }
  }

  @Test func aCookieThatDoesNotComeBackMeansEverything() throws {
    try withTemporaryDirectory { dir in
      var options = IndexWatcher.Options()
      options.cookieWait = .milliseconds(200)
      let route = try Self.afterAFirstQuery(dir, options: options) { _, _, watcher in watcher?.ignoreCookies(true) }
      #expect(Self.reason(route).contains("cookie did not come back"))
    }
  }

  @Test func aNetworkFileSystemMeansEverything() throws {
    try withTemporaryDirectory { dir in
      var options = IndexWatcher.Options()
      options.remoteFileSystem = { _ in "nfs4" }
      let route = try Self.afterAFirstQuery(dir, options: options) { _, _, _ in }
      #expect(Self.reason(route).contains("nfs4"))
    }
  }

  @Test func aReplacedDirectoryMeansEverything() throws {
    try withTemporaryDirectory { dir in
      let route = try Self.afterAFirstQuery(dir) { fixture, _, _ in
        let directory = fixture.root + "/data/acquisitions"
        #expect(rename(directory, fixture.root + "/data/old") == 0)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        try writeFile(try readFile(fixture.root + "/data/old/ACQ-2026-002.json"), to: directory + "/ACQ-2026-002.json")
      }
      #expect(Self.reason(route).contains("directory"))
    }
  }

  @Test func tooManyChangedNamesMeansEverything() throws {
    try withTemporaryDirectory { dir in
      var options = IndexWatcher.Options()
      options.maxNames = 3
      let route = try Self.afterAFirstQuery(dir, options: options) { fixture, _, _ in
        for n in 5...9 { try Self.create(fixture, "ACQ-2026-00\(n)") }
      }
      #expect(Self.reason(route).contains("more than 3 files"))
    }
  }

  @Test func anIndexRewrittenByAnotherProcessMeansEverything() throws {
    try withTemporaryDirectory { dir in
      let route = try Self.afterAFirstQuery(dir) { fixture, _, _ in
        // Another process (no watcher) finds a file gone and writes the index whole.
        try FileManager.default.removeItem(atPath: fixture.root + "/data/acquisitions/ACQ-2026-001.json")
        var configuration = fixture.store.configuration
        configuration.indexWatching = .none
        _ = try Store.open(at: fixture.root, configuration: configuration).list(kind: "acquisition", query: Self.all)
        // And the log is edited by hand.
        try writeFile("garbage\n", to: fixture.root + "/.formsctl/index/acquisition.log")
      }
      #expect(Self.reason(route).contains("index's files changed"))
    }
  }

  @Test func aRestartedWatcherMeansEverything() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      try Self.create(fixture, "ACQ-2026-001")
      var daemon = try Daemon(fixture.store)
      _ = try Self.open(fixture, .daemon).list(kind: "acquisition", query: Self.all)
      daemon.stop()
      daemon = try Daemon(fixture.store)
      defer { daemon.stop() }
      let store = try Self.open(fixture, .daemon)
      _ = try store.list(kind: "acquisition", query: Self.all)
      #expect(Self.reason(Self.route(store)).contains("started again"))
    }
  }

  @Test func aSocketThatDoesNotAnswerInTimeIsNoWatcher() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      try Self.create(fixture, "ACQ-2026-001")
      // A listener that accepts and never answers (a watcher stopped with SIGSTOP).
      let directory = fixture.store.layout.watcherDirectory
      try FileManager.default.createDirectory(atPath: directory.string, withIntermediateDirectories: true)
      #expect(chmod(directory.string, 0o700) == 0)
      let fd = UnixSocket.make()
      defer { close(fd) }
      let bound = UnixSocket.withAddress(of: directory / "socket") { bind(fd, $0, $1) }
      #expect(bound == 0 && listen(fd, 8) == 0)
      var configuration = fixture.store.configuration
      configuration.indexWatcherWait = .milliseconds(300)
      let store = try Store.open(at: fixture.root, configuration: configuration)
      let started = ContinuousClock.now
      #expect(try store.list(kind: "acquisition", query: Self.all).documents.count == 1)
      #expect(Self.route(store) == .unwatched)
      #expect(ContinuousClock.now - started < .seconds(30))
    }
  }

  @Test func aSocketThatIsALinkOrAnotherFileIsNoWatcher() throws {
    try withTemporaryDirectory { dir in
      let (fixture, daemon) = try Self.served(dir)
      defer { daemon.stop() }
      // The real socket moved away, a link to it put in its place.
      let socket = fixture.store.layout.watcherDirectory / "socket"
      #expect(rename(socket.string, dir + "/elsewhere") == 0)
      #expect(symlink(dir + "/elsewhere", socket.string) == 0)
      let store = try Self.open(fixture, .daemon)
      _ = try store.list(kind: "acquisition", query: Self.all)
      #expect(Self.route(store) == .unwatched)
      // A second watcher refuses a socket it does not own the kind of.
      #expect(throws: StoreError.self) {
        try IndexService(layout: fixture.store.layout, registry: fixture.store.registry, options: .init())
      }
    }
  }

  @Test func aSecondWatcherIsRefusedWhileOneAnswers() throws {
    try withTemporaryDirectory { dir in
      let (fixture, daemon) = try Self.served(dir, documents: 0)
      defer { daemon.stop() }
      #expect(throws: StoreError.watcherRunning(socket: (fixture.store.layout.watcherDirectory / "socket").string)) {
        try IndexService(layout: fixture.store.layout, registry: fixture.store.registry, options: .init())
      }
    }
  }

  @Test func aHostileRequestIsRefusedAndTheWatcherGoesOn() throws {
    try withTemporaryDirectory { dir in
      let (fixture, daemon) = try Self.served(dir)
      defer { daemon.stop() }
      let socket = fixture.store.layout.watcherDirectory / "socket"
      for request in [
        "not json", #"{"kind": 7}"#, String(repeating: "x", count: 10_000),
        #"{"kind": "acquisition", "since": "zz:99999999"}"#,
      ] {
        let fd = UnixSocket.connect(socket)
        #expect(fd >= 0)
        _ = UnixSocket.send(fd, Array((request + "\n").utf8), until: .now + .seconds(5))
        var buffer: [UInt8] = []
        let line = UnixSocket.line(fd, &buffer, limit: 1 << 20, until: .now + .seconds(20)).map {
          String(decoding: $0, as: UTF8.self)
        }
        close(fd)
        #expect(
          line.map { $0.contains("error") || $0.contains("everything") } ?? true,
          "\(request.prefix(40)): \(line ?? "nil")")
      }
      let store = try Self.open(fixture, .daemon)
      _ = try store.list(kind: "acquisition", query: Self.all)
      #expect(Self.route(store) == .everything("no earlier query through this watcher"))
    }
  }

  @Test func aFileNameThatIsNotUTF8IsRefusedAsWithoutTheWatcher() throws {
    try withTemporaryDirectory { dir in
      let route = try Self.afterAFirstQuery(dir) { fixture, store, _ in
        let directory = fixture.root + "/data/acquisitions/"
        var name = Array((directory + "ACQ-").utf8) + [0xFE] + Array(".json".utf8) + [0]
        let renamed = name.withUnsafeMutableBufferPointer { buffer in
          buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
            rename(directory + "ACQ-2026-001.json", $0)
          }
        }
        #expect(renamed == 0)
        let scanning = try Self.scanning(fixture)
        let expected = #expect(throws: StoreError.self) { try scanning.list(kind: "acquisition", query: Self.all) }
        let got = #expect(throws: StoreError.self) { try store.list(kind: "acquisition", query: Self.all) }
        #expect(got?.description == expected?.description)
        #expect(Self.reason(Self.route(store)).contains("not valid UTF-8"))
        name.withUnsafeBufferPointer { buffer in
          buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { _ = unlink($0) }
        }
      }
      #expect(route != nil)
    }
  }

  @Test func aDirectoryMountedOverMeansEverything() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      for n in 1...3 { try Self.create(fixture, "ACQ-2026-00\(n)") }
      let other = dir + "/other"
      try FileManager.default.copyItem(atPath: fixture.root + "/data/acquisitions", toPath: other)
      try FileManager.default.removeItem(atPath: other + "/ACQ-2026-002.json")
      let store = try Self.open(fixture, .process(IndexWatcher.Options()))
      _ = try store.list(kind: "acquisition", query: Self.all)
      let target = fixture.root + "/data/acquisitions"
      // A bind mount raises no inotify event; where mounting is not allowed there is nothing to test.
      guard try runTool("mount", ["--bind", other, target]) == 0 else {
        print("skipping the mount test: mount --bind is not allowed here")
        return
      }
      defer { _ = try? runTool("umount", [target]) }
      let answer = try IndexTests.answer(store, Self.all)
      #expect(answer == (try IndexTests.answer(Self.scanning(fixture), Self.all)))
      #expect(Self.reason(Self.route(store)).contains("mounted over"))
    }
  }

  func runTool(_ tool: String, _ arguments: [String]) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [tool] + arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
  }

  /// The index's files and the watcher's cookies are caches: each call that writes them failing,
  /// once or from then on, never fails a query or changes its answer. (A failed read of the index
  /// is a disk error the query reports, with a watcher or without.)
  @Test(arguments: [false, true])
  func aFailingCacheNeverFailsOrChangesAQuery(_ persistent: Bool) throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      for n in 1...4 { try Self.create(fixture, "ACQ-2026-00\(n)") }
      let daemon = try Daemon(fixture.store)
      defer { daemon.stop() }
      let scanning = try Self.scanning(fixture)
      let faults: [(FaultInjection.Call, String)] = [
        (.write, "index"), (.fsync, "index"), (.rename, "index"), (.unlink, "index"), (.open, "watcher"),
        (.unlink, "watcher"),
      ]
      for (call, scope) in faults {
        for nth in 1...4 {
          let fault = FaultInjection.arm(
            FilePath(fixture.root + "/.formsctl/" + scope),
            fault: .init(call: call, nth: nth, persistent: persistent, errno: EIO))
          let store = try Self.open(fixture, .daemon)
          for round in 0..<3 {
            _ = try fixture.store.update(
              kind: "acquisition", id: "ACQ-2026-00\(1 + round)",
              assignments: [try Assignment("agency=F\(nth)-\(round)")])
            #expect(
              try IndexTests.answer(store, Self.all) == IndexTests.answer(scanning, Self.all),
              "\(call) \(scope) \(nth), round \(round)")
          }
          fault.disarm()
        }
      }
    }
  }

  @Test func aLongLogIsFoldedIntoTheIndexWithoutLookingAgain() throws {
    try withTemporaryDirectory { dir in
      let route = try Self.afterAFirstQuery(dir) { fixture, store, _ in
        let directory = fixture.root + "/data/acquisitions/"
        for n in 0..<(Store.watchedFoldLines + 10) {
          try writeFile(#"{"id": "X-\#(n)", "title": "T \#(n)", "agency": "GSA"}"#, to: directory + "X-\(n).json")
        }
        try FileManager.default.removeItem(atPath: directory + "ACQ-2026-003.json")
        #expect(try IndexTests.answer(store, Self.all) == IndexTests.answer(Self.scanning(fixture), Self.all))
        #expect(Self.route(store) == .watched(checked: Store.watchedFoldLines + 11))
        #expect(!FileManager.default.fileExists(atPath: fixture.root + "/.formsctl/index/acquisition.log"))
      }
      #expect(route == .watched(checked: 0))
    }
  }

  @Test func aKindMovedToAnotherDirectorySinceTheWatcherStartedMeansEverything() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      for n in 1...3 { try Self.create(fixture, "ACQ-2026-00\(n)", agency: "GSA") }
      let daemon = try Daemon(fixture.store)
      defer { daemon.stop() }
      let gsa = Store.Query(filters: [try ExpressionParser.parse(#"agency == "GSA""#)])
      _ = try Self.open(fixture, .daemon).list(kind: "acquisition", query: gsa)
      // A schema change pulled while the watcher runs: the kind's documents now live elsewhere.
      try FileManager.default.copyItem(atPath: fixture.root + "/data/acquisitions", toPath: fixture.root + "/data/acq2")
      let moved = fixture.root + "/data/acq2/ACQ-2026-002.json"
      try writeFile(try readFile(moved).replacingOccurrences(of: #""GSA""#, with: #""VA""#), to: moved)
      for file in try FileManager.default.contentsOfDirectory(atPath: fixture.root + "/schemas/acquisition") {
        let path = fixture.root + "/schemas/acquisition/" + file
        try writeFile(
          try readFile(path).replacingOccurrences(of: "directory: acquisitions", with: "directory: acq2"), to: path)
      }
      let store = try Self.open(fixture, .daemon)
      let got = try IndexTests.answer(store, gsa)
      #expect(got == (try IndexTests.answer(Self.scanning(fixture), gsa)))
      #expect(got.count == 2)
      #expect(Self.route(store) == .everything("the kind's directory is not the one watched"))
    }
  }

  /// A kind's `directory:` (or the store's `data:`) changed and changed back while the watcher
  /// runs: the pass made for the other directory left an index of that directory and a token the
  /// watcher goes on answering for the first one, so the next query must not trust it.
  @Test(arguments: ["directory", "data"])
  func aKindMovedAwayAndBackIsListedAsAFullScanListsIt(_ moved: String) throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      for n in 1...3 { try Self.create(fixture, "ACQ-2026-00\(n)") }
      let daemon = try Daemon(fixture.store)
      defer { daemon.stop() }
      let gsa = Store.Query(filters: [try ExpressionParser.parse(#"agency == "GSA""#)])
      _ = try Self.open(fixture, .daemon).list(kind: "acquisition", query: gsa)
      _ = try Self.open(fixture, .daemon).list(kind: "acquisition", query: gsa)
      // Where the change is made: every descriptor of the kind, or the store's manifest.
      let files =
        moved == "directory"
        ? try FileManager.default.contentsOfDirectory(atPath: fixture.root + "/schemas/acquisition").map {
          fixture.root + "/schemas/acquisition/" + $0
        } : [fixture.root + "/formsctl.yaml"]
      let originals = try files.map { try readFile($0) }
      for (path, text) in zip(files, originals) {
        let changed =
          moved == "directory"
          ? text.replacingOccurrences(of: "directory: acquisitions", with: "directory: elsewhere")
          : text.replacingOccurrences(of: "data: data ", with: "data: elsewhere ")
        #expect(changed != text, "\(path) names no \(moved)")
        try writeFile(changed, to: path)
      }
      // The other place exists (empty): the pass there writes the kind's index of no documents.
      let other = moved == "directory" ? "/data/elsewhere" : "/elsewhere/acquisitions"
      try FileManager.default.createDirectory(atPath: fixture.root + other, withIntermediateDirectories: true)
      let away = try Self.open(fixture, .daemon)
      #expect(try IndexTests.answer(away, gsa).isEmpty)
      for (path, text) in zip(files, originals) { try writeFile(text, to: path) }
      for _ in 0..<2 {
        let back = try Self.open(fixture, .daemon)
        let got = try IndexTests.answer(back, gsa)
        #expect(got == (try IndexTests.answer(Self.scanning(fixture), gsa)))
        #expect(got.count == 3)
      }
    }
  }

  @Test func aWatcherDirectoryOfAnotherUserIsRefused() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      let directory = fixture.store.layout.watcherDirectory.string
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      guard getuid() == 0, chown(directory, 65534, 65534) == 0 else {
        print("skipping the other user's watcher directory: not root")
        return
      }
      let refused = #expect(throws: StoreError.self) {
        try IndexService(layout: fixture.store.layout, registry: fixture.store.registry, options: .init())
      }
      #expect(refused?.description.contains("a directory of user 65534") == true, "\(refused.map { "\($0)" } ?? "")")
    }
  }

  /// A socket's address holds 108 bytes; a store deeper than that is served all the same.
  @Test func aStoreDeepInTheTreeIsServed() throws {
    try withTemporaryDirectory { dir in
      let (fixture, daemon) = try Self.served(dir + "/" + String(repeating: "d", count: 120))
      defer { daemon.stop() }
      #expect(fixture.store.layout.watcherDirectory.string.utf8.count > 108)
      let store = try Self.open(fixture, .daemon)
      _ = try store.list(kind: "acquisition", query: Self.all)
      _ = try store.list(kind: "acquisition", query: Self.all)
      #expect(Self.route(store) == .watched(checked: 0))
    }
  }
}
