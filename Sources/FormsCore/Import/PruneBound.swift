/// How much a prune may remove (`import --prune`, and later `sync`): a bound against an empty or
/// truncated feed deleting a whole kind, as rsync's `--max-delete` bounds its deletions.
public enum PruneBound: Sendable, Equatable, CustomStringConvertible {
  /// At most this many documents.
  case count(Int)
  /// At most this percentage (0–100) of the documents of the kind.
  case percent(Int)
  /// The default: never prune on an empty feed, and at most half of the kind.
  public static let standard = PruneBound.percent(50)

  /// `N` or `P%`; nil for anything else (negative, above 100%, not a number).
  public init?(_ text: String) {
    if text.hasSuffix("%") {
      guard let value = Int(text.dropLast()), (0...100).contains(value) else { return nil }
      self = .percent(value)
    } else {
      guard let value = Int(text), value >= 0 else { return nil }
      self = .count(value)
    }
  }

  public var description: String {
    switch self {
    case .count(let n): return "\(n)"
    case .percent(let p): return "\(p)%"
    }
  }

  /// Why removing `removing` of `stored` documents, with `feedRecords` records in the feed, is
  /// refused; nil when it is within the bound. With `explicit` false (no `--max-prune`), an empty
  /// feed that would remove anything is refused as well.
  public func refusal(removing: Int, of stored: Int, feedRecords: Int, explicit: Bool) -> String? {
    guard removing > 0 else { return nil }
    if !explicit && feedRecords == 0 {
      return "the feed is empty (a failed or truncated download?)"
    }
    switch self {
    case .count(let limit) where removing > limit:
      return "more than the bound of \(limit)"
    case .percent(let limit) where removing * 100 > limit * stored:
      return "more than the bound of \(limit)% of the kind"
    default:
      return nil
    }
  }
}
