import FormsCore
import FormsStore
import FormsTestSupport
import Foundation
import Testing

/// formsctl and Python's `jsonschema` (with the exported JSON Schema) must agree on every example
/// document and on mutations of them: a field removed, a type changed, a value out of range, an
/// unknown key added, at the top and inside lists.
struct JSONSchemaDifferentialTests {
  static let python: String? = {
    for candidate in ["/usr/bin/python3", "/usr/local/bin/python3", "/root/.pyenv/shims/python3"] {
      guard FileManager.default.isExecutableFile(atPath: candidate) else { continue }
      let process = Process()
      process.executableURL = URL(fileURLWithPath: candidate)
      process.arguments = ["-c", "import jsonschema, rfc3339_validator"]
      process.standardError = FileHandle.nullDevice
      guard (try? process.run()) != nil else { continue }
      process.waitUntilExit()
      if process.terminationStatus == 0 { return candidate }
    }
    return nil
  }()

  static let judge = """
    import json, sys, decimal, glob, os
    import jsonschema
    schemas = {}
    for path in glob.glob(os.path.join(sys.argv[1], '*.schema.json')):
        schema = json.load(open(path), parse_float=decimal.Decimal)
        ref = schema['properties']['_schema']['const']
        schemas[ref] = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    for line in sys.stdin:
        doc = json.loads(line, parse_float=decimal.Decimal)
        print('1' if schemas[doc['_schema']].is_valid(doc) else '0')
    """

  static func mutations(of document: JSONObject, rng: inout SeededGenerator) -> [JSONValue] {
    var out: [JSONValue] = [.object(document)]
    for member in document.members where member.key != "_schema" {
      var removed = document
      removed[member.key] = nil
      out.append(.object(removed))
      var retyped = document
      retyped[member.key] = member.value.stringValue != nil ? .number(JSONNumber(7)) : .string("x")
      out.append(.object(retyped))
      if member.value.numberValue != nil {
        var big = document
        big[member.key] = .number(JSONNumber(unchecked: ["-1000000000", "100000000000", "0.123"][Int(rng.next() % 3)]))
        out.append(.object(big))
      }
      if case .array(var elements) = member.value, case .object(let first)? = elements.first {
        for inner in mutations(of: first, rng: &rng).dropFirst().shuffled(using: &rng).prefix(4) {
          var changed = document
          elements[0] = inner
          changed[member.key] = .array(elements)
          out.append(.object(changed))
        }
      }
      if case .object(let nested) = member.value {
        for inner in mutations(of: nested, rng: &rng).dropFirst().shuffled(using: &rng).prefix(3) {
          var changed = document
          changed[member.key] = inner
          out.append(.object(changed))
        }
      }
    }
    var unknown = document
    unknown["zz_unknown"] = .bool(true)
    out.append(.object(unknown))
    return out
  }

  @Test(
    .enabled(
      if: python != nil, "python3 with jsonschema and rfc3339-validator is not installed; differential test skipped"))
  func formsctlAgreesWithExportedJSONSchema() throws {
    try withTemporaryDirectory { dir in
      let examples = Formsctl.packageRoot.appendingPathComponent("examples").path
      let export = try Formsctl.run(
        ["schema", "export", "--json-schema", "--out", dir + "/exported", "--store", examples + "/acquisitions"],
        in: dir)
      #expect(export.status == 0, "\(export.stderr)")
      let registry = try SchemaRegistry.load(directory: Formsctl.packageRoot.appendingPathComponent("schemas").path) {
        $0
      }
      #expect(registry.diagnostics.isEmpty)
      var rng = SeededGenerator(state: 2026)
      var documents: [JSONValue] = []
      for store in ["acquisitions", "legacy"] {
        for path in try FileIO.files(under: examples + "/" + store + "/data", suffix: ".json") {
          guard case .object(let object) = try JSONParser().parse(try FileIO.read(path)) else { continue }
          documents += Self.mutations(of: object, rng: &rng)
        }
      }
      #expect(documents.count > 1000)
      let ours = documents.map { document -> Bool in
        let schema = registry.schema(reference: document["_schema"]?.stringValue ?? "")!
        return Validator(schema: schema).validate(document).isEmpty
      }
      try writeFile(Self.judge, to: dir + "/judge.py")
      let process = Process()
      process.executableURL = URL(fileURLWithPath: Self.python!)
      process.arguments = [dir + "/judge.py", dir + "/exported"]
      let input = Pipe()
      let output = Pipe()
      process.standardInput = input
      process.standardOutput = output
      try process.run()
      let lines = documents.map { JSONWriter.compact($0) + "\n" }.joined()
      DispatchQueue.global().async {
        input.fileHandleForWriting.write(Data(lines.utf8))
        try? input.fileHandleForWriting.close()
      }
      let verdicts = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(
        separator: "\n")
      process.waitUntilExit()
      #expect(verdicts.count == documents.count)
      var disagreements: [String] = []
      for (k, verdict) in verdicts.enumerated() where (verdict == "1") != ours[k] {
        disagreements.append("formsctl says \(ours[k] ? "valid" : "invalid"): \(JSONWriter.compact(documents[k]))")
      }
      #expect(
        disagreements.isEmpty,
        "\(disagreements.count) of \(documents.count) disagree; first: \(disagreements.prefix(3))")
      // Both valid and invalid verdicts occur, so the comparison means something.
      #expect(ours.filter { $0 }.count > 84 && ours.filter { !$0 }.count > 500)
    }
  }
}
