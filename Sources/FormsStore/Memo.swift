import Foundation

/// A value computed once, at its first use, by whichever thread asks first.
final class Memo<Value: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: Value?

  func value(_ compute: () -> Value) -> Value {
    lock.lock()
    defer { lock.unlock() }
    if let stored { return stored }
    let value = compute()
    stored = value
    return value
  }
}
