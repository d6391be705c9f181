import Dispatch
import Foundation
import Synchronization

/// Maps `items` on every core, in chunks, keeping the input order in the result; `progress`
/// hears of each finished chunk.
package func parallelMap<Item: Sendable, Result: Sendable>(
  _ items: [Item], chunkSize: Int = 64, progress: ProgressCounter? = nil, _ transform: @Sendable (Item) -> Result
) -> [Result] {
  parallelChunks(count: items.count, chunkSize: chunkSize) { range in
    defer { progress?.add(range.count) }
    return range.map { transform(items[$0]) }
  }
}

/// The indices `0..<count` cut into chunks of `chunkSize`, each mapped by `transform` (which
/// returns one result per index, in order) on every core; the results in index order. A chunk
/// is the unit of work, so `transform` may open something once for all of its indices.
package func parallelChunks<Result: Sendable>(
  count: Int, chunkSize: Int, _ transform: @Sendable (Range<Int>) -> [Result]
) -> [Result] {
  let chunks = (count + chunkSize - 1) / chunkSize
  guard chunks > 1 else { return transform(0..<count) }
  let done = Mutex<[[Result]]>(Array(repeating: [], count: chunks))
  DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
    let results = transform(chunk * chunkSize..<min(count, (chunk + 1) * chunkSize))
    done.withLock { $0[chunk] = results }
  }
  return done.withLock { $0.flatMap { $0 } }
}

/// Runs `first` and `second` at the same time and returns both results.
package func concurrently<A: Sendable, B: Sendable>(
  _ first: @Sendable () -> A, _ second: @Sendable () -> B
) -> (A, B) {
  let results = Mutex<(A?, B?)>((nil, nil))
  DispatchQueue.concurrentPerform(iterations: 2) { which in
    if which == 0 {
      let value = first()
      results.withLock { $0.0 = value }
    } else {
      let value = second()
      results.withLock { $0.1 = value }
    }
  }
  // `concurrentPerform` returns once both have run.
  guard case (let a?, let b?) = results.withLock({ $0 }) else {
    preconditionFailure("concurrently: a task did not run")
  }
  return (a, b)
}

/// Runs `side` on a thread of its own while `body` runs on this one (with every core for its own
/// parallel work); both results, once both are done.
package func alongside<A: Sendable, B>(
  _ side: @escaping @Sendable () -> A, _ body: () throws(StoreError) -> B
) throws(StoreError) -> (A, B) {
  let result = Mutex<A?>(nil)
  let finished = DispatchSemaphore(value: 0)
  Thread.detachNewThread {
    let value = side()
    result.withLock { $0 = value }
    finished.signal()
  }
  // The side is waited for whatever `body` does, so nothing outlives this call.
  let own = Result { () throws(StoreError) -> B in try body() }
  finished.wait()
  guard let value = result.withLock({ $0 }) else { preconditionFailure("alongside: the side did not run") }
  return (value, try own.get())
}
