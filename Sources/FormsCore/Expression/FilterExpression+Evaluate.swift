import Foundation

extension FilterExpression {
  /// True when `document` satisfies the expression. A path reaching several values (`[]`) is
  /// satisfied when any of them is; a comparison with a missing side is false.
  public func evaluate(_ document: JSONValue) -> Bool {
    switch self {
    case .and(let a, let b): return a.evaluate(document) && b.evaluate(document)
    case .or(let a, let b): return a.evaluate(document) || b.evaluate(document)
    case .not(let a): return !a.evaluate(document)
    case .exists(let path):
      if let one = path.single(in: document) { return one.map { !$0.isNull } ?? false }
      return path.values(in: document).contains { !$0.isNull }
    case .compare(let a, let op, let b):
      // One value a side (a literal, a path without `[]`), the usual case: compared directly.
      if let x = a.single(in: document), let y = b.single(in: document) {
        guard let x, let y else { return false }
        return Self.compare(x, op, y)
      }
      let right = b.values(in: document)
      return a.values(in: document).contains { x in right.contains { y in Self.compare(x, op, y) } }
    case .matches(let a, let regex):
      return a.values(in: document).contains { value in
        guard case .string(let s) = value else { return false }
        return regex.compiled.matches(s)
      }
    case .isIn(let a, let values):
      return a.values(in: document).contains { x in values.contains { Self.compare(x, .equal, $0) } }
    }
  }

  static func compare(_ x: JSONValue, _ op: ComparisonOperator, _ y: JSONValue) -> Bool {
    guard let order = order(x, y) else { return op == .notEqual }
    switch op {
    case .equal: return order == 0
    case .notEqual: return order != 0
    case .less: return order < 0
    case .lessOrEqual: return order <= 0
    case .greater: return order > 0
    case .greaterOrEqual: return order >= 0
    }
  }

  /// -1, 0, 1, or nil when the two cannot be ordered (different types).
  /// Numbers compare as exact decimals; dates and datetimes by `Instant.order` (a date against a
  /// datetime by calendar day).
  public static func order(_ x: JSONValue, _ y: JSONValue) -> Int? {
    switch (x, y) {
    case (.number(let a), .number(let b)):
      return a.compare(b).rawValue
    case (.string(let a), .string(let b)):
      if let order = Instant.order(a, b) { return order }
      if a.utf8.elementsEqual(b.utf8) { return 0 }
      return codePointLess(a, b) ? -1 : 1
    case (.bool(let a), .bool(let b)):
      return a == b ? 0 : (a ? 1 : -1)
    case (.null, .null):
      return 0
    default:
      return x == y ? 0 : nil
    }
  }
}
