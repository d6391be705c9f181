import FormsTestSupport
import Foundation
import Testing

struct ValidateCommandTests {
  static let examples = Formsctl.packageRoot.appendingPathComponent("examples").path

  @Test(arguments: ["acquisitions", "legacy"])
  func exampleStoresAreValid(_ store: String) throws {
    let result = try Formsctl.run(["validate", "--store", Self.examples + "/" + store], in: Self.examples)
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    #expect(result.stdout == "checked 42 documents of 5 kinds: 42 valid, 0 invalid\n")
  }

  @Test func builtInSchemasAreClean() throws {
    let result = try Formsctl.run(["schema", "check", "--store", Self.examples + "/acquisitions"], in: Self.examples)
    #expect(
      result
        == RunResult(
          status: 0, stdout: "checked the descriptors of 5 kinds (9 versions compiled): 0 problem(s)\n", stderr: ""))
  }

  @Test func examplesAreCanonical() throws {
    let result = try Formsctl.run(["fmt", "--check", "."], in: Self.examples)
    #expect(result == RunResult(status: 0, stdout: "", stderr: ""))
  }

  /// A small store with one problem of each kind, its schemas copied beside it.
  static func brokenStore(in dir: String) throws {
    try writeFile("formsctl: 1\n", to: dir + "/formsctl.yaml")
    try writeFile(
      """
      kind: order
      version: 1.0.0
      directory: orders
      fields:
        id: {type: string, pattern: '^O-[0-9]+$'}
        status: {type: enum, values: [open, closed]}
        placed: date
        customer_id: string?
        items: {type: list, of: item, unique: [sku]}
      types:
        item:
          fields:
            sku: string
            quantity: {type: integer, min: 1}
      relations:
        - {field: customer_id, kind: customer, on_delete: nullify}

      """, to: dir + "/schemas/order/1.0.0.yaml")
    try writeFile(
      "kind: customer\nversion: 1.0.0\ndirectory: customers\nfields:\n  id: string\n  name: string\n",
      to: dir + "/schemas/customer/1.0.0.yaml")
    try writeFile(
      "{\n  \"_schema\": \"customer@1.0.0\",\n  \"id\": \"C-1\",\n  \"name\": \"Acme\"\n}\n",
      to: dir + "/data/customers/C-1.json")
    try writeFile(
      """
      {
        "_schema": "order@1.0.0",
        "customer_id": "C-9",
        "id": "O-1",
        "items": [
          {"sku": "a", "quantity": 0},
          {"sku": "a", "qty": 2}
        ],
        "placed": "2026-02-30",
        "status": "shipped"
      }

      """, to: dir + "/data/orders/O-1.json")
    try writeFile(
      "{\n  \"_schema\": \"order@1.0.0\",\n  \"id\": \"O-3\",\n  \"items\": [],\n  \"placed\": \"2026-01-05\",\n  \"status\": \"open\"\n}\n",
      to: dir + "/data/orders/O-2.json")
    try writeFile("{\"_schema\": \"order@2.0.0\"}", to: dir + "/data/orders/O-4.json")
    try writeFile("{\"_schema\": \"order@1.0.0\", \"id\": 1,}", to: dir + "/data/orders/O-5.json")
  }

  @Test(arguments: ["text", "json", "github"])
  func brokenStoreGolden(_ format: String) throws {
    try withTemporaryDirectory { dir in
      try Self.brokenStore(in: dir)
      let before = try FileManager.default.subpathsOfDirectory(atPath: dir).sorted()
      let result = try Formsctl.run(["validate", "--format", format], in: dir)
      try assertSnapshot(result, named: "validate-broken-\(format)")
      #expect(result.status == 65)
      #expect(try FileManager.default.subpathsOfDirectory(atPath: dir).sorted() == before, "validate wrote something")
    }
  }

  @Test func invalidButParseableExitsOne() throws {
    try withTemporaryDirectory { dir in
      try Self.brokenStore(in: dir)
      let result = try Formsctl.run(["validate", "data/orders/O-1.json", "data/orders/O-2.json"], in: dir)
      #expect(result.status == 1)
      #expect(result.stdout.hasSuffix("checked 2 documents of 1 kind: 0 valid, 2 invalid\n"))
    }
  }

  @Test func aFIFOAndAWaitingJournalAreNeverAllValid() throws {
    try withTemporaryDirectory { dir in
      _ = try Formsctl.run(["init", "."], in: dir)
      _ = try Formsctl.run(
        ["new", "acquisition", "--set", "id=ACQ-2026-001", "--set", "title=T", "--set", "agency=A"], in: dir)
      #expect(mkfifo(dir + "/data/acquisitions/ACQ-2026-002.json", 0o644) == 0)
      let validate = try Formsctl.run(["validate"], in: dir)
      #expect(validate.status == 1, "\(validate)")
      #expect(
        validate.stdout.contains("data/acquisitions/ACQ-2026-002.json: warning: a FIFO, not a regular file; not read"))
      let list = try Formsctl.run(["list", "acquisition", "--format", "paths"], in: dir)
      #expect(list.status == 1, "a listing that leaves a file out says so in its status, as validate does")
      #expect(
        list.stderr
          == "formsctl: warning: data/acquisitions/ACQ-2026-002.json: a FIFO, not a regular file; not listed (formsctl validate says why; exit 1)\n"
      )
      let get = try Formsctl.run(["get", "acquisition", "ACQ-2026-002"], in: dir)
      #expect(get.status == 65)
      try FileManager.default.removeItem(atPath: dir + "/data/acquisitions/ACQ-2026-002.json")
      try writeFile("{\"operation\":\"import\"}\n", to: dir + "/.formsctl/journal/plan.ndjson")
      let waiting = try Formsctl.run(["validate"], in: dir)
      #expect(waiting.status == 75)
      #expect(waiting.stderr.contains("an interrupted import awaits `formsctl recover`"))
      #expect(try Formsctl.run(["list", "acquisition"], in: dir).stderr.contains("an interrupted import awaits"))
    }
  }

  @Test func aControlCharacterInAnIdIsEscapedInTheMessage() throws {
    try withTemporaryDirectory { dir in
      _ = try Formsctl.run(["init", "."], in: dir)
      let result = try Formsctl.run(["get", "acquisition", "ACQ\n\u{1B}[2J"], in: dir)
      #expect(result.status == 65 || result.status == 64, "\(result)")
      #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
      #expect(result.stderr.contains(#"ACQ\n\u001b[2J"#))
    }
  }

  @Test func jsonInsideAStringIsValidatedWhereItIsWritten() throws {
    try withTemporaryDirectory { dir in
      try FileManager.default.copyItem(
        atPath: Formsctl.packageRoot.appendingPathComponent("examples/legacy").path, toPath: dir + "/legacy")
      try writeFile(
        exampleManifest(schemas: Formsctl.packageRoot.appendingPathComponent("schemas").path),
        to: dir + "/legacy/formsctl.yaml")
      let forecasts = dir + "/legacy/data/forecasts/"
      let names = try FileManager.default.contentsOfDirectory(atPath: forecasts).sorted()
      let wrongType = try readFile(forecasts + names[0]).replacingOccurrences(
        of: #"\"ebit_margin\":0.55"#, with: #"\"ebit_margin\":\"high\""#)
      try writeFile(wrongType, to: forecasts + names[0])
      try writeFile(
        try readFile(forecasts + names[1]).replacingOccurrences(
          of: #""assumptionsJSON": "{"#, with: #""assumptionsJSON": "{,"#), to: forecasts + names[1])
      let result = try Formsctl.run(["validate", "data/forecasts"], in: dir + "/legacy")
      #expect(result.status == 1)
      let line = wrongType.split(separator: "\n", omittingEmptySubsequences: false)[2]
      let column = line.distance(from: line.startIndex, to: line.range(of: #"\"high"#)!.lowerBound) + 1
      #expect(
        result.stdout.contains(
          "data/forecasts/\(names[0]):3:\(column): error: assumptionsJSON: in its JSON text: operating.ebit_margin: "
            + "expected a number, found the string \"high\" [type]"), "\(result.stdout)")
      #expect(
        result.stdout.contains(
          "data/forecasts/\(names[1]):3:24: error: assumptionsJSON: the text is not JSON: unexpected ','; "
            + "expected a key in double quotes [json_string]"), "\(result.stdout)")
    }
  }

  @Test func outsideAnyStoreIsNoInput() throws {
    try withTemporaryDirectory { dir in
      let result = try Formsctl.run(["validate"], in: dir)
      #expect(result.status == 66)
      #expect(result.stderr.hasPrefix("formsctl: error: no formsctl store found in "))
    }
  }

  @Test func pathOutsideTheDataDirectoryIsRefused() throws {
    try withTemporaryDirectory { dir in
      try Self.brokenStore(in: dir)
      let result = try Formsctl.run(["validate", "formsctl.yaml"], in: dir)
      #expect(
        result
          == RunResult(
            status: 65, stdout: "",
            stderr: "formsctl: error: formsctl.yaml (documents live under data): not inside the store\n"))
      let missing = try Formsctl.run(["validate", "data/orders/nope.json"], in: dir)
      #expect(missing.status == 66)
    }
  }

  @Test func brokenDescriptorsAreReportedFirst() throws {
    try withTemporaryDirectory { dir in
      try writeFile("formsctl: 1\n", to: dir + "/formsctl.yaml")
      try writeFile("kind: x\nversion: 1.0.0\nfields:\n  id: strin\n", to: dir + "/schemas/x/1.0.0.yaml")
      try writeFile(
        "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n",
        to: dir + "/schemas/y/1.0.0.yaml")
      try writeFile("kind: z\nversion: 1.0.0\nversion: 1.0.1\n", to: dir + "/schemas/z/1.0.0.yaml")
      let result = try Formsctl.run(["schema", "check"], in: dir)
      #expect(result.status == 1)
      #expect(
        result.stdout.contains(
          "schemas/x/1.0.0.yaml:4:7: error: unknown type \"strin\"; did you mean \"string\"? [schema]"))
      #expect(
        result.stdout.contains(
          "schemas/y/1.0.0.yaml:5:33: error: the document expands to more than 100000 nodes (an alias bomb?); aliases are limited [yaml]"
        ))
      #expect(
        result.stdout.contains("schemas/z/1.0.0.yaml:3:1: error: duplicate key \"version\" (first at 2:1) [yaml]"))
      let validate = try Formsctl.run(["validate"], in: dir)
      #expect(validate.status == 65)
    }
  }

  @Test func schemaCommands() throws {
    let store = Self.examples + "/acquisitions"
    let list = try Formsctl.run(["schema", "list", "--format", "json"], in: store)
    #expect(list.status == 0)
    #expect(list.stdout.contains("\"latest\": \"2.0.0\""))
    let show = try Formsctl.run(["schema", "show", "form@1.0.0"], in: store)
    #expect(show.stdout.hasPrefix("# The shape of the Core Data entity GovernmentFormData"))
    let unknown = try Formsctl.run(["schema", "show", "nope"], in: store)
    #expect(unknown.status == 65)
    let graph = try Formsctl.run(["schema", "graph"], in: store)
    #expect(graph.stdout.contains("acquisition |o--o{ form : \"acquisition_id (on_delete cascade)\""))
  }
}
