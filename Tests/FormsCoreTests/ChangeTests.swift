import FormsTestSupport
import Testing

@testable import FormsCore

/// The pure pieces of the write path: what changed, stamps, defaults.
struct ChangeTests {
  static func json(_ text: String) -> JSONValue { try! JSONParser().parse(text) }

  static let schema = try! compile(
    """
    kind: po
    version: 1.0.0
    id: n
    timestamps: {created: c, updated: u}
    fields:
      n: string
      c: datetime?
      u: datetime?
      currency: {type: string, default: USD}
      items: {type: list, of: item, unique: [k]}
      notes: {type: map, of: note, optional: true}
    types:
      item: {timestamps: {updated: u}, fields: {k: integer, q: integer, unit: {type: string, default: ea}, u: datetime?, parts: {type: list, of: part, optional: true}}}
      part: {timestamps: {updated: on}, fields: {p: integer, on: date?}}
      note: {timestamps: {updated: u}, fields: {text: string, u: datetime?}}
    """)

  @Test func changedPointersNameEachDifference() {
    let before = Self.json(#"{"a": 1, "b": {"c": 2, "d": 3}, "l": [1, 2], "gone": true}"#)
    let after = Self.json(#"{"a": 1, "b": {"c": 5, "d": 3, "e": 0}, "l": [1, 2, 3], "new": null}"#)
    #expect(before.changedPointers(to: after).map(\.description) == ["/b/c", "/b/e", "/gone", "/l/2", "/new"])
    #expect(before.changedPointers(to: before).isEmpty)
    #expect(Self.json("1").changedPointers(to: Self.json(#""1""#)).map(\.description) == [""])
  }

  @Test func defaultsReachListElements() {
    var document = Self.json(#"{"n": "P", "items": [{"k": 1, "q": 1}, {"k": 2, "q": 1, "unit": "kg"}]}"#)
    Self.schema.root.fillDefaults(&document)
    #expect(document["currency"] == .string("USD"))
    #expect(document["items"]?.arrayValue?.map { $0["unit"]! } == [.string("ea"), .string("kg")])
  }

  @Test func refreshStampsWhatChangedAndWhatHoldsIt() {
    let stored = Self.json(
      """
      {"n": "P", "c": "2026-01-01T00:00:00Z", "u": "2026-01-01T00:00:00Z",
       "items": [{"k": 1, "q": 1, "u": "2026-01-01T00:00:00Z", "parts": [{"p": 1, "on": "2026-01-01"}, {"p": 2, "on": "2026-01-01"}]},
                 {"k": 2, "q": 1, "u": "2026-01-01T00:00:00Z"}],
       "notes": {"a": {"text": "x", "u": "2026-01-01T00:00:00Z"}, "b": {"text": "y", "u": "2026-01-01T00:00:00Z"}}}
      """)
    var changed = stored
    changed["items"] = Self.json(
      """
      [{"k": 2, "q": 1, "u": "2026-01-01T00:00:00Z"},
       {"k": 1, "q": 1, "u": "2026-01-01T00:00:00Z", "parts": [{"p": 1, "on": "2026-01-01"}, {"p": 2, "on": "2026-01-01", "extra": 1}]},
       {"k": 3, "q": 9, "u": "2020-01-01T00:00:00Z"}]
      """)
    changed["notes"]?["b"]?["text"] = .string("z")
    let now = "2026-11-22T08:00:00Z"
    TimestampStamper(time: now, mode: .refresh).stamp(&changed, before: stored, type: Self.schema.root)
    let items = changed["items"]!.arrayValue!
    #expect(items[0]["u"] == .string("2026-01-01T00:00:00Z"), "moved, not changed: matched by its key")
    #expect(items[1]["u"] == .string(now), "a part inside it changed")
    #expect(
      items[1]["parts"]?.arrayValue?.map { $0["on"]! } == [.string("2026-01-01"), .string("2026-11-22")],
      "a date stamp gets the day")
    #expect(items[2]["u"] == .string(now), "a new element gets the write time")
    #expect(
      changed["notes"]?["a"]?["u"] == .string("2026-01-01T00:00:00Z") && changed["notes"]?["b"]?["u"] == .string(now))
    #expect(changed["u"] == .string(now) && changed["c"] == .string("2026-01-01T00:00:00Z"))
    var same = stored
    TimestampStamper(time: now, mode: .refresh).stamp(&same, before: stored, type: Self.schema.root)
    #expect(same == stored, "nothing changed, nothing stamped")
  }

  /// Another clone's change keeps the time it was made (else two clones restamp it for ever); a
  /// writer that changed content but left the stamp as stored gets the write time.
  @Test func refreshUnlessGivenKeepsAStampTheWriterChanged() {
    let stored = Self.json(
      #"{"n": "P", "u": "2026-01-01T00:00:00Z", "items": [{"k": 1, "q": 1, "u": "2026-01-01T00:00:00Z"}]}"#)
    var fromClone = stored
    fromClone["n"] = .string("Q")
    fromClone["u"] = .string("2026-05-05T05:05:05Z")
    fromClone["items"] = Self.json(#"[{"k": 1, "q": 2, "u": "2026-01-01T00:00:00Z"}]"#)
    let now = "2026-11-22T08:00:00Z"
    TimestampStamper(time: now, mode: .refreshUnlessGiven).stamp(&fromClone, before: stored, type: Self.schema.root)
    #expect(fromClone["u"] == .string("2026-05-05T05:05:05Z"), "the writer's own stamp is kept")
    #expect(
      fromClone["items"]?.arrayValue?.first?["u"] == .string(now), "a change whose stamp was left as stored is stamped")
    var same = stored
    TimestampStamper(time: now, mode: .refreshUnlessGiven).stamp(&same, before: stored, type: Self.schema.root)
    #expect(same == stored)
  }

  @Test func fillMissingKeepsGivenStamps() {
    var created = Self.json(
      #"{"n": "P", "u": "2025-01-01T00:00:00Z", "items": [{"k": 1, "q": 1}, {"k": 2, "q": 1, "u": "2025-06-01T00:00:00Z"}]}"#
    )
    TimestampStamper(time: "2026-11-22T08:00:00Z", mode: .fillMissing).stamp(
      &created, before: nil, type: Self.schema.root)
    #expect(created["u"] == .string("2025-01-01T00:00:00Z") && created["c"] == .string("2026-11-22T08:00:00Z"))
    #expect(
      created["items"]?.arrayValue?.map { $0["u"]! } == [
        .string("2026-11-22T08:00:00Z"), .string("2025-06-01T00:00:00Z"),
      ])
  }

  @Test func workflowCreationStatesAndTransitionFindings() throws {
    let schema = try compile(
      """
      kind: doc
      version: 1.0.0
      fields:
        id: string
        s: {type: enum, values: [new, open, shut, lost], default: open}
      workflow:
        field: s
        transitions: {new: [open], open: [shut], shut: [open]}
      """)
    #expect(schema.creationStates == ["open", "new", "lost"], "the default first, then states nothing leads into")
    let finding = ChangeRules.workflowFinding(
      old: Self.json(#"{"id": "a", "s": "shut"}"#), new: Self.json(#"{"id": "a", "s": "new"}"#), schema: schema)
    #expect(
      finding?.message
        == "changed from shut to new, which the workflow does not allow; from shut it may move to open"
    )
    #expect(
      ChangeRules.workflowFinding(
        old: Self.json(#"{"id": "a"}"#), new: Self.json(#"{"id": "a", "s": "shut"}"#), schema: schema) == nil,
      "a missing state is the default, open, and open → shut is allowed")
    #expect(
      ChangeRules.workflowFinding(
        old: Self.json(#"{"id": "a"}"#), new: Self.json(#"{"id": "a", "s": "bogus"}"#), schema: schema) == nil,
      "a value outside the enum is the validator's to report")
  }
}
