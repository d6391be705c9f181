import FormsCore
import FormsStore
import Foundation
import MCP
import Synchronization

/// The Model Context Protocol server over an ``Assistant``: tools/list and tools/call, resources
/// (list, read, subscribe) and, from ``Store/changes(kinds:options:)``,
/// `notifications/resources/updated` for each subscribed document a commit changed and
/// `notifications/resources/list_changed` when documents were created, deleted or renamed.
public final class AssistantServer: Sendable {
  public let assistant: Assistant
  /// The most resources one `resources/list` answer names (the rest follow with its cursor).
  public static let resourcePage = 500
  let server: Server
  let subscriptions = Mutex<Set<String>>([])
  let watch = Mutex<Task<Void, Never>?>(nil)
  /// The tool calls' arguments and answers as their JSON text says them, when the transport keeps
  /// them (``DrainingTransport``); nil: the SDK's values are used.
  let raw = Mutex<RawArguments?>(nil)

  public init(assistant: Assistant, version: String) {
    self.assistant = assistant
    server = Server(
      name: "formsctl", version: version, title: "formsctl",
      instructions: """
        A document store of forms with schemas. list_kinds tells the kinds and their fields; \
        check_KIND checks a draft; create_KIND, update and transition are dry runs unless apply is true. \
        Documents are resources formsctl://KIND/ID; descriptors formsctl://KIND.
        """,
      capabilities: .init(resources: .init(subscribe: true, listChanged: true), tools: .init(listChanged: false)))
  }

  /// Starts serving on `transport` and watching the store; returns once started.
  public func start(transport: any Transport) async throws {
    raw.withLock { $0 = (transport as? DrainingTransport)?.raw }
    await register()
    try await server.start(transport: transport)
    startWatching()
  }

  /// Waits until the client goes away (the transport ends).
  public func waitUntilCompleted() async {
    await server.waitUntilCompleted()
    stop()
  }

  /// Stops watching the store and serving.
  public func stop() {
    watch.withLock { task in
      task?.cancel()
      task = nil
    }
  }

  /// Stops serving and watching.
  public func shutdown() async {
    stop()
    await server.stop()
  }

  func register() async {
    let assistant = self.assistant
    await server.withMethodHandler(ListTools.self) { _ in
      ListTools.Result(
        tools: assistant.tools.map { tool in
          MCP.Tool(
            name: tool.name, description: tool.description, inputSchema: Self.value(tool.inputSchema),
            annotations: .init(
              readOnlyHint: tool.readOnly, destructiveHint: tool.name == "delete", openWorldHint: false))
        })
    }
    let raw = self.raw.withLock { $0 }
    await server.withMethodHandler(CallTool.self) { params in
      let arguments: JSONObject
      do {
        arguments = try Self.arguments(params.arguments, raw: raw)
      } catch {
        return CallTool.Result(
          content: [.text(text: "{\"error\": \"the arguments are not JSON\"}", annotations: nil, _meta: nil)],
          isError: true)
      }
      let answer = await Self.offPool { assistant.call(params.name, arguments: arguments) }
      // Written back by the transport as the tool made it (no number through a Double).
      let structured: Value? =
        raw.map { .object([RawArguments.answerKey: .string($0.keep(answer: answer.value))]) }
        ?? Self.value(answer.value)
      return CallTool.Result(
        content: [.text(text: JSONWriter.canonicalString(answer.value), annotations: nil, _meta: nil)],
        structuredContent: structured, isError: answer.isError)
    }
    await server.withMethodHandler(ListResources.self) { params in
      // Pages of `resourcePage`; the cursor is where the next page starts.
      let start = params.cursor.map { Int($0) ?? -1 } ?? 0
      let listed = await Self.offPool { Result { () throws(StoreError) in try assistant.resources() } }
      let all: [Assistant.Resource]
      switch listed {
      case .success(let resources): all = resources
      case .failure(let error): throw MCPError.internalError(error.description)
      }
      guard (0...all.count).contains(start) else { throw MCPError.invalidParams("no such cursor") }
      let end = min(all.count, start + Self.resourcePage)
      return ListResources.Result(
        resources: all[start..<end].map {
          MCP.Resource(name: $0.name, uri: $0.uri, title: $0.title, mimeType: $0.mimeType)
        }, nextCursor: end < all.count ? String(end) : nil)
    }
    await server.withMethodHandler(ReadResource.self) { params in
      let read = await Self.offPool { Result { () throws(AssistantError) in try assistant.read(params.uri) } }
      do throws(AssistantError) {
        let content = try read.get()
        return ReadResource.Result(contents: [.text(content.text, uri: content.uri, mimeType: content.mimeType)])
      } catch {
        let message = error.answer.value["error"]?.stringValue ?? "cannot read \(params.uri)"
        // The protocol's "resource not found" (-32002).
        if case .store(.notFound) = error { throw MCPError.serverError(code: -32002, message: message) }
        throw MCPError.invalidParams(message)
      }
    }
    await server.withMethodHandler(ResourceSubscribe.self) { [weak self] params in
      self?.subscriptions.withLock { _ = $0.insert(params.uri) }
      return ResourceSubscribe.Result()
    }
    await server.withMethodHandler(ResourceUnsubscribe.self) { [weak self] params in
      self?.subscriptions.withLock { _ = $0.remove(params.uri) }
      return ResourceUnsubscribe.Result()
    }
  }

  /// Follows the store's commits (by any process) and tells the client.
  func startWatching() {
    let changes = assistant.store.changes()
    let task = Task { [server, weak self] in
      do {
        for try await batch in changes {
          let (uris, listChanged) = Assistant.touched(batch)
          let subscribed = self?.subscriptions.withLock { set in uris.filter(set.contains) } ?? []
          for uri in subscribed {
            try await server.notify(ResourceUpdatedNotification.message(.init(uri: uri)))
          }
          if listChanged { try await server.notify(ResourceListChangedNotification.message()) }
        }
      } catch {
        // The store went away or the client did: nothing more to tell.
      }
    }
    watch.withLock { $0 = task }
  }

  /// Runs `body` (store work, which blocks: reading files, waiting for the store's lock) on a
  /// thread outside Swift's cooperative pool, so that a wait never starves the server's tasks.
  static func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
      Thread.detachNewThread { continuation.resume(returning: body()) }
    }
  }

  /// A formsctl JSON value as the SDK's.
  static func value(_ json: JSONValue) -> Value {
    do {
      return try JSONDecoder().decode(Value.self, from: Data(JSONWriter.compact(json).utf8))
    } catch {
      return .null
    }
  }

  /// A call's arguments: those the transport kept as their JSON text says them, by the token it
  /// gave the SDK in their place; else the SDK's.
  static func arguments(_ given: [String: Value]?, raw: RawArguments?) throws -> JSONObject {
    if let raw, let given, given.count == 1, case .string(let token)? = given[RawArguments.argumentsKey] {
      guard let kept = raw.take(token) else { throw MCPError.internalError("the arguments of this call are gone") }
      return kept
    }
    return try object(given ?? [:])
  }

  /// The SDK's arguments as a formsctl JSON object.
  static func object(_ arguments: [String: Value]) throws -> JSONObject {
    let data = try JSONEncoder().encode(arguments)
    guard case .object(let object) = try JSONParser().parse(Array(data)) else { return JSONObject() }
    return object
  }
}
