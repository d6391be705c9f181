import Synchronization

/// A value computed once, at its first use, by whichever thread asks first.
final class Memo<Value: Sendable>: Sendable {
  private let stored = Mutex<Value?>(nil)

  /// True once a value is kept.
  var isSet: Bool { stored.withLock { $0 != nil } }

  func value(_ compute: () -> Value) -> Value {
    stored.withLock { stored in
      if let stored { return stored }
      let value = compute()
      stored = value
      return value
    }
  }
}
