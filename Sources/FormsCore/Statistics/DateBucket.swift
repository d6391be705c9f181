/// A calendar bucket of `stats --by 'month(created_at)'`: a date or datetime value grouped by its
/// day (`2026-11-27`), ISO 8601 week (`2026-W48`), month (`2026-11`), quarter (`2026-Q4`) or year
/// (`2026`). Labels of one bucket sort as text in calendar order.
///
/// A datetime falls in the bucket of the calendar day it is written in, at its own offset, as
/// dates and datetimes compare (design §12): `2026-12-31T23:30:00-05:00` is in 2026-12 and
/// 2026-Q4, not in January. formsctl stamps times in UTC, so its own stamps are bucketed by the
/// UTC day (docs/decisions/0080).
public enum DateBucket: String, Sendable, CaseIterable {
  /// `2026-11-27`.
  case day
  /// `2026-W48`: the ISO 8601 week-numbering year and week.
  case week
  /// `2026-11`.
  case month
  /// `2026-Q4`.
  case quarter
  /// `2026`.
  case year

  /// The label of the bucket that `text` (a date or an RFC 3339 datetime) falls in; nil when
  /// `text` is neither.
  public func label(of text: String) -> String? {
    guard let date = CalendarDate(text) ?? Instant.writtenDay(text) else { return nil }
    return label(of: date)
  }

  /// The label of the bucket that `date` falls in.
  public func label(of date: CalendarDate) -> String {
    // A negative year (ISO week-year -1 holds the first days of 0000) is written with its sign
    // before the four digits, as ISO 8601's expanded years are: `-0001-W52`, never `00-1-W52`.
    func padded(_ n: Int, _ width: Int) -> String {
      let digits = String(n.magnitude)
      return (n < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
    switch self {
    case .day: return "\(padded(date.year, 4))-\(padded(date.month, 2))-\(padded(date.day, 2))"
    case .month: return "\(padded(date.year, 4))-\(padded(date.month, 2))"
    case .quarter: return "\(padded(date.year, 4))-Q\((date.month - 1) / 3 + 1)"
    case .year: return padded(date.year, 4)
    case .week:
      let week = Self.isoWeek(of: date)
      return "\(padded(week.year, 4))-W\(padded(week.week, 2))"
    }
  }

  /// The ISO 8601 week-numbering year and week of `date`: weeks start on Monday, and week 1 is
  /// the one holding the year's first Thursday (2027-01-01, a Friday, is in 2026-W53; 0000-01-01,
  /// a Saturday in the proleptic Gregorian calendar, is in week 52 of week-year -1).
  public static func isoWeek(of date: CalendarDate) -> (year: Int, week: Int) {
    let days = date.daysSinceEpoch
    // 1970-01-01 was a Thursday: Monday is 1, Sunday 7.
    let weekday = ((days + 3) % 7 + 7) % 7 + 1
    let thursday = days + (4 - weekday)
    let year = CalendarDate(daysSinceEpoch: thursday).year
    let january1 = CalendarDate(year: year, month: 1, day: 1).daysSinceEpoch
    return (year, Int((thursday - january1) / 7) + 1)
  }
}
