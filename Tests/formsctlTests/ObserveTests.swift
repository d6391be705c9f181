import FormsCore
import FormsTestSupport
import Foundation
import Synchronization
import Testing

@testable import FormsStore

/// `Store.changes` and `formsctl watch` against writers in other processes: each operation is
/// seen once, whole, after its commit; what is rolled back is never seen; changes made behind
/// formsctl's back (git checkout, an editor) are seen as one batch each.
@Suite(.serialized) struct ObserveTests {
  /// The batches a watch has reported so far, collected by a task.
  final class Collected: Sendable {
    let batches = Mutex<[Store.ChangeBatch]>([])
    let failure = Mutex<String?>(nil)

    var count: Int { batches.withLock { $0.count } }

    /// Waits until at least `count` batches came (at most 20 s), then a little longer to catch
    /// any batch too many, and returns the batches from `start`, each summarized.
    func await(_ count: Int, from start: Int) -> [String] {
      let deadline = ContinuousClock.now + .seconds(60)
      while self.count < count && ContinuousClock.now < deadline { usleep(20_000) }
      usleep(400_000)
      return batches.withLock { Array($0.dropFirst(start)) }.map(ObserveTests.summary)
    }
  }

  /// `OPERATION: ACTION KIND ID [POINTERS]; ...` with changes sorted, `outside` for no audit record.
  static func summary(_ batch: Store.ChangeBatch) -> String {
    let changes = batch.changes.map { change in
      let id = change.previousID.map { "\($0)→\(change.id)" } ?? change.id
      let pointers = change.pointers.map(\.description).sorted().joined(separator: ",")
      return "\(change.operation.rawValue) \(change.kind) \(id) [\(pointers)]\(change.problem.map { " (\($0))" } ?? "")"
    }
    return "\(batch.operation ?? "outside"): " + changes.sorted().joined(separator: "; ")
  }

  static let options = Store.ObserveOptions(debounce: .milliseconds(60), rescanInterval: .seconds(600))

  /// The example store in a git repository with a second branch that changes two forms.
  static func repository(_ dir: String) throws -> (store: String, env: [String: String], forms: [String]) {
    let (store, env) = try SnapshotCommandTests.exampleStore(dir)
    let forms = try FileManager.default.contentsOfDirectory(atPath: store + "/data/forms").sorted().prefix(2)
    let script = """
      git init -q . && git config user.name Tester && git config user.email t@example.com
      git add -A && git commit -qm base && git checkout -q -b other
      sed -i 's/"form_number": "[^"]*"/"form_number": "OTHER-1"/' data/forms/\(forms.joined(separator: " data/forms/"))
      git commit -qam other && git checkout -q -
      """
    let result = try runShell(script, in: store)
    #expect(result.status == 0, "\(result.stderr)")
    return (store, env, forms.map { String($0.dropLast(5)) })
  }

  /// Inotify watches this process holds, by descriptor (one `inotify wd:` line per watch in
  /// /proc/self/fdinfo). Tests of other suites may watch meanwhile: compare descriptors, not totals.
  static func inotifyWatches() -> [String: Int] {
    let directory = "/proc/self/fdinfo"
    var out: [String: Int] = [:]
    for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
      let text = (try? String(contentsOfFile: directory + "/" + name, encoding: .utf8)) ?? ""
      let watches = text.split(separator: "\n").filter { $0.hasPrefix("inotify wd:") }.count
      if watches > 0 { out[name] = watches }
    }
    return out
  }

  /// Watches on descriptors that did not hold them in `before`.
  static func newWatches(since before: [String: Int]) -> Int {
    inotifyWatches().filter { before[$0.key] == nil }.values.reduce(0, +)
  }

  @Test func writersInOtherProcessesAreSeenOneOperationAtATime() throws {
    #if os(Linux)
      let watchesBefore = Self.inotifyWatches()
    #endif
    try withTemporaryDirectory { dir in
      let (store, env, branchForms) = try Self.repository(dir)
      let opened = try Store.open(at: store)
      let dependants = try opened.list(
        kind: "form", query: .init(filters: [try ExpressionParser.parse("acquisition_id == \"ACQ-2026-001\"")])
      ).documents.map(\.id)
      let collected = Collected()
      // The blocking form on a thread of its own: a task would wait for a cooperative thread,
      // which a busy test run may not have for seconds (the async form has tests of its own).
      let cancellation = WatchCancellation()
      let watcher = Thread {
        do throws(StoreError) {
          try opened.watchChanges(options: Self.options, cancellation: cancellation) { batch in
            collected.batches.withLock { $0.append(batch) }
          }
        } catch {
          collected.failure.withLock { $0 = "\(error)" }
        }
      }
      watcher.start()
      // The first look is over once a change made now is reported (one made during it may be
      // part of what it saw): change a document until a change is reported.
      let sentinel = store + "/data/acquisitions/ACQ-2026-002.json"
      let deadline = ContinuousClock.now + .seconds(60)
      while collected.count == 0 && ContinuousClock.now < deadline {
        // Written whole (temporary and rename): a busy machine could otherwise show the watch a
        // half-written file, which is a change of its own ("invalid").
        let text = try readFile(sentinel).replacingOccurrences(of: "\"title\": \"", with: "\"title\": \"Ready ")
        try Data(text.utf8).write(to: URL(fileURLWithPath: sentinel), options: .atomic)
        for _ in 0..<50 where collected.count == 0 { usleep(20_000) }
      }
      usleep(300_000)
      let first = collected.batches.withLock { $0.map(Self.summary) }
      #expect(first.allSatisfy { $0.hasPrefix("outside: update acquisition ACQ-2026-002 [/title]") }, "\(first)")
      #if os(Linux)
        #expect(Self.newWatches(since: watchesBefore) > 0, "the watch holds kernel watches")
      #endif
      func step(_ expected: [String], sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void)
        rethrows
      {
        let start = collected.count
        try body()
        let seen = collected.await(start + expected.count, from: start)
        #expect(seen == expected, sourceLocation: sourceLocation)
      }
      func formsctl(_ arguments: [String]) throws {
        let result = try Formsctl.run(arguments, in: store, environment: env)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
      }

      // A checkout of another branch: one batch, outside formsctl, naming what changed.
      try step([
        "outside: " + branchForms.map { "update form \($0) [/form_number]" }.sorted().joined(separator: "; ")
      ]) {
        let result = try runShell("git checkout -q other", in: store)
        #expect(result.status == 0, "\(result.stderr)")
      }
      // set: one batch, with the audit record's pointers.
      try step(["set: update acquisition ACQ-2026-001 [/last_modified_date,/title]"]) {
        try formsctl(["set", "acquisition", "ACQ-2026-001", "title=Observed"])
      }
      // mv with dependants: the rename and every dependant, in one batch.
      let moved =
        ["rename acquisition ACQ-2026-001→ACQ-2026-009 [/id]"]
        + dependants.map { "update form \($0) [/acquisition_id,/last_modified_date]" }
        + ["update purchase-order PO-000201 [/acquisition_id,/last_updated]"]
      try step(["mv: " + moved.sorted().joined(separator: "; ")]) {
        try formsctl(["mv", "acquisition", "ACQ-2026-001", "ACQ-2026-009"])
      }
      // rm with its cascade: one batch.
      let removedBefore = collected.count
      try formsctl(["rm", "acquisition", "ACQ-2026-009"])
      let removal = collected.await(removedBefore + 1, from: removedBefore)
      #expect(
        removal.count == 1 && removal.first?.hasPrefix("rm: delete acquisition ACQ-2026-009 [") == true, "\(removal)")
      #expect(removal.first?.contains("PO-000201") == true, "\(removal)")
      // An import of 500 records: one batch of 500.
      let feed = dir + "/feed.json"
      try writeFile(Self.feed(500), to: feed)
      let importedBefore = collected.count
      try formsctl(["import", "purchase-order", feed, "--map", ImportCommandTests.map])
      _ = collected.await(importedBefore + 1, from: importedBefore)
      let imported = collected.batches.withLock { Array($0.dropFirst(importedBefore)) }
      #expect(imported.map(\.operation) == ["import"])
      #expect(imported.first?.changes.count == 500)
      #expect(imported.first?.changes.allSatisfy { $0.operation == .create && $0.kind == "purchase-order" } == true)
      // A set killed after staging, rolled back by recover: nothing is seen.
      try step([]) {
        let process = try startPaused(
          ["set", "acquisition", "ACQ-2026-002", "title=Killed"], at: "after-stage", in: store, environment: env)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        usleep(200_000)
        try formsctl(["recover"])
      }
      // An editor that writes a temporary file and renames it over the document.
      try step(["outside: update acquisition ACQ-2026-002 [/title]"]) {
        let path = store + "/data/acquisitions/ACQ-2026-002.json"
        let text = try readFile(path).replacingOccurrences(of: "\"title\": \"", with: "\"title\": \"Edited ")
        try writeFile(text, to: store + "/data/acquisitions/.ACQ-2026-002.json.swp")
        #expect(rename(store + "/data/acquisitions/.ACQ-2026-002.json.swp", path) == 0)
      }
      // A file that stops parsing is shown as such, never as a deletion; fixed, it is an update.
      let path = store + "/data/acquisitions/ACQ-2026-002.json"
      let good = try readFile(path)
      try step(["outside: update acquisition ACQ-2026-002 [] (does not parse)"]) {
        try writeFile("<<<<<<< ours\n" + good + "=======\n{}\n>>>>>>> theirs\n", to: path)
      }
      try step(["outside: update acquisition ACQ-2026-002 []"]) { try writeFile(good, to: path) }
      #expect(collected.failure.withLock { $0 } == nil)

      cancellation.cancel()
    }
    #if os(Linux)
      // Cancelling released every kernel watch (the watch's thread ends within its poll).
      let deadline = ContinuousClock.now + .seconds(5)
      while Self.newWatches(since: watchesBefore) > 0 && ContinuousClock.now < deadline { usleep(20_000) }
      #expect(Self.newWatches(since: watchesBefore) == 0)
    #endif
  }

  /// `count` purchase-order feed records made from the example feed's first one.
  static func feed(_ count: Int) throws -> String {
    let records = try JSONParser().parse(Array(try readFile(ImportCommandTests.feed).utf8))
    guard case .array(let all) = records, case .object(var record) = all[0] else { throw FixtureError("feed") }
    var out: [JSONValue] = []
    for index in 0..<count {
      record["purchase_order_number"] = .string(String(format: "PO-9%05d", index))
      record["id"] = .number(JSONNumber(100_000 + index))
      out.append(.object(record))
    }
    return JSONWriter.canonicalString(.array(out))
  }

  @Test func aQueryIsReportedWithItsDifference() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      let opened = try Store.open(at: store)
      let query = Store.Query(
        filters: [try ExpressionParser.parse("acquisition_id == \"ACQ-2026-001\"")],
        sort: [(FilterExpression.Path("form_number")!, false)])
      var iterator = opened.observe(kind: "form", query: query, options: Self.options).makeAsyncIterator()
      let first = try #require(try await iterator.next())
      #expect(first.inserted.count == first.documents.count && first.cause == nil)
      let id = try #require(first.documents.first?.id)
      let result = try Formsctl.run(["set", "form", id, "acquisition_id=ACQ-2026-002"], in: store, environment: env)
      #expect(result.status == 0, "\(result.stderr)")
      let second = try #require(try await iterator.next())
      #expect(second.removed == [id] && second.inserted.isEmpty && second.updated.isEmpty)
      #expect(second.documents.count == first.documents.count - 1)
      #expect(second.cause?.operation == "set")
    }
  }

  /// Runs `formsctl watch ARGUMENTS` while `body` changes the store, then ends it with SIGTERM;
  /// returns its stdout (and expects exit 0).
  static func watching(_ arguments: [String], in store: String, env: [String: String], _ body: () throws -> Void)
    throws -> String
  {
    let out = Pipe()
    let process = Process()
    process.executableURL = Formsctl.binary
    process.arguments = ["watch"] + arguments + ["--debounce", "50"]
    process.currentDirectoryURL = URL(fileURLWithPath: store)
    process.environment = testEnvironment().merging(env) { $1 }
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    usleep(700_000)
    try body()
    usleep(700_000)
    kill(process.processIdentifier, SIGTERM)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "SIGTERM ends a watch with exit 0")
    return String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  }

  @Test func watchFiltersByWhereAndPrintsEachFormat() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      func set(_ arguments: String...) throws {
        let result = try Formsctl.run(["set"] + arguments, in: store, environment: env)
        #expect(result.status == 0, "\(result.stderr)")
      }
      // Only documents matching --where before or after the change: GSA's, and the one that leaves GSA.
      let filtered = try Self.watching(["acquisition", "--where", "agency == \"GSA\""], in: store, env: env) {
        try set("acquisition", "ACQ-2026-001", "agency=GSA")
        try set("acquisition", "ACQ-2026-002", "title=Not GSA")
        try set("acquisition", "ACQ-2026-001", "agency=DOD")
      }
      let lines = filtered.split(separator: "\n")
      #expect(lines.count == 2, "\(filtered)")
      #expect(lines.allSatisfy { $0.contains("  update  acquisition  ACQ-2026-001  /agency") }, "\(filtered)")
      #expect(lines.first?.contains("(set)") == true && lines.first?.contains("by ") == true)
      // json: one object per batch, with its changes.
      let json = try Self.watching(["acquisition", "--format", "json"], in: store, env: env) {
        try set("acquisition", "ACQ-2026-002", "title=Batch")
      }
      let batch = try JSONParser().parse(Array(json.utf8))
      #expect(batch["operation"] == .string("set"))
      #expect(batch["changes"]?.arrayValue?.first?["id"] == .string("ACQ-2026-002"))
      // --query: the whole result again, with what differs.
      let query = try Self.watching(
        ["acquisition", "--query", "--where", "agency == \"DOD\"", "--format", "ndjson"], in: store, env: env
      ) { try set("acquisition", "ACQ-2026-002", "agency=DOD") }
      let results = try query.split(separator: "\n").map { try JSONParser().parse(Array($0.utf8)) }
      #expect(results.count == 2, "\(query)")
      #expect(results.last?["inserted"] == .array([.string("ACQ-2026-002")]))
      #expect(
        (results.last?["documents"]?.arrayValue?.count ?? 0) == (results.first?["documents"]?.arrayValue?.count ?? 0)
          + 1)
    }
  }

  @Test func watchPrintsChangesAndEndsCleanly() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      let output = try Self.watching(["acquisition", "--format", "ndjson"], in: store, env: env) {
        let title = try Formsctl.run(["set", "acquisition", "ACQ-2026-001", "title=W"], in: store, environment: env)
        let form = try Formsctl.run(
          ["set", "form", Self.anyForm(store), "form_number=N-1"], in: store, environment: env)
        #expect(title.status == 0 && form.status == 0)
      }
      let lines = output.split(separator: "\n")
      #expect(lines.count == 1, "only the acquisition: \(lines)")
      let record = try JSONParser().parse(Array((lines.first ?? "").utf8))
      #expect(record["id"] == .string("ACQ-2026-001") && record["command"] == .string("set"))
      #expect(record["pointers"] == .array([.string("/last_modified_date"), .string("/title")]))
    }
  }

  /// A valid form of the example store (one of ACQ-2026-001's).
  static func anyForm(_ store: String) throws -> String {
    let filter = try ExpressionParser.parse("acquisition_id == \"ACQ-2026-001\"")
    return try #require(try Store.open(at: store).list(kind: "form", query: .init(filters: [filter])).documents.first)
      .id
  }

  @Test func aStoreThatGoesAwayEndsTheWatchWith74() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      let (process, err) = try startFormsctl(["watch"], in: store, environment: env)
      usleep(700_000)
      try FileManager.default.moveItem(atPath: store, toPath: dir + "/moved")
      process.waitUntilExit()
      #expect(process.terminationStatus == 74)
      let said = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      #expect(said.contains("the store was removed or moved away while it was watched"), "\(said)")
    }
  }

  @Test func badRequestsAreRefusedBeforeWatching() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      for (arguments, status, message) in [
        (["watch", "nope"], Int32(65), "unknown kind"),
        (["watch", "--query"], 64, "--query and --where need a KIND"),
        (["watch", "form", "--where", "stauts == 1"], 64, "unknown field"),
        (["watch", "form", "--limit", "3"], 64, "--sort and --limit need --query"),
        (["watch", "--debounce", "0"], 64, "--debounce takes 1 to 60000 milliseconds"),
        (["list", "form", "--watch", "--format", "json"], 64, "--watch shows a table"),
      ] {
        let result = try Formsctl.run(arguments, in: store, environment: env)
        #expect(result.status == status, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
      }
    }
  }

  @Test func theRescanFindsWhatTheKernelDidNotSay() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let (store, _) = try SnapshotCommandTests.exampleStore(dir)
      let opened = try Store.open(at: store)
      // The acquisitions' directory goes unwatched (as if inotify had dropped its events).
      let armed = FaultInjection.arm(
        FilePath(store + "/data/acquisitions"), fault: .init(call: .watch, nth: 1, errno: ENOENT))
      defer { armed.disarm() }
      let options = Store.ObserveOptions(debounce: .milliseconds(30), rescanInterval: .milliseconds(500))
      var iterator = opened.changes(kinds: ["acquisition"], options: options).makeAsyncIterator()
      usleep(200_000)
      let path = store + "/data/acquisitions/ACQ-2026-001.json"
      try writeFile(try readFile(path).replacingOccurrences(of: "\"title\": \"", with: "\"title\": \"Re"), to: path)
      let batch = try #require(try await iterator.next())
      #expect(Self.summary(batch) == "outside: update acquisition ACQ-2026-001 [/title]")
    }
  }

  /// Whatever `list` reads, `Store.changes` sees (issue 63): a document in a folder below its
  /// kind's directory, there from the start or in a folder made while the watch runs.
  @Test func documentsInFoldersBelowAKindsDirectoryAreWatched() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let (store, _) = try SnapshotCommandTests.exampleStore(dir)
      let folder = store + "/data/acquisitions/2026"
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      let original = try readFile(store + "/data/acquisitions/ACQ-2026-001.json")
      try writeFile(
        original.replacingOccurrences(of: "ACQ-2026-001", with: "ACQ-2026-901"), to: folder + "/ACQ-2026-901.json")
      let opened = try Store.open(at: store)
      #expect(try opened.list(kind: "acquisition", query: .init()).documents.contains { $0.id == "ACQ-2026-901" })
      var iterator = opened.changes(kinds: ["acquisition"], options: Self.options).makeAsyncIterator()
      usleep(200_000)
      try writeFile(
        try readFile(folder + "/ACQ-2026-901.json").replacingOccurrences(of: "\"title\": \"", with: "\"title\": \"Re"),
        to: folder + "/ACQ-2026-901.json")
      let edited = try #require(try await iterator.next())
      #expect(Self.summary(edited) == "outside: update acquisition ACQ-2026-901 [/title]")
      try FileManager.default.createDirectory(atPath: folder + "/late", withIntermediateDirectories: true)
      usleep(200_000)
      try writeFile(
        original.replacingOccurrences(of: "ACQ-2026-001", with: "ACQ-2026-902"), to: folder + "/late/ACQ-2026-902.json")
      let made = try #require(try await iterator.next())
      #expect(made.changes.contains { $0.operation == .create && $0.id == "ACQ-2026-902" }, "\(Self.summary(made))")
    }
  }

  /// A kind's directory, or data/, moved away whole raises no event for its files: the watch looks
  /// at everything at once instead of waiting for its rescan.
  @Test(arguments: ["data/acquisitions", "data"])
  func aDirectoryMovedAwayIsSeenAtOnce(_ moved: String) async throws {
    try await withTemporaryDirectoryAsync { dir in
      let (store, _) = try SnapshotCommandTests.exampleStore(dir)
      let opened = try Store.open(at: store)
      let options = Store.ObserveOptions(debounce: .milliseconds(30), rescanInterval: .seconds(600))
      var iterator = opened.changes(kinds: ["acquisition"], options: options).makeAsyncIterator()
      usleep(200_000)
      #expect(rename(store + "/" + moved, dir + "/away") == 0)
      let batch = try #require(try await iterator.next())
      #expect(batch.changes.contains { $0.operation == .delete && $0.id == "ACQ-2026-001" }, "\(Self.summary(batch))")
    }
  }

  @Test func theWatchLimitIsAClearError() throws {
    #if os(Linux)
      try withTemporaryDirectory { dir in
        let (store, _) = try SnapshotCommandTests.exampleStore(dir)
        let opened = try Store.open(at: store)
        let armed = FaultInjection.arm(FilePath(store), fault: .init(call: .watch, nth: 2, errno: ENOSPC))
        defer { armed.disarm() }
        let before = Self.inotifyWatches()
        var caught: StoreError?
        do throws(StoreError) {
          try opened.watchChanges(cancellation: WatchCancellation()) { _ in }
        } catch {
          caught = error
        }
        guard case .watchLimit(let what, _)? = caught else {
          Issue.record("expected the watch limit, got \(String(describing: caught))")
          return
        }
        #expect(what == "watches" && caught?.kind == .ioError)
        let deadline = ContinuousClock.now + .seconds(5)
        while Self.newWatches(since: before) > 0 && ContinuousClock.now < deadline { usleep(20_000) }
        #expect(Self.newWatches(since: before) == 0, "the watches made before the failure are released")
      }
    #endif
  }
}
