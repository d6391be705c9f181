import FormsCore
import FormsStore
import Synchronization

/// The store's changes, as the pages hear of them: one watch of the store (`Store.changes`: any
/// writer, an editor, a `git pull`), each committed change fanned out to every open page as
/// `KIND/ID`. A page that listens for a kind or a document reloads its content when one names it.
public final class LiveUpdates: Sendable {
  private let listeners = Mutex<[Int: AsyncStream<String>.Continuation]>([:])
  private let next = Atomic<Int>(0)
  /// Pages listening at most at once (each an open connection); more are refused.
  public static let maximumListeners = 256

  public init() {}

  /// Watches `store` until the task is cancelled; every change is sent to every listener.
  public func run(store: Store, options: Store.ObserveOptions = Store.ObserveOptions()) async throws {
    for try await batch in store.changes(options: options) {
      for change in batch.changes {
        publish("\(change.kind)/\(change.id)")
        if let previous = change.previousID { publish("\(change.kind)/\(previous)") }
      }
    }
  }

  /// Sends `topic` to every listener.
  public func publish(_ topic: String) {
    listeners.withLock { all in
      for continuation in all.values { continuation.yield(topic) }
    }
  }

  /// A new listener: the topics published from now on, until the stream is dropped. Nil when
  /// there are too many.
  public func listen() -> AsyncStream<String>? {
    let id = next.add(1, ordering: .relaxed).newValue
    let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(64))
    let added = listeners.withLock { all -> Bool in
      guard all.count < Self.maximumListeners else { return false }
      all[id] = continuation
      return true
    }
    guard added else { return nil }
    continuation.onTermination = { [weak self] _ in
      _ = self?.listeners.withLock { $0.removeValue(forKey: id) }
    }
    return stream
  }

  /// How many pages listen now.
  public var count: Int { listeners.withLock { $0.count } }
}
