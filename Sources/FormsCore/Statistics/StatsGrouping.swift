/// One `--by` of `stats`: a path whose values name the groups (`status`,
/// `items[].product_item_id`), or a calendar bucket of a date or datetime path
/// (`month(created_at)`, `week(fields.award_date)`).
public struct StatsGrouping: Sendable, Equatable, CustomStringConvertible {
  /// The path whose values are grouped.
  public let path: FilterExpression.Path
  /// The calendar bucket the values fall in; nil to group by the values themselves.
  public let bucket: DateBucket?

  /// Groups by `path`'s values, or by the `bucket` they fall in.
  public init(path: FilterExpression.Path, bucket: DateBucket? = nil) {
    self.path = path
    self.bucket = bucket
  }

  /// Why a `--by` text is not a grouping: one sentence, without the option's name.
  public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The sentence (`unknown function "mnth"; did you mean "month"? ...`).
    public let description: String
  }

  /// Parses `PATH` or `FUNCTION(PATH)` with a function of ``DateBucket`` (day, week, month,
  /// quarter, year).
  public init(parsing text: String) throws(ParseError) {
    guard let open = text.firstIndex(of: "(") else {
      guard let path = FilterExpression.Path(text) else { throw ParseError(description: "not a field path") }
      self.init(path: path)
      return
    }
    let name = String(text[..<open]).trimmingWhitespace
    let functions = DateBucket.allCases.map(\.rawValue)
    let known = "(" + functions.joined(separator: ", ") + ")"
    guard text.hasSuffix(")"), !name.isEmpty, name.allSatisfy({ $0.isLetter || $0 == "_" }) else {
      throw ParseError(description: "not a field path, nor FUNCTION(PATH) with a function of \(known)")
    }
    guard let bucket = DateBucket(rawValue: name) else {
      throw ParseError(
        description: "unknown function \(quoted(name))" + didYouMean(name, among: functions)
          + "; the functions are \(known)")
    }
    let inner = String(text[text.index(after: open)..<text.index(before: text.endIndex)]).trimmingWhitespace
    guard let path = FilterExpression.Path(inner) else {
      throw ParseError(description: "\(name)(...) takes a field path, not \(quoted(inner))")
    }
    self.init(path: path, bucket: bucket)
  }

  /// `status`, `month(created_at)`: the column's name in a report.
  public var description: String { bucket.map { "\($0.rawValue)(\(path))" } ?? path.description }

  /// The labels of the groups `document` falls in: the values the path reaches as table cells,
  /// or their buckets; nil (the group ``none``) where it reaches nothing or null, so a missing
  /// value never merges with the string `""` or `"(none)"`; and `(not a date)` for a value a
  /// bucket cannot place.
  public func labels(in document: JSONValue) -> [String?] {
    let values = path.values(in: document)
    let labels = values.map { value -> String? in
      switch (value, bucket) {
      case (.null, _): return nil
      case (_, nil): return TableReport.cell(value)
      case (.string(let text), let bucket?): return bucket.label(of: text) ?? Self.notADate
      default: return Self.notADate
      }
    }
    // A bucket places the dates; a null beside them is no group of its own.
    let placed = bucket == nil ? labels : labels.filter { $0 != nil }
    return placed.isEmpty ? [nil] : placed
  }

  /// How a table shows the group of documents a path reaches nothing (or null) in; JSON shows null.
  public static let none = "(none)"
  /// The group of values a calendar bucket cannot place (a hand-edited `"soon"`).
  public static let notADate = "(not a date)"
}

extension String {
  /// Without leading and trailing spaces and tabs.
  fileprivate var trimmingWhitespace: String {
    String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
  }
}
