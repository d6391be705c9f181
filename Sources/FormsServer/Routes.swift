import FormsCore
import FormsPages
import FormsStore
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceLifecycle

extension FormsServer {
  /// The pages: `/`, `/k/KIND`, `/k/KIND/new`, `/k/KIND/ID`, `/k/KIND/ID/edit|print|delete|rename`,
  /// `/k/KIND/ID/attachments/NAME`, `/lookup/KIND?q=`, `/events`, `/assets/…`.
  /// A HEAD request (`head`) is answered as its GET, but `/events` takes no listener's place for it.
  func get(_ segments: [String], query: FormInput, head: Bool = false) async -> Response {
    do throws(StoreError) {
      switch segments.count {
      case 0:
        return html(try pages.home())
      case 1 where segments[0] == "favicon.ico":
        return Response(status: .noContent)
      case 2 where segments[0] == "assets":
        return asset(segments[1])
      case 1 where segments[0] == "events":
        return events(head: head)
      case 2 where segments[0] == "lookup":
        let kind = try checkedKind(segments[1])
        let text = String((query["q"] ?? "").prefix(200))
        let found = try pages.lookup(kind: kind, text: text)
        let json = JSONValue.array(
          found.map { .object(JSONObject(["id": .string($0.id), "title": .string($0.title)])) })
        return Response(
          status: .ok, headers: [.contentType: "application/json"],
          body: ResponseBody(byteBuffer: ByteBuffer(string: JSONWriter.compact(json))))
      case 2 where segments[0] == "k":
        let kind = try checkedKind(segments[1])
        guard let number = Self.pageNumber(query["page"]) else {
          return plain(.badRequest, "the page is a whole number from 1 to \(Pages.maximumPage)")
        }
        let request = Pages.ListRequest(filter: query["where"] ?? "", sort: query["sort"] ?? "", page: number)
        let (page, status) = try listPage(kind: kind, request)
        return html(page, status: HTTPResponse.Status(code: status))
      case 3 where segments[0] == "k" && segments[2] == "new":
        return html(try pages.newForm(kind: try checkedKind(segments[1]), template: query["template"]))
      case 3 where segments[0] == "k":
        let (kind, id) = try document(segments)
        return html(try pages.document(kind: kind, id: id))
      case 4 where segments[0] == "k":
        let (kind, id) = try document(segments)
        switch segments[3] {
        case "edit": return html(try pages.editForm(kind: kind, id: id))
        case "print":
          // The print view is self-contained (`formsctl render` writes it as one file): its style is
          // inline, which the application's policy (`style-src 'self'`) would block. It has no script.
          return Response(
            status: .ok,
            headers: [
              .contentType: "text/html; charset=utf-8",
              .contentSecurityPolicy:
                "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(string: try PrintView.render(store: store, kind: kind, id: id))))
        case "delete": return html(try pages.deletePlan(kind: kind, id: id))
        case "rename": return html(try pages.renamePlan(kind: kind, id: id, to: query["to"]))
        default: return plain(.notFound, "no such page")
        }
      case 5 where segments[0] == "k" && segments[3] == "attachments":
        let (kind, id) = try document(segments)
        let (bytes, record) = try store.attachment(kind: kind, id: id, name: segments[4])
        let name = Schema.Attachment(name: segments[4], types: [], maxSize: 0, requiredIn: []).fileName(
          type: record.type)
        return Response(
          status: .ok,
          headers: [
            .contentType: record.type, .contentDisposition: "attachment; filename=\"\(Link.encode(name))\"",
          ],
          body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
      default:
        return plain(.notFound, "no such page")
      }
    } catch {
      return failure(error)
    }
  }

  /// A list page, from memory when nothing changed since it was made: the store's watch has heard
  /// no change since (and was watching), and this server wrote nothing. A short-lived command
  /// must `stat` every file to trust its index; this process hears every change instead. A
  /// change another program makes shows once the watch hears it (within its debounce), when the
  /// open page refreshes itself too. Never from memory: a kind with sensitive fields when the
  /// server opens them (each showing is recorded, as `get` records it), nor a kind whose
  /// directory is not one (a symbolic link in its place).
  func listPage(kind: String, _ request: Pages.ListRequest) throws(StoreError) -> (Page, Int) {
    let key = "\(kind)\n\(request.filter)\n\(request.sort)\n\(request.page)"
    let schema = try store.schema(kind)
    // Memory never vouches for what is behind a link: a kind's (or the data) directory that
    // became one (a hostile checkout, a swap the watch cannot see through) is refused as listing
    // refuses it.
    let data = FilePath(store.layout.dataDirectory)
    for directory in [data, data / schema.directory] {
      if case let entry = FileIO.entry(directory), entry != .directory && entry != .missing {
        throw StoreError.wrongFileType(
          store.display(directory.string), found: FileIO.describe(directory), expected: "a directory")
      }
    }
    let sensitive = schema.hasSensitiveFields
    let generation = identity == nil || !sensitive ? live.generation : nil
    if let generation, let kept = listPages.page(key, generation: generation) { return kept }
    let (page, status) = try pages.list(kind: kind, request)
    if let generation { listPages.keep(page, status: status, key: key, generation: generation) }
    return (page, status)
  }

  /// The list page a `page=` asks for: 1 when it is absent, nil when it is not a whole number
  /// from 1 to ``Pages/maximumPage`` (a number past it would overflow the rows skipped).
  static func pageNumber(_ text: String?) -> Int? {
    guard let text else { return 1 }
    guard !text.isEmpty, text.utf8.count <= 9, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
      let number = Int(text), (1...Pages.maximumPage).contains(number)
    else { return nil }
    return number
  }

  /// A kind the store knows, or the store's refusal naming the kinds there are.
  func checkedKind(_ kind: String) throws(StoreError) -> String {
    _ = try store.schema(kind)
    return kind
  }

  /// The kind and id of `/k/KIND/ID…`: the id checked as the command line checks it (no `/`,
  /// no `..`, no control character), a prefix of 4 or more expanded to the one id it starts.
  func document(_ segments: [String]) throws(StoreError) -> (String, String) {
    let kind = try checkedKind(segments[1])
    guard DocumentID.isValid(segments[2]) else { throw StoreError.refused(.badID(segments[2])) }
    return (kind, try store.expand(kind: kind, id: segments[2]))
  }

  /// The stylesheet and the script, from the program itself (nothing fetched from elsewhere).
  func asset(_ name: String) -> Response {
    let (text, type): (String, String) =
      switch name {
      case "app.css": (Assets.css, "text/css; charset=utf-8")
      case "app.js": (Assets.script, "text/javascript; charset=utf-8")
      default: ("", "")
      }
    guard !text.isEmpty else { return plain(.notFound, "no such file") }
    return Response(
      status: .ok, headers: [.contentType: type], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
  }

  /// The store's changes as server-sent events: `data: KIND/ID` per change, a comment every 5
  /// seconds (or half the idle timeout) to keep the connection open. A listener's place is held
  /// by the response's body and given back when the body ends (the page closed, the connection
  /// dropped, the server stopping) or is never sent; HEAD is answered with the headers alone and
  /// takes no place.
  func events(head: Bool = false) -> Response {
    let headers: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-store"]
    if head {
      guard live.count < LiveUpdates.maximumListeners else {
        return plain(.serviceUnavailable, "too many pages are listening for changes")
      }
      return Response(status: .ok, headers: headers)
    }
    guard let listener = live.listen() else {
      return plain(.serviceUnavailable, "too many pages are listening for changes")
    }
    let heartbeat = min(.seconds(5), limits.idleTimeout / 2)
    let body = ResponseBody { writer in
      // The place is this closure's (it holds `listener`): given back when it ends, or is dropped unrun.
      try await writer.write(ByteBuffer(string: "retry: 1000\n: listening\n\n"))
      let (lines, line) = AsyncStream<String>.makeStream()
      // A page listens until it closes, or the server stops (Ctrl-C): then the stream ends, so
      // that stopping never waits for a page.
      try await withGracefulShutdownHandler {
        try await withThrowingTaskGroup(of: Void.self) { group in
          group.addTask {
            while !Task.isCancelled {
              // Often enough that a page closed without a word frees its place soon, and that a
              // listening page is never taken for an idle connection.
              try await Task.sleep(for: heartbeat)
              line.yield(": still listening\n\n")
            }
          }
          group.addTask {
            for await topic in listener.topics { line.yield("data: \(topic)\n\n") }
            line.finish()
          }
          for await text in lines { try await writer.write(ByteBuffer(string: text)) }
          group.cancelAll()
        }
      } onGracefulShutdown: {
        line.finish()
      }
      try await writer.finish(nil)
    }
    return Response(status: .ok, headers: headers, body: body)
  }
}
