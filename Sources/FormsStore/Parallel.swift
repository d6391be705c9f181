import Dispatch

/// Maps `items` on every core, in chunks, keeping the input order in the result; `progress`
/// hears of each finished chunk.
public func parallelMap<Item: Sendable, Result: Sendable>(
  _ items: [Item], chunkSize: Int = 64, progress: ProgressCounter? = nil, _ transform: @Sendable (Item) -> Result
) -> [Result] {
  if items.count <= chunkSize {
    defer { progress?.add(items.count) }
    return items.map(transform)
  }
  let chunks = (items.count + chunkSize - 1) / chunkSize
  let results = UnsafeMutableBufferPointer<Result?>.allocate(capacity: items.count)
  results.initialize(repeating: nil)
  defer {
    results.deinitialize()
    results.deallocate()
  }
  nonisolated(unsafe) let shared = results
  DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
    let range = chunk * chunkSize..<min(items.count, (chunk + 1) * chunkSize)
    for index in range { shared[index] = transform(items[index]) }
    progress?.add(range.count)
  }
  return results.map { $0! }
}
