import FormsCore
import FormsStore
import Foundation
import Synchronization

/// `formsctl lsp`: a Language Server (LSP 3.17, JSON-RPC over stdio) for the documents and
/// descriptors of the stores whose files a client opens. Every answer comes from
/// ``LanguageService``; positions are converted at this boundary, in the encoding the client
/// negotiates (UTF-16 unless it offers UTF-8). Each store's data directory is watched (the
/// change detector of `formsctl watch`): when files change on disk, from another process or a
/// `git checkout`, the open buffers are checked again and their diagnostics published anew. The
/// server never writes a file: its edits are the client's to apply.
public final class LanguageServer: Sendable {
  struct Buffer: Sendable {
    var path: String
    var text: [UInt8]
    var version: Int?
  }

  /// A store's service, with the descriptors' signature it was opened with (a changed one opens it again).
  struct Workspace: Sendable {
    var service: LanguageService
    var descriptors: [String: FileStamp?]
  }

  struct State: Sendable {
    var encoding = LineIndex.Encoding.utf16
    var initialized = false
    var shutdown = false
    /// Hover in Markdown unless the client's `hover.contentFormat` prefers plain text.
    var hoverMarkdown = true
    /// What was last published for each open buffer: the same diagnostics of the same version
    /// are not sent again (a watch's first look after `didOpen`, a save that changed nothing).
    var published: [String: JSONValue] = [:]
    /// A write to the client failed: it is gone.
    var disconnected = false
    var buffers: [String: Buffer] = [:]
    var workspaces: [String: Workspace] = [:]
    var watches: [String: WatchCancellation] = [:]
  }

  let input: FileHandle
  let output: Mutex<FileHandle>
  let state = Mutex(State())
  /// Held while diagnostics are made and sent, so the last published for a buffer is its latest.
  let publishing = Mutex(())
  let watchOptions: Store.ObserveOptions
  /// Where the server's own store is found: `--store`, the environment, the working directory.
  let home: (explicit: String?, environment: [String: String], directory: String)

  public init(
    input: FileHandle = .standardInput, output: FileHandle = .standardOutput, store: String? = nil,
    environment: [String: String] = [:], workingDirectory: String,
    watchOptions: Store.ObserveOptions = Store.ObserveOptions()
  ) {
    self.home = (store, environment, workingDirectory)
    self.input = input
    self.output = Mutex(output)
    self.watchOptions = watchOptions
  }

  /// Serves until `exit` (or the input ends); the exit status LSP asks for: 0 after `shutdown`, else 1.
  public func run() -> Int32 {
    var reader = FrameReader(input)
    defer { for watch in state.withLock({ Array($0.watches.values) }) { watch.cancel() } }
    loop: while !state.withLock({ $0.disconnected }), let frame = reader.nextFrame() {
      let body: [UInt8]
      switch frame {
      case .message(let bytes): body = bytes
      case .invalid(let reason):
        send(error: -32700, message: reason, id: .null)
        continue
      case .unreadable(let reason):
        // No frame can be found after this: say so and end, as when the input ends.
        send(error: -32700, message: reason + "; formsctl lsp stops", id: .null)
        break loop
      }
      let message: JSONValue
      do {
        message = try JSONParser().parse(body)
      } catch {
        send(error: -32700, message: "not JSON: \(error.message)", id: .null)
        continue
      }
      guard case .object = message else {
        let what = message.arrayValue != nil ? "a batch (LSP sends one message per frame)" : "not an object"
        send(error: -32600, message: "invalid request: \(what)", id: .null)
        continue
      }
      let id = message["id"]
      switch id {
      case nil, .string?: break
      case .number(let number)?:
        // JSON-RPC ids are integers or strings: `1.5` is no id to answer to.
        guard number.intValue != nil else {
          send(error: -32600, message: "invalid request: an id is an integer or a string", id: .null)
          continue
        }
      case .null?:
        guard message["method"] != nil else { continue }  // an error answered to us
        break
      default:
        send(error: -32600, message: "invalid request: an id is a number or a string", id: .null)
        continue
      }
      guard let method = message["method"]?.stringValue else {
        if message["result"] != nil || message["error"] != nil { continue }  // a response to us
        send(error: -32600, message: "invalid request: no method", id: id ?? .null)
        continue
      }
      if method == "exit" { break }
      handle(method, id: id == .null ? nil : id, params: message["params"] ?? .null)
    }
    return state.withLock { $0.shutdown } ? 0 : 1
  }

  // MARK: Dispatch

  /// The methods LSP defines as notifications: they take no id and get no answer.
  static let notifications: Set<String> = [
    "initialized", "exit", "textDocument/didOpen", "textDocument/didChange", "textDocument/didClose",
    "textDocument/didSave", "textDocument/willSave", "workspace/didChangeWatchedFiles",
    "workspace/didChangeConfiguration", "workspace/didChangeWorkspaceFolders",
  ]

  func handle(_ method: String, id: JSONValue?, params: JSONValue) {
    let (initialized, shutdown) = state.withLock { ($0.initialized, $0.shutdown) }
    guard let id else {
      // A notification before `initialize` or after `shutdown` is dropped (only `exit` counts),
      // and so is a request sent without an id: there is nowhere to send its answer.
      guard initialized && !shutdown, Self.notifications.contains(method) else { return }
      return handleNotification(method, params: params)
    }
    if Self.notifications.contains(method) {
      return send(error: -32600, message: "invalid request: \(method) is a notification and takes no id", id: id)
    }
    if shutdown {
      return send(error: -32600, message: "invalid request: the server was shut down; only exit is accepted", id: id)
    }
    if !initialized && method != "initialize" {
      return send(error: -32002, message: "the server is not initialized", id: id)
    }
    if let missing = Self.missingParams(method, params) {
      return send(error: -32602, message: "invalid params: \(method) needs \(missing)", id: id)
    }
    switch method {
    case "initialize":
      guard !initialized else { return send(error: -32600, message: "invalid request: initialized already", id: id) }
      respond(id, initialize(params))
    case "shutdown":
      state.withLock { $0.shutdown = true }
      respond(id, .null)
    case "textDocument/completion": respond(id, answer(params) { self.completion($0, $1, $2) })
    case "textDocument/hover": respond(id, answer(params) { self.hover($0, $1, $2) })
    case "textDocument/definition": respond(id, answer(params) { self.definition($0, $1, $2) })
    case "textDocument/references": respond(id, answer(params) { self.references($0, $1, $2) })
    case "textDocument/formatting": respond(id, answer(params) { self.formatting($0, $1, $2) })
    case "textDocument/codeAction": respond(id, answer(params) { self.codeActions($0, $1, $2, params) })
    default: send(error: -32601, message: "formsctl lsp does not handle \(method)", id: id)
    }
  }

  /// What a request's params lack that its method requires (`textDocument.uri`, a `position`,
  /// a `range`), or nil when nothing is missing.
  static func missingParams(_ method: String, _ params: JSONValue) -> String? {
    func isPosition(_ value: JSONValue?) -> Bool {
      value?["line"]?.numberValue?.isInteger == true && value?["character"]?.numberValue?.isInteger == true
    }
    let positioned: Set<String> = [
      "textDocument/completion", "textDocument/hover", "textDocument/definition", "textDocument/references",
    ]
    guard positioned.contains(method) || method == "textDocument/formatting" || method == "textDocument/codeAction"
    else { return nil }
    guard case .object = params else { return "params (an object)" }
    guard params["textDocument"]?["uri"]?.stringValue != nil else { return "textDocument.uri (a string)" }
    if positioned.contains(method), !isPosition(params["position"]) {
      return "position (integer line and character)"
    }
    if method == "textDocument/codeAction",
      !isPosition(params["range"]?["start"]) || !isPosition(params["range"]?["end"])
    {
      return "range (start and end positions)"
    }
    return nil
  }

  func handleNotification(_ method: String, params: JSONValue) {
    switch method {
    case "textDocument/didOpen":
      let document = params["textDocument"] ?? .null
      guard let uri = document["uri"]?.stringValue, let path = Self.path(of: uri) else { return }
      let text = Array((document["text"]?.stringValue ?? "").utf8)
      state.withLock {
        $0.buffers[uri] = Buffer(path: path, text: text, version: document["version"]?.numberValue?.intValue)
      }
      watch(path)
      publish([uri])
    case "textDocument/didChange":
      guard let uri = params["textDocument"]?["uri"]?.stringValue else { return }
      let version = params["textDocument"]?["version"]?.numberValue?.intValue
      state.withLock { state in
        guard var buffer = state.buffers[uri] else { return }
        // A change older than the buffer's version arrived late (or is wrong): applying it would
        // put the server's text out of step with the editor's.
        if let version, let last = buffer.version, version < last { return }
        for change in params["contentChanges"]?.arrayValue ?? [] {
          buffer.text = Self.applying(change, to: buffer.text, encoding: state.encoding)
        }
        buffer.version = version
        state.buffers[uri] = buffer
      }
      publish([uri])
    case "textDocument/didClose":
      guard let uri = params["textDocument"]?["uri"]?.stringValue else { return }
      state.withLock {
        $0.buffers[uri] = nil
        $0.published[uri] = nil
      }
      notify(
        "textDocument/publishDiagnostics",
        .object(JSONObject(["uri": .string(uri), "diagnostics": .array([])])))
    case "textDocument/didSave", "workspace/didChangeWatchedFiles":
      publish(state.withLock { Array($0.buffers.keys) })
    default: break  // initialized, and what the server does not follow
    }
  }

  func initialize(_ params: JSONValue) -> JSONValue {
    let offered = params["capabilities"]?["general"]?["positionEncodings"]?.arrayValue?.compactMap(\.stringValue) ?? []
    let encoding: LineIndex.Encoding = offered.contains("utf-8") ? .utf8 : .utf16
    // The client's formats in its order of preference; Markdown when it names none.
    let formats = (params["capabilities"]?["textDocument"]?["hover"]?["contentFormat"]?.arrayValue ?? [])
      .compactMap(\.stringValue).filter { $0 == "markdown" || $0 == "plaintext" }
    state.withLock {
      $0.encoding = encoding
      $0.hoverMarkdown = formats.first ?? "markdown" == "markdown"
      $0.initialized = true
    }
    return .object(
      JSONObject([
        "capabilities": .object(
          JSONObject([
            "positionEncoding": .string(encoding.rawValue),
            "textDocumentSync": .object(
              JSONObject([
                "openClose": .bool(true), "change": .number(JSONNumber(1)),
                "save": .object(JSONObject(["includeText": .bool(false)])),
              ])),
            "completionProvider": .object(
              JSONObject(["triggerCharacters": .array([.string("\""), .string(":")])])),
            "hoverProvider": .bool(true),
            "definitionProvider": .bool(true),
            "referencesProvider": .bool(true),
            "documentFormattingProvider": .bool(true),
            "codeActionProvider": .bool(true),
          ])),
        "serverInfo": .object(JSONObject(["name": .string("formsctl"), "version": .string(formsctlVersion)])),
      ]))
  }

  /// A request about one open buffer at one position: the handler gets the service of the
  /// buffer's store, the buffer and the byte offset; nil (no store, no buffer) answers null.
  func answer(
    _ params: JSONValue, _ handler: (LanguageService, Buffer, Int) -> JSONValue
  ) -> JSONValue {
    guard let uri = params["textDocument"]?["uri"]?.stringValue else { return .null }
    let (buffer, encoding) = state.withLock { ($0.buffers[uri], $0.encoding) }
    let path = buffer?.path ?? Self.path(of: uri)
    guard let path, let service = service(for: path) else { return .null }
    let text: [UInt8]
    if let buffer {
      text = buffer.text
    } else {
      do { text = try FileIO.read(FilePath(path)) } catch { return .null }  // not open and not readable: nothing to say
    }
    // A buffer over the store's limit is not parsed (its one diagnostic says why): nothing to answer.
    guard text.count <= FileIO.maxFileSize else { return .null }
    let position = params["position"] ?? .null
    let offset = LineIndex(text).offset(
      line: position["line"]?.numberValue?.intValue ?? 0, character: position["character"]?.numberValue?.intValue ?? 0,
      encoding: encoding)
    return handler(service, Buffer(path: path, text: text, version: buffer?.version), offset)
  }

  // MARK: Answers

  func completion(_ service: LanguageService, _ buffer: Buffer, _ offset: Int) -> JSONValue {
    let kinds: [LanguageService.Completion.Kind: Int] = [.field: 10, .value: 12, .state: 20, .reference: 18]
    let items = service.complete(path: buffer.path, text: buffer.text, at: offset).map { item in
      var out = JSONObject([
        "label": .string(item.label), "kind": .number(JSONNumber(kinds[item.kind] ?? 1)),
        "textEdit": .object(
          JSONObject([
            "range": range(item.range, in: buffer.text), "newText": .string(item.insertText),
          ])),
      ])
      if let detail = item.detail { out["detail"] = .string(detail) }
      if let documentation = item.documentation { out["documentation"] = .string(documentation) }
      return JSONValue.object(out)
    }
    return .object(JSONObject(["isIncomplete": .bool(false), "items": .array(items)]))
  }

  func hover(_ service: LanguageService, _ buffer: Buffer, _ offset: Int) -> JSONValue {
    guard let (markdown, span) = service.hover(path: buffer.path, text: buffer.text, at: offset) else { return .null }
    let contents =
      state.withLock { $0.hoverMarkdown }
      ? JSONObject(["kind": .string("markdown"), "value": .string(markdown)])
      : JSONObject(["kind": .string("plaintext"), "value": .string(Self.plainText(markdown))])
    return .object(
      JSONObject([
        "contents": .object(contents),
        "range": range(span, in: buffer.text),
      ]))
  }

  /// The hover's Markdown as plain text: the text without its emphasis and code marks.
  static func plainText(_ markdown: String) -> String {
    markdown.replacingOccurrences(of: "**", with: "").replacingOccurrences(of: "`", with: "")
  }

  func definition(_ service: LanguageService, _ buffer: Buffer, _ offset: Int) -> JSONValue {
    guard let target = service.definition(path: buffer.path, text: buffer.text, at: offset) else { return .null }
    return location(target)
  }

  func references(_ service: LanguageService, _ buffer: Buffer, _ offset: Int) -> JSONValue {
    do {
      return .array(try service.references(path: buffer.path).map(location))
    } catch {
      return .array([])  // a store that cannot be read refers to nothing the editor can open
    }
  }

  func formatting(_ service: LanguageService, _ buffer: Buffer, _ offset: Int) -> JSONValue {
    guard let canonical = service.format(text: buffer.text) else { return .array([]) }
    return .array([
      edit(
        LanguageService.Edit(range: 0..<buffer.text.count, text: String(decoding: canonical, as: UTF8.self)),
        in: buffer.text)
    ])
  }

  func codeActions(_ service: LanguageService, _ buffer: Buffer, _ offset: Int, _ params: JSONValue) -> JSONValue {
    let encoding = state.withLock { $0.encoding }
    let lines = LineIndex(buffer.text)
    func offset(_ position: JSONValue?) -> Int {
      lines.offset(
        line: position?["line"]?.numberValue?.intValue ?? 0,
        character: position?["character"]?.numberValue?.intValue ?? 0, encoding: encoding)
    }
    let start = offset(params["range"]?["start"])
    let end = max(start, offset(params["range"]?["end"]))
    let uri = params["textDocument"]?["uri"]?.stringValue ?? ""
    return .array(
      service.fixes(path: buffer.path, text: buffer.text, in: start..<end).map { fix in
        .object(
          JSONObject([
            "title": .string(fix.title),
            "kind": .string(fix.rule == nil ? "source" : "quickfix"),
            "edit": .object(
              JSONObject([
                "changes": .object(JSONObject([uri: .array(fix.edits.map { edit($0, lines: lines) })]))
              ])),
          ]))
      })
  }

  // MARK: Protocol values

  func range(_ span: Range<Int>, in text: [UInt8]) -> JSONValue {
    range(span, lines: LineIndex(text))
  }

  /// The range of `span` in the text `lines` indexes (for many ranges in one text).
  func range(_ span: Range<Int>, lines: LineIndex) -> JSONValue {
    let encoding = state.withLock { $0.encoding }
    func position(_ offset: Int) -> JSONValue {
      let (line, character) = lines.position(of: offset, encoding: encoding)
      return .object(JSONObject(["line": .number(JSONNumber(line)), "character": .number(JSONNumber(character))]))
    }
    return .object(JSONObject(["start": position(span.lowerBound), "end": position(span.upperBound)]))
  }

  func edit(_ edit: LanguageService.Edit, in text: [UInt8]) -> JSONValue {
    self.edit(edit, lines: LineIndex(text))
  }

  func edit(_ edit: LanguageService.Edit, lines: LineIndex) -> JSONValue {
    .object(JSONObject(["range": range(edit.range, lines: lines), "newText": .string(edit.text)]))
  }

  func location(_ location: LanguageService.Location) -> JSONValue {
    let text: [UInt8]
    if location.range != nil {
      do { text = try FileIO.read(FilePath(location.path)) } catch { text = [] }  // placed at the start instead
    } else {
      text = []
    }
    return .object(
      JSONObject([
        "uri": .string(Self.uri(of: location.path)), "range": range(location.range ?? 0..<0, in: text),
      ]))
  }

  /// `text` with one `contentChanges` entry applied: a whole new text, or a range replaced.
  static func applying(_ change: JSONValue, to text: [UInt8], encoding: LineIndex.Encoding) -> [UInt8] {
    let replacement = Array((change["text"]?.stringValue ?? "").utf8)
    guard let range = change["range"] else { return replacement }
    let lines = LineIndex(text)
    func offset(_ position: JSONValue?) -> Int {
      lines.offset(
        line: position?["line"]?.numberValue?.intValue ?? 0,
        character: position?["character"]?.numberValue?.intValue ?? 0, encoding: encoding)
    }
    let start = offset(range["start"])
    let end = max(start, offset(range["end"]))
    return Array(text[..<start]) + replacement + Array(text[end...])
  }

  /// The path of a `file:` URI (percent-escapes decoded); nil for any other scheme.
  static func path(of uri: String) -> String? {
    guard uri.hasPrefix("file://") else { return nil }
    return String(uri.dropFirst(7)).removingPercentEncoding
  }

  /// The `file:` URI of an absolute path.
  static func uri(of path: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "/-._~")
    return "file://" + (path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path)
  }

  // MARK: Sending

  func respond(_ id: JSONValue?, _ result: JSONValue) {
    guard let id else { return }
    send(.object(JSONObject(["jsonrpc": .string("2.0"), "id": id, "result": result])))
  }

  func notify(_ method: String, _ params: JSONValue) {
    send(.object(JSONObject(["jsonrpc": .string("2.0"), "method": .string(method), "params": params])))
  }

  func send(error code: Int, message: String, id: JSONValue) {
    send(
      .object(
        JSONObject([
          "jsonrpc": .string("2.0"), "id": id,
          "error": .object(JSONObject(["code": .number(JSONNumber(code)), "message": .string(message)])),
        ])))
  }

  /// One message, framed; a client that stopped reading ends the server after the message it
  /// sent last (SIGPIPE is ignored by `formsctl lsp`, so the write fails instead of killing it).
  func send(_ message: JSONValue) {
    let body = Array(JSONWriter.compact(message).utf8)
    let frame = Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body
    output.withLock { handle in
      guard !state.withLock({ $0.disconnected }) else { return }
      do { try handle.write(contentsOf: frame) } catch { state.withLock { $0.disconnected = true } }
    }
  }
}
