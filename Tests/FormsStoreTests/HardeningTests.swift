import FormsCore
import FormsTestSupport
import FormsYAML
import Foundation
import Testing

@testable import FormsStore

/// What a hostile or damaged checkout can hold: FIFOs and links where files belong, directories
/// formsctl cannot write, leftovers of killed writers. Each must end in a clear error or a
/// warning, never a hang, a write out of the store, or a half-applied operation.
struct HardeningTests {
  @Test func aFIFOInTheDataDirectoryIsReportedNeverOpened() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      try fixture.acquisition()
      let fifo = dir + "/store/data/acquisitions/ACQ-2026-009.json"
      #expect(mkfifo(fifo, 0o644) == 0)
      // Each of these would block forever in open(2) if the FIFO were opened for reading.
      let read = storeError { _ = try fixture.store.read(kind: "acquisition", id: "ACQ-2026-009") }
      #expect(read?.kind == .badInput)
      #expect(read?.description.contains("is a FIFO, not a regular file") == true, "\(String(describing: read))")
      let update = storeError {
        try fixture.store.update(kind: "acquisition", id: "ACQ-2026-009", assignments: [try Assignment("title=x")])
      }
      #expect(update?.kind == .badInput)
      try fixture.acquisition("ACQ-2026-002")  // the lock was released
      let validator = StoreValidator(layout: fixture.store.layout, registry: fixture.store.registry, display: { $0 })
      let report = try validator.validate(try validator.allFiles())
      #expect(report.diagnostics.map(\.rule) == ["not-a-file"])
      #expect(report.diagnostics.first?.severity == .warning)
      #expect(report.invalid == 1, "validate exits 1, not 'all valid'")
      let listed = try fixture.store.list(kind: "acquisition", query: Store.Query())
      #expect(listed.documents.count == 2)
      #expect(listed.skipped.map(\.reason) == ["a FIFO, not a regular file"])
    }
  }

  @Test func aDocumentThatIsASymlinkIsNotFollowed() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      try fixture.acquisition()
      try writeFile(
        #"{"_schema": "acquisition@1.0.0", "id": "ACQ-2026-009", "title": "secret", "agency": "X"}"#,
        to: dir + "/outside.json")
      try FileManager.default.createSymbolicLink(
        atPath: dir + "/store/data/acquisitions/ACQ-2026-009.json", withDestinationPath: dir + "/outside.json")
      let error = storeError { _ = try fixture.store.read(kind: "acquisition", id: "ACQ-2026-009") }
      #expect(
        error?.description.contains("is a symbolic link, not a regular file") == true, "\(String(describing: error))")
    }
  }

  @Test(arguments: ["snapshots", "journal"])
  func formsctlsOwnDirectoriesAreNotFollowedOutOfTheStore(_ name: String) throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      try FileManager.default.createDirectory(atPath: dir + "/elsewhere", withIntermediateDirectories: true)
      try? FileManager.default.removeItem(atPath: dir + "/store/.formsctl/" + name)
      try FileManager.default.createSymbolicLink(
        atPath: dir + "/store/.formsctl/" + name, withDestinationPath: dir + "/elsewhere")
      let error = storeError {
        _ = try fixture.store.layout.withWriteLock("snapshot create", wait: 1) { () throws(StoreError) in
          try Snapshots(layout: fixture.store.layout).create(reason: "manual")
        }
      }
      #expect(error?.kind == .badInput)
      #expect(
        error?.description.contains("is a symbolic link, not a directory") == true, "\(String(describing: error))")
      #expect(try directoryListing(dir + "/elsewhere").isEmpty)
    }
  }

  /// Makes `directory` unwritable even for root (`chattr +i`), runs `body`, and undoes it; nil
  /// when this file system or user cannot (the caller skips).
  func withUnwritable<T>(_ directory: String, _ body: () throws -> T) throws -> T? {
    let immutable = getuid() == 0
    let tool = immutable ? ["chattr", "+i", directory] : ["chmod", "555", directory]
    guard run(tool) else { return nil }
    defer { _ = run(immutable ? ["chattr", "-i", directory] : ["chmod", "755", directory]) }
    return try body()
  }

  func run(_ arguments: [String]) -> Bool {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return false }
    process.waitUntilExit()
    return process.terminationStatus == 0
  }

  @Test func aCascadeIntoAnUnwritableDirectoryIsRefusedBeforeItsCommit() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      try fixture.acquisition()
      let forms = [try fixture.form(), try fixture.form()]
      let outcome = try withUnwritable(dir + "/store/data/forms") {
        storeError { _ = try fixture.store.delete(kind: "acquisition", id: "ACQ-2026-001") }
      }
      guard let error = outcome else {
        print("skipped: cannot make a directory unwritable here (chattr/chmod)")
        return
      }
      #expect(error?.kind == .ioError, "exit 74: a permission denied on a store file")
      #expect(
        error?.description.contains("data/forms: write (needed to change") == true, "\(String(describing: error))")
      #expect(try Journal(layout: fixture.store.layout).pending() == nil, "refused before the commit record")
      _ = try fixture.read("acquisition", "ACQ-2026-001")
      for form in forms { _ = try fixture.read("form", form) }
      #expect(fixture.history.count == 3, "no record for what did not happen")
    }
  }

  @Test func aCommittedStepThatFailsIsLeftForRecoverAndSaysSo() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      try fixture.acquisition()
      let journal = dir + "/store/.formsctl/journal"
      try writeFile(
        """
        {"operation":"rm acquisition ACQ-2026-001"}
        {"action":"delete","path":"data/acquisitions/ACQ-2026-001.json"}

        """, to: journal + "/plan.ndjson")
      try writeFile("committed\n", to: journal + "/COMMIT")
      let outcome = try withUnwritable(dir + "/store/data/acquisitions") {
        storeError { _ = try Store.recover(fixture.store.layout, wait: 1) }
      }
      guard let error = outcome else {
        print("skipped: cannot make a directory unwritable here (chattr/chmod)")
        return
      }
      #expect(error?.kind == .tryAgain)
      #expect(error?.description.contains("is committed but not finished") == true, "\(String(describing: error))")
      #expect(
        try Store.recover(fixture.store.layout, wait: 1) == "finished the interrupted rm acquisition ACQ-2026-001")
      #expect(!FileManager.default.fileExists(atPath: dir + "/store/data/acquisitions/ACQ-2026-001.json"))
    }
  }

  @Test func recoverRemovesWhatKilledWritersLeft() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      try fixture.acquisition()
      let data = dir + "/store/data/acquisitions"
      try writeFile("{", to: data + "/.ACQ-2026-001.json.4242.123456.tmp")
      try writeFile("{", to: dir + "/store/.formsctl/.hash-cache.4242.9.tmp")
      try writeFile("{", to: dir + "/store/.formsctl/snapshots/.creating-2026-11-18T08-53-20Z-4242/data/x.json")
      try writeFile("mine", to: data + "/.notes.tmp")
      let outcome = try Store.recover(fixture.store.layout, wait: 1)
      #expect(outcome == "removed 2 leftover temporary files and 1 unfinished snapshot that interrupted writers left")
      #expect(try directoryListing(data) == [".notes.tmp", "ACQ-2026-001.json"])
      #expect(try directoryListing(dir + "/store/.formsctl/snapshots").isEmpty)
      #expect(try Store.recover(fixture.store.layout, wait: 1) == nil)
    }
  }

  @Test func aSameSizeEditThatKeepsTheMtimeReachesTheNextSnapshot() throws {
    try withTemporaryDirectory { dir in
      let fixture = try SnapshotFixture(dir)
      fixture.clock = Date().addingTimeInterval(60)  // the hash cache trusts files older than it
      let path = dir + "/data/notes/n3.json"
      let first = try fixture.take()
      var before = stat()
      stat(path, &before)
      // `cp -p` over the file: new bytes of the same length, the old mtime put back.
      let edited = try readFile(path).replacingOccurrences(of: "note 3", with: "NOTE 3")
      let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
      try handle.write(contentsOf: Data(edited.utf8))
      try handle.close()
      var times = [before.st_atim, before.st_mtim]
      #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
      let second = try fixture.take()
      #expect(fixture.tree(second)["data/notes/n3.json"] != fixture.tree(first)["data/notes/n3.json"])
      #expect(try readFile(second.path + "/data/notes/n3.json") == edited)
      #expect(try fixture.snapshots.verify([first, second]).isEmpty)
    }
  }

  @Test func verifyReadsASharedFileOnceAndReportsItInEverySnapshot() throws {
    try withTemporaryDirectory { dir in
      let fixture = try SnapshotFixture(dir)
      let first = try fixture.take()
      let second = try fixture.take()
      let shared = second.path + "/data/notes/n1.json"
      chmod(shared, 0o644)
      try writeFile("{\"altered\": 1}\n", to: shared)
      for full in [false, true] {
        let problems = try fixture.snapshots.verify([first, second], full: full).map(\.description)
        #expect(
          problems == [
            "\(first.name)/data/notes/n1.json: altered (its SHA-256 no longer matches the manifest)",
            "\(second.name)/data/notes/n1.json: altered (its SHA-256 no longer matches the manifest)",
          ])
      }
    }
  }

  @Test func aliasesOfOneLargeScalarAreBoundedByBytes() throws {
    let big = String(repeating: "x", count: 1 << 20)
    let yaml = "a: &big \(big)\nb: [" + Array(repeating: "*big", count: 100).joined(separator: ", ") + "]\n"
    #expect(throws: YAMLError.self) { try YAMLReader(maxBytes: 64 << 20).read(yaml) }
    do {
      _ = try YAMLReader(maxBytes: 64 << 20).read(yaml)
    } catch {
      #expect(error.message.contains("expands to more than 67108864 bytes"), "\(error.message)")
    }
    #expect(try YAMLReader().read("a: &s text\nb: [*s, *s]\n") != nil)
  }

  @Test(arguments: ["99999999999999999w", "9223372036854775807s", "36601d"])
  func durationsBeyondAHundredYearsAreRefused(_ text: String) throws {
    #expect(RetentionPolicy.seconds(text) == nil)
    try withTemporaryDirectory { dir in
      _ = try Store.initialize(at: dir)
      try writeFile("formsctl: 1\nsnapshots:\n  keep_within: \(text)\n", to: dir + "/formsctl.yaml")
      let error = storeError { _ = try StoreLayout(root: dir) }
      #expect(error?.kind == .badInput)
      #expect(
        error?.description.contains("\(text) is longer than 100 years, the longest duration accepted") == true,
        "\(String(describing: error))")
    }
  }

  @Test func aScaleNearIntMaxIsADescriptorError() throws {
    try withTemporaryDirectory { dir in
      _ = try Store.initialize(at: dir)
      try writeFile(
        "kind: note\nversion: 1.0.0\ndirectory: notes\nfields:\n  id: string\n  price: {type: decimal, scale: 9223372036854775806}\n",
        to: dir + "/schemas/note/1.0.0.yaml")
      let registry = try SchemaRegistry.load(directory: dir + "/schemas", display: { $0 })
      #expect(
        registry.diagnostics.map(\.message).contains("scale must be a whole number ≥ 0 and ≤ 1000"),
        "\(registry.diagnostics)")
    }
  }

  @Test func aDocumentBeyondTheReadLimitIsNeverWritten() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      // The officer is sensitive: sealed, it only grows.
      fixture.reopen(keyring: Keyring(recipients: [Identity.generate().recipient], identity: nil))
      let huge = String(repeating: "x", count: FileIO.maxFileSize)
      let error = storeError {
        try fixture.store.create(
          kind: "acquisition",
          base: fixture.json(
            #"{"id": "ACQ-2026-001", "title": "T", "agency": "GSA", "contracting_officer": "\#(huge)"}"#))
      }
      #expect(error?.kind == .badInput)
      #expect(
        error?.description.contains("more than the limit of 67108864 bytes") == true,
        "\(String(describing: error).prefix(300))")
      #expect(!FileManager.default.fileExists(atPath: dir + "/store/data/acquisitions/ACQ-2026-001.json"))
    }
  }

  @Test func numbersAJqStepLeavesAloneKeepTheirText() throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/jq") else {
      print("skipped: jq is not installed")
      return
    }
    let document = try JSONParser().parse(#"{"value": 245122.0, "rate": 1.50, "note": "x"}"#)
    let after = try JQProgram.runner(timeout: 10)(".note = \"y\" | .rate = 2", document)
    #expect(JSONWriter.compact(after) == #"{"note":"y","rate":2,"value":245122.0}"#)
  }

  @Test func jqStepsSeeNoEnvironmentButPathAndAreStoppedInTime() throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/jq") else {
      print("skipped: jq is not installed")
      return
    }
    setenv("FORMSCTL_TEST_SECRET", "hunter2", 1)
    let document = JSONValue.object(JSONObject(["a": .number(JSONNumber(1))]))
    let seen = try JQProgram.runner(timeout: 10)(".env = ($ENV | keys)", document)
    #expect(seen["env"] == .array([.string("PATH")]))
    let started = Date()
    #expect(throws: MigrationError.self) { try JQProgram.runner(timeout: 1)("until(false; .)", document) }
    #expect(Date().timeIntervalSince(started) < 10)
  }

  @Test(arguments: [
    "data/../.formsctl/lock", "../outside.txt", "/etc/passwd", "data/notes/.n1.json.formsctl-journal", "data//x",
  ])
  func aManifestNamingAPathOutsideTheSnapshotIsRefused(_ path: String) throws {
    try withTemporaryDirectory { dir in
      let fixture = try SnapshotFixture(dir + "/store")
      let info = try fixture.take()
      let manifestPath = info.path + "/manifest.json"
      chmod(manifestPath, 0o644)
      let text = try readFile(manifestPath).replacingOccurrences(of: "\"data/notes/n1.json\"", with: "\"\(path)\"")
      try writeFile(text, to: manifestPath)
      let error = storeError { _ = try fixture.snapshots.find(info.name) }
      #expect(
        error?.description.contains("which is not a file a snapshot holds") == true, "\(String(describing: error))")
      #expect(try fixture.snapshots.verify([info]).map(\.problem).contains("not a path a snapshot holds; never read"))
    }
  }
}
