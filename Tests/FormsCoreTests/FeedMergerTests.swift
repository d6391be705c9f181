import FormsTestSupport
import Testing

@testable import FormsCore

struct FeedMergerTests {
  static let schema = orderSchema
  static let merger = FeedMerger(schema: schema, now: Instant("2026-11-22T00:00:00Z")!.seconds)

  static func json(_ text: String) -> JSONValue { try! JSONParser().parse(text) }

  static let stored = json(
    """
    {"n": "P1", "u": "2026-11-10T00:00:00Z", "note": "mine",
     "items": [{"k": 1, "q": 5, "u": "2026-11-10T00:00:00Z"}, {"k": 2, "q": 6, "u": "2026-11-10T00:00:00Z"}],
     "invoices": [{"k": "I1", "u": "2026-11-10T00:00:00Z", "receipts": [{"k": 1, "q": 1, "u": "2026-11-10T00:00:00Z"}]}]}
    """)

  @Test func newRecordIsCreated() {
    let merge = Self.merger.merge(stored: nil, feed: Self.stored)
    #expect(merge.action == .create && merge.result == Self.stored)
  }

  @Test func newerRecordReplacesTheDocumentAndItsListsButKeepsWhatTheFeedDoesNotCarry() {
    let feed = Self.json(
      #"{"n": "P1", "u": "2026-11-11T00:00:00.000Z", "items": [{"k": 1, "q": 9, "u": "2026-11-01T00:00:00Z"}]}"#)
    let merge = Self.merger.merge(stored: Self.stored, feed: feed)
    #expect(merge.action == .replace)
    var expected = feed
    expected["note"] = .string("mine")
    expected["invoices"] = Self.stored["invoices"]
    #expect(merge.result == expected, "the stored-only item 2 is gone; the note and invoices the feed lacks are kept")
    #expect(merge.kept == ["note": 1, "invoices": 1])
    #expect(merge.description == "replace (kept: invoices, note)")
  }

  @Test func aReplacedElementKeepsTheMembersTheFeedElementLacks() {
    let stored = Self.json(
      #"{"n": "P1", "u": "2026-11-10T00:00:00Z", "extra": "x", "items": [{"k": 1, "q": 5, "u": "2026-11-10T00:00:00Z", "price": 2}, {"k": 2, "q": 6, "u": "2026-11-10T00:00:00Z", "price": 3}]}"#
    )
    let newer = Self.json(
      #"{"n": "P1", "u": "2026-11-12T00:00:00Z", "items": [{"k": 1, "q": 9, "u": "2026-11-12T00:00:00Z"}, {"k": 2, "q": 6, "u": "2026-11-10T00:00:00Z"}]}"#
    )
    let replaced = Self.merger.merge(stored: stored, feed: newer)
    #expect(
      replaced.result?["items"]?.arrayValue?.map { $0["price"] } == [.number(JSONNumber(2)), .number(JSONNumber(3))])
    #expect(replaced.result?["extra"] == .string("x"))
    #expect(replaced.description == "replace (kept: extra, price ×2)")
    let older = Self.json(
      #"{"n": "P1", "u": "2026-11-01T00:00:00Z", "items": [{"k": 1, "q": 9, "u": "2026-11-12T00:00:00Z"}]}"#)
    let updated = Self.merger.merge(stored: stored, feed: older)
    #expect(updated.action == .update(["update items[k=1]"]))
    #expect(
      updated.result?["items"]?.arrayValue?[0]["price"] == .number(JSONNumber(2)),
      "an element replaced alone keeps its price")
    #expect(updated.kept == ["price": 1])
  }

  @Test func elementsCompareTheTimestampTheirTypeDeclares() throws {
    let schema = try compile(
      """
      kind: po
      version: 1.0.0
      id: n
      timestamps: {updated: u}
      fields:
        n: string
        u: datetime
        items: {type: list, of: item, unique: [k]}
      types:
        item: {timestamps: {updated: changed}, fields: {k: integer, q: integer, changed: datetime}}
      """)
    let merger = FeedMerger(schema: schema, now: Instant("2026-11-22T00:00:00Z")!.seconds)
    let stored = Self.json(
      #"{"n": "P1", "u": "2026-11-10T00:00:00Z", "items": [{"k": 1, "q": 5, "changed": "2026-11-10T00:00:00Z"}]}"#)
    let feed = Self.json(
      #"{"n": "P1", "u": "2026-11-01T00:00:00Z", "items": [{"k": 1, "q": 7, "changed": "2026-11-11T00:00:00Z"}]}"#)
    #expect(merger.merge(stored: stored, feed: feed).action == .update(["update items[k=1]"]))
  }

  @Test func aDateComparedWithADatetimeComparesCalendarDays() {
    #expect(Instant.order(.string("2026-11-10"), .string("2026-11-10T23:59:59Z")) == 0)
    #expect(Instant.order(.string("2026-11-11"), .string("2026-11-10T23:59:59Z")) == 1)
  }

  @Test func olderRecordMergesKeyedListsElementByElement() {
    let feed = Self.json(
      """
      {"n": "P1", "u": "2026-11-09T00:00:00Z", "note": "theirs",
       "items": [{"k": 1, "q": 50, "u": "2026-11-12T00:00:00Z"}, {"k": 2, "q": 60, "u": "2026-11-01T00:00:00Z"}, {"k": 3, "q": 7, "u": "2026-11-09T00:00:00Z"}],
       "invoices": [{"k": "I1", "u": "2026-11-01T00:00:00Z", "receipts": [{"k": 1, "q": 9, "u": "2026-11-15T00:00:00Z"}, {"k": 2, "q": 3, "u": "2026-11-15T00:00:00Z"}]},
                    {"k": "I2", "u": "2026-11-01T00:00:00Z", "receipts": []}]}
      """)
    let merge = Self.merger.merge(stored: Self.stored, feed: feed)
    let (result, action) = (merge.result, merge.action)
    #expect(
      action
        == .update([
          "update items[k=1]", "add items[k=3]", "update invoices[k=I1].receipts[k=1]",
          "add invoices[k=I1].receipts[k=2]", "add invoices[k=I2]",
        ]))
    let merged = result!
    #expect(merged["note"] == .string("mine"), "the stored document's own fields stay")
    #expect(
      merged["items"]?.arrayValue?.map { $0["q"]! } == [
        .number(JSONNumber(50)), .number(JSONNumber(6)), .number(JSONNumber(7)),
      ])
    let invoice = merged["invoices"]!.arrayValue![0]
    #expect(invoice["u"] == .string("2026-11-10T00:00:00Z"), "an invoice not replaced keeps its own fields")
    #expect(invoice["receipts"]?.arrayValue?.count == 2)
  }

  @Test func anInvoiceNewerInTheFeedIsReplacedWhole() {
    let feed = Self.json(
      #"{"n": "P1", "u": "2026-11-01T00:00:00Z", "items": [], "invoices": [{"k": "I1", "u": "2026-11-20T00:00:00Z", "receipts": []}]}"#
    )
    let merge = Self.merger.merge(stored: Self.stored, feed: feed)
    let (result, action) = (merge.result, merge.action)
    #expect(action == .update(["update invoices[k=I1]"]))
    #expect(result?["invoices"]?.arrayValue?[0]["receipts"]?.arrayValue?.isEmpty == true)
    #expect(result?["items"]?.arrayValue?.count == 2, "the user's own items survive")
  }

  @Test func equalTimestampsKeepTheStoredVersion() {
    var feed = Self.stored
    feed["note"] = .string("theirs")
    let merge = Self.merger.merge(stored: Self.stored, feed: feed)
    #expect(merge.result == nil && merge.action == .unchanged)
    let older = Self.json(#"{"n": "P1", "u": "2026-01-01T00:00:00Z", "items": []}"#)
    #expect(Self.merger.merge(stored: Self.stored, feed: older).action == .localNewer)
  }

  @Test func futureTimestampsAreAppliedWithAWarning() {
    let feed = Self.json(#"{"n": "P1", "u": "2027-01-01T00:00:00Z", "items": []}"#)
    let merge = Self.merger.merge(stored: Self.stored, feed: feed)
    #expect(merge.action == .replace)
    #expect(merge.warnings == ["u 2027-01-01T00:00:00Z is in the future; applied anyway"])
  }

  @Test func unknownFieldsAreDroppedAndCounted() {
    var dropped: [String: Int] = [:]
    let record = Self.json(
      #"{"n": "P1", "extra": 1, "items": [{"k": 1, "id": 7}, {"k": 2, "id": 8}], "invoices": [{"k": "I", "receipts": [{"k": 1, "sent": 0}]}]}"#
    )
    let kept = FeedMerger.dropUnknown(record, type: Self.schema.root, dropped: &dropped)
    #expect(dropped == ["extra": 1, "items[].id": 2, "invoices[].receipts[].sent": 1])
    #expect(kept["items"]?.arrayValue?[0]["id"] == nil)
  }
}
