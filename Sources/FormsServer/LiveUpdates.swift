import FormsCore
import FormsPages
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

  /// How many changes the watch has heard: nil while it is not watching (before its first look,
  /// after it ended), so that nothing is taken from memory that the watch cannot vouch for.
  private let heard = Mutex<Int?>(nil)

  /// Watches `store` until the task is cancelled; every change is sent to every listener.
  public func run(store: Store, options: Store.ObserveOptions = Store.ObserveOptions()) async throws {
    var options = options
    let ready = options.ready
    options.ready = { [self] in
      heard.withLock { $0 = 0 }
      ready?()
    }
    defer { heard.withLock { $0 = nil } }
    for try await batch in store.changes(options: options) {
      changed()
      for change in batch.changes {
        publish("\(change.kind)/\(change.id)")
        if let previous = change.previousID { publish("\(change.kind)/\(previous)") }
      }
    }
  }

  /// The count of changes heard so far (nil: not watching). A page made when it was N still shows
  /// the store while it is N, give or take the changes not yet heard (the watch's debounce).
  public var generation: Int? { heard.withLock { $0 } }

  /// Notes a change: the server's own writes call it as they commit, before any event arrives.
  public func changed() { heard.withLock { $0 = $0.map { $0 + 1 } } }

  /// Sends `topic` to every listener.
  public func publish(_ topic: String) {
    listeners.withLock { all in
      for continuation in all.values { continuation.yield(topic) }
    }
  }

  /// A new listener: the topics published from now on, until the listener is dropped (its place
  /// is given back then, whether or not its topics were ever read). Nil when there are too many.
  public func listen() -> Listener? {
    let id = next.add(1, ordering: .relaxed).newValue
    let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(64))
    let added = listeners.withLock { all -> Bool in
      guard all.count < Self.maximumListeners else { return false }
      all[id] = continuation
      return true
    }
    guard added else { return nil }
    return Listener(topics: stream, id: id, updates: self)
  }

  /// One page's place among the listeners, held as long as the value lives: the response that
  /// streams its topics holds it, so a request that ends (a closed page, a dropped connection, a
  /// response never sent) gives the place back.
  public final class Listener: Sendable {
    /// The topics published since the listener was made.
    public let topics: AsyncStream<String>
    let id: Int
    let updates: LiveUpdates

    init(topics: AsyncStream<String>, id: Int, updates: LiveUpdates) {
      self.topics = topics
      self.id = id
      self.updates = updates
    }

    deinit { updates.remove(id) }
  }

  private func remove(_ id: Int) {
    listeners.withLock { $0.removeValue(forKey: id) }?.finish()
  }

  /// How many pages listen now.
  public var count: Int { listeners.withLock { $0.count } }
}

/// Pages made when the watch had heard N changes, by what was asked (at most 256 kept).
final class KeptPages: Sendable {
  private let pages = Mutex<[String: (generation: Int, page: Page, status: Int)]>([:])

  func page(_ key: String, generation: Int) -> (Page, Int)? {
    pages.withLock { kept in kept[key].flatMap { $0.generation == generation ? ($0.page, $0.status) : nil } }
  }

  func keep(_ page: Page, status: Int, key: String, generation: Int) {
    pages.withLock { kept in
      if kept.count >= 256 { kept.removeAll() }
      kept[key] = (generation, page, status)
    }
  }
}
