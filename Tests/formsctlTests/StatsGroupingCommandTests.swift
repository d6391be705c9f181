import FormsCore
import FormsTestSupport
import Foundation
import Testing

/// `formsctl stats` by calendar buckets and two levels, with exact averages, minimums and maximums.
struct StatsGroupingCommandTests {
  /// A store with a kind `entry` (`id`, `group`, `amount: number?`, `on: date?`, `at: datetime?`,
  /// `note: string?`) and the documents `rows`: id, group, and the JSON text of amount, on and at
  /// (nil leaves the member out).
  static func entryStore(_ dir: String, _ rows: [(String, String, String?, String?, String?)]) throws -> (
    String, [String: String]
  ) {
    let env = try makeStore(dir)
    let store = dir + "/store"
    try FileManager.default.createDirectory(atPath: store + "/schemas/entry", withIntermediateDirectories: true)
    try writeFile(
      """
      kind: entry
      version: 1.0.0
      title: Entry
      directory: entries
      id: id
      fields:
        id: string
        group: string
        amount: number?
        on: date?
        at: datetime?
        note: string?

      """, to: store + "/schemas/entry/1.0.0.yaml")
    try FileManager.default.createDirectory(atPath: store + "/data/entries", withIntermediateDirectories: true)
    for (id, group, amount, on, at) in rows {
      var members = ["\"_schema\": \"entry@1.0.0\"", "\"group\": \"\(group)\"", "\"id\": \"\(id)\""]
      if let amount { members.append("\"amount\": \(amount)") }
      if let on { members.append("\"on\": \(on)") }
      if let at { members.append("\"at\": \(at)") }
      try writeFile("{\n  " + members.joined(separator: ",\n  ") + "\n}\n", to: store + "/data/entries/\(id).json")
    }
    return (store, env)
  }

  static let rows: [(String, String, String?, String?, String?)] = [
    ("e1", "a", "0.1", "\"2026-11-27\"", "\"2026-12-31T23:30:00-05:00\""),
    ("e2", "a", "0.2", "\"2026-11-02\"", "\"2027-01-01T04:30:00Z\""),
    ("e3", "b", "289.99", "\"2026-01-01\"", nil),
    ("e4", "b", "289.990", "\"2025-12-29\"", "null"),
    ("e5", "b", "null", "null", "\"2026-04-01T00:00:00+14:00\""),
    ("e6", "c", nil, nil, nil),
  ]

  @Test func bucketsByMonthWeekQuarterInCalendarOrder() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try Self.entryStore(dir, Self.rows)
      func csv(_ arguments: [String]) throws -> String {
        let result = try Formsctl.run(
          ["stats", "entry"] + arguments + ["--format", "csv"], in: store, environment: env)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(arguments): \(result.transcript)")
        return result.stdout
      }
      #expect(
        try csv(["--by", "month(on)"])
          == "month(on),count,percent\n2025-12,1,16.7\n2026-01,1,16.7\n2026-11,2,33.3\n(none),2,33.3\n")
      #expect(
        try csv(["--by", "week(on)"])
          == "week(on),count,percent\n2026-W01,2,33.3\n2026-W45,1,16.7\n2026-W48,1,16.7\n(none),2,33.3\n")
      #expect(try csv(["--by", "year(on)"]) == "year(on),count,percent\n2025,1,16.7\n2026,3,50.0\n(none),2,33.3\n")
      // A datetime is in the day it is written in: e1 (23:30 at -05:00) is in 2026-Q4, e5 (+14:00) in Q2.
      #expect(
        try csv(["--by", "quarter(at)"])
          == "quarter(at),count,percent\n2026-Q2,1,16.7\n2026-Q4,1,16.7\n2027-Q1,1,16.7\n(none),3,50.0\n")
      #expect(
        try csv(["--by", "day(at)"]).hasPrefix("day(at),count,percent\n2026-04-01,1,16.7\n2026-12-31,1,16.7\n"))
    }
  }

  @Test func twoLevelsGroupEachGroupAgain() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try Self.entryStore(dir, Self.rows)
      let csv = try Formsctl.run(
        ["stats", "entry", "--by", "group", "--by", "quarter(on)", "--sum", "amount", "--format", "csv"], in: store,
        environment: env)
      #expect(csv.status == 0, "\(csv.transcript)")
      // Groups by value: the biggest first; inside each, quarters in calendar order.
      #expect(
        csv.stdout == """
          group,quarter(on),count,percent,sum amount
          b,2025-Q4,1,16.7,289.990
          b,2026-Q1,1,16.7,289.990
          b,(none),1,16.7,0.000
          a,2026-Q4,2,33.3,0.300
          c,(none),1,16.7,0.000

          """, "\(csv.stdout)")
      let json = try Formsctl.run(
        ["stats", "entry", "--by", "quarter(on)", "--by", "group", "--format", "json"], in: store, environment: env)
      let records = try JSONParser().parse(Array(json.stdout.utf8)).arrayValue ?? []
      #expect(records.count == 5, "\(json.stdout)")
      #expect(records.first?["quarter(on)"] == .string("2025-Q4") && records.first?["group"] == .string("b"))
      #expect(records.last?["quarter(on)"] == .null, "no date is null in JSON: \(json.stdout)")
      let table = try Formsctl.run(
        ["stats", "entry", "--by", "group", "--by", "month(at)"], in: store, environment: env)
      #expect(table.status == 0 && table.stdout.contains("MONTH(AT)") && table.stdout.contains("6 documents of entry"))
    }
  }

  @Test func averagesMinimumsAndMaximumsAreExact() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try Self.entryStore(dir, Self.rows)
      let result = try Formsctl.run(
        [
          "stats", "entry", "--by", "group", "--avg", "amount", "--min", "amount", "--max", "amount", "--format",
          "json",
        ], in: store, environment: env)
      #expect(result.status == 0, "\(result.transcript)")
      var rows: [String: [String: String]] = [:]
      for record in try JSONParser().parse(Array(result.stdout.utf8)).arrayValue ?? [] {
        guard case .string(let group)? = record["group"] else { continue }
        var figures: [String: String] = [:]
        for key in ["avg_amount", "min_amount", "max_amount", "n_amount"] {
          figures[key] = record[key].map { JSONWriter.compact($0) }
        }
        rows[group] = figures
      }
      // 0.1 and 0.2 average to 0.15 exactly (written with the column's 3 decimals at least);
      // 289.99 and 289.990 are equal: the first met (by id) is shown as written; null and missing are skipped.
      #expect(
        rows == [
          "a": ["avg_amount": "0.150", "min_amount": "0.1", "max_amount": "0.2", "n_amount": "2"],
          "b": ["avg_amount": "289.990", "min_amount": "289.99", "max_amount": "289.99", "n_amount": "2"],
          "c": ["avg_amount": "null", "min_amount": "null", "max_amount": "null", "n_amount": "0"],
        ], "\(result.stdout)")
      let table = try Formsctl.run(["stats", "entry", "--avg", "amount"], in: store, environment: env)
      #expect(table.stdout.contains("amount: 2 documents without a number there (null or missing), skipped"))
      let csv = try Formsctl.run(
        ["stats", "entry", "--where", "group == \"a\"", "--avg", "amount", "--format", "csv"], in: store,
        environment: env)
      #expect(csv.stdout == "group,count,percent,avg amount,n amount\nall,2,100.0,0.15,2\n", "\(csv.transcript)")
    }
  }

  /// An average that does not end: 6 digits past the numbers' decimals, half to even.
  @Test func anAverageThatDoesNotEndIsRoundedHalfToEven() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try Self.entryStore(
        dir, [("x1", "g", "100.00", nil, nil), ("x2", "g", "0", nil, nil), ("x3", "g", "0", nil, nil)])
      let result = try Formsctl.run(
        ["stats", "entry", "--avg", "amount", "--format", "csv"], in: store, environment: env)
      #expect(
        result.stdout == "group,count,percent,avg amount,n amount\nall,3,100.0,33.33333333,3\n", "\(result.stdout)")
    }
  }

  @Test(arguments: [
    (["--by", "mnth(on)"], Int32(64), "--by mnth(on): unknown function \"mnth\"; did you mean \"month\"?"),
    (["--by", "month(group)"], 64, "--by month(group): group is not a date or datetime field in any version of entry"),
    (["--by", "month(gruop)"], 64, "--by month(gruop): unknown field \"gruop\"; did you mean \"group\"?"),
    (["--by", "month(on"], 64, "--by month(on: not a field path, nor FUNCTION(PATH)"),
    (["--by", "month(on)x"], 64, "--by month(on)x: not a field path, nor FUNCTION(PATH)"),
    (["--by", "month(year(on))"], 64, "--by month(year(on)): month(...) takes a field path"),
    (["--by", "group", "--by", "on", "--by", "at"], 64, "--by is given 3 times; stats groups by at most two"),
    (["--by", "month(on)", "--by", "month(on)"], 64, "--by month(on): given twice"),
    (["--avg", "group"], 64, "--avg group: not a number field in any version of entry; --avg averages numbers"),
    (["--min", "on"], 64, "--min on: not a number field in any version of entry"),
    (["--max", "amont"], 64, "--max amont: unknown field \"amont\"; did you mean \"amount\"?"),
    (["--workflow", "--avg", "amount"], 64, "--workflow reads the audit log"),
  ])
  func aBadRequestIsOneLineAndNothingElse(_ arguments: [String], _ status: Int32, _ message: String) throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try Self.entryStore(dir, Self.rows)
      let result = try Formsctl.run(["stats", "entry"] + arguments, in: store, environment: env)
      #expect(result.status == status, "\(arguments): \(result.transcript)")
      #expect(result.stdout.isEmpty, "\(arguments): \(result.stdout)")
      #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
      // A usage error may add the line pointing at --help, as every command does.
      let lines = result.stderr.split(separator: "\n").filter { !$0.hasPrefix("(formsctl stats --help") }
      #expect(lines.count == 1, "\(arguments): \(result.stderr)")
    }
  }

  /// The README's commands on the bundled example store.
  @Test func theExampleStoreByMonthAndQuarter() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      let months = try Formsctl.run(
        [
          "stats", "acquisition", "--by", "month(created_date)", "--avg", "estimated_value", "--max", "estimated_value",
          "--format", "csv",
        ], in: store, environment: env)
      #expect(months.status == 0, "\(months.transcript)")
      #expect(
        months.stdout.hasPrefix(
          "month(created_date),count,percent,avg estimated_value,max estimated_value,n estimated_value\n"))
      let quarters = try Formsctl.run(
        ["stats", "form", "--by", "status", "--by", "quarter(created_date)", "--format", "json"], in: store,
        environment: env)
      #expect(
        quarters.status == 0 && quarters.stdout.contains("\"quarter(created_date)\": \"2026-Q"),
        "\(quarters.transcript)")
    }
  }
}
