import FormsCore
import FormsTestSupport
import Foundation
import Testing

@testable import FormsStore

/// The index answers every query as a full scan would, whatever changed the files: formsctl,
/// a hand edit that keeps the size and the modification time, `cp -p`, `git checkout`, a file that
/// stops parsing. Random stores, random changes, random queries; each answer compared.
@Suite struct IndexTests {
  static let agencies = ["GSA", "DOD", "NASA", "DOE", "VA"]
  static let titles = ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel"]

  /// A store of acquisitions in a git repository; `racy` is the index's racily-clean window (0:
  /// every unchanged stat is trusted, so the comparison exercises the stat check itself).
  static func store(_ dir: String, racy: Duration) throws -> (StoreFixture, Store, Store) {
    let fixture = try StoreFixture(dir + "/store")
    let result = try runGit(["init", "-q", "."], in: fixture.root)
    #expect(result == 0)
    var indexed = fixture.store.configuration
    indexed.indexRacyWindow = racy
    var scanning = fixture.store.configuration
    scanning.useIndex = false
    return (
      fixture, try Store.open(at: fixture.root, configuration: indexed),
      try Store.open(at: fixture.root, configuration: scanning)
    )
  }

  static func runGit(_ arguments: [String], in directory: String) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["git", "-c", "user.name=T", "-c", "user.email=t@example.com"] + arguments
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
  }

  /// A random query over the top-level members the index holds (sometimes a nested or unknown
  /// path, which the index leaves to a scan).
  static func query(_ rng: inout SeededGenerator) throws -> Store.Query {
    var filters: [FilterExpression] = []
    let agency = agencies.randomElement(using: &rng)!
    let title = titles.randomElement(using: &rng)!
    let texts = [
      "agency == \"\(agency)\"", "agency != \"\(agency)\"", "title < \"\(title)\"", "title >= \"\(title)\"",
      "status == \"planning\"", "estimated_value > 500", "estimated_value exists", "not (agency in [\"GSA\", \"VA\"])",
      "title ~ \"^[A-D]\"",
    ]
    for _ in 0..<Int.random(in: 0...2, using: &rng) {
      filters.append(try ExpressionParser.parse(texts.randomElement(using: &rng)!))
    }
    let keys = ["title", "agency", "estimated_value", "created_date", "id"]
    let sort = (0..<Int.random(in: 0...2, using: &rng)).map { _ in
      (path: FilterExpression.Path(keys.randomElement(using: &rng)!)!, descending: Bool.random(using: &rng))
    }
    let limit = Bool.random(using: &rng) ? Int.random(in: 1...8, using: &rng) : nil
    return Store.Query(filters: filters, sort: sort, offset: Int.random(in: 0...2, using: &rng), limit: limit)
  }

  /// What a list answered: each document's path and bytes, then the skipped files.
  static func answer(_ store: Store, _ query: Store.Query) throws -> [String] {
    let listing = try store.list(kind: "acquisition", query: query)
    let (documents, skipped) = (listing.documents, listing.skipped)
    return documents.map { $0.path + " " + String(decoding: $0.bytes, as: UTF8.self) }
      + skipped.map { "skipped \($0.path): \($0.reason)" }
  }

  /// Sets `path`'s modification time to `seconds` and `nanoseconds` (what `cp -p`, `touch -r` do).
  static func setModified(_ path: String, to time: timespec) {
    var times = [time, time]
    #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
  }

  static func modified(_ path: String) -> timespec {
    var info = stat()
    stat(path, &info)
    return info.st_mtim
  }

  @Test(arguments: [UInt64(1), 2, 3])
  func everyQueryWithTheIndexEqualsAFullScan(_ seed: UInt64) throws {
    try withTemporaryDirectory { dir in
      let (fixture, indexed, scanning) = try Self.store(dir, racy: .zero)
      var rng = SeededGenerator(state: seed)
      var ids: [String] = []
      func create() throws {
        let id = String(format: "ACQ-2026-%03d", ids.count + 1)
        var assignments = [
          try Assignment("id=\(id)"), try Assignment("title=\(Self.titles.randomElement(using: &rng)!) \(ids.count)"),
          try Assignment("agency=\(Self.agencies.randomElement(using: &rng)!)"),
        ]
        if Bool.random(using: &rng) {
          assignments.append(try Assignment("estimated_value=\(Int.random(in: 1...999, using: &rng)).50"))
        }
        _ = try fixture.store.create(kind: "acquisition", assignments: assignments)
        ids.append(id)
      }
      for _ in 0..<25 { try create() }
      #expect(try Self.runGit(["add", "-A"], in: fixture.root) == 0)
      #expect(try Self.runGit(["commit", "-qm", "base"], in: fixture.root) == 0)
      let directory = fixture.root + "/data/acquisitions/"
      var broken: String?
      for step in 0..<40 {
        let id = ids.randomElement(using: &rng)!
        let path = directory + id + ".json"
        let change = Int.random(in: 0..<10, using: &rng)
        switch change {
        case 0:
          _ = try? fixture.store.update(
            kind: "acquisition", id: id,
            assignments: [try Assignment("agency=\(Self.agencies.randomElement(using: &rng)!)")])
        case 1: try create()
        case 2: _ = try? fixture.store.delete(kind: "acquisition", id: id)
        case 3 where FileManager.default.fileExists(atPath: path):
          // By hand, same size, same modification time: one letter of the title changed.
          let before = Self.modified(path)
          var text = try readFile(path)
          if let range = text.range(of: #""title": ""#) {
            let at = range.upperBound
            text.replaceSubrange(at...at, with: text[at] == "Z" ? "Y" : "Z")
          }
          try writeFile(text, to: path)
          Self.setModified(path, to: before)
        case 4:
          // cp -p of another document over this one: another content, the source's mtime.
          let source = directory + ids.randomElement(using: &rng)! + ".json"
          if FileManager.default.fileExists(atPath: source) {
            let time = Self.modified(source)
            try writeFile(try readFile(source), to: path)
            Self.setModified(path, to: time)
          }
        case 5:
          #expect(try Self.runGit(["checkout", "-q", "--", "data"], in: fixture.root) == 0)
          #expect(try Self.runGit(["clean", "-qfd", "data"], in: fixture.root) == 0)
          broken = nil
        case 7 where FileManager.default.fileExists(atPath: path):
          // mv by hand to a name of its own: as many files, one no longer where the index has it.
          #expect(rename(path, directory + "moved-\(step).json") == 0)
        case 8 where FileManager.default.fileExists(atPath: path):
          // A copy made by hand under a new name, the directory's mtime then set back as it was:
          // only its ctime says that its names changed.
          let before = Self.modified(directory)
          try writeFile(try readFile(path), to: directory + "copy-\(step).json")
          Self.setModified(directory, to: before)
        case 6 where broken == nil && FileManager.default.fileExists(atPath: path):
          try writeFile("<<<<<<< ours\n" + (try readFile(path)) + "=======\n{}\n>>>>>>> theirs\n", to: path)
          broken = path
        default:
          if let fixed = broken {
            #expect(try Self.runGit(["checkout", "-q", "--", fixed], in: fixture.root) == 0)
            broken = nil
          }
        }
        for _ in 0..<6 {
          let query = try Self.query(&rng)
          #expect(
            try Self.answer(indexed, query) == Self.answer(scanning, query),
            "seed \(seed), step \(step) (change \(change)), \(query.filters.map(\.description)) sort \(query.sort.map(\.path.description))"
          )
        }
      }
    }
  }

  @Test func aCorruptOrForeignIndexIsRebuiltNeverTrusted() throws {
    try withTemporaryDirectory { dir in
      let (fixture, indexed, scanning) = try Self.store(dir, racy: .zero)
      try fixture.acquisition()
      try fixture.acquisition("ACQ-2026-002")
      let query = Store.Query(sort: [(FilterExpression.Path("title")!, false)])
      let expected = try Self.answer(scanning, query)
      #expect(try Self.answer(indexed, query) == expected)
      let path = indexed.indexPath("acquisition").string
      var bytes = try Self.bytes(path)
      #expect(bytes.starts(with: Array("FORMSIDX".utf8)))
      for damage in ["flip", "truncate", "garbage", "empty"] {
        switch damage {
        case "flip": bytes[bytes.count / 2] ^= 0xFF
        case "truncate": bytes = Array(bytes.prefix(bytes.count / 3))
        case "garbage": bytes = Array("not an index".utf8)
        default: bytes = []
        }
        try writeBytes(bytes, to: path)
        #expect(try Self.answer(indexed, query) == expected, "\(damage)")
        #expect(
          try KindIndex.load(FilePath(path), fingerprint: indexed.indexFingerprint("acquisition")) != nil, "rebuilt")
        bytes = try Self.bytes(path)
      }
    }
  }

  /// A store of more files than one part of the pass (512): each part keeps only the query's
  /// window of its matches, and the windows kept give the answer a full sort gives, deep pages too.
  @Test func aWindowIsTheSameWhenEachPartOfThePassKeepsItsOwn() throws {
    try withTemporaryDirectory { dir in
      let (fixture, indexed, scanning) = try Self.store(dir, racy: .zero)
      guard case .object(var template) = try JSONParser().parse(try fixture.acquisition().bytes) else {
        Issue.record("an acquisition is an object")
        return
      }
      var rng = SeededGenerator(state: 33)
      for k in 2...1_300 {
        let id = String(format: "ACQ-2026-%04d", k)
        template["id"] = .string(id)
        template["title"] = .string(Self.titles.randomElement(using: &rng)!)
        template["agency"] = .string(Self.agencies.randomElement(using: &rng)!)
        template["estimated_value"] = .number(JSONNumber(Int.random(in: 0...400, using: &rng)))
        try writeBytes(JSONWriter.canonical(.object(template)), to: fixture.root + "/data/acquisitions/\(id).json")
      }
      let queries = [
        Store.Query(sort: [(FilterExpression.Path("title")!, false)], offset: 3, limit: 7),
        Store.Query(sort: [(FilterExpression.Path("estimated_value")!, true)], limit: 25),
        Store.Query(
          filters: [try ExpressionParser.parse("agency == \"GSA\"")],
          sort: [(FilterExpression.Path("estimated_value")!, false)], offset: 200, limit: 9),
      ]
      for pass in ["builds the index", "trusts it"] {
        for query in queries {
          let answer = try Self.answer(indexed, query)
          #expect(answer.count == query.limit, "\(pass)")
          #expect(answer == (try Self.answer(scanning, query)), "\(pass)")
        }
      }
    }
  }

  /// An index of several checksum blocks (hashed apart, on every core): a byte changed in any
  /// block, or two blocks swapped, and it is refused.
  @Test func aLargeIndexIsRefusedWhateverBlockIsDamaged() throws {
    let projection = Array(#"{"title":""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: 300) + Array(#""}"#.utf8)
    let entries = (0..<10_000).map { k in
      (
        name: String(format: "ACQ-%05d.json", k),
        entry: KindIndex.Entry(
          stamp: FileStamp(size: k, mtimeNanoseconds: 1, ctimeNanoseconds: 1, inode: UInt64(k)), parses: true,
          nonScalar: [], projection: projection)
      )
    }
    let bytes = KindIndex.encode(entries, writtenAt: 9, fingerprint: "f")
    let blocks = bytes.count / KindIndex.checksumBlock
    #expect(blocks >= 3)
    let index = try #require(KindIndex(bytes, fingerprint: "f"))
    #expect(index.count == 10_000 && index.namesAreFlat && index.entry(9_999) == entries[9_999].entry)
    #expect(KindIndex.checksum(bytes, count: bytes.count - 8) != KindIndex.checksum(bytes, count: bytes.count - 9))
    for block in 0...blocks {
      var damaged = bytes
      damaged[min(bytes.count - 9, block * KindIndex.checksumBlock + 12_345)] ^= 0x20
      #expect(KindIndex(damaged, fingerprint: "f") == nil, "block \(block)")
    }
    var swapped = bytes
    let size = KindIndex.checksumBlock
    swapped.replaceSubrange(size..<(2 * size), with: bytes[(2 * size)..<(3 * size)])
    swapped.replaceSubrange((2 * size)..<(3 * size), with: bytes[size..<(2 * size)])
    #expect(KindIndex(swapped, fingerprint: "f") == nil, "two blocks swapped")
  }

  @Test func anIndexThatCannotBeSavedNeverFailsARead() throws {
    try withTemporaryDirectory { dir in
      let (fixture, indexed, scanning) = try Self.store(dir, racy: .zero)
      try fixture.acquisition()
      // A file where the directory goes (the write above made the directory, for its log).
      try FileManager.default.removeItem(atPath: fixture.root + "/.formsctl/index")
      try writeFile("in the way", to: fixture.root + "/.formsctl/index")
      _ = try fixture.store.update(
        kind: "acquisition", id: "ACQ-2026-001", assignments: [try Assignment("title=Desks")])
      let query = Store.Query(sort: [(FilterExpression.Path("title")!, false)])
      #expect(try Self.answer(indexed, query) == Self.answer(scanning, query))
      #expect(try readFile(fixture.root + "/.formsctl/index") == "in the way")
    }
  }

  /// The top-level scan the index builds entries with agrees with a full parse on every example
  /// document, and on edits of them that it must refuse (it then falls back to the full parse).
  @Test func theTopLevelScanAgreesWithTheFullParser() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("examples/acquisitions/data").path
    let files = (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []).filter {
      $0.hasSuffix(".json")
    }
    #expect(files.count > 30)
    for file in files {
      let text = try readFile(root + "/" + file)
      for variant in [
        text, text.replacingOccurrences(of: "{\n  \"", with: "{\"zz\": 1, \""), text + " x", "[" + text + "]",
      ] {
        let bytes = Array(variant.utf8)
        let fast = JSONParser().parseTopLevelScalars(bytes, excluding: ["agency"])
        guard case .object(let object)? = try? JSONParser().parse(bytes) else {
          #expect(fast == nil, "\(file): the scan accepted what the parser refuses")
          continue
        }
        guard let fast else { continue }  // refused: the caller parses the whole document
        var scalars = JSONObject()
        var containers: [String] = []
        for member in object.members where member.key != "agency" {
          switch member.value {
          case .object, .array: containers.append(member.key)
          default: scalars[member.key] = member.value
          }
        }
        #expect(fast.scalars == scalars && fast.containers == containers, "\(file)")
      }
    }
  }

  @Test func sensitiveValuesAreNotIndexed() throws {
    try withTemporaryDirectory { dir in
      let (fixture, indexed, _) = try Self.store(dir, racy: .zero)
      try fixture.acquisition()
      let path = fixture.root + "/data/acquisitions/ACQ-2026-001.json"
      let text = try readFile(path).replacingOccurrences(
        of: "\"agency\":", with: "\"contracting_officer\": \"Jane Secret\",\n  \"agency\":")
      try writeFile(text, to: path)
      _ = try indexed.list(kind: "acquisition", query: .init(sort: [(FilterExpression.Path("agency")!, false)]))
      let index = try Self.bytes(indexed.indexPath("acquisition").string)
      #expect(Self.contains(index, "ACQ-2026-001") && !Self.contains(index, "Jane Secret"))
    }
  }

  static func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

  static func contains(_ bytes: [UInt8], _ text: String) -> Bool {
    let needle = Array(text.utf8)
    return bytes.indices.contains { bytes[$0...].starts(with: needle) }
  }

  @Test func aWriteNotesItsDocumentsInTheLogAndTheIndexIsNotRewritten() throws {
    try withTemporaryDirectory { dir in
      let (fixture, indexed, scanning) = try Self.store(dir, racy: .zero)
      for k in 1...5 { _ = try fixture.acquisition(String(format: "ACQ-2026-%03d", k)) }
      let query = Store.Query(sort: [(FilterExpression.Path("title")!, false)])
      _ = try indexed.list(kind: "acquisition", query: query)
      let index = indexed.indexPath("acquisition")
      let log = indexed.indexLogPath("acquisition")
      let built = try #require(FileStamp(index))
      #expect(FileStamp(log) == nil)
      let directory = fixture.root + "/data/acquisitions"
      let listed = try FileIO.walkNames(FilePath(directory), suffix: ".json").names
      // A change through the write path: one line in the log, written in its commit.
      _ = try indexed.update(kind: "acquisition", id: "ACQ-2026-002", assignments: [try Assignment("title=Zulu")])
      // The index follows the order the directory lists its files in. Where a file renamed into
      // place keeps its place (ext4, by the name's hash) the index stands; where it moves (tmpfs
      // lists the newest first) the next query writes the index in the new order.
      let orderKept = try FileIO.walkNames(FilePath(directory), suffix: ".json").names == listed
      let lines = try IndexLog.load(log, fingerprint: indexed.indexFingerprint("acquisition")).lines
      #expect(Array(lines.keys) == ["ACQ-2026-002.json"])
      #expect(lines["ACQ-2026-002.json"]?.entry?.projection.starts(with: Array("{".utf8)) == true)
      // The next query trusts the line: the right answer, and the index file is not written again.
      #expect(try Self.answer(indexed, query) == Self.answer(scanning, query))
      #expect(try indexed.list(kind: "acquisition", query: query).documents.last?.id == "ACQ-2026-002")
      #expect((FileStamp(index) == built) == orderKept)
      // A line that no longer matches its file (changed behind formsctl's back) is not trusted.
      let path = directory + "/ACQ-2026-002.json"
      try writeFile(try readFile(path).replacingOccurrences(of: "Zulu", with: "Aaaa"), to: path)
      #expect(try indexed.list(kind: "acquisition", query: query).documents.first?.id == "ACQ-2026-002")
      #expect(try Self.answer(indexed, query) == Self.answer(scanning, query))
      // A torn line is skipped; a document added changes the files, and the log is folded in.
      let handle = try #require(FileHandle(forWritingAtPath: log.string))
      handle.seekToEndOfFile()
      handle.write(Data("{\"f\": \"acq".utf8))
      try handle.close()
      _ = try fixture.acquisition("ACQ-2026-006")
      #expect(try Self.answer(indexed, query) == Self.answer(scanning, query))
      #expect(FileStamp(log) == nil && FileStamp(index) != built)
    }
  }

  @Test func aFileChangedAsTheIndexWasWrittenIsReadAgain() throws {
    let stamp = FileStamp(size: 10, mtimeNanoseconds: 5_000_000_000, ctimeNanoseconds: 5_000_000_000, inode: 7)
    let entry = KindIndex.Entry(stamp: stamp, parses: true, nonScalar: [], projection: Array("{}".utf8))
    let bytes = KindIndex.encode([("A.json", entry)], writtenAt: 6_000_000_000, fingerprint: "f")
    let index = try #require(KindIndex(bytes, fingerprint: "f"))
    #expect(KindIndex(bytes, fingerprint: "g") == nil, "another fingerprint: not trusted")
    #expect(index.count == 1 && index.name(0) == "A.json" && index.entry(0) == entry)
    #expect(!index.trusts(0, for: stamp, racyWindow: 2_000_000_000), "within the window: read again")
    #expect(index.trusts(0, for: stamp, racyWindow: 500_000_000))
    let other = FileStamp(size: 10, mtimeNanoseconds: 5_000_000_000, ctimeNanoseconds: 5_000_000_001, inode: 7)
    #expect(!index.trusts(0, for: other, racyWindow: 0), "another ctime: read again")
  }

  /// The directory is not listed while its stat vouches that it still lists the index's files;
  /// a name made by hand is seen even when the directory's mtime is set back (its ctime moved).
  @Test func aDirectoryStampStandsForTheListingOnlyWhileNothingChanged() throws {
    try withTemporaryDirectory { dir in
      let (fixture, indexed, scanning) = try Self.store(dir, racy: .zero)
      for k in 1...5 { _ = try fixture.acquisition(String(format: "ACQ-2026-%03d", k)) }
      let query = Store.Query(sort: [(FilterExpression.Path("title")!, false)])
      #expect(try Self.answer(indexed, query) == Self.answer(scanning, query))
      let directory = fixture.root + "/data/acquisitions"
      let stampPath = indexed.listingStampPath("acquisition")
      let noted = try #require(try ListingStamp.load(stampPath))
      let index = try #require(
        try KindIndex.load(indexed.indexPath("acquisition"), fingerprint: indexed.indexFingerprint("acquisition")))
      #expect(noted.stamp == FileStamp(FilePath(directory)) && noted.index == index.identity && noted.count == 5)
      #expect(noted.vouches(for: index, now: try #require(FileStamp(FilePath(directory))), racyWindow: 0))
      #expect(index.namesAreFlat && index.count == 5)
      // Past the clock's tick, a copy made by hand with the directory's mtime set back.
      usleep(20_000)
      let before = Self.modified(directory)
      try writeFile(try readFile(directory + "/ACQ-2026-001.json"), to: directory + "/copy.json")
      Self.setModified(directory, to: before)
      #expect(FileStamp(FilePath(directory))?.mtimeNanoseconds == noted.stamp.mtimeNanoseconds)
      let answer = try Self.answer(indexed, query)
      #expect(answer == (try Self.answer(scanning, query)) && answer.contains { $0.contains("/copy.json ") })
      // A damaged stamp is ignored, then written again.
      for damage in [Array("not a stamp".utf8), [], Array(try Self.bytes(stampPath.string).dropLast())] {
        try writeBytes(damage, to: stampPath.string)
        #expect(try Self.answer(indexed, query) == Self.answer(scanning, query))
        #expect(try ListingStamp.load(stampPath)?.stamp == FileStamp(FilePath(directory)))
      }
      // The directory replaced by a link to it: listed, and refused, as without the stamp.
      #expect(rename(directory, directory + "-real") == 0 && symlink(directory + "-real", directory) == 0)
      #expect(throws: StoreError.self) { try indexed.list(kind: "acquisition", query: query) }
      #expect(throws: StoreError.self) { try scanning.list(kind: "acquisition", query: query) }
    }
  }

  @Test func aDirectoryStampIsTrustedOnlyForItsIndexAndOutsideTheRacyWindow() throws {
    let entry = KindIndex.Entry(
      stamp: FileStamp(size: 1, mtimeNanoseconds: 1, ctimeNanoseconds: 1, inode: 1), parses: true, nonScalar: [],
      projection: Array("{}".utf8))
    let index = try #require(
      KindIndex(KindIndex.encode([("A.json", entry)], writtenAt: 9, fingerprint: "f"), fingerprint: "f"))
    let stamp = FileStamp(size: 4096, mtimeNanoseconds: 5_000_000_000, ctimeNanoseconds: 5_000_000_000, inode: 7)
    let noted = ListingStamp(index: index.identity, count: 1, stamp: stamp, at: 6_000_000_000)
    #expect(ListingStamp(noted.encoded) == noted)
    #expect(noted.vouches(for: index, now: stamp, racyWindow: 500_000_000))
    #expect(!noted.vouches(for: index, now: stamp, racyWindow: 2_000_000_000), "changed within the window")
    let touched = FileStamp(size: 4096, mtimeNanoseconds: 5_000_000_000, ctimeNanoseconds: 5_000_000_001, inode: 7)
    #expect(!noted.vouches(for: index, now: touched, racyWindow: 0), "another ctime")
    var other = noted
    other.index ^= 1
    #expect(!other.vouches(for: index, now: stamp, racyWindow: 0), "another index")
    other = noted
    other.count = 2
    #expect(!other.vouches(for: index, now: stamp, racyWindow: 0), "another count")
    // Names an index could hold but a listing of the directory itself could not give.
    for name in ["sub/A.json", ".A.json", "A.txt", ".json", "A\u{0}.json"] {
      let odd = try #require(
        KindIndex(KindIndex.encode([(name, entry)], writtenAt: 9, fingerprint: "f"), fingerprint: "f"))
      #expect(!odd.namesAreFlat, "\(name)")
    }
  }
}
