import FormsCore
import FormsTestSupport
import Foundation
import Testing

@testable import FormsStore

/// A store of a few documents with its own schema, opened with a controllable clock.
final class SnapshotFixture: @unchecked Sendable {
  let root: String
  let layout: StoreLayout
  var snapshots: Snapshots
  nonisolated(unsafe) var clock = Date(timeIntervalSince1970: 1_795_000_000)

  init(_ root: String) throws {
    self.root = root
    try writeFile("formsctl: 1\n", to: root + "/formsctl.yaml")
    try writeFile(
      "kind: note\nversion: 1.0.0\ndirectory: notes\nfields:\n  id: string\n  text: string\n",
      to: root + "/schemas/note/1.0.0.yaml")
    for k in 0..<20 {
      try writeFile(
        "{\n  \"_schema\": \"note@1.0.0\",\n  \"id\": \"n\(k)\",\n  \"text\": \"note \(k)\"\n}\n",
        to: root + "/data/notes/n\(k).json")
    }
    layout = try StoreLayout(root: root)
    snapshots = Snapshots(layout: layout)
    snapshots.now = { [unowned self] in self.clock }
  }

  func take(_ reason: String = "manual") throws -> Snapshots.Info {
    clock += 60
    let manifest = try snapshots.create(reason: reason)
    return snapshots.info(manifest.name)
  }

  /// SHA-256 of every live data file, by path inside a snapshot.
  func liveTree() throws -> [String: String] {
    try snapshots.liveEntries().filter { $0.key.hasPrefix("data/") }.mapValues(\.sha256)
  }

  func tree(_ info: Snapshots.Info) -> [String: String] {
    Dictionary(
      info.manifest!.files.filter { $0.path.hasPrefix("data/") }.map { ($0.path, $0.sha256) },
      uniquingKeysWith: { a, _ in a })
  }
}

struct SnapshotTests {
  /// Free space is counted in blocks: a new file takes its bytes rounded up to whole blocks, and a
  /// directory entry (8 bytes and its name, to a multiple of 4); a hard link its entry only.
  @Test(
    arguments: [
      (300, 9, 4096, 4096 + 20),
      (0, 9, 4096, 20),
      (4096, 1, 4096, 4096 + 12),
      (4097, 1, 4096, 8192 + 12),
      (300, 9, 65536, 65536 + 20),
      (300, 9, 512, 512 + 20),
    ] as [(Int64, Int, Int64, Int64)])
  func spaceEstimatesCountBlocksNotBytes(_ size: Int64, _ name: Int, _ block: Int64, _ expected: Int64) {
    #expect(Storage.allocated(size: size, nameLength: name, blockSize: block) == expected)
  }

  /// `snapshot create --dry-run` promises only what the copies take on this file system: 20 small
  /// notes need 20 blocks, not their few hundred bytes (issue 63: a small disk then ran out).
  @Test func aCreatePlanCountsTheBlocksSmallFilesTake() throws {
    try withTemporaryDirectory { dir in
      let fixture = try SnapshotFixture(dir)
      let plan = try fixture.snapshots.planCreate()
      let block = try #require(Storage.blockSize(at: dir))
      #expect(plan.copied >= 20 && plan.copiedBytes < Int64(plan.copied) * 100)
      #expect(
        plan.needed >= Storage.withMargin(Int64(plan.copied) * block),
        "\(plan.needed) for \(plan.copied) files of a \(block)-byte block")
    }
  }

  /// Deleting the snapshots that hold values the store now seals never deletes one kept by its
  /// label (`keep_labels`), as it never deletes a marked one (issue 63).
  @Test func pruningSensitiveSnapshotsSparesThoseKeptByTheirLabel() throws {
    try withTemporaryDirectory { dir in
      let fixture = try SnapshotFixture(dir)
      try writeFile("formsctl: 1\nsnapshots:\n  keep_labels: [audit-*]\n", to: dir + "/formsctl.yaml")
      var snapshots = Snapshots(layout: try StoreLayout(root: dir))
      snapshots.now = { fixture.clock }
      fixture.clock += 60
      let audit = try snapshots.create(reason: "manual", label: "audit-2026").name
      fixture.clock += 60
      let other = try snapshots.create(reason: "manual", label: "other").name
      // The descriptor now seals `text`: both snapshots hold it in plain text.
      try writeFile(
        "kind: note\nversion: 1.0.0\ndirectory: notes\nfields:\n  id: string\n  text: {type: string, sensitive: true}\n",
        to: dir + "/schemas/note/1.0.0.yaml")
      let registry = try Store.open(at: dir).registry
      let found = try snapshots.deleteExposed(registry: registry, dryRun: false, wait: 0)
      #expect(found.map(\.snapshot.name) == [audit, other])
      #expect(found.map(\.kept) == [true, false])
      #expect(try snapshots.list().map(\.name) == [audit], "the label-kept snapshot stays")
    }
  }

  /// `snapshot list` and labels read `summary.json`, not the manifest; verify holds the two equal.
  @Test func listingReadsTheSummaryAndVerifyHoldsItToTheManifest() throws {
    try withTemporaryDirectory { dir in
      let fixture = try SnapshotFixture(dir)
      let first = try fixture.take()
      let summaryPath = first.path + "/summary.json"
      #expect(first.summary == SnapshotSummary(try #require(first.manifest)))
      #expect(try fixture.snapshots.verify(first).isEmpty)
      // A summary that says another label: the listing shows it (it never parsed the manifest) and
      // verify reports the disagreement.
      chmod(summaryPath, 0o644)
      try writeFile(
        try readFile(summaryPath).replacingOccurrences(of: "\"label\": null", with: "\"label\": \"other\""),
        to: summaryPath)
      let report = try fixture.snapshots.listReport()
      #expect(report.rows.first?[1] == "other", "\(report.rows)")
      #expect(try fixture.snapshots.verify(first).map(\.path) == ["summary.json"])
      // Without a summary (a snapshot from before them), the manifest is summarized.
      try FileManager.default.removeItem(atPath: summaryPath)
      #expect(try fixture.snapshots.listReport().rows.first?[1] == "")
      #expect(try fixture.snapshots.verify(first).isEmpty)
    }
  }

  /// Every command that snapshots applies the retention policy after it (docs/design.md §10), never to
  /// the snapshot a restore reads; `auto_prune: false` turns it off.
  @Test func takingASnapshotPrunesByThePolicy() throws {
    try withTemporaryDirectory { dir in
      let fixture = try SnapshotFixture(dir)
      let old = try fixture.take()
      fixture.clock += 40 * 86400
      try writeFile("{\"_schema\":\"note@1.0.0\",\"id\":\"n0\",\"text\":\"changed\"}", to: dir + "/data/notes/n0.json")
      let restored = try fixture.snapshots.restore(old.name, wait: 0)
      #expect(restored.prunedSnapshots.isEmpty, "the snapshot restored from is spared")
      fixture.clock += 60
      let (manual, pruned) = try fixture.snapshots.createManual(message: nil, label: nil, wait: 0)
      #expect(pruned == [old.name], "older than 30 days, and no longer being restored")
      #expect(try fixture.snapshots.list().map(\.name) == [restored.preRestoreSnapshot, manual.name])

      fixture.clock += 40 * 86400
      try writeFile("formsctl: 1\nsnapshots:\n  auto_prune: false\n", to: dir + "/formsctl.yaml")
      var kept = Snapshots(layout: try StoreLayout(root: dir))
      kept.now = { fixture.clock }
      #expect(try kept.createManual(message: nil, label: nil, wait: 0).pruned.isEmpty)
      #expect(try kept.list().count == 3)
    }
  }

  @Test func restoreGivesBackTheSnapshotTree() throws {
    try withTemporaryDirectory { dir in
      let fixture = try SnapshotFixture(dir)
      let snapshot = try fixture.take()
      #expect(snapshot.manifest?.counts == ["note": ["1.0.0": 20]])
      try writeFile(
        "{\n  \"_schema\": \"note@1.0.0\",\n  \"id\": \"n1\",\n  \"text\": \"changed\"\n}\n",
        to: dir + "/data/notes/n1.json")
      try FileManager.default.removeItem(atPath: dir + "/data/notes/n2.json")
      try writeFile("{}\n", to: dir + "/data/notes/extra.json")
      let difference = try fixture.snapshots.diff(from: snapshot, to: nil)
      #expect(difference.added == ["data/notes/extra.json"])
      #expect(difference.removed == ["data/notes/n2.json"])
      #expect(difference.changed.map(\.pointers) == [["/text"]])
      let plan = try fixture.snapshots.planRestore(snapshot)
      #expect(
        plan.rewritten == ["data/notes/n1.json"] && plan.recreated == ["data/notes/n2.json"]
          && plan.removed == ["data/notes/extra.json"])
      let outcome = try fixture.snapshots.restore(snapshot.name, snapshotFirst: false, wait: 0, command: "restore")
      #expect(outcome.plan.rewritten == plan.rewritten && outcome.preRestoreSnapshot == nil)
      #expect(try fixture.liveTree() == fixture.tree(snapshot))
      let (records, _) = try AuditLog.read(fixture.snapshots.layout)
      #expect(records.count == 1)
      #expect(
        records.first.map { JSONWriter.compact($0.value["documents"]!) }
          == #"[{"action":"update","id":"n1","kind":"note","pointers":["/text"]},{"action":"create","id":"n2","kind":"note","pointers":[""]},{"action":"delete","id":"extra","kind":"","pointers":[""]}]"#
      )
    }
  }

  @Test func singlePathRestoreTouchesOnlyThatDocument() throws {
    try withTemporaryDirectory { dir in
      let fixture = try SnapshotFixture(dir)
      let snapshot = try fixture.take()
      try writeFile("{\"changed\": 1}\n", to: dir + "/data/notes/n1.json")
      try writeFile("{\"changed\": 2}\n", to: dir + "/data/notes/n2.json")
      _ = try fixture.snapshots.restore(snapshot.name, paths: ["data/notes/n1.json"], wait: 0)
      #expect(try readFile(dir + "/data/notes/n1.json").contains("note 1"))
      #expect(try readFile(dir + "/data/notes/n2.json") == "{\"changed\": 2}\n")
    }
  }

  @Test func directoryRestoreRemovesDocumentsCreatedSince() throws {
    try withTemporaryDirectory { dir in
      let fixture = try SnapshotFixture(dir)
      let snapshot = try fixture.take()
      try writeFile("{\"new\": 1}\n", to: dir + "/data/notes/n99.json")
      try writeFile("{\"new\": 2}\n", to: dir + "/data/notes/deeper/n98.json")
      try writeFile("{\"other\": 1}\n", to: dir + "/data/others/o1.json")
      let plan = try fixture.snapshots.planRestore(snapshot, paths: ["data/notes"])
      #expect(plan.removed == ["data/notes/deeper/n98.json", "data/notes/n99.json"])
      _ = try fixture.snapshots.restore(snapshot.name, paths: ["data/notes"], wait: 0)
      #expect(!FileManager.default.fileExists(atPath: dir + "/data/notes/n99.json"))
      #expect(!FileManager.default.fileExists(atPath: dir + "/data/notes/deeper/n98.json"))
      #expect(FileManager.default.fileExists(atPath: dir + "/data/others/o1.json"), "outside the directory named")
      let error = storeError { _ = try fixture.snapshots.planRestore(snapshot, paths: ["data/notez"]) }
      #expect(error?.description == "data/notez: neither snapshot \(snapshot.name) nor the live store has it")
    }
  }

  @Test func inPlaceEditsOfLiveFilesNeverReachASnapshot() throws {
    try withTemporaryDirectory { dir in
      let fixture = try SnapshotFixture(dir)
      let first = try fixture.take()
      let second = try fixture.take()
      // Write in place (same inode), as `echo > file` or vim on a hard-linked file would.
      let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: dir + "/data/notes/n3.json"))
      try handle.write(contentsOf: Data("{\"overwritten\": true}\n".utf8))
      try handle.close()
      #expect(try fixture.snapshots.verify(first).isEmpty)
      #expect(try fixture.snapshots.verify(second).isEmpty)
      var live = stat()
      var copy = stat()
      stat(dir + "/data/notes/n3.json", &live)
      stat(second.path + "/data/notes/n3.json", &copy)
      #expect(live.st_ino != copy.st_ino)
      #expect(copy.st_mode & 0o222 == 0, "snapshot files are read-only")
    }
  }

  @Test func verifyFindsAOneByteCorruptionAndRestoreRefuses() throws {
    try withTemporaryDirectory { dir in
      let fixture = try SnapshotFixture(dir)
      let snapshot = try fixture.take()
      let victim = snapshot.path + "/data/notes/n4.json"
      chmod(victim, 0o644)
      var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: victim)))
      bytes[10] ^= 0x01
      try Data(bytes).write(to: URL(fileURLWithPath: victim))
      try FileManager.default.removeItem(atPath: snapshot.path + "/data/notes/n5.json")
      let problems = try fixture.snapshots.verify(snapshot).map(\.description)
      #expect(
        problems == [
          "\(snapshot.name)/data/notes/n4.json: altered (its SHA-256 no longer matches the manifest)",
          "\(snapshot.name)/data/notes/n5.json: missing",
        ])
      try writeFile("{}\n", to: dir + "/data/notes/n4.json")
      #expect(throws: StoreError.self) { try fixture.snapshots.planRestore(snapshot) }
      #expect(try readFile(dir + "/data/notes/n4.json") == "{}\n")
    }
  }

  /// The files of a snapshot that hold their own disk blocks (no other link shares them).
  func unsharedFiles(_ directory: String) throws -> [String] {
    try FileIO.files(under: FilePath(directory), suffix: "").filter { path in
      var info = stat()
      stat(path, &info)
      return info.st_nlink == 1
    }.map { String($0.dropFirst(directory.count + 1)) }
  }

  @Test func anUnchangedStoreCostsAlmostNoDisk() throws {
    try withTemporaryDirectory { dir in
      let fixture = try SnapshotFixture(dir)
      let first = try fixture.take()
      fixture.clock += 10  // past the hash cache's racy window
      let second = try fixture.take()
      // Every document, schema and the store manifest are shared; each snapshot owns only its manifest.json.
      #expect(try unsharedFiles(first.path) == ["manifest.json", "summary.json"])
      #expect(try unsharedFiles(second.path) == ["manifest.json", "summary.json"])
      try writeFile(
        "{\n  \"_schema\": \"note@1.0.0\",\n  \"id\": \"n7\",\n  \"text\": \"seven\"\n}\n",
        to: dir + "/data/notes/n7.json")
      let third = try fixture.take()
      #expect(
        third.manifest!.files.first { $0.path == "data/notes/n7.json" }!.sha256
          != first.manifest!.files.first { $0.path == "data/notes/n7.json" }!.sha256)
      #expect(try fixture.snapshots.verify(third).isEmpty)
    }
  }

  @Test func unknownAndBrokenSnapshotsAreRefused() throws {
    try withTemporaryDirectory { dir in
      let fixture = try SnapshotFixture(dir)
      #expect(throws: StoreError.self) { try fixture.snapshots.find("2020-01-01T00-00-00Z") }
      let snapshot = try fixture.take()
      chmod(snapshot.path + "/manifest.json", 0o644)
      try FileManager.default.removeItem(atPath: snapshot.path + "/manifest.json")
      do {
        _ = try fixture.snapshots.find(snapshot.name)
        Issue.record("accepted")
      } catch {
        #expect("\(error)".contains("has no readable manifest.json"))
      }
    }
  }

  /// The manifest is written straight from its entries; its bytes are the canonical form of its JSON.
  @Test func manifestBytesAreTheCanonicalFormOfItsJSON() throws {
    let files = [
      SnapshotManifest.Entry(
        path: "data/a \"quoted\"/x.json", size: 12, sha256: String(repeating: "a", count: 64), schema: "note@1.0.0"),
      SnapshotManifest.Entry(path: "formsctl.yaml", size: 3, sha256: String(repeating: "b", count: 64), schema: nil),
    ]
    let manifests = [
      SnapshotManifest(name: "n", time: "t", reason: "manual", message: nil, label: nil, files: []),
      SnapshotManifest(name: "n", time: "t", reason: "manual", message: "tab\there", label: "q4", files: files),
      SnapshotManifest(
        name: "n", time: "t", reason: "pre-import", message: nil, label: nil, files: files,
        covers: ["data/a \"quoted\"/x.json", "data/b/y.json"]),
    ]
    for manifest in manifests {
      #expect(String(decoding: manifest.serialized(), as: UTF8.self) == JSONWriter.canonicalString(manifest.json))
      #expect(SnapshotManifest(json: try JSONParser().parse(manifest.serialized())) == manifest)
    }
  }

  /// A snapshot after one without a usable hash cache (deleted, or of an older format) reads and
  /// hashes every file, and still links the ones whose content is the same.
  @Test func withoutTheHashCacheUnchangedFilesAreStillShared() throws {
    try withTemporaryDirectory { dir in
      let fixture = try SnapshotFixture(dir)
      _ = try fixture.take()
      try writeFile("# v2 1\n", to: dir + "/.formsctl/snapshots/.hash-cache")
      fixture.clock += 10
      let second = try fixture.take()
      #expect(try unsharedFiles(second.path) == ["manifest.json", "summary.json"])
      #expect(try fixture.snapshots.verify(second).isEmpty)
    }
  }

  /// The next snapshot follows the store, not the cache: a document deleted since is not in it, one
  /// added is, one changed is copied, one replaced by a symbolic link is left out.
  @Test func filesDeletedAddedChangedOrReplacedSinceTheLastSnapshot() throws {
    try withTemporaryDirectory { dir in
      let fixture = try SnapshotFixture(dir)
      let first = try fixture.take()
      fixture.clock = Date().addingTimeInterval(60)  // the cache trusts every stamp
      try FileManager.default.removeItem(atPath: dir + "/data/notes/n3.json")
      try writeFile(
        "{\n  \"_schema\": \"note@1.0.0\",\n  \"id\": \"n99\",\n  \"text\": \"new\"\n}\n",
        to: dir + "/data/notes/n99.json")
      try writeFile(
        "{\n  \"_schema\": \"note@1.0.0\",\n  \"id\": \"n4\",\n  \"text\": \"changed\"\n}\n",
        to: dir + "/data/notes/n4.json")
      try FileManager.default.removeItem(atPath: dir + "/data/notes/n5.json")
      try FileManager.default.createSymbolicLink(
        atPath: dir + "/data/notes/n5.json", withDestinationPath: dir + "/data/notes/n6.json")
      let second = try fixture.take()
      let paths = Set(second.manifest!.files.map(\.path))
      #expect(!paths.contains("data/notes/n3.json") && !FileIO.exists(FilePath(second.path + "/data/notes/n3.json")))
      #expect(!paths.contains("data/notes/n5.json") && !FileIO.exists(FilePath(second.path + "/data/notes/n5.json")))
      #expect(paths.contains("data/notes/n99.json"))
      #expect(try readFile(second.path + "/data/notes/n4.json").contains("changed"))
      #expect(
        FileStamp(FilePath(second.path + "/data/notes/n7.json"))?.inode
          == FileStamp(FilePath(first.path + "/data/notes/n7.json"))?.inode,
        "unchanged: shared")
      #expect(try fixture.snapshots.verify(second).isEmpty)
      #expect(
        try FileIO.files(under: FilePath(second.path), suffix: "").count == second.manifest!.files.count + 2,
        "nothing beyond the manifest")
    }
  }
}

/// A directory of more files than one block of the streamed copy (`Snapshots.blockSize`): its
/// blocks are read, created and written into the manifest in turn, so every file must arrive once,
/// in the manifest's order, with its content, schema and count.
struct SnapshotBlockTests {
  @Test func aDirectoryOfSeveralBlocksIsCopiedWholeAndInOrder() throws {
    try withTemporaryDirectory { dir in
      let fixture = try SnapshotFixture(dir)
      let count = 2 * Snapshots.blockSize + 7
      for k in 20..<count {
        try writeFile(
          "{\n  \"_schema\": \"note@1.0.0\",\n  \"id\": \"n\(k)\",\n  \"text\": \"note \(k)\"\n}\n",
          to: dir + "/data/notes/n\(k).json")
      }
      // What the first snapshot checks for up front (its files stat'ed on every core, in the
      // directories' own order) is what its copies take, in blocks with their entries.
      let size = try fixture.snapshots.storeSize()
      let first = try fixture.take()
      let block = try #require(Storage.blockSize(at: dir))
      #expect(
        size
          == (try #require(first.manifest)).files.reduce(Int64(0)) {
            $0
              + Storage.allocated(
                size: Int64($1.size), nameLength: FilePath($1.path).name.utf8.count, blockSize: block)
          })
      let files = try #require(first.manifest).files.map(\.path).filter { $0.hasPrefix("data/notes/") }
      #expect(files.count == count)
      let inWalkOrder = files == files.sorted { FileIO.walkOrder($0, $1) }
      #expect(inWalkOrder)
      #expect(fixture.tree(first) == (try fixture.liveTree()))
      #expect(first.manifest?.counts["note"]?["1.0.0"] == count)
      #expect(try fixture.snapshots.verify(first).isEmpty)
      // Unchanged, past the cache's racy window: every file a link to the first snapshot's copy.
      sleep(3)
      let second = try fixture.take()
      #expect(fixture.tree(second) == fixture.tree(first))
      var linked = stat()
      #expect(stat(second.path + "/data/notes/n\(count - 1).json", &linked) == 0 && linked.st_nlink == 2)
      #expect(try fixture.snapshots.verify(second).isEmpty)
    }
  }

  @Test func aPartialSnapshotTakesOnlyTheStoresDocumentPaths() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      try fixture.acquisition()
      try writeFile("{}", to: dir + "/outside.json")
      let snapshots = fixture.snapshots()
      for path in [
        fixture.root + "/data/acquisitions/../../../outside.json", dir + "/outside.json",
        fixture.root + "/formsctl.yaml",
      ] {
        #expect(throws: StoreError.self) { try snapshots.create(reason: "import", only: [path]) }
      }
      #expect(try snapshots.list().isEmpty)
      #expect(
        try snapshots.create(reason: "import", only: [fixture.root + "/data/acquisitions/ACQ-2026-001.json"]).name != ""
      )
    }
  }
}
