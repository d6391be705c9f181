import FormsCore
import FormsYAML

/// The snapshot retention policy of the manifest (`snapshots:`).
public struct RetentionPolicy: Sendable, Equatable {
  /// Keep every snapshot younger than this many seconds.
  public var keepWithin: Int
  /// Then keep the newest of each ISO week younger than this many seconds.
  public var keepWeeklyWithin: Int
  /// Then keep the newest whole-store snapshot of each calendar month (UTC) younger than this
  /// many seconds (`keep_monthly_within`; 0, the default: no monthly slots).
  public var keepMonthlyWithin = 0
  /// Whether every command that takes a snapshot applies the policy afterwards (`auto_prune`,
  /// true unless the manifest says false).
  public var autoPrune: Bool
  /// Labels whose snapshots the policy never removes (`keep_labels:`): a label, or a pattern
  /// with `*` (`release-*`); see `RetentionPlanner.matches`.
  public var keepLabels: [String] = []

  /// 7 days, then weekly until 30 days, applied after every snapshot.
  public static let `default` = RetentionPolicy(keepWithin: 7 * 86400, keepWeeklyWithin: 30 * 86400)

  public init(keepWithin: Int, keepWeeklyWithin: Int, autoPrune: Bool = true) {
    self.keepWithin = keepWithin
    self.keepWeeklyWithin = keepWeeklyWithin
    self.autoPrune = autoPrune
  }

  /// A policy value that does not parse.
  public struct ParseError: Error {
    public let position: SourcePosition
    public let message: String
  }

  init(yaml: YAMLNode) throws(ParseError) {
    self = .default
    guard let pairs = yaml.mapping else {
      throw ParseError(position: yaml.position, message: "snapshots must be a mapping")
    }
    for pair in pairs {
      let key = pair.key.scalar?.text
      guard ["keep_within", "keep_weekly_within", "keep_monthly_within", "auto_prune", "keep_labels"].contains(key)
      else {
        throw ParseError(
          position: pair.key.position,
          message:
            "unknown key; expected keep_within, keep_weekly_within, keep_monthly_within, auto_prune or keep_labels")
      }
      if key == "keep_labels" {
        keepLabels = try Self.labels(pair.value)
        continue
      }
      if key == "auto_prune" {
        switch pair.value.scalar?.text {
        case "true": autoPrune = true
        case "false": autoPrune = false
        default: throw ParseError(position: pair.value.position, message: "auto_prune is true or false")
        }
        continue
      }
      guard let text = pair.value.scalar?.text, let seconds = Self.seconds(text) else {
        throw ParseError(position: pair.value.position, message: Self.durationProblem(pair.value.scalar?.text ?? ""))
      }
      switch key {
      case "keep_within": keepWithin = seconds
      case "keep_weekly_within": keepWeeklyWithin = seconds
      default: keepMonthlyWithin = seconds
      }
    }
  }

  /// `keep_labels:`: one label or pattern, or a list of them; each as `snapshot create --label`
  /// takes a label, with `*` allowed.
  static func labels(_ node: YAMLNode) throws(ParseError) -> [String] {
    let items = node.sequence ?? [node]
    var out: [String] = []
    for item in items {
      guard let text = item.scalar?.text, !text.isEmpty,
        DocumentID.isValid(String(text.map { $0 == "*" ? "x" : $0 }))
      else {
        throw ParseError(
          position: item.position,
          message: "keep_labels is a label or a list of labels (letters, digits, . _ - and * for any text)")
      }
      out.append(text)
    }
    return out
  }

  /// The longest duration accepted: 100 years (nothing overflows when added to a time).
  public static let maxSeconds = 100 * 366 * 86400

  /// Why `text` is not a duration, for a message.
  public static func durationProblem(_ text: String) -> String {
    let wellFormed =
      text.count > 1 && text.last.map { "smhdw".contains($0) } == true
      && text.dropLast().allSatisfy { ("0"..."9").contains($0) }
    return wellFormed
      ? "\(text) is longer than 100 years, the longest duration accepted" : "expected a duration such as 7d, 12h or 2w"
  }

  /// Seconds in a duration like `30d`, `12h`, `90m`, `2w`; nil when malformed or beyond `maxSeconds`.
  public static func seconds(_ text: String) -> Int? {
    guard let unit = text.last, let count = Int(text.dropLast()), count >= 0 else { return nil }
    let scale: Int
    switch unit {
    case "s": scale = 1
    case "m": scale = 60
    case "h": scale = 3600
    case "d": scale = 86400
    case "w": scale = 7 * 86400
    default: return nil
    }
    let (seconds, overflow) = count.multipliedReportingOverflow(by: scale)
    return overflow || seconds > maxSeconds ? nil : seconds
  }
}
