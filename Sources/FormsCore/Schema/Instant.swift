import Foundation

/// A point in time from a `date` (`2026-11-22`, as midnight UTC) or an RFC 3339 `datetime`
/// (`2026-11-22T03:48:14.5-05:00`), comparable exactly (fractions of any length).
public struct Instant: Sendable, Comparable, Hashable {
  /// Seconds since 1970-01-01T00:00:00Z.
  public let seconds: Int64
  /// The fraction's digits, trailing zeros removed (`5` for `.50`).
  public let fraction: String

  public static func < (a: Instant, b: Instant) -> Bool {
    a.seconds != b.seconds ? a.seconds < b.seconds : codePointLess(a.fraction, b.fraction)
  }

  /// Parses a date or an RFC 3339 datetime with offset; nil otherwise.
  public init?(_ text: String) {
    if let date = CalendarDate(text) {
      seconds = date.daysSinceEpoch * 86400
      fraction = ""
      return
    }
    guard let parsed = Self.parseDateTime(text) else { return nil }
    self = parsed
  }

  init(seconds: Int64, fraction: String) {
    self.seconds = seconds
    self.fraction = fraction
  }

  /// `date` to the whole second, as formsctl stamps times.
  public init(_ date: Date) {
    self.init(seconds: Int64(date.timeIntervalSince1970.rounded(.down)), fraction: "")
  }

  /// The RFC 3339 text in UTC: `2026-11-22T03:48:14Z` (`…14.5Z` with a fraction).
  public var rfc3339: String {
    let second = (seconds % 86400 + 86400) % 86400
    let days = (seconds - second) / 86400
    let date = CalendarDate(daysSinceEpoch: days)
    func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
    let year = String(date.year)
    let time = "\(two(second / 3600)):\(two(second / 60 % 60)):\(two(second % 60))"
    return String(repeating: "0", count: max(0, 4 - year.count)) + year
      + "-\(two(Int64(date.month)))-\(two(Int64(date.day)))T"
      + time + (fraction.isEmpty ? "" : "." + fraction) + "Z"
  }

  /// Orders two date or datetime texts: -1, 0 or 1; nil when either is neither (docs/design.md §12).
  ///
  /// Two datetimes compare as instants. When either side is a date, both compare by calendar day,
  /// a datetime's day being the one it is written in (its own offset): `2020-05-07` is equal to,
  /// not before, `2020-05-07T09:32:00Z`, and `2020-05-07` is after `2020-05-06T23:30:00-05:00`.
  public static func order(_ a: String, _ b: String) -> Int? {
    let dateA = CalendarDate(a)
    let dateB = CalendarDate(b)
    if dateA == nil && dateB == nil {
      guard let x = parseDateTime(a), let y = parseDateTime(b) else { return nil }
      return x < y ? -1 : (x == y ? 0 : 1)
    }
    guard let x = dateA ?? writtenDay(a), let y = dateB ?? writtenDay(b) else { return nil }
    let (dx, dy) = (x.daysSinceEpoch, y.daysSinceEpoch)
    return dx < dy ? -1 : (dx == dy ? 0 : 1)
  }

  /// `order` of two JSON values (stamps in documents); nil when either is not a date or datetime.
  public static func order(_ a: JSONValue?, _ b: JSONValue?) -> Int? {
    guard let x = a?.stringValue, let y = b?.stringValue else { return nil }
    return order(x, y)
  }

  /// The calendar day a datetime is written in, when `text` is a valid datetime.
  static func writtenDay(_ text: String) -> CalendarDate? {
    guard parseDateTime(text) != nil else { return nil }
    return CalendarDate(String(text.prefix(10)))
  }

  /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, without allocating unless there is a fraction.
  static func parseDateTime(_ text: String) -> Instant? {
    var text = text
    return text.withUTF8 { parseDateTime(bytes: $0) }
  }

  /// `parseDateTime` of UTF-8 bytes.
  static func parseDateTime(bytes b: UnsafeBufferPointer<UInt8>) -> Instant? {
    do {
      guard b.count >= 20, let date = CalendarDate(bytes: b),
        b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t"), b[13] == UInt8(ascii: ":"),
        b[16] == UInt8(ascii: ":"),
        let hour = digits(b, 11, 2), let minute = digits(b, 14, 2), let second = digits(b, 17, 2),
        hour < 24, minute < 60, second < 60
      else { return nil }
      var i = 19
      var fractionStart = i
      var fractionEnd = i
      if b[i] == UInt8(ascii: ".") {
        i += 1
        fractionStart = i
        while i < b.count && b[i] >= 48 && b[i] <= 57 { i += 1 }
        if i == fractionStart { return nil }
        fractionEnd = i
      }
      guard i < b.count else { return nil }
      var offset = 0
      if b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z") {
        i += 1
      } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
        guard i + 6 == b.count, b[i + 3] == UInt8(ascii: ":"), let oh = digits(b, i + 1, 2),
          let om = digits(b, i + 4, 2), oh < 24, om < 60
        else { return nil }
        offset = (oh * 60 + om) * 60 * (b[i] == UInt8(ascii: "-") ? -1 : 1)
        i += 6
      } else {
        return nil
      }
      guard i == b.count else { return nil }
      while fractionEnd > fractionStart && b[fractionEnd - 1] == UInt8(ascii: "0") { fractionEnd -= 1 }
      let seconds = date.daysSinceEpoch * 86400 + Int64(hour * 3600 + minute * 60 + second - offset)
      let fraction = String(decoding: UnsafeBufferPointer(rebasing: b[fractionStart..<fractionEnd]), as: UTF8.self)
      return Instant(seconds: seconds, fraction: fraction)
    }
  }
}

/// A `YYYY-MM-DD` date that exists in the proleptic Gregorian calendar.
public struct CalendarDate: Sendable, Hashable {
  public let year: Int
  public let month: Int
  public let day: Int

  public init?(_ text: String) {
    var text = text
    guard text.utf8.count == 10, let date = text.withUTF8({ CalendarDate(bytes: $0) }) else { return nil }
    self = date
  }

  /// The date in the first ten bytes.
  init?(bytes b: UnsafeBufferPointer<UInt8>) {
    guard b.count >= 10, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
      let year = digits(b, 0, 4), let month = digits(b, 5, 2), let day = digits(b, 8, 2),
      (1...12).contains(month), day >= 1, day <= CalendarDate.daysIn(month: month, year: year)
    else { return nil }
    self.year = year
    self.month = month
    self.day = day
  }

  static func daysIn(month: Int, year: Int) -> Int {
    switch month {
    case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }

  init(year: Int, month: Int, day: Int) {
    (self.year, self.month, self.day) = (year, month, day)
  }

  /// The date `days` after 1970-01-01 (Howard Hinnant's civil_from_days).
  init(daysSinceEpoch days: Int64) {
    let z = days + 719468
    let era = (z >= 0 ? z : z - 146096) / 146097
    let doe = z - era * 146097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let day = doy - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    self.init(year: Int(yoe + era * 400 + (month <= 2 ? 1 : 0)), month: Int(month), day: Int(day))
  }

  /// Days since 1970-01-01 (Howard Hinnant's days_from_civil).
  var daysSinceEpoch: Int64 {
    let y = Int64(month <= 2 ? year - 1 : year)
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let m = Int64(month)
    let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146097 + doe - 719468
  }
}

func digits(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> Int? {
  guard start + count <= b.count else { return nil }
  var value = 0
  for k in start..<start + count {
    guard b[k] >= 48 && b[k] <= 57 else { return nil }
    value = value * 10 + Int(b[k] - 48)
  }
  return value
}
