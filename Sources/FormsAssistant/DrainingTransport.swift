import Foundation
import Logging
import MCP

/// A transport that, when its input ends, ends the stream of received messages only once every
/// request received has been answered. The SDK's server answers each request in a task of its
/// own and stops when the stream ends, so a client that writes its requests and closes its end
/// (`printf ... | formsctl mcp`) would otherwise lose the answers still being made.
///
/// It also keeps the door shut until the client has said `initialize`: before it, every request
/// but `ping` is answered here with an error (-32002, not initialized) and never reaches a tool,
/// and a notification is dropped. (The SDK's strict mode refuses them without an answer, which
/// leaves a client waiting.)
public actor DrainingTransport: Transport {
  let inner: any Transport
  /// The ids of the requests received and not yet answered (as their JSON text).
  var pending: Set<String> = []
  var drained: [CheckedContinuation<Void, Never>] = []
  /// The client has sent `initialize`.
  var initialized = false

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
          if let refusal = await self.refusalBeforeInitialize(data) {
            if !refusal.isEmpty { try await self.inner.send(refusal) }
            continue
          }
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

  /// Nil when `data` may go on; otherwise what to answer in its place (empty: nothing, for a
  /// notification), while the client has not sent `initialize`.
  func refusalBeforeInitialize(_ data: Data) -> Data? {
    guard !initialized else { return nil }
    let parsed: Any
    do { parsed = try JSONSerialization.jsonObject(with: data) } catch { return nil }  // the SDK answers a parse error
    guard let object = parsed as? [String: Any] else {
      return Self.notInitialized(id: NSNull())
    }
    switch object["method"] as? String {
    case "initialize":
      initialized = true
      return nil
    case "ping":
      return nil
    case .some:
      guard let id = object["id"] else { return Data() }
      return Self.notInitialized(id: id)
    case nil:
      return nil  // a response, or not a request: the SDK says what it is
    }
  }

  static func notInitialized(id: Any) -> Data {
    let answer: [String: Any] = [
      "jsonrpc": "2.0", "id": id,
      "error": ["code": -32002, "message": "not initialized: send initialize first (only ping is answered before it)"],
    ]
    do {
      return try JSONSerialization.data(withJSONObject: answer)
    } catch {
      return Data(#"{"jsonrpc":"2.0","id":null,"error":{"code":-32002,"message":"not initialized"}}"#.utf8)
    }
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
