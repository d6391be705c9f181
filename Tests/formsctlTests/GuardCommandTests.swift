import FormsTestSupport
import Foundation
import Testing

/// The guards through the binary: what a value, a feed or a slip of the hand must never do to the
/// terminal, a secret or the store.
struct GuardCommandTests {
  func store(_ dir: String) throws {
    #expect(try Formsctl.run(["init", "."], in: dir).status == 0)
    let created = try Formsctl.run(
      ["new", "acquisition", "--set", "id=ACQ-2026-001", "--set", "title=T\u{1B}[31mred\rforged", "--set", "agency=A"],
      in: dir)
    #expect(created.status == 0, "\(created)")
  }

  @Test func tablesAndTheLogEscapeControlCharactersFromData() throws {
    try withTemporaryDirectory { dir in
      try store(dir)
      let table = try Formsctl.run(["list", "acquisition", "--fields", "id,title"], in: dir)
      #expect(table.stdout.contains(#"T\u001b[31mred\rforged"#), "\(table.stdout)")
      #expect(!table.stdout.contains("\u{1B}") && !table.stdout.contains("\r"))
      let log = try Formsctl.run(["log"], in: dir)
      #expect(log.stdout.contains(#"title=T\u001b[31mred\rforged"#), "\(log.stdout)")
      #expect(!log.stdout.contains("\u{1B}") && !log.stdout.contains("\r"))
    }
  }

  @Test func fmtCheckFailsWhenTheDataDirectoryIsALink() throws {
    try withTemporaryDirectory { dir in
      try FileManager.default.createDirectory(atPath: dir + "/s", withIntermediateDirectories: true)
      try store(dir + "/s")
      try FileManager.default.moveItem(atPath: dir + "/s/data", toPath: dir + "/elsewhere")
      try FileManager.default.createSymbolicLink(atPath: dir + "/s/data", withDestinationPath: dir + "/elsewhere")
      try writeFile(#"{"b": 1,   "a": 2}"#, to: dir + "/elsewhere/acquisitions/x.json")
      for args in [["fmt", "--check"], ["validate"], ["list", "acquisition"]] {
        let result = try Formsctl.run(args, in: dir + "/s")
        #expect(result.status == 65, "\(args): \(result)")
        #expect(result.stderr.contains("data is a symbolic link, not a directory"), "\(args): \(result.stderr)")
      }
    }
  }

  @Test func initOverNothingItDidNotMakeAndPruneBoundsThroughTheBinary() throws {
    try withTemporaryDirectory { dir in
      try store(dir)
      try FileManager.default.removeItem(atPath: dir + "/formsctl.yaml")
      try writeFile("kind: form\n# ours\n", to: dir + "/schemas/form/1.0.0.yaml")
      let again = try Formsctl.run(["init", "."], in: dir)
      #expect(again.status == 0)
      #expect(
        again.stderr
          == "formsctl: warning: kept as they were, differing from the built-ins (init never overwrites): schemas/form/1.0.0.yaml\n"
      )
      #expect(try readFile(dir + "/schemas/form/1.0.0.yaml") == "kind: form\n# ours\n")
      try FileManager.default.removeItem(atPath: dir + "/schemas/form/1.0.0.yaml")
      #expect(try Formsctl.run(["init", "."], in: dir).status == 65, "a store again: refused")
      try FileManager.default.removeItem(atPath: dir + "/formsctl.yaml")
      let restored = try Formsctl.run(["init", "."], in: dir)
      #expect(restored.status == 0 && restored.stderr.isEmpty, "\(restored)")
      try writeFile("[]", to: dir + "/empty.json")
      let pruned = try Formsctl.run(["import", "acquisition", "empty.json", "--prune", "--no-snapshot"], in: dir)
      #expect(pruned.status == 65)
      #expect(pruned.stderr.hasPrefix("formsctl: error: --prune would remove 1 of 1 acquisition document (100%)"))
      let unbounded = try Formsctl.run(["import", "acquisition", "empty.json", "--max-prune", "3"], in: dir)
      #expect(unbounded.status == 64)
    }
  }
}
