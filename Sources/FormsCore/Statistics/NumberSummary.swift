import Foundation

/// The numbers a path reaches in a group of documents, summed up exactly: how many, their sum,
/// their smallest and largest (as written), and their average (``DecimalSum/quotient(dividingBy:decimals:)``).
public struct NumberSummary: Sendable, Equatable {
  /// How many numbers were added.
  public private(set) var count = 0
  /// Their exact sum.
  public private(set) var sum = DecimalSum()
  /// The smallest, as written; of equal values (`289.99`, `289.990`) the first added.
  public private(set) var minimum: JSONNumber?
  /// The largest, as written; of equal values the first added.
  public private(set) var maximum: JSONNumber?

  /// None yet.
  public init() {}

  /// Adds `number`; false (and nothing added) when the sum could not hold it exactly
  /// (``DecimalSum/add(_:)``).
  public mutating func add(_ number: JSONNumber) -> Bool {
    guard sum.add(number) else { return false }
    count += 1
    if minimum.map({ number.compare($0) == .orderedAscending }) ?? true { minimum = number }
    if maximum.map({ number.compare($0) == .orderedDescending }) ?? true { maximum = number }
    return true
  }

  /// The exact average with at least `decimals` digits after the point; nil with no numbers.
  public func average(decimals: Int) -> String? { sum.quotient(dividingBy: count, decimals: decimals) }
}
