import FormsCore
import FormsTestSupport
import Foundation
import Testing

@testable import FormsStore

/// `.formsctl/history.jsonl`: written inside the journaled commit, finished by `recover`, read by `log`.
struct AuditLogTests {
  static let record = Array(#"{"documents":[],"operation":"set","time":"2026-11-18T08:53:20Z"}"#.utf8) + [0x0A]

  /// An interrupted operation whose commit record was written: a staged document and the audit
  /// line, as a crash after `COMMIT` leaves them; `history` is what the log held at the crash.
  static func interrupted(_ fixture: StoreFixture, history: [UInt8], offset: Int) throws {
    let journal = fixture.root + "/.formsctl/journal"
    try FileManager.default.createDirectory(atPath: journal, withIntermediateDirectories: true)
    try writeFile(
      """
      {"operation":"set acquisition ACQ-2026-001"}
      {"action":"write","path":"data/acquisitions/ACQ-2026-001.json","staged":"data/acquisitions/.ACQ-2026-001.json.formsctl-journal"}
      {"action":"append","path":".formsctl/history.jsonl","offset":\(offset)}

      """, to: journal + "/plan.ndjson")
    try writeFile("{\"staged\": true}\n", to: fixture.root + "/data/acquisitions/.ACQ-2026-001.json.formsctl-journal")
    try Data(record).write(to: URL(fileURLWithPath: journal + "/audit.jsonl"))
    try writeFile("committed\n", to: journal + "/COMMIT")
    try Data(history).write(to: URL(fileURLWithPath: AuditLog.path(fixture.store.layout)))
  }

  @Test(arguments: [("before the append", 0), ("after the append", 2), ("in the middle of the append", 1)])
  func recoverFinishesTheRecordOnce(_ moment: String, _ part: Int) throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir)
      try fixture.acquisition()
      let existing = try Data(contentsOf: URL(fileURLWithPath: AuditLog.path(fixture.store.layout)))
      let written = [[UInt8](), Array(Self.record.prefix(20)), Self.record][part]
      try Self.interrupted(fixture, history: Array(existing) + written, offset: existing.count)
      #expect(
        try Journal(layout: fixture.store.layout).recover() == "finished the interrupted set acquisition ACQ-2026-001")
      let history = try readFile(AuditLog.path(fixture.store.layout))
      #expect(
        history == String(decoding: existing, as: UTF8.self) + String(decoding: Self.record, as: UTF8.self), "\(moment)"
      )
      #expect(try readFile(dir + "/data/acquisitions/ACQ-2026-001.json") == "{\"staged\": true}\n")
      #expect(!FileManager.default.fileExists(atPath: dir + "/.formsctl/journal/audit.jsonl"))
    }
  }

  /// Opened to write, a store whose configuration names no user starts looking it up (git's, a
  /// process) as it opens, not at the first write, and the record names that user; opened to read,
  /// it asks no one.
  @Test func aStoreOpenedToWriteLooksUpItsUserAsItOpens() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      var configuration = Store.Configuration()
      let reading = try Store.open(at: fixture.root, configuration: configuration)
      configuration.opensToWrite = true
      let writing = try Store.open(at: fixture.root, configuration: configuration)
      let deadline = ContinuousClock.now + .seconds(10)
      while !writing.foundUser.isSet && ContinuousClock.now < deadline { usleep(1000) }
      #expect(writing.foundUser.isSet, "looked up before any write")
      #expect(!reading.foundUser.isSet)
      try fixture.acquisition()
      try writing.update(kind: "acquisition", id: "ACQ-2026-001", assignments: [try Assignment("title=Desks")])
      #expect(fixture.history.last?["user"] == .string(AuditLog.currentUser(root: fixture.root)))
    }
  }

  @Test func aRolledBackOperationLeavesNoRecord() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir)
      try fixture.acquisition()
      let existing = try Data(contentsOf: URL(fileURLWithPath: AuditLog.path(fixture.store.layout)))
      try Self.interrupted(fixture, history: Array(existing), offset: existing.count)
      try FileManager.default.removeItem(atPath: dir + "/.formsctl/journal/COMMIT")
      #expect(try Journal(layout: fixture.store.layout).recover()?.hasPrefix("rolled back") == true)
      #expect(try Data(contentsOf: URL(fileURLWithPath: AuditLog.path(fixture.store.layout))) == existing)
      #expect(fixture.history.count == 1)
    }
  }

  @Test func aLogThatIsASymlinkIsNotWrittenThrough() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir)
      try writeFile("outside\n", to: dir + "/outside.txt")
      try FileManager.default.createSymbolicLink(
        atPath: AuditLog.path(fixture.store.layout), withDestinationPath: dir + "/outside.txt")
      #expect(storeError { try fixture.acquisition() }?.kind != nil)
      #expect(try readFile(dir + "/outside.txt") == "outside\n")
    }
  }

  @Test func queriesFilterByKindIdAndTimeNewestFirst() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir)
      try fixture.acquisition()
      fixture.advance(86400)
      try fixture.order("PO-1")
      fixture.advance(86400)
      try fixture.order("PO-2")
      try fixture.store.update(kind: "acquisition", id: "ACQ-2026-001", assignments: [try Assignment("title=Desks")])
      let layout = fixture.store.layout
      func ids(_ query: AuditLog.Query) throws -> [String] {
        try AuditLog.query(layout, query).records.map { record in
          record.documents!.map(\.id).joined(separator: "+")
        }
      }
      #expect(try ids(.init()) == ["ACQ-2026-001", "PO-2", "PO-1", "ACQ-2026-001"])
      #expect(try ids(.init(kind: "purchase-order")) == ["PO-2", "PO-1"])
      #expect(try ids(.init(kind: "purchase-order", id: "PO-1")) == ["PO-1"])
      #expect(try ids(.init(limit: 1)) == ["ACQ-2026-001"])
      #expect(
        try ids(.init(since: Instant(fixture.clock).rfc3339.prefix(10).description)) == ["ACQ-2026-001", "PO-2"],
        "a date counts its day")
    }
  }

  @Test func aLineThatDoesNotParseIsReportedAndSkipped() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir)
      try fixture.acquisition()
      let path = AuditLog.path(fixture.store.layout)
      try writeFile(try readFile(path) + "<<<<<<< HEAD\n[1]\n", to: path)
      try fixture.order()
      let (records, problems) = try AuditLog.query(fixture.store.layout, .init())
      #expect(records.count == 2)
      #expect(problems.map(\.line) == [2, 3])
      #expect(problems.last?.message == "a record must be a JSON object, not a list")
    }
  }

  @Test func recordsAreReadTypedAndAHandEditedEntryIsKeptAsItIs() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir)
      try fixture.acquisition()
      let path = AuditLog.path(fixture.store.layout)
      let edited =
        #"{"time":"2099-01-02T00:00:00Z","user":"a","operation":"set","documents":"#
        + #"[{"kind":"acquisition","id":"ACQ-2026-001","action":"update","pointers":["/title"],"from":"x"},"#
        + #"{"kind":"acquisition","id":"ACQ-2026-001","action":"shredded","pointers":[]}]}"#
      try writeFile(try readFile(path) + edited + "\n", to: path)
      let (records, problems) = try AuditLog.query(fixture.store.layout, .init())
      #expect(problems.isEmpty && records.count == 2)
      let record = try #require(records.first)
      #expect(record.time == "2099-01-02T00:00:00Z" && record.user == "a" && record.command == nil)
      #expect(
        record.documents
          == [
            AuditEntry(
              kind: "acquisition", id: "ACQ-2026-001", action: .update, pointers: [JSONPointer("/title")!], from: "x")
          ])
      #expect(record.unreadable.count == 1 && record.unreadable.first?["action"] == .string("shredded"))
      #expect(records.last?.documents?.first?.action == .create && records.last?.access == nil)
    }
  }
}
