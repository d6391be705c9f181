import FormsTestSupport
import Foundation
import Testing

struct FmtCommandTests {
  static let badFiles: [(String, [UInt8])] = [
    ("bom.json", [0xEF, 0xBB, 0xBF] + Array("{}".utf8)),
    ("comment.json", Array("{\n  // why\n  \"a\": 1\n}\n".utf8)),
    ("cut.json", Array("{\"a\": [1, 2".utf8)),
    ("deep.json", Array((String(repeating: "[", count: 600) + String(repeating: "]", count: 600)).utf8)),
    ("dup.json", Array("{\n  \"a\": 1,\n  \"a\": 2\n}\n".utf8)),
    ("empty.json", []),
    ("latin1.json", Array("{\"a\": \"caf".utf8) + [0xE9] + Array("\"}".utf8)),
    ("nan.json", Array("{\"a\": NaN}".utf8)),
    ("trailing.json", Array("[1, 2,]".utf8)),
    ("zero.json", Array("{\"a\": 007}".utf8)),
  ]

  @Test func badInputIsReportedWithPositionsAndNothingIsWritten() throws {
    try withTemporaryDirectory { dir in
      for (name, bytes) in Self.badFiles { try writeBytes(bytes, to: dir + "/" + name) }
      try writeFile("{\"z\": 1, \"a\": 12.50}", to: dir + "/good.json")
      let result = try Formsctl.run(["fmt"], in: dir)
      try assertSnapshot(result, named: "fmt-bad-input")
      #expect(result.status == 65)
      for (name, bytes) in Self.badFiles {
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name)) == Data(bytes), "\(name) was changed")
      }
      // The good file was still formatted.
      #expect(try readFile(dir + "/good.json") == "{\n  \"a\": 12.50,\n  \"z\": 1\n}\n")
    }
  }

  @Test func checkListsAndExitsOneThenFmtFixes() throws {
    try withTemporaryDirectory { dir in
      try writeFile("{\"b\": [], \"a\": 1e400}", to: dir + "/data/x.json")
      try writeFile("{\n  \"a\": 1\n}\n", to: dir + "/data/y.json")
      try writeFile("{\"ignored\":1}", to: dir + "/.build/z.json")
      let check = try Formsctl.run(["fmt", "--check"], in: dir)
      #expect(check == RunResult(status: 1, stdout: "data/x.json\n", stderr: ""))
      let fix = try Formsctl.run(["fmt"], in: dir)
      #expect(fix == RunResult(status: 0, stdout: "formatted data/x.json\n", stderr: ""))
      #expect(try readFile(dir + "/data/x.json") == "{\n  \"a\": 1e400,\n  \"b\": []\n}\n")
      #expect(try Formsctl.run(["fmt", "--check"], in: dir).status == 0)
      #expect(try readFile(dir + "/.build/z.json") == "{\"ignored\":1}")
    }
  }

  @Test func largeFileIsRefused() throws {
    try withTemporaryDirectory { dir in
      try writeBytes([], to: dir + "/big.json")
      let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: dir + "/big.json"))
      try handle.truncate(atOffset: 64 << 20 + 1)
      try handle.close()
      let result = try Formsctl.run(["fmt", "big.json"], in: dir)
      #expect(result.status == 65)
      #expect(
        result.stderr
          == "big.json:1:1: error: the file is 67108865 bytes, more than the limit of 67108864 bytes (64 MiB) [read]\n")
    }
  }

  @Test func aFileInAStoreIsFormattedUnderThatStoresLockFromAnywhere() throws {
    try withTemporaryDirectory { dir in
      _ = try Formsctl.run(["init", "store"], in: dir)
      try writeFile("{\"b\": 1, \"a\": 2}", to: dir + "/store/data/notes/x.json")
      try writeFile(
        "{\"operation\":\"rm acquisition ACQ-2026-001\"}\n", to: dir + "/store/.formsctl/journal/plan.ndjson")
      let refused = try Formsctl.run(["fmt", "store/data/notes/x.json"], in: dir)
      #expect(refused.status == 75, "\(refused)")
      #expect(refused.stderr.contains("awaits recovery; run `formsctl recover` first"))
      #expect(try readFile(dir + "/store/data/notes/x.json") == "{\"b\": 1, \"a\": 2}")
      try FileManager.default.removeItem(atPath: dir + "/store/.formsctl/journal/plan.ndjson")
      #expect(try Formsctl.run(["fmt", "store/data/notes/x.json"], in: dir).status == 0)
      #expect(try readFile(dir + "/store/data/notes/x.json") == "{\n  \"a\": 2,\n  \"b\": 1\n}\n")
    }
  }

  @Test func missingPathIsNoInput() throws {
    try withTemporaryDirectory { dir in
      let result = try Formsctl.run(["fmt", "nope.json"], in: dir)
      #expect(
        result == RunResult(status: 66, stdout: "", stderr: "formsctl: error: nope.json: no such file or directory\n"))
    }
  }
}

struct RootCommandTests {
  @Test func versionAndHelp() throws {
    try withTemporaryDirectory { dir in
      let version = try Formsctl.run(["--version"], in: dir)
      #expect(version.status == 0)
      #expect(version.stdout.split(separator: ".").count == 3)
      let help = try Formsctl.run(["--help"], in: dir)
      #expect(help.status == 0)
      #expect(help.stdout.contains("fmt"))
      #expect(help.stdout.contains("Exit codes"))
    }
  }

  @Test func usageErrorsExit64() throws {
    try withTemporaryDirectory { dir in
      let badOption = try Formsctl.run(["fmt", "--bogus"], in: dir)
      #expect(badOption.status == 64)
      let badCommand = try Formsctl.run(["no-such-command"], in: dir)
      #expect(badCommand.status == 64)
    }
  }
}
