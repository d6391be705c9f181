import Foundation
import Synchronization

/// How far a long operation is: its phase (`checking`, `copying`), items done, and the total.
/// Called from any thread, often; the receiver decides what to draw and how often.
public typealias ProgressHandler = @Sendable (_ phase: String, _ done: Int, _ total: Int) -> Void

/// Counts the items of one phase finished on many threads and passes the count on.
public final class ProgressCounter: Sendable {
  let phase: String
  let total: Int
  let handler: ProgressHandler?
  private let done = Atomic<Int>(0)

  /// Nil when nobody listens, so callers pay nothing.
  public init?(_ phase: String, total: Int, _ handler: ProgressHandler?) {
    guard let handler, total > 0 else { return nil }
    self.phase = phase
    self.total = total
    self.handler = handler
    handler(phase, 0, total)
  }

  public func add(_ count: Int) {
    handler?(phase, done.add(count, ordering: .relaxed).newValue, total)
  }
}
