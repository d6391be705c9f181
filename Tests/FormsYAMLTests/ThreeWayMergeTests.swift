import FormsCore
import Testing

@testable import FormsYAML

struct ThreeWayMergeTests {
  static let schema = try! compile("""
    kind: po
    version: 1.0.0
    id: n
    timestamps: {updated: u}
    fields:
      n: string
      u: datetime
      note: string?
      items: {type: list, of: item, unique: [k]}
    types:
      item: {fields: {k: integer, q: integer, u: datetime}}
    """)

  static func json(_ text: String) -> JSONValue { try! JSONParser().parse(text) }
  static let base = json(#"{"n": "P", "u": "2026-01-01T00:00:00Z", "note": "a", "items": [{"k": 1, "q": 1, "u": "2026-01-01T00:00:00Z"}]}"#)

  @Test func sameChangeOnBothSidesIsTakenOnce() {
    let both = Self.json(#"{"n": "P", "u": "2026-01-01T00:00:00Z", "note": "b", "items": [{"k": 1, "q": 1, "u": "2026-01-01T00:00:00Z"}]}"#)
    let (text, conflicts) = ThreeWayMerge(schema: Self.schema).merge(base: Self.base, ours: both, theirs: both)
    #expect(conflicts == 0)
    #expect(text == JSONWriter.canonicalString(both))
  }

  @Test func keyedItemsAddedOnEachSideAreBothKept() {
    let ours = Self.json(#"{"n": "P", "u": "2026-01-01T00:00:00Z", "note": "a", "items": [{"k": 1, "q": 1, "u": "2026-01-01T00:00:00Z"}, {"k": 2, "q": 2, "u": "2026-01-01T00:00:00Z"}]}"#)
    let theirs = Self.json(#"{"n": "P", "u": "2026-01-01T00:00:00Z", "note": "a", "items": [{"k": 3, "q": 3, "u": "2026-01-01T00:00:00Z"}, {"k": 1, "q": 9, "u": "2026-01-01T00:00:00Z"}]}"#)
    let (text, conflicts) = ThreeWayMerge(schema: Self.schema).merge(base: Self.base, ours: ours, theirs: theirs)
    #expect(conflicts == 0)
    let merged = try! JSONParser().parse(text)
    #expect(merged["items"]?.arrayValue?.map { $0["k"]! } == [1, 2, 3].map { JSONValue.number(JSONNumber($0)) })
    #expect(merged["items"]?.arrayValue?[0]["q"] == .number(JSONNumber(9)))
  }

  @Test func preferNewerSettlesConflictsByTheRecordsTimestamp() {
    let ours = Self.json(#"{"n": "P", "u": "2026-02-01T00:00:00Z", "note": "ours", "items": []}"#)
    let theirs = Self.json(#"{"n": "P", "u": "2026-03-01T00:00:00Z", "note": "theirs", "items": []}"#)
    let plain = ThreeWayMerge(schema: Self.schema).merge(base: Self.base, ours: ours, theirs: theirs)
    #expect(plain.conflicts == 2, "note and u both differ")
    let newer = ThreeWayMerge(schema: Self.schema, preferNewer: true).merge(base: Self.base, ours: ours, theirs: theirs)
    #expect(newer.conflicts == 0)
    #expect(try! JSONParser().parse(newer.text)["note"] == .string("theirs"))
  }
}
