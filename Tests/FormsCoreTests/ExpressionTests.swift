import Testing

@testable import FormsCore

struct ExpressionTests {
  static let document = try! JSONParser().parse(
    """
    {"status": "open", "ticker": "AAPL", "total": 12.50, "issued": "2026-03-01T10:00:00-05:00",
     "due": "2026-03-01", "items": [{"quantity": 3}, {"quantity": 12}], "note": null,
     "meta": {"agency": "GSA"}}
    """)

  @Test(arguments: [
    ("status == \"open\"", true), ("status != \"open\"", false), ("status in [\"open\", \"closed\"]", true),
    ("total == 12.5", true), ("total > 12.49", true), ("total >= 12.500", true), ("total < 2", false),
    ("items[].quantity >= 10", true), ("items[0].quantity >= 10", false), ("items[5].quantity exists", false),
    ("ticker ~ \"^AA\"", true), ("ticker ~ \"^MS\"", false), ("meta.agency == 'GSA'", true),
    ("note exists", false), ("missing exists", false), ("not missing exists", true), ("missing == 1", false),
    // A date against a datetime compares calendar days, the datetime's as written (docs/design.md §12).
    ("issued > \"2026-03-01\"", false), ("issued >= \"2026-03-01\"", true), ("issued > due", false),
    ("issued == due", true),
    ("due >= \"2026-03-01T00:00:00Z\"", true), ("due < \"2026-03-01T23:59:59Z\"", false),
    ("issued < \"2026-03-02\"", true),
    ("issued < \"2026-03-01T15:00:01Z\"", true), ("issued < \"2026-03-01T15:00:00Z\"", false),
    ("status == \"open\" and (total > 100 or ticker == \"AAPL\")", true), ("not (status == \"open\")", false),
    ("status == 1", false), ("status != 1", true),
  ])
  func evaluates(_ text: String, _ expected: Bool) throws {
    #expect(try ExpressionParser.parse(text).evaluate(Self.document) == expected)
  }

  @Test(arguments: [
    ("2020-05-07", "2020-05-07T09:32:00Z", 0), ("2020-05-07", "2020-05-06T23:30:00-05:00", 1),
    ("2020-05-07T00:30:00+02:00", "2020-05-07", 0), ("2020-05-06", "2020-05-07T00:00:00Z", -1),
    ("2020-05-07T09:32:00Z", "2020-05-07T09:32:00.000Z", 0), ("2020-05-07T09:32:00Z", "2020-05-07T11:32:00+02:00", 0),
    ("2020-05-07T09:32:00Z", "2020-05-07T09:32:01Z", -1), ("2020-05-06", "2020-05-07", -1),
  ])
  func datesAgainstDatetimesCompareByCalendarDay(_ a: String, _ b: String, _ order: Int) {
    #expect(Instant.order(a, b) == order)
    #expect(Instant.order(b, a) == -order)
  }

  @Test func notADateOrDatetimeIsUnordered() {
    #expect(Instant.order("2020-05-07", "open") == nil)
    #expect(Instant.order("2020-13-07", "2020-05-07T09:32:00Z") == nil)
  }

  @Test(arguments: [
    ("status = \"open\"", 8, "compare with '=='"), ("status ==", 10, "unexpected end of expression"),
    ("(status == \"a\"", 15, "expected ')'"), ("status == \"a\" and", 18, "unexpected end"),
    ("ticker ~ \"[\"", 10, "is not a valid regular expression (ECMA-262"), ("status in \"a\"", 11, "'['"),
    ("status", 7, "expected a comparison"), ("\"x\" exists", 1, "'exists' follows a path"),
    ("a == \"unterminated", 6, "unterminated string"), ("a == 1 b", 8, "after the end"),
  ])
  func syntaxErrorsPointAtTheColumn(_ text: String, _ column: Int, _ message: String) {
    do {
      _ = try ExpressionParser.parse(text)
      Issue.record("accepted \(text)")
    } catch {
      #expect(error.column == column, "\(error)")
      #expect(error.message.contains(message), "\(error.message)")
    }
  }

  @Test func instantsCompareExactly() {
    #expect(Instant("2026-11-22T03:48:14.5Z")! < Instant("2026-11-22T03:48:14.50001Z")!)
    #expect(Instant("2026-11-22T03:48:14.500Z")! == Instant("2026-11-22T03:48:14.5Z")!)
    #expect(Instant("2026-11-21T22:48:14-05:00")! == Instant("2026-11-22T03:48:14Z")!)
    #expect(Instant("2026-02-30") == nil)
    #expect(Instant("2024-02-29") != nil)
    #expect(Instant("2026-11-22T03:48:14") == nil)
    #expect(Instant("2026-11-22T24:00:00Z") == nil)
  }

  @Test func suggestions() {
    #expect(suggestion(for: "qty", among: ["quantity", "unit_price"]) == "quantity")
    #expect(suggestion(for: "stauts", among: ["status", "ticker"]) == "status")
    #expect(suggestion(for: "zzz", among: ["status"]) == nil)
  }
}
