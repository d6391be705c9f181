import FormsCore
import FormsTestSupport
import Foundation
import Testing

@testable import FormsStore

/// What a file, a feed or a slip of the hand must never destroy. Each test failed
/// before its fix.
struct GuardTests {
  // MARK: init never overwrites

  @Test func initKeepsEveryFileThatIsAlreadyThere() throws {
    try withTemporaryDirectory { dir in
      _ = try Store.initialize(at: dir + "/s")
      let custom = dir + "/s/schemas/form/1.0.0.yaml"
      let text = try readFile(custom) + "# ours\n"
      try writeFile(text, to: custom)
      #expect(storeError { _ = try Store.initialize(at: dir + "/s") } == .storeExists(dir + "/s"))
      // Without the manifest (a half-copied store), init adds only what is missing.
      try FileManager.default.removeItem(atPath: dir + "/s/formsctl.yaml")
      try FileManager.default.removeItem(atPath: dir + "/s/schemas/acquisition/1.0.0.yaml")
      let again = try Store.initialize(at: dir + "/s")
      #expect(again.kept == ["schemas/form/1.0.0.yaml"])
      #expect(try readFile(custom) == text)
      #expect(FileIO.exists(FilePath(dir + "/s/schemas/acquisition/1.0.0.yaml")))
    }
  }

  @Test func initRefusesALinkWhereItWouldWriteBeforeItsFirstFile() throws {
    try withTemporaryDirectory { dir in
      try FileManager.default.createDirectory(atPath: dir + "/s/schemas", withIntermediateDirectories: true)
      try FileManager.default.createSymbolicLink(
        atPath: dir + "/s/schemas/_shared", withDestinationPath: "/nonexistent")
      let error = storeError { _ = try Store.initialize(at: dir + "/s") }
      #expect(error?.kind == .badInput)
      #expect(error?.description.contains("schemas/_shared is a symbolic link") == true, "\(String(describing: error))")
      #expect(try directoryListing(dir + "/s") == ["schemas"])
      #expect(try directoryListing(dir + "/s/schemas") == ["_shared"])
    }
  }

  @Test func initInsideAStoreIsRefusedAndMakesNothing() throws {
    try withTemporaryDirectory { dir in
      _ = try Store.initialize(at: dir + "/s")
      let error = storeError { _ = try Store.initialize(at: dir + "/s/data/inner") }
      #expect(error?.kind == .badInput)
      #expect(error?.description.contains("is inside the store at") == true)
      #expect(!FileIO.exists(FilePath(dir + "/s/data/inner")))
    }
  }

  // MARK: the store's boundary

  @Test func aLinkedDataDirectoryIsAnErrorNotAnEmptyStore() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/s")
      try fixture.acquisition()
      try FileManager.default.moveItem(atPath: dir + "/s/data", toPath: dir + "/elsewhere")
      try FileManager.default.createSymbolicLink(atPath: dir + "/s/data", withDestinationPath: dir + "/elsewhere")
      let error = storeError { _ = try StoreLayout(root: dir + "/s") }
      #expect(error?.kind == .badInput)
      #expect(error?.description.contains("/s/data is a symbolic link, not a directory") == true)
    }
  }

  @Test func aLinkedKindDirectoryIsReportedNotSkipped() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/s")
      try fixture.acquisition()
      try FileManager.default.moveItem(atPath: dir + "/s/data/acquisitions", toPath: dir + "/elsewhere")
      try FileManager.default.createSymbolicLink(
        atPath: dir + "/s/data/acquisitions", withDestinationPath: dir + "/elsewhere")
      let listing = storeError { _ = try fixture.store.list(kind: "acquisition", query: Store.Query()) }
      #expect(listing?.description.contains("acquisitions is a symbolic link, not a directory") == true)
      let validator = StoreValidator(layout: fixture.store.layout, registry: fixture.store.registry, display: { $0 })
      #expect(try validator.allFiles() == [dir + "/s/data/acquisitions"])
    }
  }

  @Test func aMissingSchemasDirectoryNamesItAndTheWayBack() throws {
    try withTemporaryDirectory { dir in
      _ = try Store.initialize(at: dir + "/s")
      try FileManager.default.removeItem(atPath: dir + "/s/schemas")
      let error = storeError { _ = try StoreLayout(root: dir + "/s") }
      #expect(error == .missingDirectory(dir + "/s/schemas", key: "schemas"))
      #expect(error?.kind == .noInput)
    }
  }

  @Test func aLinkedDescriptorIsADiagnosticNotAMissingVersion() throws {
    try withTemporaryDirectory { dir in
      _ = try Store.initialize(at: dir + "/s")
      try FileManager.default.copyItem(
        atPath: dir + "/s/schemas/form/1.0.0.yaml", toPath: dir + "/elsewhere.yaml")
      try FileManager.default.createSymbolicLink(
        atPath: dir + "/s/schemas/form/9.0.0.yaml", withDestinationPath: dir + "/elsewhere.yaml")
      let registry = try SchemaRegistry.load(directory: dir + "/s/schemas", display: { $0 })
      let messages = registry.diagnostics.map { "\($0.file): \($0.message)" }
      #expect(
        messages.contains { $0.hasPrefix(dir + "/s/schemas/form/9.0.0.yaml: a symbolic link, not a regular file") },
        "\(messages)")
    }
  }

  @Test func aFileNameThatIsNotUTF8IsAnErrorNamingItsBytes() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/s")
      try fixture.acquisition()
      let name = Array((dir + "/s/data/acquisitions/").utf8) + [0xFF, 0x61] + Array(".json".utf8) + [0]
      let fd = name.withUnsafeBufferPointer {
        open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o644)
      }
      #expect(fd >= 0)
      close(fd)
      let error = storeError {
        try fixture.store.layout.withWriteLock("snapshot create", wait: 1) { () throws(StoreError) in
          _ = try Snapshots(layout: fixture.store.layout).create(reason: "manual")
        }
      }
      #expect(error == .badFileName(dir + "/s/data/acquisitions", escaped: "\\xFFa.json"))
      #expect(error?.kind == .badInput)
    }
  }

  @Test func editorSetupWritesNothingThroughALinkedDirectory() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/s")
      try FileManager.default.createDirectory(atPath: dir + "/outside", withIntermediateDirectories: true)
      try FileManager.default.createSymbolicLink(atPath: dir + "/s/.vscode", withDestinationPath: dir + "/outside")
      let setup = try EditorSetup(layout: fixture.store.layout, registry: fixture.store.registry)
      let exported = storeError { _ = try setup.exportSchemas(to: dir + "/s/.vscode/schemas", draft: .draft07) }
      let settings = storeError {
        try setup.write(setup.configuration(for: .vscode, associations: [], schemaDirectory: setup.defaultDirectory))
      }
      for error in [exported, settings] {
        #expect(error?.description.contains(".vscode is a symbolic link") == true, "\(String(describing: error))")
      }
      #expect(try directoryListing(dir + "/outside").isEmpty)
    }
  }

  // MARK: migrate judges the store it would leave

  @Test func aMigrationThatBreaksARelationRollsBackNamingIt() throws {
    try withTemporaryDirectory { dir in
      try itemStore(dir, count: 3)
      let path = dir + "/schemas/item/2.0.0.yaml"
      try writeFile(
        try readFile(path).replacingOccurrences(of: "  unit: string\n", with: "  unit: string\n  parent: string?\n")
          + "  - add: {field: parent, value: i999}\nrelations:\n  - {field: parent, kind: item, on_delete: nullify}\n",
        to: path)
      let store = try Store.open(at: dir)
      let before = try MigratorTests.contents(store)
      let error = storeError { _ = try Migrator(store: store).run(.init(snapshot: false)) }
      guard case .migrationFailed(let documents, let diagnostics)? = error else {
        Issue.record("\(String(describing: error))")
        return
      }
      #expect(documents == 3)
      #expect(diagnostics.map(\.rule) == ["relation", "relation", "relation"])
      #expect(diagnostics.first?.message.contains("\"i999\" names no item") == true, "\(diagnostics)")
      #expect(try MigratorTests.contents(store) == before)
      #expect(try AuditLog.read(store.layout).records.isEmpty)
      // Pointing at a document that exists migrates.
      try writeFile(try readFile(path).replacingOccurrences(of: "value: i999", with: "value: i0"), to: path)
      let fixed = try Store.open(at: dir)
      #expect(try Migrator(store: fixed).run(.init(snapshot: false)).migrated == 3)
    }
  }

  // MARK: a restore never removes the manifest

  /// A store holding ACQ-2026-001 and a snapshot of it (`partial`: one covering just that
  /// document): the snapshots, its name and its manifest's path.
  static func snapshotOfOneAcquisition(_ dir: String, partial: Bool) throws -> (Snapshots, String, String) {
    let fixture = try StoreFixture(dir + "/s")
    try fixture.acquisition()
    let snapshots = Snapshots(layout: fixture.store.layout)
    let name = try fixture.store.layout.withWriteLock("snapshot create", wait: 1) { () throws(StoreError) in
      try snapshots.create(
        reason: partial ? "pre-import" : "manual",
        only: partial ? [dir + "/s/data/acquisitions/ACQ-2026-001.json"] : nil
      ).name
    }
    return (snapshots, name, dir + "/s/.formsctl/snapshots/\(name)/manifest.json")
  }

  @Test func aPartialSnapshotThatCoversTheManifestIsRefused() throws {
    try withTemporaryDirectory { dir in
      let (snapshots, name, manifest) = try Self.snapshotOfOneAcquisition(dir, partial: true)
      let forged = try readFile(manifest).replacingOccurrences(
        of: #""covers": ["#, with: #""covers": ["formsctl.yaml", "#)
      #expect(forged.contains("formsctl.yaml"))
      chmod(manifest, 0o644)
      try writeFile(forged, to: manifest)
      let error = storeError { _ = try snapshots.restore(name, snapshotFirst: false, wait: 1) }
      #expect(error?.kind == .badInput)
      #expect(error?.description.contains("says it covers formsctl.yaml") == true, "\(String(describing: error))")
      #expect(FileIO.exists(FilePath(dir + "/s/formsctl.yaml")))
    }
  }

  @Test func aSnapshotWithoutTheManifestIsNotRestoredWhole() throws {
    try withTemporaryDirectory { dir in
      let (snapshots, name, manifest) = try Self.snapshotOfOneAcquisition(dir, partial: false)
      var json = try JSONParser().parse(Array(try readFile(manifest).utf8))
      json["files"] = .array((json["files"]?.arrayValue ?? []).filter { $0["path"] != .string("formsctl.yaml") })
      chmod(manifest, 0o644)
      try writeBytes(JSONWriter.canonical(json), to: manifest)
      try FileManager.default.removeItem(atPath: dir + "/s/.formsctl/snapshots/\(name)/formsctl.yaml")
      let error = storeError { _ = try snapshots.restore(name, snapshotFirst: false, wait: 1) }
      #expect(error?.description.contains("would remove the store's manifest") == true, "\(String(describing: error))")
      #expect(FileIO.exists(FilePath(dir + "/s/formsctl.yaml")))
      _ = try snapshots.restore(name, paths: ["data"], snapshotFirst: false, wait: 1)
    }
  }

  // MARK: edit keeps the person's text, never a secret

  /// An editor that applies `edits` in turn, one per run (the last repeats): each gets the text.
  static func editor(_ edits: [(String) -> String]) -> (String) -> Int32 {
    nonisolated(unsafe) var round = 0
    return { path in
      let text = (try? readFile(path)) ?? ""
      let edit = edits[min(round, edits.count - 1)]
      round += 1
      try? writeFile(edit(text), to: path)
      return 0
    }
  }

  @Test func aRefusedTextSavedUnchangedIsKeptAndResumed() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/s")
      try fixture.acquisition()
      let bogus = { (text: String) in text.replacingOccurrences(of: "\"planning\"", with: "\"bogus\"") }
      let error = storeError {
        _ = try fixture.store.edit(kind: "acquisition", id: "ACQ-2026-001", runEditor: Self.editor([bogus, { $0 }]))
      }
      let kept = ".formsctl/edit/acquisition-ACQ-2026-001.json"
      #expect(error?.kind == .badInput)
      #expect(
        error
          == .editKept(
            .refused(.editUnchanged(stillInvalid: true)), at: "\(dir)/s/\(kept)", kind: "acquisition",
            id: "ACQ-2026-001"))
      #expect(
        error?.description
          == "your text is still not valid (its problems are listed at its top); nothing written. Your edited text "
          + "is kept at \(dir)/s/\(kept)")
      #expect(try readFile(dir + "/s/" + kept).contains("\"bogus\""))
      // A second edit that fails keeps its own copy beside the first.
      _ = storeError {
        _ = try fixture.store.edit(kind: "acquisition", id: "ACQ-2026-001", runEditor: Self.editor([bogus, { $0 }]))
      }
      #expect(
        try directoryListing(dir + "/s/.formsctl/edit") == [
          "acquisition-ACQ-2026-001-2.json", "acquisition-ACQ-2026-001.json",
        ])
      // Resuming shows the kept text; fixing it saves and removes the copy.
      nonisolated(unsafe) var shown = ""
      let outcome = try fixture.store.edit(
        kind: "acquisition", id: "ACQ-2026-001", resuming: dir + "/s/" + kept,
        runEditor: Self.editor([
          { text in
            shown = text
            return text.replacingOccurrences(of: "\"bogus\"", with: "\"solicitation\"")
          }
        ]))
      guard case .saved = outcome else { throw Issue.record("\(outcome)") as? any Error ?? CancellationError() }
      #expect(shown.contains("\"bogus\""))
      #expect(try fixture.read("acquisition", "ACQ-2026-001")["status"] == .string("solicitation"))
      #expect(try directoryListing(dir + "/s/.formsctl/edit") == ["acquisition-ACQ-2026-001-2.json"])
    }
  }

  /// A store sealed for Alice (who opens it) holding ACQ-2026-001, whose contracting officer is sensitive.
  static func sealedAcquisition(_ dir: String) throws -> (StoreFixture, Identity) {
    let alice = Identity.generate()
    let fixture = try StoreFixture(dir + "/s")
    fixture.reopen(keyring: Keyring(recipients: [alice.recipient], identity: alice))
    try fixture.store.create(
      kind: "acquisition",
      base: fixture.json(
        #"{"id": "ACQ-2026-001", "title": "Chairs", "agency": "GSA", "contracting_officer": "J. Alvarez"}"#))
    return (fixture, alice)
  }

  /// Values sealed by a reseal stay in plain text in the snapshots taken before: those are found
  /// (each hard-linked file read once) and deleted, and the snapshots taken after are kept.
  @Test func snapshotsHoldingPlaintextOfSealedValuesAreFoundAndDeleted() throws {
    try withTemporaryDirectory { dir in
      let (fixture, alice) = try Self.sealedAcquisition(dir)
      let path = dir + "/s/data/acquisitions/ACQ-2026-001.json"
      let sealed = try readFile(path)
      try writeFile(
        sealed.replacingOccurrences(of: #""enc:v1:[^"]*""#, with: #""J. Alvarez""#, options: .regularExpression),
        to: path)
      var snapshots = fixture.snapshots()
      snapshots.now = { Date(timeIntervalSince1970: 1_700_000_000) }
      _ = try snapshots.create(reason: "manual", label: "plain")
      snapshots.now = { Date(timeIntervalSince1970: 1_700_000_100) }
      _ = try snapshots.create(reason: "manual", label: "plain-again")
      #expect(try snapshots.exposures(registry: fixture.store.registry).map(\.values) == [1, 1])
      _ = try fixture.store.reseal("keys reseal") { _ in [alice.recipient] }
      #expect(try !readFile(path).contains("Alvarez"))
      snapshots.now = { Date(timeIntervalSince1970: 1_700_000_200) }
      _ = try snapshots.create(reason: "manual", label: "sealed")
      let found = try snapshots.exposures(registry: fixture.store.registry)
      #expect(found.map { $0.snapshot.manifest?.label } == ["plain", "plain-again"])
      #expect(found[0].documents == ["data/acquisitions/ACQ-2026-001.json"])
      #expect(try snapshots.deleteExposed(registry: fixture.store.registry, dryRun: true, wait: 1).count == 2)
      #expect(try snapshots.list().count == 3, "a dry run deletes nothing")
      #expect(try snapshots.deleteExposed(registry: fixture.store.registry, dryRun: false, wait: 1).count == 2)
      #expect(try snapshots.list().map { $0.manifest?.label } == ["sealed"])
      #expect(try snapshots.exposures(registry: fixture.store.registry).isEmpty)
      // A delete cut short leaves a `.deleting-` directory: no snapshot, and the next lock holder removes it.
      try FileManager.default.createDirectory(
        atPath: dir + "/s/.formsctl/snapshots/.deleting-x/data", withIntermediateDirectories: true)
      #expect(try snapshots.list().count == 1)
      #expect(try snapshots.removeStaleTemporaries() == 1)
      #expect(FileIO.entry(FilePath(dir + "/s/.formsctl/snapshots/.deleting-x")) == .missing)
    }
  }

  @Test func aKeptCopyHoldsNoSensitiveValueInPlainText() throws {
    try withTemporaryDirectory { dir in
      let (fixture, _) = try Self.sealedAcquisition(dir)
      let failing: (String) -> Int32 = { path in
        try? writeFile((try? readFile(path))?.replacingOccurrences(of: "Chairs", with: "Desks") ?? "", to: path)
        return 3
      }
      let parsed = storeError {
        _ = try fixture.store.edit(kind: "acquisition", id: "ACQ-2026-001", runEditor: failing)
      }
      #expect(parsed?.description.hasSuffix("kept at \(dir)/s/.formsctl/edit/acquisition-ACQ-2026-001.json") == true)
      let copy = try readFile(dir + "/s/.formsctl/edit/acquisition-ACQ-2026-001.json")
      #expect(copy.contains("Desks") && !copy.contains("Alvarez") && copy.contains("enc:v1:"), "sealed again")
      // Not JSON: sealed whole, and --resume opens it.
      let broken: (String) -> Int32 = { path in
        try? writeFile(((try? readFile(path)) ?? "") + "}}", to: path)
        return 3
      }
      let whole = storeError { _ = try fixture.store.edit(kind: "acquisition", id: "ACQ-2026-001", runEditor: broken) }
      #expect(
        whole?.description.contains("acquisition-ACQ-2026-001-2.json.sealed (sealed: it holds sensitive values)")
          == true)
      let sealed = dir + "/s/.formsctl/edit/acquisition-ACQ-2026-001-2.json.sealed"
      #expect(try !readFile(sealed).contains("Alvarez"))
      nonisolated(unsafe) var shown = ""
      _ = try fixture.store.edit(
        kind: "acquisition", id: "ACQ-2026-001", resuming: sealed,
        runEditor: Self.editor([
          { text in
            shown = text
            return String(text.dropLast(2))
          }
        ]))
      #expect(shown.contains("J. Alvarez") && shown.hasSuffix("}}"))
      #expect(!FileIO.exists(FilePath(sealed)))
    }
  }

  // MARK: secrets

  @Test func anAssignmentToASensitiveFieldNeverQuotesTheValue() throws {
    let schema = try compile(
      """
      kind: card
      version: 1.0.0
      directory: cards
      fields:
        id: string
        pin: {type: integer, sensitive: true}
        holder: {type: object, optional: true, sensitive: true, fields: {active: boolean}}
        count: integer?
      """)
    var document = JSONValue.object(JSONObject(["id": .string("c1")]))
    for (text, message) in [
      ("pin=SECRET12X", "pin=«sensitive value not shown»: expected a number"),
      ("holder.active=SECRET12X", "holder.active=«sensitive value not shown»: expected true or false"),
      ("count=SECRET12X", "count=SECRET12X: expected a number"),
    ] {
      let problem = #expect(throws: Assignment.Problem.self) {
        try Assignment(text).apply(to: &document, schema: schema)
      }
      #expect(problem?.description == message)
    }
  }

  // MARK: migrations judged without a document

  static func versions(_ second: String) throws -> [SemanticVersion: Schema] {
    let first = try compile(
      """
      kind: card
      version: 1.0.0
      directory: cards
      fields:
        id: string
        pin: {type: string, sensitive: true}
        note: string?
      """)
    let next = try compile(
      """
      kind: card
      version: 2.0.0
      from: 1.0.0
      directory: cards
      \(second)
      """)
    return [first.version: first, next.version: next]
  }

  @Test(arguments: [
    (
      "fields:\n  id: string\n  code: string\n  note: string?\nchanges:\n  - rename: {from: pin, to: code}",
      "card 1.0.0 → 2.0.0, change 1 (rename pin → code): pin is sensitive, and code is not: its value would be stored "
        + "in plain text; make code sensitive, or mark it `declassified: true` if that is intended"
    ),
    (
      "fields:\n  id: string\n  pin: {type: string, sensitive: true}\n  text: string?\nchanges:\n  - rename: {from: notes, to: text}",
      "card 1.0.0 → 2.0.0, change 1 (rename notes → text): the version before has no field notes"
    ),
  ])
  func aMigrationStepThatLeaksOrReadsNothingIsRefused(_ second: String, _ message: String) throws {
    let versions = try Self.versions(second)
    let error = #expect(throws: MigrationError.self) {
      try MigrationPlanner.stepInto(SemanticVersion("2.0.0")!, from: SemanticVersion("1.0.0")!, versions: versions)
    }
    #expect(error?.message == message)
  }

  @Test func aDeclassifiedFieldMayReceiveASensitiveValue() throws {
    let versions = try Self.versions(
      "fields:\n  id: string\n  code: {type: string, declassified: true}\n  note: string?\n"
        + "changes:\n  - rename: {from: pin, to: code}")
    let step = try MigrationPlanner.stepInto(
      SemanticVersion("2.0.0")!, from: SemanticVersion("1.0.0")!, versions: versions)
    #expect(step.changes.count == 1)
  }

  // MARK: descriptors that crashed or misled, values that flooded messages

  @Test(arguments: [
    ("  tags: {type: list, of: tag, unique: []}", "test.yaml:8:39: error: unique needs at least one key field"),
    (
      "  tags: {type: list, of: string, unique: [x]}",
      "test.yaml:8:42: error: unique names key fields of object elements; the elements of field"
    ),
  ])
  func uniqueKeysThatCannotWorkAreDescriptorErrors(_ line: String, _ message: String) throws {
    let text = """
      kind: box
      version: 1.0.0
      directory: boxes
      types:
        tag: {fields: {name: string}}
      fields:
        id: string
      \(line)
      """
    let error = #expect(throws: FixtureError.self) { _ = try compile(text) }
    #expect(error?.description.contains(message) == true, "\(String(describing: error))")
  }

  @Test func aHugeValueIsQuotedShortAndCostsNoSuggestionWork() throws {
    let schema = try compile(
      "kind: box\nversion: 1.0.0\ndirectory: boxes\nfields:\n  id: string\n  state: {type: enum, values: [open, shut]}\n"
    )
    let huge = String(repeating: "x", count: 4 << 20)
    let clock = ContinuousClock()
    var findings: [Finding] = []
    let spent = clock.measure {
      findings = Validator(schema: schema).validate(
        .object(JSONObject(["id": .string("b1"), "state": .string(huge)])))
    }
    #expect(findings.count == 1)
    #expect(findings.first?.message.count ?? .max < 200, "\(findings.first?.message.prefix(300) ?? "")")
    #expect(
      findings.first?.message.contains("…\" (4194304 characters) is not one of") == true,
      "\(findings.first?.message.prefix(200) ?? "")")
    #expect(spent < .seconds(5), "no edit distance over megabytes")
  }

  @Test func aFeedRecordBeyondTheLimitIsRefusedByLine() throws {
    try withTemporaryDirectory { dir in
      let big = String(repeating: "x", count: Importer.recordLimit)
      try writeFile("{\"id\": \"a\"}\n{\"id\": \"\(big)\"}\n", to: dir + "/feed.ndjson")
      let error = storeError { _ = try Importer.records(dir + "/feed.ndjson", display: "feed.ndjson") }
      #expect(
        error?.description.hasPrefix("feed.ndjson:2:1: the record is 16777226 bytes, more than the limit") == true,
        "\(String(describing: error).prefix(200))")
      try writeFile("[{\"id\": \"a\"},\n {\"id\": \"\(big)\"}]", to: dir + "/feed.json")
      let array = storeError { _ = try Importer.records(dir + "/feed.json", display: "feed.json") }
      #expect(
        array?.description.hasPrefix("feed.json:2:1: the record is") == true, "\(String(describing: array).prefix(200))"
      )
    }
  }

  @Test func aQueryOverSealedValuesWithoutAnIdentityIsRefused() throws {
    try withTemporaryDirectory { dir in
      let (fixture, alice) = try Self.sealedAcquisition(dir)
      let query = Store.Query(filters: [try ExpressionParser.parse(#"contracting_officer == "J. Alvarez""#)])
      #expect(try fixture.store.list(kind: "acquisition", query: query).documents.count == 1)
      fixture.reopen(keyring: Keyring(recipients: [alice.recipient], identity: nil))
      let error = storeError { _ = try fixture.store.list(kind: "acquisition", query: query) }
      #expect(error?.kind == .badInput)
      #expect(
        error?.description.contains("reads contracting_officer, a sensitive field") == true,
        "\(String(describing: error))")
      #expect(try fixture.store.list(kind: "acquisition", query: Store.Query()).documents.count == 1)
    }
  }
}
