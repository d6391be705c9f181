import FormsTestSupport
import Foundation
import Testing

/// Hostile options and files through the binary: each ends in its exit code and one message line,
/// never a trap, a hang or a write.
struct HardeningCommandTests {
  func store(_ dir: String) throws {
    _ = try Formsctl.run(["init", "."], in: dir)
    _ = try Formsctl.run(
      ["new", "acquisition", "--set", "id=ACQ-2026-001", "--set", "title=T", "--set", "agency=A"], in: dir)
  }

  @Test(arguments: [["--limit=-1"], ["--offset=-5"], ["--wait=-1"], ["--wait=nan"]])
  func negativeOrNonsenseWindowsAreUsageErrors(_ options: [String]) throws {
    try withTemporaryDirectory { dir in
      try store(dir)
      let result = try Formsctl.run(["list", "acquisition"] + options, in: dir)
      #expect(result.status == 64, "\(result)")
    }
  }

  @Test func windowsThatWouldOverflowAreEmptyOrWhole() throws {
    try withTemporaryDirectory { dir in
      try store(dir)
      let max = String(Int.max)
      let beyond = try Formsctl.run(
        ["list", "acquisition", "--offset", max, "--limit", max, "--format", "paths"], in: dir)
      #expect(beyond == RunResult(status: 0, stdout: "", stderr: ""))
      let whole = try Formsctl.run(["list", "acquisition", "--limit", max, "--format", "paths"], in: dir)
      #expect(whole == RunResult(status: 0, stdout: "data/acquisitions/ACQ-2026-001.json\n", stderr: ""))
    }
  }

  @Test func anOverflowingRetentionIsAMessageEvenForRecover() throws {
    try withTemporaryDirectory { dir in
      try store(dir)
      try writeFile("formsctl: 1\nsnapshots:\n  keep_within: 99999999999999999w\n", to: dir + "/formsctl.yaml")
      let result = try Formsctl.run(["recover"], in: dir)
      #expect(result.status == 65)
      #expect(
        result.stderr.contains(
          "formsctl.yaml:3:16: 99999999999999999w is longer than 100 years, the longest duration accepted"),
        "\(result.stderr)")
    }
  }

  @Test func aRuleNestedFortyThousandDeepIsADescriptorError() throws {
    try withTemporaryDirectory { dir in
      try store(dir)
      let deep = String(repeating: "(", count: 40_000) + "title exists" + String(repeating: ")", count: 40_000)
      let path = dir + "/schemas/acquisition/1.0.0.yaml"
      try writeFile(try readFile(path) + "rules:\n  - require: '\(deep)'\n    message: deep\n", to: path)
      let check = try Formsctl.run(["schema", "check"], in: dir)
      #expect(check.status == 1, "\(check.stderr.prefix(300))")
      #expect(check.stdout.contains("nested more than 64 deep"))
      #expect(try Formsctl.run(["validate"], in: dir).status == 65)
    }
  }

  @Test func fmtAndValidateOfAFIFONeverBlock() throws {
    try withTemporaryDirectory { dir in
      try store(dir)
      let fifo = dir + "/data/acquisitions/ACQ-2026-002.json"
      #expect(mkfifo(fifo, 0o644) == 0)
      let fmt = try Formsctl.run(["fmt", "data/acquisitions/ACQ-2026-002.json"], in: dir)
      #expect(fmt.status == 65)
      #expect(fmt.stderr.contains("is a FIFO, not a regular file"), "\(fmt.stderr)")
      let validate = try Formsctl.run(["validate", "data/acquisitions/ACQ-2026-002.json"], in: dir)
      #expect(validate.status == 1, "\(validate)")
      let set = try Formsctl.run(["set", "acquisition", "ACQ-2026-002", "title=x"], in: dir)
      #expect(set.status == 65)
      let rm = try Formsctl.run(["rm", "acquisition", "ACQ-2026-002"], in: dir)
      #expect(rm.status == 65 || rm.status == 66, "\(rm)")
      #expect(isFIFO(fifo))
    }
  }

  func isFIFO(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO
  }
}
