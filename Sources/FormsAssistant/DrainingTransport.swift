import Foundation
import Logging
import MCP

/// A transport that, when its input ends, ends the stream of received messages only once every
/// request received has been answered. The SDK's server answers each request in a task of its
/// own and stops when the stream ends, so a client that writes its requests and closes its end
/// (`printf ... | formsctl mcp`) would otherwise lose the answers still being made.
public actor DrainingTransport: Transport {
  let inner: any Transport
  /// The ids of the requests received and not yet answered (as their JSON text).
  var pending: Set<String> = []
  var drained: [CheckedContinuation<Void, Never>] = []

  public nonisolated let logger: Logger

  public init(
    _ inner: any Transport, logger: Logger = Logger(label: "formsctl.mcp", factory: { _ in SwiftLogNoOpLogHandler() })
  ) {
    self.inner = inner
    self.logger = logger
  }

  public func connect() async throws { try await inner.connect() }
  public func disconnect() async { await inner.disconnect() }

  public func send(_ data: Data) async throws {
    try await inner.send(data)
    for id in Self.responseIDs(data) { answered(id) }
  }

  public nonisolated func receive() -> AsyncThrowingStream<Data, any Error> {
    let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
    let task = Task {
      do {
        for try await data in await inner.receive() {
          await self.received(data)
          continuation.yield(data)
        }
        await self.waitUntilAnswered()
        continuation.finish()
      } catch {
        continuation.finish(throwing: error)
      }
    }
    continuation.onTermination = { _ in task.cancel() }
    return stream
  }

  func received(_ data: Data) {
    pending.formUnion(Self.requestIDs(data))
  }

  func answered(_ id: String) {
    pending.remove(id)
    if pending.isEmpty {
      for waiter in drained { waiter.resume() }
      drained = []
    }
  }

  func waitUntilAnswered() async {
    guard !pending.isEmpty else { return }
    await withCheckedContinuation { drained.append($0) }
  }

  /// The ids of the requests in a message (one, or a batch): members with both `id` and `method`.
  static func requestIDs(_ data: Data) -> [String] {
    guard let json = try? JSONSerialization.jsonObject(with: data) else { return [] }
    let messages = (json as? [Any]) ?? [json]
    return messages.compactMap { message in
      guard let object = message as? [String: Any], object["method"] != nil, let id = object["id"] else { return nil }
      return "\(id)"
    }
  }

  /// The ids of the responses in a message (one, or a batch): members with `id` and no `method`.
  static func responseIDs(_ data: Data) -> [String] {
    guard let json = try? JSONSerialization.jsonObject(with: data) else { return [] }
    let messages = (json as? [Any]) ?? [json]
    return messages.compactMap { message in
      guard let object = message as? [String: Any], object["method"] == nil, let id = object["id"] else { return nil }
      return "\(id)"
    }
  }
}
