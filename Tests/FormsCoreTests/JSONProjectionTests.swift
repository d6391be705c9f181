import Foundation
import Testing

@testable import FormsCore

/// `parse(_:keeping:)` builds only what a query reads; it must never accept what `parse` refuses,
/// and what it builds must be what `parse` gives at those paths.
struct JSONProjectionTests {
  static func projection(_ paths: String...) -> JSONProjection {
    JSONProjection(paths: paths.map { FilterExpression.Path($0)! })!
  }

  /// Every file of the conformance suite, as the value of a member that is skipped or kept.
  @Test(
    .enabled(if: JSONTestSuite.isPresent, "../shared/JSONTestSuite is not beside this clone"),
    arguments: JSONTestSuite.files("test_parsing"))
  func neverAcceptsWhatTheParserRefuses(_ name: String) throws {
    let inner = JSONTestSuite.bytes("test_parsing", name)
    let document = Array("{\"a\": ".utf8) + inner + Array(", \"b\": 1}".utf8)
    let full = try? JSONParser().parse(document)
    for projection in [Self.projection("b"), Self.projection("a"), Self.projection("a.x")] {
      guard let projected = JSONParser().parse(document, keeping: projection) else { continue }
      let whole = try #require(full, "\(name): the projection accepted what parse refuses")
      #expect(Self.narrow(whole, projection) == projected, "\(name)")
    }
  }

  @Test func keepsOnlyWhatThePathsReachAndTheListsAround() throws {
    let text =
      #"{"_schema": "purchase-order@1.1.0", "items": [{"quantity": 5, "sku": "a"}, {"quantity": 7}], "status": "open", "z": {"deep": [1, 2]}}"#
    let projected = try #require(
      JSONParser().parse(Array(text.utf8), keeping: Self.projection("status", "items[].quantity")))
    #expect(projected == (try JSONParser().parse(#"{"items": [{"quantity": 5}, {"quantity": 7}], "status": "open"}"#)))
    let whole = try JSONParser().parse(text)
    #expect(Self.narrow(whole, Self.projection("status", "items[].quantity")) == projected)
  }

  @Test func leavesToTheFullParseWhatItCannotDecideAlone() {
    let projection = Self.projection("status")
    for text in [
      #"{"status": "open", "a": 1}"#,  // keys out of order: parse sorts them
      #"{"a": 1, "a": 2, "status": "open"}"#,  // a duplicate key: parse names it
      #"{"\u0061": 1, "status": "open"}"#,  // an escaped key
      #" {"status": "open"}"#, "[1]", #"{"status": "open"} x"#, #"{"a": [1,], "status": "open"}"#,
    ] {
      #expect(JSONParser().parse(Array(text.utf8), keeping: projection) == nil, "\(text)")
    }
  }

  /// The reader of an index entry's projection (compact JSON of scalars) answers as the strict
  /// projection does, and leaves every other shape to it.
  @Test func theCompactReaderAgreesWithTheStrictProjection() throws {
    let objects = [
      #"{}"#, #"{"status":"open"}"#, #"{"a":1,"status":"open","z":null}"#,
      #"{"a":"x\"y\\","b":-1.50e3,"c":true,"status":"clo\"sed\\","t":"2026-01-01T00:00:00Z"}"#,
      #"{"a":"é\u0041","status":false}"#, #"{"b":"]","c":"}","d":",","status":"x"}"#,
    ]
    for text in objects {
      let bytes = Array(text.utf8)
      for projection in [Self.projection("status"), Self.projection("a", "t"), Self.projection("missing")] {
        let compact = bytes.withUnsafeBufferPointer { JSONParser().parseCompactScalars($0, keeping: projection) }
        let strict = JSONParser().parse(bytes, keeping: projection)
        #expect(compact != nil, "\(text)")
        #expect(compact == strict, "\(text)")
      }
    }
    for text in [
      #"{ "status":"open"}"#, #"{"items":[1],"status":"open"}"#,
      #"{"st\u0061tus":"open"}"#, #"{"status":"open""#, #"{"status":"open}"#, #"{"status":}"#,
      #"{"status":01}"#, #"[1]"#, #"{"a":1,,"status":"open"}"#,
    ] {
      let bytes = Array(text.utf8)
      let compact = bytes.withUnsafeBufferPointer {
        JSONParser().parseCompactScalars($0, keeping: Self.projection("status"))
      }
      #expect(compact == nil, "\(text)")
    }
    let unordered = Array(#"{"status":"x","a":1}"#.utf8).withUnsafeBufferPointer {
      JSONParser().parseCompactScalars($0, keeping: Self.projection("a", "status"))
    }
    #expect(unordered == nil, "kept keys out of order")
  }

  @Test func aPathOfTheWholeDocumentMeansNoProjection() {
    #expect(JSONProjection(paths: [FilterExpression.Path(steps: [])]) == nil)
  }

  /// What the projection keeps of a fully parsed value (the reference).
  static func narrow(_ value: JSONValue, _ projection: JSONProjection?) -> JSONValue {
    guard let projection else { return value }
    switch value {
    case .object(let object):
      return .object(
        JSONObject(
          projection.members.compactMap { member in
            object[member.key].map { JSONObject.Member(key: member.key, value: narrow($0, member.child)) }
          }))
    case .array(let elements): return .array(elements.map { narrow($0, projection) })
    default: return value
    }
  }
}
