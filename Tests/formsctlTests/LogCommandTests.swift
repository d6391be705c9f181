import FormsTestSupport
import Foundation
import Testing

struct LogCommandTests {
  @Test func anIdPrefixNamesTheDocumentAsEverywhereElse() throws {
    try withTemporaryDirectory { dir in
      let env = try makeStore(dir)
      func run(_ args: [String]) throws -> RunResult { try Formsctl.run(args, in: dir + "/store", environment: env) }
      for id in ["ACQ-2026-001", "ACQ-2026-101"] {
        #expect(
          try run(["new", "acquisition", "--set", "id=\(id)", "--set", "title=T", "--set", "agency=GSA"]).status == 0)
      }
      let exact = try run(["log", "acquisition", "ACQ-2026-001"])
      #expect(exact.stdout.contains("create acquisition ACQ-2026-001"))
      #expect(try run(["log", "acquisition", "ACQ-2026-0"]).stdout == exact.stdout)
      let ambiguous = try run(["log", "acquisition", "ACQ-2026"])
      #expect(ambiguous.status == 64, "\(ambiguous.stderr)")
      #expect(ambiguous.stderr.contains("ACQ-2026-001") && ambiguous.stderr.contains("ACQ-2026-101"))
    }
  }

  @Test func whoChangedWhat() throws {
    try withTemporaryDirectory { dir in
      var env = try makeStore(dir)
      env["USER"] = "ada"
      env["HOME"] = dir
      env["GIT_CONFIG_NOSYSTEM"] = "1"
      let store = dir + "/store"
      func run(_ args: [String]) throws -> RunResult { try Formsctl.run(args, in: store, environment: env) }
      #expect(
        try run(["new", "acquisition", "--set", "id=ACQ-2026-001", "--set", "title=Chairs", "--set", "agency=GSA"])
          .status == 0)
      env["FORMSCTL_NOW"] = "2026-11-23T09:00:00Z"
      #expect(try run(["status", "acquisition", "ACQ-2026-001", "solicitation"]).status == 0)
      let back = try run(["set", "acquisition", "ACQ-2026-001", "status=planning"])
      #expect(
        back
          == RunResult(
            status: 65, stdout: "",
            stderr:
              "formsctl: error: acquisition ACQ-2026-001 is solicitation; it cannot move to planning. Allowed next: evaluation, cancelled\n"
          ))
      let text = try run(["log", "acquisition", "ACQ-2026-001"])
      #expect(
        text
          == RunResult(
            status: 0,
            stdout: """
              2026-11-23T09:00:00Z  status  by ada
                $ formsctl status acquisition ACQ-2026-001 solicitation
                update acquisition ACQ-2026-001: /last_modified_date /status  [planning → solicitation]
              2026-11-22T08:00:00Z  new  by ada
                $ formsctl new acquisition --set id=ACQ-2026-001 --set title=Chairs --set agency=GSA
                create acquisition ACQ-2026-001  [· → planning]

              """, stderr: ""))
      let json = try run(["log", "--format", "json", "--limit", "1"])
      let records = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
      #expect(records?.count == 1 && records?.first?["operation"] as? String == "status")
      #expect(try run(["log", "--since", "2026-11-23", "--format", "ndjson"]).stdout.split(separator: "\n").count == 1)
      #expect(try run(["log", "purchase-order"]).stdout == "")
      let unknown = try run(["log", "acquisitoin"])
      #expect(
        unknown.status == 65 && unknown.stderr.contains("unknown kind \"acquisitoin\"; did you mean \"acquisition\"?"))
      #expect(try run(["log", "--since", "yesterday"]).status == 64)
      #expect(try run(["log", "--limit", "0"]).status == 64)
      let history = store + "/.formsctl/history.jsonl"
      try writeFile(try readFile(history) + "{not json\n", to: history)
      let damaged = try run(["log", "--format", "ndjson"])
      #expect(damaged.status == 65)
      #expect(damaged.stdout.split(separator: "\n").count == 2, "the rest is still shown")
      #expect(
        damaged.stderr
          == "formsctl: error: .formsctl/history.jsonl:3:2: unexpected 'n'; expected a key in double quotes; this record is skipped\n"
      )
    }
  }
}
