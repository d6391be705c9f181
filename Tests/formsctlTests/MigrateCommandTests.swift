import FormsTestSupport
import Foundation
import Testing

/// SHA-256-free tree fingerprint: every file's relative path and bytes (hidden state excluded).
func treeContents(_ root: String, under sub: String = "data") throws -> [String: Data] {
  var out: [String: Data] = [:]
  let base = root + "/" + sub
  for path in try FileManager.default.subpathsOfDirectory(atPath: base) {
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: base + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue {
      out[path] = try Data(contentsOf: URL(fileURLWithPath: base + "/" + path))
    }
  }
  return out
}

struct MigrateCommandTests {
  /// The legacy example with its own copy of the schemas inside the store.
  static func legacyStore(_ dir: String) throws -> String {
    let store = dir + "/legacy"
    try FileManager.default.copyItem(
      atPath: Formsctl.packageRoot.appendingPathComponent("examples/legacy").path, toPath: store)
    try FileManager.default.copyItem(
      atPath: Formsctl.packageRoot.appendingPathComponent("schemas").path, toPath: store + "/schemas")
    try writeFile(exampleManifest(schemas: nil), to: store + "/formsctl.yaml")
    return store
  }

  static let env = ["FORMSCTL_NOW": "2026-11-22T08:00:00Z"]

  @Test func legacyExampleMigratesAndComesBack() throws {
    try withTemporaryDirectory { dir in
      let store = try Self.legacyStore(dir)
      let original = try treeContents(store)
      let dry = try Formsctl.run(["migrate", "--dry-run"], in: store, environment: Self.env)
      #expect(dry.status == 0)
      #expect(
        dry.stdout.contains("form 1.0.0 → 2.0.0: 21 documents") && dry.stdout.contains("dry run: nothing written"))
      #expect(try treeContents(store) == original, "a dry run writes nothing")
      #expect(!FileManager.default.fileExists(atPath: store + "/.formsctl/snapshots"))
      let run = try Formsctl.run(["migrate"], in: store, environment: Self.env)
      #expect(run.status == 0, "\(run.stderr)")
      #expect(
        run.stdout.contains("migrated 37 documents")
          && run.stdout.contains("the state before is snapshot 2026-11-22T08-00-00Z"))
      #expect(
        try Formsctl.run(["validate"], in: store).stdout == "checked 42 documents of 5 kinds: 42 valid, 0 invalid\n")
      #expect(try Formsctl.run(["fmt", "--check"], in: store).status == 0)
      let status = try Formsctl.run(["migrate", "status", "--format", "json"], in: store)
      #expect(!status.stdout.contains("\"behind\": 1"))
      #expect(status.stdout.contains("\"last_migrated\": \"2026-11-22T08:00:00Z\""), "\(status.stdout)")
      let table = try Formsctl.run(["migrate", "status"], in: store)
      #expect(table.stdout.contains("last migration: 2026-11-22T08:00:00Z"), "\(table.stdout)")
      let history = try readFile(store + "/.formsctl/history.jsonl")
      #expect(history.contains("\"operation\":\"migrate\"") && history.contains("\"schemas/form/2.0.0.yaml\":\""))
      let migrated = try Formsctl.run(["log", "form", "--format", "json"], in: store)
      let records = try JSONSerialization.jsonObject(with: Data(migrated.stdout.utf8)) as? [[String: Any]]
      #expect((records?.first?["documents"] as? [[String: Any]])?.count == 21, "one record lists every migrated form")
      #expect(
        ((records?.first?["documents"] as? [[String: Any]])?.first?["pointers"] as? [String])?.contains("/form_number")
          == true)
      // form's steps all invert: going back gives the legacy files byte for byte.
      let back = try Formsctl.run(
        ["migrate", "--kind", "form", "--to", "1.0.0", "--no-snapshot"], in: store, environment: Self.env)
      #expect(back.status == 0, "\(back.stderr)")
      let forms = try treeContents(store).filter { $0.key.hasPrefix("forms/") }
      #expect(forms == original.filter { $0.key.hasPrefix("forms/") })
      let forecast = try Formsctl.run(
        ["migrate", "--kind", "forecast", "--to", "1.0.0"], in: store, environment: Self.env)
      #expect(forecast.status == 65)
      #expect(
        forecast.stderr.contains(
          "change 11 (remove cagrPercent) cannot be undone (5 documents at 2.0.0); restore a snapshot instead"))
    }
  }

  @Test func oneFailingDocumentWritesNothing() throws {
    try withTemporaryDirectory { dir in
      let store = try Self.legacyStore(dir)
      let forms = try FileManager.default.contentsOfDirectory(atPath: store + "/data/forms").sorted()
      let victim = store + "/data/forms/" + forms[3]
      try writeFile(
        try readFile(victim).replacingOccurrences(of: "\"status\": \"InReview\"", with: "\"status\": \"Archived\"")
          .replacingOccurrences(of: "\"status\": \"Draft\"", with: "\"status\": \"Archived\""), to: victim)
      let before = try treeContents(store)
      let run = try Formsctl.run(["migrate"], in: store, environment: Self.env)
      #expect(run.status == 65)
      #expect(run.stderr.contains("data/forms/\(forms[3]): error: status: \"Archived\" is not one of"), "\(run.stderr)")
      #expect(run.stderr.contains("formsctl: error: 1 document cannot be migrated (1 problem above); nothing written"))
      #expect(try treeContents(store) == before)
      let skipping = try Formsctl.run(["migrate", "--skip-invalid"], in: store, environment: Self.env)
      #expect(skipping.status == 0)
      #expect(skipping.stdout.contains("skipped (invalid before migrating): data/forms/\(forms[3])"))
      #expect(try readFile(victim).contains("form@1.0.0"))
    }
  }

  @Test func historyRefusesAnEditedDescriptorUntilRepaired() throws {
    try withTemporaryDirectory { dir in
      let store = try Self.legacyStore(dir)
      #expect(
        try Formsctl.run(["migrate", "--kind", "purchase-order", "--no-snapshot"], in: store, environment: Self.env)
          .status == 0)
      let descriptor = store + "/schemas/purchase-order/1.1.0.yaml"
      // Reformatting (a comment, blank lines) is not a change.
      try writeFile("# reviewed 2026-11\n\n" + (try readFile(descriptor)), to: descriptor)
      #expect(try Formsctl.run(["migrate", "--dry-run"], in: store).status == 0)
      #expect(try Formsctl.run(["migrate", "--kind", "form", "--no-snapshot"], in: store).status == 0)
      try writeFile(
        try readFile(descriptor).replacingOccurrences(of: "title: Purchase order", with: "title: Purchase orders"),
        to: descriptor)
      let refused = try Formsctl.run(["migrate", "--no-snapshot"], in: store)
      #expect(refused.status == 65)
      #expect(
        refused.stderr.contains(
          "schemas/purchase-order/1.1.0.yaml changed since the migration of 2026-11-22T08:00:00Z used it"),
        "\(refused.stderr)")
      let repair = try Formsctl.run(["migrate", "repair"], in: store)
      #expect(repair.stdout == "recorded the new checksum of schemas/purchase-order/1.1.0.yaml\n")
      #expect(try Formsctl.run(["migrate", "--no-snapshot"], in: store).status == 0)
    }
  }

  /// `migrate --dry-run` and `migrate status` say what the run would: a descriptor
  /// changed since a migration used it is refused (the same message, exit 65) and shown.
  @Test func dryRunAndStatusSayADescriptorChanged() throws {
    try withTemporaryDirectory { dir in
      let store = try Self.legacyStore(dir)
      #expect(
        try Formsctl.run(["migrate", "--kind", "purchase-order", "--no-snapshot"], in: store, environment: Self.env)
          .status == 0)
      let descriptor = store + "/schemas/purchase-order/1.1.0.yaml"
      try writeFile(
        try readFile(descriptor).replacingOccurrences(of: "title: Purchase order", with: "title: Purchase orders"),
        to: descriptor)
      let message = "schemas/purchase-order/1.1.0.yaml changed since the migration of 2026-11-22T08:00:00Z used it"
      let real = try Formsctl.run(["migrate", "--no-snapshot"], in: store)
      let dry = try Formsctl.run(["migrate", "--dry-run"], in: store)
      #expect(real.status == 65 && real.stderr.contains(message), "\(real.transcript)")
      #expect(dry.status == 65 && dry.stderr == real.stderr && dry.stdout.isEmpty, "\(dry.transcript)")
      let status = try Formsctl.run(["migrate", "status"], in: store)
      #expect(status.status == 0, "\(status.transcript)")
      #expect(
        status.stdout.contains("refused: " + message) && status.stdout.contains("formsctl migrate repair"),
        "\(status.stdout)")
      let json = try JSONSerialization.jsonObject(
        with: Data(try Formsctl.run(["migrate", "status", "--format", "json"], in: store).stdout.utf8))
      let kinds = (json as? [[String: Any]]) ?? []
      let changed =
        kinds.first { $0["kind"] as? String == "purchase-order" }?["changed_descriptors"] as? [[String: Any]]
      #expect(changed?.first?["path"] as? String == "schemas/purchase-order/1.1.0.yaml", "\(kinds)")
      #expect(changed?.first?["migrated_at"] as? String == "2026-11-22T08:00:00Z")
      #expect((kinds.first { $0["kind"] as? String == "form" }?["changed_descriptors"] as? [Any])?.isEmpty == true)
      // Repaired: the dry run plans again and status says nothing of it.
      #expect(try Formsctl.run(["migrate", "repair"], in: store).status == 0)
      let again = try Formsctl.run(["migrate", "--dry-run"], in: store)
      #expect(again.status == 0 && again.stdout.contains("dry run: nothing written"), "\(again.transcript)")
      #expect(!(try Formsctl.run(["migrate", "status"], in: store).stdout.contains("refused:")))
    }
  }

  /// A store of `count` documents of kind `item` at 1.0.0, with 2.0.0 = one rename + one add.
  static let jq = ["/usr/bin/jq", "/usr/local/bin/jq"].first { FileManager.default.isExecutableFile(atPath: $0) }

  @Test(.enabled(if: jq != nil, "jq is not installed"))
  func jqStepThatEmitsANonObjectIsReported() throws {
    try withTemporaryDirectory { dir in
      try itemStore(dir, count: 3, extraChange: "  - jq: '.note'\n")
      let run = try Formsctl.run(["migrate"], in: dir)
      #expect(run.status == 65)
      #expect(
        run.stderr.contains("item 1.0.0 → 2.0.0, change 3 (jq .note): the jq filter produced a string, not an object"),
        "\(run.stderr)")
      try writeFile(
        try readFile(dir + "/schemas/item/2.0.0.yaml").replacingOccurrences(
          of: "'.note'", with: "'.note = (.note | ascii_upcase)'"), to: dir + "/schemas/item/2.0.0.yaml")
      #expect(try Formsctl.run(["migrate"], in: dir).status == 0)
      #expect(try readFile(dir + "/data/items/i1.json").contains("\"note\": \"ITEM NUMBER 1\""))
    }
  }

  @Test func badTargetsAreRefused() throws {
    try withTemporaryDirectory { dir in
      try itemStore(dir, count: 2)
      let missing = try Formsctl.run(["migrate", "--kind", "item", "--to", "3.0.0"], in: dir)
      #expect(
        missing
          == RunResult(
            status: 65, stdout: "", stderr: "formsctl: error: item has no version 3.0.0 (versions: 1.0.0, 2.0.0)\n"))
      let noKind = try Formsctl.run(["migrate", "--to", "2.0.0"], in: dir)
      #expect(
        noKind
          == RunResult(
            status: 64, stdout: "", stderr: "formsctl: error: --to needs --kind: versions belong to one kind\n"))
      try writeFile(
        try readFile(dir + "/schemas/item/2.0.0.yaml").replacingOccurrences(of: "from: 1.0.0", with: "from: 1.5.0"),
        to: dir + "/schemas/item/2.0.0.yaml")
      let gap = try Formsctl.run(["migrate", "--dry-run"], in: dir)
      #expect(gap.status == 65)
      #expect(gap.stderr.contains("from: 1.5.0 names a version of item that does not exist"), "\(gap.stderr)")
    }
  }
}
