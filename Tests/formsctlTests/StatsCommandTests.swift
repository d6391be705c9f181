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

  /// A store with a kind `ledger` (`id`, `group`, `amount: number`) and the documents `amounts`
  /// (id → group and the amount's JSON text), written by hand as a script or an editor would.
  static func ledgerStore(_ dir: String, _ amounts: [(String, String, String)]) throws -> (String, [String: String]) {
    let env = try makeStore(dir)
    let store = dir + "/store"
    try FileManager.default.createDirectory(atPath: store + "/schemas/ledger", withIntermediateDirectories: true)
    try writeFile(
      """
      kind: ledger
      version: 1.0.0
      title: Ledger entry
      directory: ledger
      id: id
      fields:
        id: string
        group: string
        amount: number

      """, to: store + "/schemas/ledger/1.0.0.yaml")
    try FileManager.default.createDirectory(atPath: store + "/data/ledger", withIntermediateDirectories: true)
    for (id, group, amount) in amounts {
      try writeFile(
        "{\n  \"_schema\": \"ledger@1.0.0\",\n  \"amount\": \(amount),\n  \"group\": \"\(group)\",\n  \"id\": \"\(id)\"\n}\n",
        to: store + "/data/ledger/\(id).json")
    }
    return (store, env)
  }

  /// Sums are exact whatever the size of the numbers (1e200 is not 0, a 40-digit amount
  /// keeps its cents), `-0` and exponents included.
  @Test func sumsAreExactForHugeAndLongNumbers() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try Self.ledgerStore(
        dir,
        [
          ("a1", "huge", "1e200"), ("b1", "long", "1234567890123456789012345678901234567890.25"),
          ("b2", "long", "0.75"), ("b3", "long", "-0"), ("c1", "small", "1E+2"), ("c2", "small", "-0.5"),
          ("d1", "zero", "-0.0"),
        ])
      #expect(try Formsctl.run(["validate"], in: store, environment: env).status == 0)
      let result = try Formsctl.run(
        ["stats", "ledger", "--by", "group", "--sum", "amount", "--format", "json"], in: store, environment: env)
      #expect(result.status == 0, "\(result.transcript)")
      let json = try JSONParser().parse(Array(result.stdout.utf8))
      var sums: [String: String] = [:]
      for row in json.arrayValue ?? [] {
        guard case .string(let group)? = row["group"], case .number(let sum)? = row["sum_amount"] else { continue }
        sums[group] = sum.text
      }
      #expect(
        sums == [
          "huge": "1e200", "long": "1234567890123456789012345678901234567891.00", "small": "99.50", "zero": "0.00",
        ], "\(result.stdout)")
      let table = try Formsctl.run(
        ["stats", "ledger", "--sum", "amount", "--format", "csv"], in: store, environment: env)
      #expect(table.status == 0 && table.stdout.hasPrefix("group,count,percent,sum amount\n"), "\(table.transcript)")
      #expect(
        table.stdout.contains(",100.0,1" + String(repeating: "0", count: 160)), "1e200 is counted: \(table.stdout)")
    }
  }

  /// A document that does not parse is named and the status says so (exit 1), as `list`.
  @Test func aFileThatDoesNotParseIsNamedAndExitsOne() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try Self.ledgerStore(dir, [("a1", "x", "1"), ("a2", "x", "2")])
      try writeFile(
        "{\"_schema\": \"ledger@1.0.0\", \"amount\": 3,\n<<<<<<< HEAD\n", to: store + "/data/ledger/a3.json")
      let list = try Formsctl.run(["list", "ledger", "--format", "csv"], in: store, environment: env)
      #expect(list.status == 1 && list.stderr.contains("data/ledger/a3.json: does not parse"), "\(list.transcript)")
      let stats = try Formsctl.run(
        ["stats", "ledger", "--sum", "amount", "--format", "csv"], in: store, environment: env)
      #expect(stats.status == 1, "\(stats.transcript)")
      #expect(stats.stderr.contains("data/ledger/a3.json: does not parse; not counted"), "\(stats.stderr)")
      #expect(stats.stdout == "group,count,percent,sum amount\nall,2,100.0,3\n", "\(stats.stdout)")
      // While an interrupted operation waits, the counts say they may be half-changed, as list does.
      try FileManager.default.removeItem(atPath: store + "/data/ledger/a3.json")
      try FileManager.default.createDirectory(atPath: store + "/.formsctl/journal", withIntermediateDirectories: true)
      try writeFile("{\"operation\":\"import\"}\n", to: store + "/.formsctl/journal/plan.ndjson")
      let pending = try Formsctl.run(["stats", "ledger"], in: store, environment: env)
      #expect(
        pending.status == 0 && pending.stderr.contains("an interrupted import awaits `formsctl recover`"),
        "\(pending.transcript)")
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
        // A sum of what holds no number printed 0.
        (["stats", "acquisition", "--sum", "title"], 64, "--sum title: not a number field in any version"),
        (["stats", "form", "--sum", "status"], 64, "--sum status: not a number field"),
        (["stats", "form", "--workflow", "--avg", "x"], 64, "--workflow reads the audit log"),
        (["stats", "form", "--by", "status", "--by", "form_type", "--by", "status"], 64, "at most two"),
      ] {
        let result = try Formsctl.run(arguments, in: store, environment: env)
        #expect(result.status == status, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        // One line, as every bad --by: no second line pointing at --help.
        #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
      }
    }
  }

  /// Null and missing are the group of nothing ((none) in a table, null in JSON); the empty
  /// string and a literal "(none)" are groups of their own.
  @Test func nullMissingEmptyAndTheWordNoneStayApart() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try Self.ledgerStore(dir, [("a1", "(none)", "1"), ("a2", "", "2")])
      try writeFile(
        "{\"_schema\": \"ledger@1.0.0\", \"amount\": 3, \"group\": null, \"id\": \"a3\"}\n",
        to: store + "/data/ledger/a3.json")
      try writeFile(
        """
        kind: ledger
        version: 1.0.0
        title: Ledger entry
        directory: ledger
        id: id
        fields:
          id: string
          group: string?
          amount: number

        """, to: store + "/schemas/ledger/1.0.0.yaml")
      let json = try Formsctl.run(
        ["stats", "ledger", "--by", "group", "--format", "json"], in: store, environment: env)
      #expect(json.status == 0, "\(json.transcript)")
      let records = try JSONParser().parse(Array(json.stdout.utf8)).arrayValue ?? []
      #expect(records.count == 3, "\(json.stdout)")
      #expect(
        records.contains { $0["group"] == .string("") && $0["count"] == .number(JSONNumber(1)) }, "\(json.stdout)")
      #expect(records.contains { $0["group"] == .string("(none)") && $0["count"] == .number(JSONNumber(1)) })
      #expect(records.contains { $0["group"] == .null && $0["count"] == .number(JSONNumber(1)) }, "\(json.stdout)")
    }
  }

  /// A grouping column named as a figure (count, percent, n_PATH...) would lose its labels in
  /// JSON: refused, one line.
  @Test func aGroupingNamedAsAFigureIsRefused() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try Self.ledgerStore(dir, [("a1", "x", "1")])
      try writeFile(
        """
        kind: ledger
        version: 1.0.0
        title: Ledger entry
        directory: ledger
        id: id
        fields:
          id: string
          group: string
          amount: number
          count: string?
          percent: string?
          n_amount: string?

        """, to: store + "/schemas/ledger/1.0.0.yaml")
      for arguments in [
        ["--by", "count"], ["--by", "group", "--by", "percent"], ["--by", "n_amount", "--avg", "amount"],
      ] {
        let result = try Formsctl.run(["stats", "ledger"] + arguments, in: store, environment: env)
        #expect(result.status == 64 && result.stderr.contains("take the name"), "\(arguments): \(result.transcript)")
        #expect(result.stderr.split(separator: "\n").count == 1)
      }
    }
  }

  /// Two long lists multiply: past 100,000 groups stats refuses (exit 65) rather than work on.
  @Test func twoLongListsAreBounded() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try Self.ledgerStore(dir, [])
      try writeFile(
        """
        kind: ledger
        version: 1.0.0
        title: Ledger entry
        directory: ledger
        id: id
        fields:
          id: string
          a: {type: list, of: string}
          b: {type: list, of: string}

        """, to: store + "/schemas/ledger/1.0.0.yaml")
      let values = (0..<400).map { "\"v\($0)\"" }.joined(separator: ",")
      try writeFile(
        "{\"_schema\": \"ledger@1.0.0\", \"a\": [\(values)], \"b\": [\(values)], \"id\": \"big\"}\n",
        to: store + "/data/ledger/big.json")
      let result = try Formsctl.run(["stats", "ledger", "--by", "a[]", "--by", "b[]"], in: store, environment: env)
      #expect(result.status == 65 && result.stderr.contains("more than 100000 groups"), "\(result.stderr)")
      #expect(result.stdout.isEmpty)
    }
  }

  /// A value sealed for someone else (the identity here opens the others) would drop out of a
  /// sum as if null: refused (65), as without any identity, saying how many.
  @Test func valuesSealedForSomeoneElseAreRefused() throws {
    try withTemporaryDirectory { dir in
      try FileManager.default.copyItem(
        atPath: Formsctl.packageRoot.appendingPathComponent("schemas").path, toPath: dir + "/schemas")
      try FileManager.default.createDirectory(atPath: dir + "/schemas/item", withIntermediateDirectories: true)
      try writeFile(
        """
        kind: item
        version: 1.0.0
        title: Item
        directory: items
        id: id
        fields:
          id: string
          secret: {type: decimal, optional: true, sensitive: true}

        """, to: dir + "/schemas/item/1.0.0.yaml")
      let manifest = try exampleManifest(schemas: dir + "/schemas")
      let (ours, theirs) = (dir + "/ours", dir + "/theirs")
      for store in [ours, theirs] {
        try copyExampleStore(to: store)
        try writeFile(manifest, to: store + "/formsctl.yaml")
      }
      let demo = try demoIdentity(at: dir + "/demo")
      let other = try Formsctl.run(["keygen", "--out", dir + "/other"], in: dir).stdout
        .trimmingCharacters(in: .newlines)
      let recipient = manifest.components(separatedBy: "x25519:").dropFirst().first?.prefix(while: { $0 != "\n" })
      try writeFile(
        manifest.replacingOccurrences(of: "x25519:" + (recipient ?? ""), with: other), to: theirs + "/formsctl.yaml")
      func new(_ store: String, _ identity: String, _ id: String, _ value: String) throws {
        let made = try Formsctl.run(
          ["new", "item", "--set", "id=\(id)", "--set", "secret=\(value)"], in: store,
          environment: ["FORMSCTL_IDENTITY": identity])
        #expect(made.status == 0, "\(made.transcript)")
      }
      try new(theirs, dir + "/other", "s0", "1000")
      try FileManager.default.createDirectory(atPath: ours + "/data/items", withIntermediateDirectories: true)
      try FileManager.default.copyItem(atPath: theirs + "/data/items/s0.json", toPath: ours + "/data/items/s0.json")
      try new(ours, demo, "s1", "1")
      let result = try Formsctl.run(
        ["stats", "item", "--sum", "secret", "--max", "secret"], in: ours, environment: ["FORMSCTL_IDENTITY": demo])
      #expect(result.status == 65, "\(result.transcript)")
      #expect(result.stderr.contains("secret reaches 1 value sealed for someone else"), "\(result.stderr)")
      #expect(result.stdout.isEmpty, "\(result.stdout)")
    }
  }
}
