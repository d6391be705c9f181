import FormsCore
import FormsTestSupport
import Foundation
import Testing

@testable import FormsStore

/// The situations a hostile pass found, each reproduced and answered: `recover` that cannot verify what
/// it would apply, listings that fail, dependants that do not parse, a plan that cannot be begun.
struct RecoveryTests {
  /// A store whose `rm acquisition ACQ-2026-001` (two forms cascade, an order's reference is
  /// cleared) is committed and stopped before its first rename; returns the staged files.
  func interruptedCascade(_ dir: String) throws -> (StoreFixture, [String]) {
    let fixture = try StoreFixture(dir + "/store")
    try fixture.acquisition()
    try fixture.form()
    try fixture.form()
    try fixture.order("PO-1", acquisition: "ACQ-2026-001")
    // The commit record is created, not renamed: the first rename is the first staged file's.
    let armed = FaultInjection.arm(FilePath(fixture.root), fault: .init(call: .rename, nth: 1, persistent: true))
    let error = storeError { _ = try fixture.store.delete(kind: "acquisition", id: "ACQ-2026-001") }
    armed.disarm()
    #expect(error?.kind == .tryAgain, "exit 75: committed, not finished: \(String(describing: error))")
    guard case .unfinished? = error else { throw FixtureError("expected unfinished, got \(String(describing: error))") }
    #expect(try Journal(layout: fixture.store.layout).pending() == "rm acquisition ACQ-2026-001", "the journal stays")
    let plan = try Journal(layout: fixture.store.layout).readPlan()
    return (fixture, plan.steps.compactMap { $0.staged?.string })
  }

  @Test func aCommittedCascadeStoppedByAFailedRenameIsFinishedByRecoverWithItsRecord() throws {
    try withTemporaryDirectory { dir in
      let (fixture, _) = try interruptedCascade(dir)
      let records = fixture.history.count
      #expect(
        try Store.recover(fixture.store.layout, wait: 1) == "finished the interrupted rm acquisition ACQ-2026-001")
      #expect(try fixture.store.ids(of: "form", matching: []).isEmpty, "the cascade is whole")
      #expect(storeError { _ = try fixture.read("acquisition", "ACQ-2026-001") }?.kind == .noInput)
      #expect(fixture.history.count == records + 1, "with its audit record")
      #expect(fixture.history.last?["operation"] == .string("rm"))
    }
  }

  @Test(arguments: ["removed", "altered"])
  func recoverRefusesAStagedFileThatIsGoneOrAltered(_ what: String) throws {
    try withTemporaryDirectory { dir in
      let (fixture, staged) = try interruptedCascade(dir)
      let write = try #require(staged.last)  // the others verify: still nothing may be applied
      if what == "removed" {
        try FileManager.default.removeItem(atPath: write)
      } else {
        try writeFile("{}\n", to: write)
      }
      let before = try Self.tree(fixture.root + "/data")
      let error = storeError { _ = try Store.recover(fixture.store.layout, wait: 1) }
      #expect(error?.kind == .badInput, "exit 65: \(String(describing: error))")
      guard case .unverifiable? = error else {
        throw FixtureError("expected unverifiable: \(String(describing: error))")
      }
      #expect(error?.description.contains(what == "removed" ? "its staged file is gone" : "was altered") == true)
      #expect(try Journal(layout: fixture.store.layout).pending() != nil, "the journal is kept")
      #expect(try Self.tree(fixture.root + "/data") == before, "nothing applied")

      let records = fixture.history.count
      let outcome = try Store.recover(fixture.store.layout, wait: 1, abandon: true)
      #expect(outcome?.hasPrefix("abandoned the interrupted rm acquisition ACQ-2026-001") == true)
      #expect(try Journal(layout: fixture.store.layout).pending() == nil)
      #expect(fixture.history.count == records + 1)
      #expect(fixture.history.last?["operation"] == .string("recover --abandon"))
      #expect(fixture.history.last?["abandoned"] == .string("rm acquisition ACQ-2026-001"))
      #expect(try Self.tree(fixture.root + "/data").keys.allSatisfy { !$0.hasSuffix(".formsctl-journal") })
      try fixture.acquisition("ACQ-2026-002")  // writes go on
    }
  }

  @Test func anUnreadableKindDirectoryIsAnErrorNamingItNeverNothingThere() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      try fixture.acquisition()
      try fixture.form()
      let forms = fixture.root + "/data/forms"
      let armed = FaultInjection.arm(
        FilePath(forms), fault: .init(call: .readdir, nth: 1, persistent: true, errno: EACCES))
      defer { armed.disarm() }
      let unreadable = StoreError.io(forms, operation: "list", errno: Errno(EACCES))
      #expect(unreadable.kind == .ioError)
      let validator = StoreValidator(layout: fixture.store.layout, registry: fixture.store.registry) { $0 }
      #expect(storeError { _ = try validator.allFiles() } == unreadable, "validate")
      #expect(storeError { _ = try fixture.store.delete(kind: "acquisition", id: "ACQ-2026-001") } == unreadable, "rm")
      #expect(storeError { _ = try fixture.store.list(kind: "form", query: .init()) } == unreadable, "list")
      #expect(try fixture.read("acquisition", "ACQ-2026-001")["id"] == .string("ACQ-2026-001"), "nothing deleted")
    }
  }

  @Test(arguments: ["rm", "mv"])
  func aDependantThatDoesNotParseStopsTheChangeBeforeAnythingIsWritten(_ command: String) throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      try fixture.acquisition()
      let form = try fixture.form()
      let path = fixture.root + "/data/forms/\(form).json"
      let conflicted = "<<<<<<< ours\n" + (try readFile(path)) + "=======\n{}\n>>>>>>> theirs\n"
      try writeFile(conflicted, to: path)
      let before = try Self.tree(fixture.root)
      let error = storeError {
        if command == "rm" {
          _ = try fixture.store.delete(kind: "acquisition", id: "ACQ-2026-001")
        } else {
          _ = try fixture.store.move(kind: "acquisition", from: "ACQ-2026-001", to: "ACQ-2026-009")
        }
      }
      #expect(error?.kind == .badInput, "\(String(describing: error))")
      #expect(error?.description.contains("data/forms/\(form).json:1:1: ") == true, "\(String(describing: error))")
      #expect(error?.description.contains("it may refer to acquisition ACQ-2026-001") == true)
      #expect(try Self.tree(fixture.root) == before, "nothing written")
    }
  }

  @Test func aPlanWhoseFirstLineCannotBeWrittenLeavesNoJournal() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      try fixture.acquisition()
      let plan = fixture.root + "/.formsctl/journal/plan.ndjson"
      let armed = FaultInjection.arm(FilePath(plan), fault: .init(call: .write, nth: 1, errno: ENOSPC))
      let error = storeError {
        try fixture.store.update(kind: "acquisition", id: "ACQ-2026-001", assignments: [try Assignment("title=D")])
      }
      armed.disarm()
      #expect(error == .io(plan, operation: "write", errno: Errno(ENOSPC)))
      #expect(error?.kind == .ioError)
      #expect(!FileManager.default.fileExists(atPath: plan), "no empty plan holds the store")
      try fixture.store.update(kind: "acquisition", id: "ACQ-2026-001", assignments: [try Assignment("title=D")])
    }
  }

  @Test func aSnapshotManifestThatCannotBeReadIsAnIOErrorNotNoManifest() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      try fixture.acquisition()
      let snapshots = Snapshots(layout: fixture.store.layout)
      let name = try snapshots.create(reason: "manual").name
      let manifest = fixture.root + "/.formsctl/snapshots/\(name)/manifest.json"
      let armed = FaultInjection.arm(FilePath(manifest), fault: .init(call: .read, nth: 1, persistent: true))
      defer { armed.disarm() }
      let error = storeError { _ = try snapshots.resolve("latest") }
      #expect(error == .io(manifest, operation: "read", errno: Errno(EIO)), "\(String(describing: error))")
      #expect(error?.kind == .ioError)
      let problems = try snapshots.verify(try snapshots.list())
      #expect(problems.map(\.problem) == ["unreadable (\(manifest): read failed: Input/output error)"])
    }
  }

  /// Every file below `root` (hidden ones too): relative path → content.
  static func tree(_ root: String) throws -> [String: String] {
    var out: [String: String] = [:]
    let enumerator = FileManager.default.enumerator(atPath: root)
    while let relative = enumerator?.nextObject() as? String {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isDirectory),
        !isDirectory.boolValue
      else { continue }
      out[relative] = try readFile(root + "/" + relative)
    }
    return out
  }
}
