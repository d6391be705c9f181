import FormsCore
import Foundation
import Logging
import MCP

/// A transport that, when its input ends, ends the stream of received messages only once every
/// request received has been answered. The SDK's server answers each request in a task of its
/// own and stops when the stream ends, so a client that writes its requests and closes its end
/// (`printf ... | formsctl mcp`) would otherwise lose the answers still being made.
///
/// It reads every message with formsctl's lossless parser before the SDK does, and:
/// - answers a request whose id is not a string or an integer (`null`, `true`, `1.5`, `{}`) here,
///   with a JSON-RPC invalid request (-32600, id null): the SDK would take it and never answer,
///   and the server would then wait for that answer after its input ended;
/// - keeps the door shut until the client has said `initialize`: before it, every request but
///   `ping` is answered here with an error (-32002, not initialized) and never reaches a tool,
///   and a notification is dropped. (The SDK's strict mode refuses them without an answer, which
///   leaves a client waiting.);
/// - keeps each `tools/call`'s arguments as their JSON text says them (``RawArguments``), so that
///   no number passes through the SDK's binary `Double`, and writes each answer's structured
///   content back as the tool made it.
public actor DrainingTransport: Transport {
  let inner: any Transport
  /// The ids of the requests received and not yet answered (as ``DrainingTransport/key(_:)``).
  var pending: Set<String> = []
  var drained: [CheckedContinuation<Void, Never>] = []
  /// The client has sent `initialize`.
  var initialized = false
  /// The arguments and answers of tool calls, as their JSON text says them.
  public nonisolated let raw = RawArguments()

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
    let (bytes, ids) = outgoing(data)
    try await inner.send(bytes)
    for id in ids { answered(id) }
  }

  public nonisolated func receive() -> AsyncThrowingStream<Data, any Error> {
    let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
    let task = Task {
      do {
        for try await data in await inner.receive() {
          let admitted = await self.admit(data)
          for answer in admitted.answers { try await self.inner.send(answer) }
          if let forward = admitted.forward { continuation.yield(forward) }
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

  /// What to do with a message received: the answers to send for it here, and what the SDK gets
  /// (nil: nothing). The requests it forwards are noted as waiting for their answer.
  func admit(_ data: Data) -> (answers: [Data], forward: Data?) {
    let parsed: JSONValue
    do { parsed = try JSONParser().parse(Array(data)) } catch { return ([], data) }  // the SDK answers a parse error
    guard case .array(let batch) = parsed else {
      guard case .object(let message) = parsed else { return ([], data) }  // the SDK says what it is
      switch admit(message) {
      case .answer(let answer): return ([Self.data(answer)], nil)
      case .drop: return ([], nil)
      case .forward(let forwarded, let changed): return ([], changed ? Self.data(.object(forwarded)) : data)
      }
    }
    guard initialized else { return ([Self.data(Self.notInitialized(id: .null))], nil) }
    var answers: [JSONValue] = []
    var forwarded: [JSONValue] = []
    var changed = false
    for element in batch {
      guard case .object(let message) = element else {
        forwarded.append(element)
        continue
      }
      switch admit(message) {
      case .answer(let answer):
        answers.append(answer)
        changed = true
      case .drop: changed = true
      case .forward(let kept, let rewritten):
        forwarded.append(.object(kept))
        changed = changed || rewritten
      }
    }
    let forward = forwarded.isEmpty && !batch.isEmpty ? nil : changed ? Self.data(.array(forwarded)) : data
    return (answers.isEmpty ? [] : [Self.data(.array(answers))], forward)
  }

  enum Admission {
    /// Answered here, in its place.
    case answer(JSONValue)
    /// Neither answered nor forwarded (a notification before `initialize`).
    case drop
    /// For the SDK; `changed` when the message was rewritten.
    case forward(JSONObject, changed: Bool)
  }

  /// One message of what was received.
  func admit(_ message: JSONObject) -> Admission {
    guard let method = message["method"] else {
      return .forward(message, changed: false)  // a response, or not a request: the SDK says what it is
    }
    var key: String?
    if let id = message["id"] {
      guard let valid = Self.key(id) else { return .answer(Self.invalidID(id)) }
      key = valid
    }
    if !initialized {
      switch method.stringValue {
      case "initialize": initialized = true
      case "ping": break
      default:
        guard let id = message["id"] else { return .drop }
        return .answer(Self.notInitialized(id: id))
      }
    }
    var message = message
    var changed = false
    if method.stringValue == "tools/call", let key, case .object(var params)? = message["params"],
      case .object(let arguments)? = params["arguments"]
    {
      params["arguments"] = .object(
        JSONObject([RawArguments.argumentsKey: .string(raw.keep(arguments, request: key))]))
      message["params"] = .object(params)
      changed = true
    }
    if method.stringValue == "notifications/cancelled", let id = message["params"]?["requestId"],
      let cancelled = Self.key(id)
    {
      // The SDK answers no request it cancelled: it is not waited for.
      answered(cancelled)
    }
    if let key { pending.insert(key) }
    return .forward(message, changed: changed)
  }

  /// What the SDK sends, with each answer's structured content as the tool made it; and the ids
  /// of the responses in it (one, or a batch: members with `id` and no `method`).
  func outgoing(_ data: Data) -> (Data, [String]) {
    let parsed: JSONValue
    do { parsed = try JSONParser().parse(Array(data)) } catch { return (data, []) }
    var changed = false
    func restored(_ message: JSONValue) -> JSONValue {
      guard case .object(var object) = message, case .object(var result)? = object["result"],
        case .object(let structured)? = result["structuredContent"], structured.count == 1,
        let token = structured[RawArguments.answerKey]?.stringValue, let answer = raw.takeAnswer(token)
      else { return message }
      result["structuredContent"] = answer
      object["result"] = .object(result)
      changed = true
      return .object(object)
    }
    let messages: [JSONValue]
    if case .array(let batch) = parsed { messages = batch.map(restored) } else { messages = [restored(parsed)] }
    let ids = messages.compactMap { message -> String? in
      guard case .object(let object) = message, object["method"] == nil, let id = object["id"] else { return nil }
      return Self.key(id)
    }
    for id in ids { raw.forget(request: id) }
    guard changed else { return (data, ids) }
    if case .array = parsed { return (Self.data(.array(messages)), ids) }
    return (Self.data(messages[0]), ids)
  }

  /// The text a request id is known by, when it is one the protocol allows: a string, or an
  /// integer (as the SDK writes it back); nil for any other JSON (null, true, 1.5, {}...).
  static func key(_ id: JSONValue) -> String? {
    switch id {
    case .string: return JSONWriter.compact(id)
    case .number(let number): return Int(number.text).map { String($0) }
    default: return nil
    }
  }

  static func invalidID(_ id: JSONValue) -> JSONValue {
    .object(
      JSONObject([
        "jsonrpc": .string("2.0"), "id": .null,
        "error": .object(
          JSONObject([
            "code": .number(JSONNumber(-32600)),
            "message": .string(
              "invalid request: the id must be a string or an integer, not \(JSONWriter.compact(id)); "
                + "the request was not run"),
          ])),
      ]))
  }

  static func notInitialized(id: JSONValue) -> JSONValue {
    .object(
      JSONObject([
        "jsonrpc": .string("2.0"), "id": id,
        "error": .object(
          JSONObject([
            "code": .number(JSONNumber(-32002)),
            "message": .string("not initialized: send initialize first (only ping is answered before it)"),
          ])),
      ]))
  }

  static func data(_ value: JSONValue) -> Data { Data(JSONWriter.compact(value).utf8) }

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
}
