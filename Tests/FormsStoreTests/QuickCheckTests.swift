import FormsCore
import FormsTestSupport
import Foundation
import Testing

@testable import FormsStore

/// `QuickCheck.check` answers "valid" from a file's bytes without building it; it must never
/// say so of a document the full validator finds anything in. Every example document, and many
/// single changes to each, are put to both.
struct QuickCheckTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path
  static let registry = try! SchemaRegistry.load(directory: root + "/schemas", display: { $0 })

  static func examples() throws -> [JSONValue] {
    try FileIO.files(under: FilePath(root + "/examples/acquisitions/data"), suffix: ".json").compactMap {
      try? JSONParser().parse(FileIO.read(FilePath($0)))
    }
  }

  static let replacements: [JSONValue] = [
    .null, .bool(true), .number(JSONNumber(0)), .number(JSONNumber(-1)), .number(JSONNumber("1.555")!),
    .number(JSONNumber(4)),
    .string(""), .string("x"), .string("2026-13-45"), .string("2026-02-05T09:32:28.213Z"), .string("ACQ-2026-999"),
    .string("open"),
    .array([]), .object(JSONObject()),
  ]

  /// The document with one change at `pointer`: removed, replaced, a list's first element doubled, a member added.
  static func mutations(of document: JSONValue, at pointer: JSONPointer) -> [JSONValue] {
    var out: [JSONValue] = []
    if let last = pointer.tokens.last {
      let parent = JSONPointer(tokens: Array(pointer.tokens.dropLast()))
      var removed = document
      switch document[pointer: parent] {
      case .object(var object)?:
        object[last] = nil
        removed.replace(at: parent, with: .object(object))
      case .array(var elements)?:
        elements.remove(at: Int(last)!)
        removed.replace(at: parent, with: .array(elements))
      default: break
      }
      out.append(removed)
    }
    for replacement in replacements {
      var changed = document
      changed.replace(at: pointer, with: replacement)
      out.append(changed)
    }
    if case .array(let elements)? = document[pointer: pointer], let first = elements.first {
      var doubled = document
      doubled.replace(at: pointer, with: .array(elements + [first]))
      out.append(doubled)
    }
    if case .object(var object)? = document[pointer: pointer] {
      object["zzz_unknown"] = .number(JSONNumber(1))
      var added = document
      added.replace(at: pointer, with: .object(object))
      out.append(added)
    }
    return out
  }

  @Test func neverSaysValidOfWhatTheValidatorFaults() throws {
    var quick = 0
    var checked = 0
    for document in try Self.examples() {
      let schema = try #require(Self.registry.schema(of: document))
      guard !schema.hasSensitiveFields else { continue }
      let validator = Validator(schema: schema)
      // Forms' rules read inside `fields`: they have no quick check.
      guard let quickCheck = QuickCheck(schema: schema, capturing: [schema.idField]) else { continue }
      #expect(
        quickCheck.check(JSONWriter.canonical(document)) != nil,
        "a valid \(schema.reference) takes the quick path")
      for pointer in allPointers(document) {
        for changed in Self.mutations(of: document, at: pointer) {
          for bytes in [JSONWriter.canonical(changed), Array(JSONWriter.compact(changed).utf8)] {
            checked += 1
            guard let captured = quickCheck.check(bytes) else { continue }
            quick += 1
            let findings = validator.validate(try JSONParser().parse(bytes))
            #expect(
              findings.isEmpty,
              "\(schema.reference) \(pointer.path): quick said valid, the validator found \(findings.map(\.message))")
            #expect(captured[schema.idField] == changed[schema.idField])
          }
        }
      }
    }
    #expect(checked > 1000 && quick > 100, "\(quick) of \(checked) took the quick path")
  }

  /// The id, file name, directory and relation checks a valid document passes without its paths
  /// being taken apart (`DocumentChecks.isFile`) say what taking them apart says.
  @Test func theStoreChecksOfADocumentNameWhatIsWrong() throws {
    try withTemporaryDirectory { dir in
      let store = try StoreFixture(dir + "/store").store
      let schema = try #require(store.registry.latest("purchase-order"))
      let data = store.layout.dataDirectory
      let rules = { (id: String, acquisition: String, path: String) -> [String] in
        let document = JSONValue.object(
          JSONObject(["purchase_order_number": .string(id), "acquisition_id": .string(acquisition)]))
        return DocumentChecks.crossDocumentFindings(
          document, schema: schema, path: path, layout: store.layout, registry: store.registry, display: { $0 }
        ) { _, id, path in id == "ACQ-2026-001" && path() == data + "/acquisitions/ACQ-2026-001.json" }.map(\.rule)
      }
      let orders = data + "/purchase-orders"
      #expect(rules("PO-1", "ACQ-2026-001", orders + "/PO-1.json") == [])
      #expect(rules("PO-1", "ACQ-2026-002", orders + "/PO-1.json") == ["relation"])
      #expect(rules("PO-1", "ACQ-2026-001", orders + "/PO-2.json") == ["file-name"])
      #expect(rules("PO-1", "ACQ-2026-001", data + "/forms/PO-1.json") == ["directory"])
      #expect(rules("PO-1", "ACQ-2026-001", orders + "/old/PO-1.json") == ["directory"])
      // Not the plain form: taken apart by `FilePath`, as before the byte comparison.
      #expect(rules("PO-1", "ACQ-2026-001", orders + "//PO-1.json") == ["directory"])
      #expect(rules("PO 1", "ACQ-2026-001", orders + "/PO 1.json") == ["id"])
      #expect(rules("a/b", "ACQ-2026-001", orders + "/a/b.json") == ["id", "directory"])
      #expect(DocumentChecks.isFile(orders + "/PO-1.json", of: "PO-1", in: orders))
      for (path, id) in [
        (orders + "/PO-1.jso", "PO-1"), (orders + "PO-1.json", "PO-1"), (orders + "/PO-1.json", "PO-2"),
        (orders + "/x/PO-1.json", "x/PO-1"), (orders + "/PO-1.json", "PO-1.json"),
      ] {
        #expect(!DocumentChecks.isFile(path, of: id, in: orders), "\(path) is not the file of \(id)")
      }
    }
  }

  @Test func leadingSchemaReadsOnlyTheFormFormsctlWrites() {
    #expect(
      StoreValidator.leadingSchema(Array("{\n  \"_schema\": \"form@2.0.0\",\n  \"a\": 1\n}\n".utf8)) == "form@2.0.0")
    #expect(StoreValidator.leadingSchema(Array("{\"_schema\":\"po@1.1.0\"}".utf8)) == "po@1.1.0")
    for text in [
      " {\"_schema\": \"x\"}", "{\"a\": 1, \"_schema\": \"x\"}", "{\"_schema\": \"x\\u0041\"}", "{\"_schema\": 1}",
      "{\"_schema\": \"x",
    ] {
      #expect(StoreValidator.leadingSchema(Array(text.utf8)) == nil, "\(text)")
    }
  }
}
