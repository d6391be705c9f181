import FormsCore
import FormsTestSupport
import Foundation
import Testing

/// Reads of sealed values beyond `get` and `list`: every command that opens a sealed value to
/// judge or compare it records that it did (found by a hostile pass).
struct SealedReadTests {
  /// The example store with the demo identity: `run` as its key holder, `anonymous` without.
  struct Fixture {
    let store: String
    let holder: [String: String]

    init(_ dir: String) throws {
      store = dir + "/store"
      try copyExampleStore(to: store)
      holder = ["FORMSCTL_IDENTITY": try demoIdentity(at: dir + "/demo")]
    }

    func run(_ arguments: [String]) throws -> RunResult {
      try Formsctl.run(arguments, in: store, environment: holder)
    }

    func anonymous(_ arguments: [String]) throws -> RunResult {
      try Formsctl.run(arguments, in: store)
    }

    var history: String { store + "/.formsctl/history.jsonl" }

    func records() throws -> [JSONValue] {
      guard FileManager.default.fileExists(atPath: history) else { return [] }
      return try readFile(history).split(separator: "\n").map { try JSONParser().parse(Array($0.utf8)) }
    }

    /// The access records, each as its `id:pointer,pointer` entries, sorted.
    func accessRecords() throws -> [[String]] {
      try records().filter { $0["operation"] == .string("access") }.map { record in
        (record["access"]?.arrayValue ?? []).map { entry in
          (entry["id"]?.stringValue ?? "") + ":"
            + (entry["pointers"]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: ",")
        }.sorted()
      }
    }

    var everyOfficer: [String] {
      get throws {
        try FileManager.default.contentsOfDirectory(atPath: store + "/data/acquisitions").map {
          String($0.dropLast(".json".count)) + ":/contracting_officer"
        }.sorted()
      }
    }
  }

  /// A plain `list` shows its table's columns only: with no sealed column among them it records
  /// nothing (issue 63), so it works where nothing may be written; `--fields` naming the sealed
  /// field, or JSON (whole documents), records exactly what they show.
  @Test func aListThatShowsNoSealedColumnRecordsNothing() throws {
    try withTemporaryDirectory { dir in
      let fixture = try Fixture(dir)
      let plain = try fixture.run(["list", "acquisition"])
      #expect(plain.status == 0, "\(plain.stderr)")
      #expect(try fixture.accessRecords().isEmpty)
      #expect(try fixture.run(["list", "acquisition", "--fields", "id,title"]).status == 0)
      #expect(try fixture.accessRecords().isEmpty)
      #expect(try fixture.run(["list", "acquisition", "--fields", "id,contracting_officer"]).status == 0)
      #expect(try fixture.accessRecords() == [try fixture.everyOfficer])
      #expect(try fixture.run(["list", "acquisition", "--format", "json"]).status == 0)
      #expect(try fixture.accessRecords().count == 2)
    }
  }

  /// h1 item 1: `set`/`rm --where` over a sealed field records what its filter read under the
  /// lock it already holds (it waited on itself, exit 75), and the lock's note, which other
  /// writers are shown, never carries the plain value of the query.
  @Test func batchWritesOverASealedFilterRecordUnderTheirOwnLock() throws {
    try withTemporaryDirectory { dir in
      let fixture = try Fixture(dir)
      let filter = #"contracting_officer == "J. Alvarez""#
      let (writer, stderr) = try startPaused(
        ["set", "acquisition", "--where", filter, "title=Probe", "--wait", "2"], at: "after-lock", seconds: 2,
        in: fixture.store, environment: fixture.holder)
      let note = try readFile(fixture.store + "/.formsctl/lock")
      #expect(note.contains("formsctl set acquisition --where") && !note.contains("Alvarez"), "\(note)")
      let blocked = try fixture.run(["set", "acquisition", "ACQ-2026-002", "title=Other", "--wait", "0"])
      #expect(blocked.status == 75 && !blocked.stderr.contains("Alvarez"), "\(blocked.stderr)")
      writer.waitUntilExit()
      let said = String(decoding: stderr.readDataToEndOfFile(), as: UTF8.self)
      #expect(writer.terminationStatus == 0, "\(said)")
      #expect(try fixture.anonymous(["get", "acquisition", "ACQ-2026-001", "--field", "title"]).stdout == "Probe\n")
      #expect(try fixture.accessRecords() == [try fixture.everyOfficer])
      let written = try fixture.records().filter { $0["operation"] == .string("set") }
      let log = try readFile(fixture.history)
      #expect(written.count == 1 && !log.contains("Alvarez"))

      let removed = try fixture.run([
        "rm", "acquisition", "--where", #"contracting_officer == "M. Chen""#, "--wait", "2",
      ])
      #expect(removed.status == 0 || removed.status == 65, "\(removed.transcript)")
      #expect(!removed.stderr.contains("locked"), "\(removed.transcript)")
      #expect(try fixture.accessRecords().count == 2)
      // A dry run records its read too (it holds no lock).
      let dry = try fixture.run(["set", "acquisition", "--where", filter, "title=Again", "--dry-run"])
      #expect(dry.status == 0, "\(dry.transcript)")
      #expect(try fixture.accessRecords().count == 3)
      #expect(!(try readFile(fixture.history)).contains("Chen"))
    }
  }

  /// h1 item 2: `diff` compares every opened sealed value of both documents; an equal pair has
  /// no row, which tells the value as a row would: the comparison is recorded either way.
  @Test func diffRecordsEverySealedValueItCompared() throws {
    try withTemporaryDirectory { dir in
      let fixture = try Fixture(dir)
      let created = try fixture.run([
        "new", "acquisition", "--set", "id=ACQ-2026-099", "--set", "title=probe", "--set", "agency=x", "--set",
        "contracting_officer=J. Alvarez",
      ])
      #expect(created.status == 0, "\(created.transcript)")
      let before = try fixture.accessRecords().count
      let equal = try fixture.run(["diff", "acquisition", "ACQ-2026-001", "ACQ-2026-099"])
      #expect(!equal.stdout.contains("contracting_officer"), "\(equal.transcript)")
      let records = try fixture.accessRecords()
      #expect(records.count == before + 1, "\(equal.transcript)")
      #expect(records.last == ["ACQ-2026-001:/contracting_officer", "ACQ-2026-099:/contracting_officer"])
      // Without an identity nothing is opened, and nothing recorded.
      _ = try fixture.anonymous(["diff", "acquisition", "ACQ-2026-001", "ACQ-2026-099"])
      #expect(try fixture.accessRecords().count == before + 1)
    }
  }

  /// h1 item 3: `validate` with an identity judges value rules on the sealed form, as without
  /// one: a pattern on a sensitive field must not tell which sealed values match it.
  @Test func validateIsNoOracleForSealedValues() throws {
    try withTemporaryDirectory { dir in
      let fixture = try Fixture(dir)
      let descriptor = dir + "/schemas/acquisition/1.1.0.yaml"
      try FileManager.default.copyItem(
        atPath: Formsctl.packageRoot.appendingPathComponent("schemas").path, toPath: dir + "/schemas")
      try writeFile(exampleManifest(schemas: dir + "/schemas"), to: fixture.store + "/formsctl.yaml")
      let text = try readFile(descriptor)
      let probe = text.replacingOccurrences(
        of: "contracting_officer: {type: string, optional: true, sensitive: true",
        with: "contracting_officer: {type: string, optional: true, sensitive: true, pattern: '^J'")
      #expect(probe != text)
      try writeFile(probe, to: descriptor)
      let anonymous = try fixture.anonymous(["validate"])
      let holder = try fixture.run(["validate"])
      #expect(holder.stdout == anonymous.stdout && holder.status == anonymous.status, "\(holder.transcript)")
      #expect(!holder.stdout.contains("ACQ-2026-002.json") || !holder.stdout.contains("contracting_officer"))
      #expect(try fixture.accessRecords().isEmpty)
    }
  }

  /// h1 item 4: plain text in a sensitive field of a template is reported by `schema check`.
  @Test func aTemplateWithPlainSensitiveTextIsReported() throws {
    try withTemporaryDirectory { dir in
      let fixture = try Fixture(dir)
      try FileManager.default.createDirectory(
        atPath: fixture.store + "/templates/acquisition", withIntermediateDirectories: true)
      let before = try fixture.anonymous(["schema", "check"])
      try writeFile(
        #"{"title": "{{title}}", "agency": "GSA", "contracting_officer": "{{officer}}"}"# + "\n",
        to: fixture.store + "/templates/acquisition/held.json")
      #expect(try fixture.anonymous(["schema", "check"]).stdout == before.stdout)
      try writeFile(
        #"{"title": "{{title}}", "agency": "GSA", "contracting_officer": "K. Secretname"}"# + "\n",
        to: fixture.store + "/templates/acquisition/plain.json")
      let check = try fixture.anonymous(["schema", "check"])
      #expect(check.status == 1, "\(check.transcript)")
      #expect(check.transcript.contains("plain.json:1:"), "\(check.transcript)")
      #expect(check.transcript.contains("[sensitive]"), "\(check.transcript)")
      #expect(!check.transcript.contains("Secretname"), "\(check.transcript)")
    }
  }
}
