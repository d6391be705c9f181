import FormsCore
import FormsTestSupport
import Foundation
import Testing

/// `formsctl stats`: counts, shares and exact sums by a field; the workflow's times from the log.
struct StatsCommandTests {
  @Test func countsSharesAndExactSums() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      func run(_ arguments: [String]) throws -> RunResult { try Formsctl.run(arguments, in: store, environment: env) }
      let byStatus = try run(["stats", "form", "--by", "status", "--format", "csv"])
      #expect(byStatus.status == 0, "\(byStatus.stderr)")
      #expect(byStatus.stdout.hasPrefix("status,count,percent\ndraft,6,28.6\n"), "\(byStatus.stdout)")
      let sums = try JSONParser().parse(
        Array(try run(["stats", "acquisition", "--sum", "estimated_value", "--format", "json"]).stdout.utf8))
      #expect(JSONWriter.compact(sums[pointer: JSONPointer("/0/sum_estimated_value")!] ?? .null) == "1389450.75")
      let items = try run(["stats", "purchase-order", "--by", "items[].product_item_id", "--format", "csv"])
      #expect(items.stdout.contains("\n100,6,100.0\n"), "a list counts each document once per value: \(items.stdout)")
      let filtered = try run(["stats", "form", "--where", "acquisition_id == \"ACQ-2026-001\"", "--format", "json"])
      #expect(filtered.stdout.contains("\"count\": 5"), "\(filtered.stdout)")
    }
  }

  @Test func theWorkflowsTimesComeFromTheAuditLog() throws {
    try withTemporaryDirectory { dir in
      var env = try makeStore(dir)
      let store = dir + "/store"
      func run(_ arguments: [String]) throws -> RunResult { try Formsctl.run(arguments, in: store, environment: env) }
      for (id, agency) in [("ACQ-2026-001", "GSA"), ("ACQ-2026-002", "VA")] {
        #expect(
          try run(["new", "acquisition", "--set", "id=\(id)", "--set", "title=T", "--set", "agency=\(agency)"]).status
            == 0)
      }
      env["FORMSCTL_NOW"] = "2026-11-23T08:00:00Z"  // a day after makeStore's clock
      #expect(try run(["status", "acquisition", "ACQ-2026-001", "cancelled"]).status == 0)
      env["FORMSCTL_NOW"] = "2026-11-22T14:00:00Z"
      #expect(try run(["status", "acquisition", "ACQ-2026-002", "solicitation"]).status == 0)
      let report = try run(["stats", "acquisition", "--workflow", "--format", "csv"])
      #expect(report.status == 0, "\(report.stderr)")
      #expect(report.stdout.contains("\nplanning,2,"), "\(report.stdout)")
      let table = try run(["stats", "acquisition", "--workflow"])
      #expect(table.stdout.contains("completion: 1 of 2 acquisition documents"), "\(table.stdout)")
      let json = try JSONParser().parse(
        Array(try run(["stats", "acquisition", "--workflow", "--format", "json"]).stdout.utf8))
      let planning = json.arrayValue?.first { $0["state"] == .string("planning") }
      #expect(planning?["median_seconds"] != nil && planning?["now"] == .number(JSONNumber(0)))
    }
  }

  @Test func badRequestsAreRefused() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      for (arguments, status, message) in [
        (["stats", "nope"], Int32(65), "unknown kind"),
        (["stats", "form", "--by", "statuz"], 64, "did you mean"),
        (["stats", "form", "--by", "a..b"], 64, "not a field path"),
        (["stats", "form", "--workflow", "--by", "status"], 64, "--workflow reads the audit log"),
        (["stats", "scenario", "--workflow"], 65, "scenario has no workflow"),
        (["stats", "acquisition", "--by", "contracting_officer"], 65, "contracting_officer"),
      ] {
        let result = try Formsctl.run(arguments, in: store, environment: env)
        #expect(result.status == status, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
      }
    }
  }
}
