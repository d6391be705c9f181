import FormsCore
import FormsTestSupport
import Foundation
import Testing

/// A store with the built-in schemas (`formsctl init`) and a fixed clock.
func makeStore(_ dir: String) throws -> [String: String] {
  let result = try Formsctl.run(["init", "store"], in: dir)
  #expect(result.status == 0, "\(result.stderr)")
  try letPeopleEditOrders(dir + "/store")
  return ["FORMSCTL_NOW": "2026-11-22T08:00:00Z"]
}

struct DocumentCommandTests {
  @Test func dailyWorkGolden() throws {
    try withTemporaryDirectory { dir in
      let env = try makeStore(dir)
      let store = dir + "/store"
      var transcript = ""
      func run(_ args: [String], input: String? = nil) throws {
        let result = try Formsctl.run(args, in: store, environment: env, input: input)
        transcript += "$ formsctl \(args.joined(separator: " "))\n" + result.transcript + "\n"
      }
      try run(["new", "acquisition", "--set", "id=ACQ-2026-001", "--set", "title=Office chairs", "--set", "agency=GSA"])
      try run([
        "new", "form", "--set", "form_type=SF30", "--set", "acquisition_id=ACQ-2026-001", "--set",
        "id=11111111-2222-4333-8444-555555555555",
      ])
      try run(
        ["new", "purchase-order", "-", "--set", "status=open", "--format", "json"],
        input: """
          {"purchase_order_number": "PO-1", "acquisition_id": "ACQ-2026-001", "items": [{"product_item_id": 3, "quantity": 5, "last_updated": "2026-11-01T10:00:00Z"}]}
          """)
      try run(["set", "purchase-order", "PO-1", "items[0].quantity=7", "delivery_note=5"])
      try run(["get", "purchase-order", "PO-1", "--field", "delivery_note"])
      try run(["get", "purchase-order", "PO-1", "--field", "items[0]"])
      try run(["set", "purchase-order", "PO-1", "items[0].quantity=abc"])
      try run(["set", "purchase-order", "PO-1", "qty=1"])
      try run(["status", "form", "11111111-2222-4333-8444-555555555555", "approved"])
      try run(["status", "form", "11111111-2222-4333-8444-555555555555", "in_review"])
      try run([
        "set", "form", "11111111-2222-4333-8444-555555555555", "form_number=SF 30", "fields.effective_date=2026-12-01",
      ])
      try run(["status", "form", "11111111-2222-4333-8444-555555555555", "in_review"])
      try run(["list", "form"])
      try run([
        "list", "purchase-order", "--where", "items[].quantity >= 7", "--format", "ndjson", "--fields",
        "purchase_order_number,status",
      ])
      try run(["list", "purchase-order", "--where", "status = \"open\""])
      try run(["new", "acquisition", "--set", "id=ACQ-2026-001", "--set", "title=Again", "--set", "agency=GSA"])
      try run(["rm", "acquisition", "ACQ-2026-001", "--dry-run"])
      try run(["mv", "acquisition", "ACQ-2026-001", "ACQ-2026-002"])
      try run(["rm", "acquisition", "ACQ-2026-002"])
      try run(["list", "purchase-order", "--format", "json"])
      try run(["validate"])
      try assertSnapshot(RunResult(status: 0, stdout: transcript, stderr: ""), named: "documents-daily-work")
    }
  }

  @Test(arguments: [
    "a/b", "..", ".git", "-x", ".hidden", String(repeating: "x", count: 129), "tab\there", "nul\u{1}x", "sp ace",
  ])
  func badIdsAreRefused(_ id: String) throws {
    try withTemporaryDirectory { dir in
      let env = try makeStore(dir)
      let result = try Formsctl.run(
        ["new", "purchase-order", "--set", "purchase_order_number=\(id)", "--json", "items=[]"], in: dir + "/store",
        environment: env)
      #expect(result.status == 65)
      #expect(result.stderr.contains("is not a valid id"), "\(result.stderr)")
      #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/store/data").isEmpty)
      let get = try Formsctl.run(["get", "purchase-order", "--", id], in: dir + "/store", environment: env)
      #expect(get.status == 65)
    }
  }

  @Test func badInputs() throws {
    try withTemporaryDirectory { dir in
      let env = try makeStore(dir)
      let store = dir + "/store"
      func status(_ args: [String]) throws -> (Int32, String) {
        let result = try Formsctl.run(args, in: store, environment: env)
        return (result.status, result.stderr)
      }
      #expect(try status(["new", "widget"]).1.contains("unknown kind \"widget\""))
      #expect(try status(["new", "purchase-ordr"]).1.contains("did you mean \"purchase-order\"?"))
      #expect(try status(["new", "form", "--set", "form_typ=SF30"]).0 == 65)
      #expect(try status(["new", "form", "--set", "form_type=SF99"]).0 == 65)
      #expect(try status(["get", "form", "00000000-0000-4000-8000-000000000000"]).0 == 66)
      #expect(try status(["init", "."]).0 == 65)
      #expect(try status(["list", "form", "--where", "status =="]).0 == 64)
      #expect(try status(["set", "form", "x"]).0 == 64)
      try writeFile("formsctl: 1\nbogus: [\n", to: store + "/formsctl.yaml")
      let broken = try status(["list", "form"])
      #expect(broken.0 == 65)
      #expect(broken.1.contains("formsctl.yaml:3:1"), "\(broken.1)")
    }
  }

  @Test func symlinkedDataDirectoryOutOfTheStoreIsRefused() throws {
    try withTemporaryDirectory { dir in
      let env = try makeStore(dir)
      try FileManager.default.createDirectory(atPath: dir + "/elsewhere", withIntermediateDirectories: true)
      try FileManager.default.removeItem(atPath: dir + "/store/data")
      try FileManager.default.createSymbolicLink(atPath: dir + "/store/data", withDestinationPath: dir + "/elsewhere")
      let result = try Formsctl.run(
        ["new", "acquisition", "--set", "id=ACQ-2026-001", "--set", "title=T", "--set", "agency=A"], in: dir + "/store",
        environment: env)
      #expect(result.status == 65)
      #expect(result.stderr.contains("store/data is a symbolic link, not a directory"), "\(result.stderr)")
      #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/elsewhere").isEmpty)
    }
  }

  static let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].first { FileManager.default.isExecutableFile(atPath: $0) }

  @Test(.enabled(if: getuid() == 0 && setpriv != nil, "needs root and setpriv to run as an unprivileged user"))
  func readOnlyDataDirectoryAsUnprivilegedUser() throws {
    let base = "/tmp/formsctl-ro-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: base) }
    let env = try makeStore(base)
    let store = base + "/store"
    let created = try Formsctl.run(
      ["new", "acquisition", "--set", "id=ACQ-2026-001", "--set", "title=T", "--set", "agency=A"], in: store,
      environment: env)
    #expect(created.status == 0)
    chmod(base, 0o755)
    chmod(store + "/.formsctl", 0o777)
    chmod(store + "/data/acquisitions", 0o555)
    let before = try readFile(store + "/data/acquisitions/ACQ-2026-001.json")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Self.setpriv!)
    process.arguments = [
      "--reuid=65534", "--regid=65534", "--clear-groups", Formsctl.binary.path, "set", "acquisition", "ACQ-2026-001",
      "title=Changed",
    ]
    process.currentDirectoryURL = URL(fileURLWithPath: store)
    let err = Pipe()
    process.standardError = err
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 74, "exit 74: a permission denied on a store file: \(message)")
    #expect(message.contains("Permission denied"), "\(message)")
    #expect(try readFile(store + "/data/acquisitions/ACQ-2026-001.json") == before)
  }
}

/// `set PATH-` removes, `set 'items[+].F=V'` appends, both through the write path.
struct SetRemoveAndAppendTests {
  @Test func removeAnOptionalFieldAndAppendOneElement() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      func run(_ arguments: [String]) throws -> RunResult { try Formsctl.run(arguments, in: store, environment: env) }
      func order() throws -> JSONValue {
        try JSONParser().parse(Array(try readFile(store + "/data/purchase-orders/PO-000201.json").utf8))
      }
      let items = try order()["items"]?.arrayValue?.count ?? 0
      let appended = try run([
        "set", "purchase-order", "PO-000201", "items[+].product_item_id=200", "items[+].quantity=1",
        "items[+].unit_price=2.00",
      ])
      #expect(appended.status == 0, "\(appended.stderr)")
      let after = try order()
      #expect(after["items"]?.arrayValue?.count == items + 1, "every [+] of one list is one new element")
      #expect(after["items"]?.arrayValue?.last?["product_item_id"] == .number(JSONNumber(200)))
      #expect(try run(["set", "purchase-order", "PO-000201", "delivery_note-"]).status == 0)
      #expect(try order()["delivery_note"] == nil)
      #expect(try readFile(store + "/.formsctl/history.jsonl").contains("\"pointers\":[\"/delivery_note\""))
      let before = try treeContents(store)
      for (arguments, status, message) in [
        (["delivery_note-"], Int32(65), "delivery_note: not there; nothing to remove"),
        (["nope-"], 65, "unknown field \"nope\""),
        (["-"], 65, "expected PATH=VALUE"),
        (["items[+]]-"], 65, "not a field path"),
        (["last_updated=2020-01-01T00:00:00Z"], 65, "last_updated: set by formsctl at each write"),
        (["items[0].last_updated=2020-01-01T00:00:00Z"], 65, "set by formsctl at each write"),
      ] {
        let result = try run(["set", "purchase-order", "PO-000201"] + arguments)
        #expect(result.status == status, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
      }
      let required = try run(["set", "acquisition", "ACQ-2026-001", "title-"])
      #expect(required.status == 65 && required.stderr.contains("title"), "\(required.stderr)")
      #expect(try treeContents(store) == before, "nothing written by a refused change")
    }
  }
}

/// `formsctl diff KIND LEFT RIGHT`: documents now or in a snapshot, by JSON Pointer.
struct DiffCommandTests {
  @Test func twoDocumentsAndADocumentAgainstASnapshot() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      func run(_ arguments: [String]) throws -> RunResult { try Formsctl.run(arguments, in: store, environment: env) }
      #expect(try run(["snapshot", "create", "--label", "before"]).status == 0)
      #expect(try run(["set", "purchase-order", "PO-000201", "delivery_note=Dock C"]).status == 0)
      let changed = try run(["diff", "purchase-order", "PO-000201@before", "PO-000201", "--format", "json"])
      #expect(changed.status == 1, "different: exit 1, as diff(1)")
      let records = try JSONParser().parse(Array(changed.stdout.utf8)).arrayValue ?? []
      let note = records.first { $0["pointer"] == .string("/delivery_note") }
      #expect(note?["right"] == .string("Dock C"), "\(changed.stdout)")
      let same = try run(["diff", "forecast", "bb863f13", "bb863f13-e5ea-5843-8fde-be5e3a7e2358"])
      #expect(same.status == 0, "the same document by a prefix: \(same.stderr)")
      for (arguments, status, message) in [
        (["diff", "purchase-order", "PO-000201@nosuch", "PO-000201"], Int32(65), "no snapshot \"nosuch\""),
        (["diff", "purchase-order", "PO-999999", "PO-000201"], 66, "no purchase-order with id \"PO-999999\""),
        (["diff", "nope", "a", "b"], 65, "unknown kind"),
        (["diff", "purchase-order", "../x", "PO-000201"], 65, "not a valid id"),
      ] {
        let result = try run(arguments)
        #expect(result.status == status, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
      }
    }
  }
}
