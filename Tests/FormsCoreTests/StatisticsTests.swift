import FormsCore
import Testing

/// The pure parts of `stats`: calendar buckets, `--by` expressions, exact averages, minimums and maximums.
struct StatisticsTests {
  @Test(arguments: [
    ("2026-11-27", DateBucket.day, "2026-11-27"),
    ("2026-11-27", .week, "2026-W48"),
    ("2026-11-27", .month, "2026-11"),
    ("2026-11-27", .quarter, "2026-Q4"),
    ("2026-11-27", .year, "2026"),
    ("2026-03-31", .quarter, "2026-Q1"),
    ("2026-04-01", .quarter, "2026-Q2"),
    // ISO weeks: week 1 holds the year's first Thursday; a Monday starts the week.
    ("2027-01-01", .week, "2026-W53"),
    ("2026-01-01", .week, "2026-W01"),
    ("2025-12-29", .week, "2026-W01"),
    ("2025-12-28", .week, "2025-W52"),
    ("2024-12-30", .week, "2025-W01"),
    ("2021-01-03", .week, "2020-W53"),
    ("2020-02-29", .day, "2020-02-29"),
    ("1969-12-31", .week, "1970-W01"),
    // A datetime is in the day it is written in, at its own offset.
    ("2026-12-31T23:30:00-05:00", .month, "2026-12"),
    ("2026-12-31T23:30:00-05:00", .year, "2026"),
    ("2027-01-01T01:00:00+02:00", .quarter, "2027-Q1"),
    ("2026-11-27T08:00:00.250Z", .day, "2026-11-27"),
  ])
  func bucketsDatesAndDatetimes(_ text: String, _ bucket: DateBucket, _ label: String) {
    #expect(bucket.label(of: text) == label, "\(bucket)(\(text))")
  }

  /// ISO week labels are `YYYY-Www` at the edges of the calendar too: the first days of year 0000
  /// (a Saturday and a Sunday) belong to the last week of ISO week-year -1, written `-0001-W52`
  /// (ISO 8601's expanded year, which still sorts before `0000-…` as text); years before 1000 keep
  /// four digits (docs/decisions/0130).
  @Test(arguments: [
    ("0000-01-01", "-0001-W52"),
    ("0000-01-02", "-0001-W52"),
    ("0000-01-03", "0000-W01"),
    ("0000-12-31", "0000-W52"),
    ("0001-01-01", "0001-W01"),
    ("0001-12-31", "0002-W01"),
    ("0004-12-31", "0004-W53"),
    ("0005-01-01", "0004-W53"),
    ("0999-12-31", "1000-W01"),
    ("1000-01-01", "1000-W01"),
    ("2004-12-31", "2004-W53"),
    ("2009-12-31", "2009-W53"),
    ("2010-01-03", "2009-W53"),
    ("2015-12-31", "2015-W53"),
    ("2016-01-03", "2015-W53"),
    ("2016-01-04", "2016-W01"),
    ("9999-01-01", "9998-W53"),
    ("9999-12-31", "9999-W52"),
    ("0000-01-01T12:00:00Z", "-0001-W52"),
  ])
  func isoWeekLabelsAtTheEdgesOfTheCalendar(_ text: String, _ label: String) {
    #expect(DateBucket.week.label(of: text) == label, "week(\(text))")
  }

  @Test func weekLabelsAroundYearZeroSortAsText() {
    let labels = ["0000-01-01", "0000-01-03", "0001-01-01"].compactMap { DateBucket.week.label(of: $0) }
    #expect(labels == ["-0001-W52", "0000-W01", "0001-W01"] && labels == labels.sorted(), "\(labels)")
  }

  @Test(arguments: ["", "soon", "2026-13-01", "2026-02-30", "2026-11-27T25:00:00Z", "2026-11-27T08:00:00", "26-11-27"])
  func aTextThatIsNoDateHasNoBucket(_ text: String) {
    #expect(DateBucket.allCases.allSatisfy { $0.label(of: text) == nil }, "\(text)")
  }

  @Test func groupingsParseAPathOrABucketOfOne() throws {
    #expect(try StatsGrouping(parsing: "status") == StatsGrouping(path: FilterExpression.Path("status")!))
    let month = try StatsGrouping(parsing: "month(created_at)")
    #expect(
      month.bucket == .month && month.path.description == "created_at" && month.description == "month(created_at)")
    let nested = try StatsGrouping(parsing: "week( fields.award_date )")
    #expect(nested.bucket == .week && nested.description == "week(fields.award_date)")
  }

  @Test(arguments: [
    ("mnth(created_at)", "unknown function \"mnth\"; did you mean \"month\"?"),
    ("Month(created_at)", "unknown function \"Month\"; did you mean \"month\"?"),
    ("sum(amount)", "unknown function \"sum\"; the functions are (day, week, month, quarter, year)"),
    ("month(created_at", "not a field path, nor FUNCTION(PATH)"),
    ("(created_at)", "not a field path, nor FUNCTION(PATH)"),
    ("month()", "month(...) takes a field path, not \"\""),
    ("month(year(created_at))", "month(...) takes a field path, not \"year(created_at)\""),
    ("a..b", "not a field path"),
  ])
  func aBadGroupingSaysWhy(_ text: String, _ message: String) {
    #expect(throws: StatsGrouping.ParseError.self) { try StatsGrouping(parsing: text) }
    do {
      _ = try StatsGrouping(parsing: text)
    } catch {
      #expect(error.description.contains(message), "\(text): \(error.description)")
    }
  }

  @Test func labelsOfADocument() throws {
    let document = try JSONParser().parse(
      Array(
        #"{"a": "2026-11-27", "b": null, "c": "soon", "d": ["2026-01-02", "2026-05-01"], "e": 3, "f": "", "g": "(none)"}"#
          .utf8))
    func labels(_ text: String) throws -> [String?] { try StatsGrouping(parsing: text).labels(in: document) }
    #expect(try labels("month(a)") == ["2026-11"])
    #expect(try labels("month(b)") == [nil], "null is in (none)")
    #expect(try labels("month(missing)") == [nil])
    #expect(try labels("month(c)") == ["(not a date)"])
    #expect(try labels("month(e)") == ["(not a date)"])
    #expect(try labels("quarter(d[])") == ["2026-Q1", "2026-Q2"])
    #expect(try labels("missing") == [nil])
    #expect(try labels("e") == ["3"])
    // Null and missing are the group of nothing; "" and the string "(none)" are values of their own.
    #expect(try labels("b") == [nil])
    #expect(try labels("f") == [""])
    #expect(try labels("g") == ["(none)"])
  }

  static func summary(_ texts: [String]) -> NumberSummary {
    var summary = NumberSummary()
    for text in texts {
      let added = summary.add(JSONNumber(unchecked: text))
      #expect(added, "\(text)")
    }
    return summary
  }

  @Test(arguments: [
    (["0.1", "0.2"], 0, "0.15"),
    (["10.00", "20.00"], 0, "15.00"),
    (["1", "2"], 0, "1.5"),
    (["1", "1", "2"], 0, "1.333333"),
    (["100.00", "0", "0"], 0, "33.33333333"),
    (["2", "3", "3"], 0, "2.666667"),
    // An average that ends is written exactly, however many digits it takes within the places.
    (["0.000001", "0.000002"], 0, "0.0000015"),
    (["-1", "-1", "-2"], 0, "-1.333333"),
    (["1e200", "1e200"], 0, "1e200"),
    (["1234567890123456789012345678901234567890.25", "0.75"], 0, "617283945061728394506172839450617283945.50"),
    (["5"], 2, "5.00"),
    (["-0"], 0, "0"),
    // A repeating average never ends: 6 digits past the decimals, rounded half to even.
    (["0.5", "0", "0"], 0, "0.1666667"),
    (["1.25", "0", "0", "0", "0", "0", "0", "0"], 0, "0.15625"),
  ])
  func averagesAreExact(_ texts: [String], _ decimals: Int, _ expected: String) {
    #expect(Self.summary(texts).average(decimals: decimals) == expected, "\(texts)")
  }

  @Test func anAverageThatEndsIsExact() {
    #expect(Self.summary(["0.1", "0.0000005"]).average(decimals: 0) == "0.05000025")
    var eighths = Self.summary(["0.000001"])
    for _ in 0..<7 { _ = eighths.add(JSONNumber(unchecked: "0")) }
    #expect(eighths.average(decimals: 0) == "0.000000125")
    var five = DecimalSum()
    _ = five.add(JSONNumber(unchecked: "5"))
    #expect(five.quotient(dividingBy: 4, decimals: 0) == "1.25")
    #expect(five.quotient(dividingBy: 0, decimals: 0) == nil)
  }

  @Test func roundingIsHalfToEven() {
    var sum = DecimalSum()
    _ = sum.add(JSONNumber(unchecked: "5"))
    _ = sum.add(JSONNumber(unchecked: "0.00000"))
    // 5 / 2_000_000 with 5 decimals: 11 places, where 0.0000025 ends.
    #expect(sum.quotient(dividingBy: 2_000_000, decimals: 0) == "0.0000025")
    // 1 / 2_000_000 with 0 decimals and 6 places: 0.0000005 is a tie between 0.000000 and 0.000001: even.
    var one = DecimalSum()
    _ = one.add(JSONNumber(unchecked: "1"))
    #expect(one.quotient(dividingBy: 2_000_000, decimals: 0) == "0.000000")
    #expect(one.quotient(dividingBy: 666_667, decimals: 0) == "0.000001")
    var three = DecimalSum()
    _ = three.add(JSONNumber(unchecked: "3"))
    // 3 / 2_000_000 = 0.0000015: a tie between 0.000001 and 0.000002: even is 0.000002.
    #expect(three.quotient(dividingBy: 2_000_000, decimals: 0) == "0.000002")
  }

  @Test func minimumAndMaximumCompareExactlyAndKeepTheText() {
    let prices = Self.summary(["289.990", "289.99", "1e2", "-0.5", "12345678901234567890.1", "289.99"])
    #expect(prices.minimum?.text == "-0.5" && prices.maximum?.text == "12345678901234567890.1")
    let equal = Self.summary(["289.99", "289.990"])
    #expect(equal.minimum?.text == "289.99" && equal.maximum?.text == "289.99", "the first of equal values")
    let other = Self.summary(["289.990", "289.99"])
    #expect(other.minimum?.text == "289.990" && other.maximum?.text == "289.990")
    let huge = Self.summary(["1e200", "9.99e199", "1E+200"])
    #expect(huge.maximum?.text == "1e200" && huge.minimum?.text == "9.99e199" && huge.count == 3)
    #expect(NumberSummary().minimum == nil && NumberSummary().average(decimals: 2) == nil)
  }
}
