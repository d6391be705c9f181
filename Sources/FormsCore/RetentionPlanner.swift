/// Decides which snapshots `snapshot prune` keeps: every snapshot younger than `keepWithin`, then
/// the newest of each ISO week younger than `keepWeeklyWithin`, the newest of each calendar month
/// (UTC) younger than `keepMonthlyWithin`, the newest `keepLast`, and always the newest one;
/// everything else is deleted. Pure: the caller passes the time.
///
/// Only whole-store snapshots fill the slots (a week's, a month's, the last N, the newest whole one): a
/// partial snapshot (the documents an import was about to change) cannot stand for the store, so
/// it is kept while it is younger than `keepWithin` (or when it is the newest of all), and never
/// takes the place of a whole one.
///
/// A snapshot a person marked (`kept`), or whose label matches `keepLabels`, is always kept; a
/// kept whole-store snapshot still fills its week's slot (it is there for that week anyway).
public enum RetentionPlanner {
  /// One snapshot's name and time (seconds since 1970, UTC), and whether it holds the whole store.
  public struct Snapshot: Sendable, Equatable {
    public let name: String
    public let time: Int64
    /// False for a partial snapshot (it covers some documents only).
    public let whole: Bool
    /// True when a person marked it to keep (`snapshot create --keep`, `snapshot keep`).
    public let kept: Bool
    /// Its label, for `keepLabels`.
    public let label: String?
    public init(name: String, time: Int64, whole: Bool = true, kept: Bool = false, label: String? = nil) {
      self.name = name
      self.time = time
      self.whole = whole
      self.kept = kept
      self.label = label
    }
  }

  /// The verdict on one snapshot, with the reason a person reads.
  public struct Decision: Sendable, Equatable {
    public let name: String
    public let keep: Bool
    public let reason: String
    public init(name: String, keep: Bool, reason: String) {
      self.name = name
      self.keep = keep
      self.reason = reason
    }
  }

  /// Why a snapshot is kept whatever its age.
  public enum Keeping: Sendable, Equatable, CustomStringConvertible {
    /// A person marked it (`snapshot create --keep`, `snapshot keep`).
    case marked
    /// Its label matches a pattern of `keep_labels`.
    case label(String, pattern: String)

    /// `marked by a person`, `label release-1 matches keep_labels release-*`.
    public var description: String {
      switch self {
      case .marked: return "marked by a person"
      case .label(let label, let pattern): return "label \(label) matches keep_labels \(pattern)"
      }
    }
  }

  /// Why a snapshot is kept whatever its age (empty: it is not): its mark, then its label when a
  /// pattern of `keepLabels` matches it (the first that does). The one answer for every command
  /// that shows, keeps or deletes snapshots (decide, and the store's `Snapshots.keeping`).
  public static func keeping(marked: Bool, label: String?, keepLabels: [String]) -> [Keeping] {
    var reasons: [Keeping] = marked ? [.marked] : []
    if let label, let pattern = keepLabels.first(where: { matches(label, pattern: $0) }) {
      reasons.append(.label(label, pattern: pattern))
    }
    return reasons
  }

  /// Decisions, newest first; snapshots with the same time keep their given order (oldest first).
  public static func decide(
    _ snapshots: [Snapshot], now: Int64, keepWithin: Int, keepWeeklyWithin: Int, keepMonthlyWithin: Int = 0,
    keepLast: Int = 0, keepLabels: [String] = []
  ) -> [Decision] {
    let newestFirst = snapshots.enumerated().sorted { ($0.element.time, $0.offset) > ($1.element.time, $1.offset) }.map(
      \.element)
    var weeksSeen = Set<String>()
    var monthsSeen = Set<String>()
    var wholeSeen = 0
    var decisions: [Decision] = []
    for (index, snapshot) in newestFirst.enumerated() {
      // A clock set back makes a snapshot look younger than it is, never older than now.
      let age = now - snapshot.time
      let week = isoWeek(snapshot.time)
      let firstOfWeek = snapshot.whole && weeksSeen.insert(week).inserted
      let month = String(Instant(seconds: snapshot.time, fraction: "").rfc3339.prefix(7))
      let firstOfMonth = snapshot.whole && monthsSeen.insert(month).inserted
      let wholeRank = snapshot.whole ? wholeSeen : nil
      if snapshot.whole { wholeSeen += 1 }
      let decision: (Bool, String)
      if let reason = keeping(marked: snapshot.kept, label: snapshot.label, keepLabels: keepLabels).first {
        decision = (true, "kept (\(reason))")
      } else if index == 0 {
        decision = (true, "newest")
      } else if wholeRank == 0 {
        decision = (true, "newest whole-store snapshot")
      } else if let wholeRank, wholeRank < keepLast {
        decision = (true, "one of the last \(keepLast) whole-store snapshots")
      } else if age < Int64(keepWithin) {
        decision = (true, "within \(duration(keepWithin))")
      } else if !snapshot.whole {
        decision = (false, "partial, older than \(duration(keepWithin)) (only whole-store snapshots keep a week)")
      } else if age < Int64(keepWeeklyWithin) && firstOfWeek {
        decision = (true, "newest of week \(week)")
      } else if age < Int64(keepMonthlyWithin) && firstOfMonth {
        decision = (true, "newest of month \(month)")
      } else if age < Int64(keepWeeklyWithin) {
        decision = (false, "not the newest of week \(week)")
      } else if age < Int64(keepMonthlyWithin) {
        decision = (false, "not the newest of month \(month)")
      } else {
        decision = (false, "older than \(duration(max(keepWeeklyWithin, keepMonthlyWithin)))")
      }
      decisions.append(Decision(name: snapshot.name, keep: decision.0, reason: decision.1))
    }
    return decisions
  }

  /// True when `label` is `pattern`, where each `*` of the pattern stands for any text (none too).
  public static func matches(_ label: String, pattern: String) -> Bool {
    let parts = pattern.split(separator: "*", omittingEmptySubsequences: false).map(String.init)
    guard parts.count > 1 else { return label == pattern }
    guard label.hasPrefix(parts[0]), label.dropFirst(parts[0].count).hasSuffix(parts[parts.count - 1]) else {
      return false
    }
    // The middle parts in order, each as early as it occurs (greedy is right for `*` alone).
    var rest = Array(label.dropFirst(parts[0].count).dropLast(parts[parts.count - 1].count))
    for middle in parts.dropFirst().dropLast() where !middle.isEmpty {
      let wanted = Array(middle)
      guard let start = rest.indices.first(where: { rest[$0...].starts(with: wanted) }) else { return false }
      rest = Array(rest[(start + wanted.count)...])
    }
    return true
  }

  /// `2026-W45`: the ISO 8601 week (weeks start on Monday; week 1 holds the year's first Thursday),
  /// labelled as `stats --by 'week(...)'` labels it (`DateBucket.week`).
  public static func isoWeek(_ time: Int64) -> String {
    DateBucket.week.label(of: CalendarDate(daysSinceEpoch: floorDivide(time, 86400)))
  }

  /// `7d`, `12h`, `90m`, `30s` for messages.
  public static func duration(_ seconds: Int) -> String {
    if seconds % 86400 == 0 { return "\(seconds / 86400)d" }
    if seconds % 3600 == 0 { return "\(seconds / 3600)h" }
    if seconds % 60 == 0 { return "\(seconds / 60)m" }
    return "\(seconds)s"
  }

  static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }
}
