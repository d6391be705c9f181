import FormsCore
import FormsTestSupport
import Foundation
import Testing

@testable import FormsStore

/// What a checkout can carry into `.formsctl/` and `data/` must not lead formsctl out of the store.
struct JournalTests {
  @Test(arguments: [
    #"{"action":"write","path":"../outside/victim.txt","staged":"../outside/.victim.txt.formsctl-journal"}"#,
    #"{"action":"delete","path":"/ABSOLUTE/outside/victim.txt"}"#,
    #"{"action":"write","path":"data/acquisitions/ACQ-2026-001.json","staged":"../outside/victim.txt"}"#,
    #"{"action":"delete","path":".formsctl/lock"}"#,
  ])
  func recoverRefusesAPlanThatLeadsOutOfTheStore(_ step: String) throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      try fixture.acquisition()
      try writeFile("precious\n", to: dir + "/outside/victim.txt")
      try writeFile("staged\n", to: dir + "/outside/.victim.txt.formsctl-journal")
      try writeFile(
        """
        {"operation":"rm acquisition ACQ-2026-001"}
        \(step.replacingOccurrences(of: "/ABSOLUTE", with: dir))

        """, to: dir + "/store/.formsctl/journal/plan.ndjson")
      try writeFile("committed\n", to: dir + "/store/.formsctl/journal/COMMIT")
      let journal = Journal(layout: fixture.store.layout)
      let error = storeError { _ = try journal.recover() }
      #expect(error?.description.contains("which no formsctl journal writes") == true, "\(String(describing: error))")
      #expect(error?.kind == .badInput)
      #expect(try readFile(dir + "/outside/victim.txt") == "precious\n")
      #expect(FileManager.default.fileExists(atPath: dir + "/outside/.victim.txt.formsctl-journal"))
      #expect(try journal.pending() != nil, "still waiting, for a person to look at")
    }
  }

  @Test func aPlantedStagingSymlinkIsNotWrittenThrough() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      try fixture.acquisition()
      try writeFile("precious\n", to: dir + "/victim.txt")
      let staged = dir + "/store/data/acquisitions/.ACQ-2026-001.json.formsctl-journal"
      try FileManager.default.createSymbolicLink(atPath: staged, withDestinationPath: dir + "/victim.txt")
      try fixture.store.update(kind: "acquisition", id: "ACQ-2026-001", assignments: [try Assignment("title=Desks")])
      #expect(try readFile(dir + "/victim.txt") == "precious\n")
      #expect(FileIO.entry(FilePath(dir + "/store/data/acquisitions/ACQ-2026-001.json")) == .file)
      #expect(try fixture.read("acquisition", "ACQ-2026-001")["title"] == .string("Desks"))
    }
  }

  @Test func aLockThatIsASymlinkIsRefusedNotTruncated() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      try writeFile("precious\n", to: dir + "/victim.txt")
      try FileManager.default.createSymbolicLink(
        atPath: dir + "/store/.formsctl/lock", withDestinationPath: dir + "/victim.txt")
      #expect(storeError { try fixture.acquisition() }?.kind == .badInput, "exit 65: the store as it stands, not a bug")
      #expect(try readFile(dir + "/victim.txt") == "precious\n")
      #expect(!FileManager.default.fileExists(atPath: dir + "/store/data/acquisitions/ACQ-2026-001.json"))
    }
  }

  @Test func aPlantedPlanSymlinkIsReplacedNotWrittenThrough() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      try fixture.acquisition()
      try writeFile("precious\n", to: dir + "/victim.txt")
      try FileManager.default.createDirectory(
        atPath: dir + "/store/.formsctl/journal", withIntermediateDirectories: true)
      try FileManager.default.createSymbolicLink(
        atPath: dir + "/store/.formsctl/journal/audit.jsonl", withDestinationPath: dir + "/victim.txt")
      try fixture.store.update(kind: "acquisition", id: "ACQ-2026-001", assignments: [try Assignment("title=Desks")])
      #expect(try readFile(dir + "/victim.txt") == "precious\n")
      #expect(fixture.history.count == 2)
    }
  }

  /// What no kill shows, only a power loss (docs/design.md §8): the commit record is created only once
  /// everything it stands for is durable. Each file the operation wrote (the staged document, the
  /// plan, the staged audit record) is fsynced after its last write and before `COMMIT` is
  /// created, and so is each directory naming them; the journal's directory is fsynced after
  /// `COMMIT` and before the first file is put in place. Before the commit record, nothing is
  /// fsynced twice: the write-back of the whole group is started first (`sync_file_range`), so
  /// that one journal transaction of the file system commits it.
  @Test func theCommitRecordIsCreatedOnlyOnceEverythingItStandsForIsDurable() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      try fixture.acquisition()
      let armed = FaultInjection.arm(FilePath(fixture.root))
      try fixture.store.update(kind: "acquisition", id: "ACQ-2026-001", assignments: [try Assignment("title=Desks")])
      armed.disarm()
      let trace = armed.trace
      func isCall(_ call: FaultInjection.Call, _ suffix: String) -> ((call: FaultInjection.Call, path: FilePath)) ->
        Bool
      {
        { $0.call == call && $0.path.string.hasSuffix(suffix) }
      }
      let commit = try #require(trace.firstIndex(where: isCall(.open, "/.formsctl/journal/COMMIT")))
      let files = [
        "/data/acquisitions/.ACQ-2026-001.json.formsctl-journal", "/.formsctl/journal/plan.ndjson",
        "/.formsctl/journal/audit.jsonl",
      ]
      var lastWrite = 0
      for file in files {
        let written = try #require(trace[..<commit].lastIndex(where: isCall(.write, file)), "\(file) is written")
        let synced = trace[..<commit].indices.filter { isCall(.fsync, file)(trace[$0]) }
        #expect(synced.count == 1 && synced[0] > written, "\(file): fsynced once, after its last write: \(synced)")
        lastWrite = max(lastWrite, written)
      }
      for directory in ["/data/acquisitions", "/.formsctl/journal"] {
        let synced = trace[..<commit].indices.filter { isCall(.fsync, directory)(trace[$0]) }
        #expect(synced.count == 1 && synced[0] > lastWrite, "\(directory): fsynced once, after the files: \(synced)")
      }
      let firstRename = try #require(trace.firstIndex { $0.call == .rename })
      #expect(commit < firstRename)
      #expect(trace[commit..<firstRename].contains(where: isCall(.fsync, "/.formsctl/journal")), "COMMIT is durable")
      #expect(try fixture.read("acquisition", "ACQ-2026-001")["title"] == .string("Desks"))
    }
  }

  /// Nothing is durable before the commit (above), so a power loss there can leave a plan that is
  /// empty, or lost its step lines or the end of one, beside a staged file it may not name. None
  /// of it holds a commit record: writes wait (exit 75) until `recover` rolls back, which sweeps
  /// the staged file, and the document is as it was.
  @Test(arguments: [
    "",
    #"{"format":2,"operation":"set acquisition ACQ-2026-001"}"# + "\n",
    #"{"format":2,"operation":"set acquisition ACQ-2026-001"}"# + "\n" + #"{"action":"write","path":"data/acq"#,
  ])
  func aPlanLeftWithoutItsCommitRecordIsRolledBack(_ plan: String) throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      let before = try fixture.acquisition().bytes
      let staged = fixture.root + "/data/acquisitions/.ACQ-2026-001.json.formsctl-journal"
      try writeFile(#"{"id": "ACQ-2026-001", "title": "half"}"#, to: staged)
      try writeFile(plan, to: fixture.root + "/.formsctl/journal/plan.ndjson")
      let refused = storeError {
        try fixture.store.update(kind: "acquisition", id: "ACQ-2026-001", assignments: [try Assignment("title=D")])
      }
      #expect(refused?.kind == .tryAgain, "exit 75 until recover: \(String(describing: refused))")
      let outcome = try Store.recover(fixture.store.layout, wait: 1)
      #expect(outcome?.hasPrefix("rolled back the interrupted") == true, "\(String(describing: outcome))")
      #expect(FileIO.entry(FilePath(staged)) == .missing, "the staged file is swept")
      #expect(try fixture.bytes("acquisition", "ACQ-2026-001") == before)
      #expect(try Journal(layout: fixture.store.layout).pending() == nil)
      try fixture.store.update(kind: "acquisition", id: "ACQ-2026-001", assignments: [try Assignment("title=D")])
    }
  }
}
