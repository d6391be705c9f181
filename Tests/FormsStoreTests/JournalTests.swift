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
      #expect(FileIO.entry(dir + "/store/data/acquisitions/ACQ-2026-001.json") == .file)
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
}
