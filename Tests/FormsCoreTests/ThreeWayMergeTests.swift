import FormsTestSupport
import Testing

@testable import FormsCore

struct ThreeWayMergeTests {
  static let schema = orderSchema

  /// The text with every conflict block resolved to one side, as "take ours" / "take theirs" do.
  static func keep(_ side: String, _ text: String) -> String {
    var out: [Substring] = []
    var state = ""
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("<<<<<<< ") {
        state = "ours"
        continue
      }
      if line == "=======" {
        state = "theirs"
        continue
      }
      if line.hasPrefix(">>>>>>> ") {
        state = ""
        continue
      }
      if state == "" || state == side { out.append(line) }
    }
    return out.joined(separator: "\n")
  }

  static func json(_ text: String) -> JSONValue { try! JSONParser().parse(text) }
  static let base = json(
    #"{"n": "P", "u": "2026-01-01T00:00:00Z", "note": "a", "items": [{"k": 1, "q": 1, "u": "2026-01-01T00:00:00Z"}]}"#)

  @Test func sameChangeOnBothSidesIsTakenOnce() {
    let both = Self.json(
      #"{"n": "P", "u": "2026-01-01T00:00:00Z", "note": "b", "items": [{"k": 1, "q": 1, "u": "2026-01-01T00:00:00Z"}]}"#
    )
    let (text, conflicts) = ThreeWayMerge(schema: Self.schema).merge(base: Self.base, ours: both, theirs: both)
    #expect(conflicts == 0)
    #expect(text == JSONWriter.canonicalString(both))
  }

  @Test func keyedItemsAddedOnEachSideAreBothKept() {
    let ours = Self.json(
      #"{"n": "P", "u": "2026-01-01T00:00:00Z", "note": "a", "items": [{"k": 1, "q": 1, "u": "2026-01-01T00:00:00Z"}, {"k": 2, "q": 2, "u": "2026-01-01T00:00:00Z"}]}"#
    )
    let theirs = Self.json(
      #"{"n": "P", "u": "2026-01-01T00:00:00Z", "note": "a", "items": [{"k": 3, "q": 3, "u": "2026-01-01T00:00:00Z"}, {"k": 1, "q": 9, "u": "2026-01-01T00:00:00Z"}]}"#
    )
    let (text, conflicts) = ThreeWayMerge(schema: Self.schema).merge(base: Self.base, ours: ours, theirs: theirs)
    #expect(conflicts == 0)
    let merged = try! JSONParser().parse(text)
    #expect(merged["items"]?.arrayValue?.map { $0["k"]! } == [1, 2, 3].map { JSONValue.number(JSONNumber($0)) })
    #expect(merged["items"]?.arrayValue?[0]["q"] == .number(JSONNumber(9)))
  }

  @Test func updatedStampsBothSidesChangedBecomeTheLaterOne() {
    let ours = Self.json(
      #"{"n": "P", "u": "2026-02-01T00:00:00Z", "note": "ours", "items": [{"k": 1, "q": 2, "u": "2026-02-01T00:00:00Z"}]}"#
    )
    let theirs = Self.json(
      #"{"n": "P", "u": "2026-03-01T00:00:00Z", "note": "a", "items": [{"k": 1, "q": 1, "u": "2026-03-01T00:00:00Z"}], "c": "2026-01-01T00:00:00Z"}"#
    )
    let (text, conflicts) = ThreeWayMerge(schema: Self.schema).merge(base: Self.base, ours: ours, theirs: theirs)
    #expect(conflicts == 0, "\(text)")
    let merged = Self.json(text)
    #expect(merged["u"] == .string("2026-03-01T00:00:00Z") && merged["note"] == .string("ours"))
    #expect(
      merged["items"]?.arrayValue?[0]["u"] == .string("2026-03-01T00:00:00Z")
        && merged["items"]?.arrayValue?[0]["q"] == .number(JSONNumber(2)))
    var created = ours
    created["c"] = .string("2026-01-02T00:00:00Z")
    #expect(
      ThreeWayMerge(schema: Self.schema).merge(base: Self.base, ours: created, theirs: theirs).conflicts == 1,
      "created is not an updated stamp")
  }

  @Test func anEmptyBaseMergesTwoWayWithKeyedListsByKey() {
    let ours = Self.json(
      #"{"n": "P", "u": "2026-02-01T00:00:00Z", "note": "a", "items": [{"k": 1, "q": 1, "u": "2026-02-01T00:00:00Z"}]}"#
    )
    let theirs = Self.json(
      #"{"n": "P", "u": "2026-03-01T00:00:00Z", "items": [{"k": 2, "q": 2, "u": "2026-03-01T00:00:00Z"}]}"#)
    let (text, conflicts) = ThreeWayMerge(schema: Self.schema).merge(base: nil, ours: ours, theirs: theirs)
    #expect(conflicts == 0, "\(text)")
    let merged = Self.json(text)
    #expect(merged["items"]?.arrayValue?.map { $0["k"]! } == [.number(JSONNumber(1)), .number(JSONNumber(2))])
    #expect(merged["u"] == .string("2026-03-01T00:00:00Z") && merged["note"] == .string("a"))
  }

  @Test func deleteAgainstModifyKeepsEitherSideValid() {
    let base = Self.json(#"{"a": 1, "b": 1}"#)
    let (text, conflicts) = ThreeWayMerge(schema: nil).merge(
      base: base, ours: Self.json(#"{"a": 1}"#), theirs: Self.json(#"{"a": 1, "b": 2}"#))
    #expect(conflicts == 1)
    #expect(text == "{\n  \"a\": 1\n<<<<<<< ours\n=======\n  , \"b\": 2\n>>>>>>> theirs\n}\n")
    #expect(Self.json(Self.keep("ours", text)) == Self.json(#"{"a": 1}"#))
    #expect(Self.json(Self.keep("theirs", text)) == Self.json(#"{"a": 1, "b": 2}"#))
  }

  /// Every conflict, whichever side is kept, leaves valid JSON: random documents with deletes,
  /// additions and changes on both sides, in objects and keyed lists, first, middle and last.
  @Test(arguments: 0..<200)
  func eitherSideOfEveryConflictParses(_ seed: Int) throws {
    var state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 &+ 1
    func next(_ n: Int) -> Int {
      state ^= state << 13
      state ^= state >> 7
      state ^= state << 17
      return Int(state % UInt64(n))
    }
    func variant(_ base: [String: Int]) -> [String: Int] {
      var out = base
      for key in base.keys.sorted() where next(3) == 0 { out[key] = next(2) == 0 ? nil : next(5) }
      if next(2) == 0 { out["n\(next(4))"] = next(5) }
      return out
    }
    func object(_ members: [String: Int]) -> JSONValue {
      .object(
        JSONObject(
          members.sorted { $0.key < $1.key }.map {
            JSONObject.Member(key: $0.key, value: .number(JSONNumber($0.value)))
          }))
    }
    let keys = ["a", "b", "c", "d"].filter { _ in next(4) != 0 }
    let base = Dictionary(uniqueKeysWithValues: keys.map { ($0, next(5)) })
    let ours = variant(base)
    let theirs = variant(base)
    func document(_ members: [String: Int], _ items: [Int]) -> JSONValue {
      var value = JSONValue.object(
        JSONObject([
          "n": .string("P"), "u": .string("2026-01-01T00:00:00Z"),
          "items": .array(
            items.map { k in
              .object(
                JSONObject([
                  "k": .number(JSONNumber(k % 10)), "q": .number(JSONNumber(k / 10)),
                  "u": .string("2026-01-01T00:00:00Z"),
                ]))
            }),
        ]))
      value["note"] = .string(JSONWriter.compact(object(members)))
      value["extra"] = object(members)
      return value
    }
    let baseItems = [11, 12]
    func items() -> [Int] { [1, 2, 3].filter { _ in next(3) != 0 }.map { $0 + 10 * next(3) } }
    let (text, conflicts) = ThreeWayMerge(schema: seed % 2 == 0 ? nil : Self.schema).merge(
      base: document(base, baseItems), ours: document(ours, items()), theirs: document(theirs, items()))
    for side in ["ours", "theirs"] {
      let kept = Self.keep(side, text)
      #expect((try? JSONParser().parse(kept)) != nil, "seed \(seed), \(conflicts) conflicts, keeping \(side):\n\(text)")
    }
  }

  @Test func preferNewerSettlesConflictsByTheRecordsTimestamp() {
    let ours = Self.json(#"{"n": "P", "u": "2026-02-01T00:00:00Z", "note": "ours", "items": []}"#)
    let theirs = Self.json(#"{"n": "P", "u": "2026-03-01T00:00:00Z", "note": "theirs", "items": []}"#)
    let plain = ThreeWayMerge(schema: Self.schema).merge(base: Self.base, ours: ours, theirs: theirs)
    #expect(plain.conflicts == 1, "note differs; u becomes the later one")
    let newer = ThreeWayMerge(schema: Self.schema, preferNewer: true).merge(base: Self.base, ours: ours, theirs: theirs)
    #expect(newer.conflicts == 0)
    #expect(try! JSONParser().parse(newer.text)["note"] == .string("theirs"))
  }
}
