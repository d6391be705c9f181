import FormsCore
import FormsStore
import FormsTestSupport
import Foundation
import Testing

/// formsctl and Python's `jsonschema` (with the exported JSON Schema, draft-07 as editors get it,
/// numbers read as ordinary binary floats as check-jsonschema reads them) must agree on every
/// example document and on mutations of them: a field removed, a type changed, a value out of
/// range, an unknown key added, at the top and inside lists. Findings of the rules JSON Schema
/// cannot say (`inexpressible`) are left out of formsctl's verdict: the export leaves them to formsctl.
struct JSONSchemaDifferentialTests {
  static let python: String? = {
    for candidate in ["/usr/bin/python3", "/usr/local/bin/python3", "/root/.pyenv/shims/python3"] {
      guard FileManager.default.isExecutableFile(atPath: candidate) else { continue }
      let process = Process()
      process.executableURL = URL(fileURLWithPath: candidate)
      process.arguments = ["-c", "import jsonschema, referencing, rfc3339_validator"]
      process.standardError = FileHandle.nullDevice
      guard (try? process.run()) != nil else { continue }
      process.waitUntilExit()
      if process.terminationStatus == 0 { return candidate }
    }
    return nil
  }()

  /// Rules no draft can express: digits after the point as written, unique keys in lists, one
  /// value among another path's, a copy of a value inside a json_string, and rules comparing fields.
  static let inexpressible: Set<String> = ["scale", "unique", "reference", "derived", "rule"]

  /// Reads each kind's schema (`<kind>.schema.json`, which picks the version by `_schema`) with
  /// the version files beside it, and judges one document per line of its input.
  static let judge = """
    import json, sys, glob, os
    import jsonschema, referencing
    directory = sys.argv[1]
    resources = []
    for path in glob.glob(os.path.join(directory, '*.schema.json')):
        schema = json.load(open(path))
        assert schema['$schema'] == 'http://json-schema.org/draft-07/schema#', path
        resources.append((os.path.basename(path), referencing.Resource.from_contents(schema)))
    registry = referencing.Registry().with_resources(resources)
    validators = {}
    def validator(kind):
        if kind not in validators:
            schema = json.load(open(os.path.join(directory, kind + '.schema.json')))
            validators[kind] = jsonschema.Draft7Validator(schema, registry=registry, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
        return validators[kind]
    for line in sys.stdin:
        kind, text = line.split('\t', 1)
        print('1' if validator(kind).is_valid(json.loads(text)) else '0')
    """

  static func mutations(of document: JSONObject, rng: inout SeededGenerator) -> [JSONValue] {
    var out: [JSONValue] = [.object(document)]
    for member in document.members {
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

  /// The example store's JSON Schemas exported by formsctl into `dir/exported`; the examples' folder.
  func exportExamples(into dir: String) throws -> String {
    let examples = Formsctl.packageRoot.appendingPathComponent("examples").path
    let export = try Formsctl.run(
      ["schema", "export", "--json-schema", "--out", dir + "/exported", "--store", examples + "/acquisitions"], in: dir)
    #expect(export.status == 0, "\(export.stderr)")
    return examples
  }

  @Test(
    .enabled(
      if: python != nil || ProcessInfo.processInfo.environment["CI"] == "true",
      "python3 with jsonschema and rfc3339-validator is not installed (pip install jsonschema rfc3339-validator); skipped outside CI"
    ))
  func formsctlAgreesWithExportedJSONSchema() throws {
    try withTemporaryDirectory { dir in
      let examples = try exportExamples(into: dir)
      let registry = try SchemaRegistry.load(directory: Formsctl.packageRoot.appendingPathComponent("schemas").path) {
        $0
      }
      #expect(registry.diagnostics.isEmpty)
      var rng = SeededGenerator(state: 2026)
      var documents: [JSONValue] = []
      var schemas: [Schema] = []  // the schema of the document each mutation came from
      for store in ["acquisitions", "legacy"] {
        for path in try FileIO.files(under: FilePath(examples + "/" + store + "/data"), suffix: ".json") {
          guard case .object(let object) = try JSONParser().parse(try FileIO.read(FilePath(path))),
            let schema = registry.schema(reference: object["_schema"]?.stringValue ?? "")
          else { continue }
          let mutated = Self.mutations(of: object, rng: &rng)
          documents += mutated
          schemas += Array(repeating: schema, count: mutated.count)
        }
      }
      #expect(documents.count > 1000)
      // formsctl's verdict: a document must name its version in `_schema`, then that version judges it.
      let ours = zip(schemas, documents).map { schema, document -> Bool in
        guard document["_schema"] == .string(schema.reference) else { return false }
        let exporter = JSONSchemaExporter(draft: .draft07)
        let rulesHold = schema.rules.filter(exporter.expresses).allSatisfy { rule in
          !(rule.when?.evaluate(document) ?? true) || rule.require.evaluate(document)
        }
        return rulesHold
          && Validator(schema: schema).validate(document).allSatisfy { Self.inexpressible.contains($0.rule) }
      }
      let kinds = schemas.map(\.kind)
      try writeFile(Self.judge, to: dir + "/judge.py")
      let process = Process()
      process.executableURL = URL(fileURLWithPath: try #require(Self.python))
      process.arguments = [dir + "/judge.py", dir + "/exported"]
      let input = Pipe()
      let output = Pipe()
      process.standardInput = input
      process.standardOutput = output
      try process.run()
      // A document without `_schema` is judged by its kind's schema too: the editor's view.
      let lines = zip(kinds, documents).map { $0 + "\t" + JSONWriter.compact($1) + "\n" }.joined()
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
        disagreements.count == 0,
        "\(disagreements.count) of \(documents.count) disagree; first: \(disagreements.prefix(2))")
      // Both valid and invalid verdicts occur, so the comparison means something.
      #expect(ours.filter { $0 }.count > 84 && ours.filter { !$0 }.count > 500)
      // The case the float-dividing `multipleOf` got wrong: valid two-decimal prices.
      #expect(documents.contains { JSONWriter.compact($0).contains("\"unit_price\":12.0") })
    }
  }

  /// Resolves the export as each mainstream way of loading it does: a registry keyed by every
  /// resource's own `$id` (as Ajv keys schemas), one keyed by the files' URIs, and every version
  /// schema's `$id` equal to its file name. Then judges the example purchase orders and some
  /// datetimes with no format checking (most validators' default), so the pattern alone decides.
  static let resolve = """
    import json, sys, glob, os, pathlib
    import jsonschema, referencing
    directory, documents = sys.argv[1], sys.argv[2:]
    schemas = {os.path.basename(p): json.load(open(p)) for p in glob.glob(os.path.join(directory, '*.schema.json'))}
    for name, schema in schemas.items():
        assert schema.get('$id') == (name if name.count('-') and name.split('-')[-1][0].isdigit() else None), name
    by_id = referencing.Registry().with_resources(
        (r.id(), r) for r in map(referencing.Resource.from_contents, schemas.values()) if r.id())
    by_file = referencing.Registry().with_resources(
        (pathlib.Path(directory, n).resolve().as_uri(), referencing.Resource.from_contents(s)) for n, s in schemas.items())
    order = schemas['purchase-order.schema.json']
    by_uri = {'$ref': pathlib.Path(directory, 'purchase-order.schema.json').resolve().as_uri()}
    for path in documents:
        document = json.load(open(path))
        for schema, registry in ((order, by_id), (by_uri, by_file)):
            errors = list(jsonschema.Draft7Validator(schema, registry=registry).iter_errors(document))
            print('valid' if not errors else 'invalid: ' + errors[0].message)
        for stamp in ['2026-01-02T25:00:00Z', '2026-13-02T10:00:00Z', '2026-01-32T10:00:00Z', '2026-01-02T10:60:00Z',
                      '2026-01-02T10:00:61Z', '2026-01-02T10:00:00+24:00', '2026-01-02T23:59:60Z', '2026-01-02T00:00:00.5-05:30']:
            changed = dict(document, last_updated=stamp)
            print(stamp, jsonschema.Draft7Validator(order, registry=by_id).is_valid(changed))
    """

  @Test(
    .enabled(
      if: python != nil || ProcessInfo.processInfo.environment["CI"] == "true",
      "python3 with jsonschema and rfc3339-validator is not installed (pip install jsonschema rfc3339-validator); skipped outside CI"
    ))
  func theExportResolvesByIdAndByFileAndItsDatetimesAreRealTimes() throws {
    try withTemporaryDirectory { dir in
      let examples = try exportExamples(into: dir)
      let order = examples + "/acquisitions/data/purchase-orders/PO-000201.json"
      try writeFile(Self.resolve, to: dir + "/resolve.py")
      let process = Process()
      process.executableURL = URL(fileURLWithPath: try #require(Self.python))
      process.arguments = [dir + "/resolve.py", dir + "/exported", order]
      let output = Pipe()
      let errors = Pipe()
      process.standardOutput = output
      process.standardError = errors
      try process.run()
      let lines = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      let problems = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      process.waitUntilExit()
      #expect(process.terminationStatus == 0, "\(problems)")
      #expect(
        lines.split(separator: "\n")
          == [
            "valid", "valid", "2026-01-02T25:00:00Z False", "2026-13-02T10:00:00Z False", "2026-01-32T10:00:00Z False",
            "2026-01-02T10:60:00Z False", "2026-01-02T10:00:61Z False", "2026-01-02T10:00:00+24:00 False",
            "2026-01-02T23:59:60Z True", "2026-01-02T00:00:00.5-05:30 True",
          ], "\(lines)\(problems)")
    }
  }

  static let checkJSONSchema: String? = ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":")
    .map { $0 + "/check-jsonschema" }.first { FileManager.default.isExecutableFile(atPath: $0) }

  @Test(
    .enabled(
      if: checkJSONSchema != nil || ProcessInfo.processInfo.environment["CI"] == "true",
      "check-jsonschema is not installed (pip install check-jsonschema); skipped outside CI"))
  func checkJSONSchemaValidatesTheExamplesWithTheShippedSchemas() throws {
    let store = Formsctl.packageRoot.appendingPathComponent("examples/acquisitions").path
    for (kind, directory) in [
      ("purchase-order", "purchase-orders"), ("acquisition", "acquisitions"), ("form", "forms"),
    ] {
      let files = try FileIO.files(under: FilePath(store + "/data/" + directory), suffix: ".json").prefix(5)
      let checked = try runShell(
        "check-jsonschema --schemafile json-schema/\(kind).schema.json " + files.joined(separator: " ") + " >&2",
        in: store)
      #expect(checked.status == 0, "\(kind): \(checked.stderr)")
      // One version's schema on its own, from another directory.
      let version = try #require(
        try FileManager.default.contentsOfDirectory(atPath: store + "/json-schema").filter {
          $0.hasPrefix(kind + "-") && $0.dropFirst(kind.count + 1).first?.isNumber == true
        }.max())
      let alone = try runShell(
        "check-jsonschema --schemafile \(store)/json-schema/\(version) " + files.joined(separator: " ") + " >&2",
        in: "/")
      #expect(alone.status == 0 || alone.stderr.contains("validation errors"), "\(version): \(alone.stderr)")
      #expect(!alone.stderr.contains("Unresolvable"), "\(version): \(alone.stderr)")
    }
  }
}
