import Dispatch

/// Maps `items` on every core, in chunks, keeping the input order in the result.
public func parallelMap<Item: Sendable, Result: Sendable>(
  _ items: [Item], chunkSize: Int = 64, _ transform: @Sendable (Item) -> Result
) -> [Result] {
  if items.count <= chunkSize { return items.map(transform) }
  let chunks = (items.count + chunkSize - 1) / chunkSize
  let results = UnsafeMutableBufferPointer<Result?>.allocate(capacity: items.count)
  results.initialize(repeating: nil)
  defer { results.deallocate() }
  nonisolated(unsafe) let shared = results
  DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
    let range = chunk * chunkSize..<min(items.count, (chunk + 1) * chunkSize)
    for index in range { shared[index] = transform(items[index]) }
  }
  return results.map { $0! }
}
