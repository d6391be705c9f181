import FormsCore
import FormsPages
import FormsStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// The web application over one open store (`formsctl serve`): pages rendered on the server,
/// forms that work without script, live updates from the store's watch. Every change goes through
/// the store's one write path (lock, workflow, stamps, validation, journal, an audit record whose
/// command is `serve`); every request is checked by ``ServerSecurity`` first.
public struct FormsServer: Sendable {
  public let store: Store
  public let security: ServerSecurity
  /// The identity approvals are signed with (nil: the server cannot sign).
  public let identity: Identity?
  public let live: LiveUpdates
  /// The connections it holds at once and how long one may stay idle.
  public let limits: ServerLimits
  let pages: Pages
  /// List pages kept since the last change the watch heard (see ``listPage(kind:_:)``).
  let listPages = KeptPages()

  /// A server over `store`; `user` is the name the pages show (the audit log's user).
  public init(
    store: Store, security: ServerSecurity, identity: Identity?, user: String, live: LiveUpdates = LiveUpdates(),
    limits: ServerLimits = .forThisProcess()
  ) {
    self.store = store
    self.limits = limits
    self.security = security
    self.identity = identity
    self.live = live
    let roles =
      identity.map { identity in store.layout.roles.filter { $0.value.contains(identity.signer) }.map(\.key) } ?? []
    pages = Pages(
      store: store, context: PageContext(csrf: security.csrf, user: user, roles: roles.sorted()), identity: identity)
  }

  /// The HTTP application: `host` and `port` (0: any free port), `onRunning` told the port.
  public func application(
    host: String, port: Int, onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
  ) -> some ApplicationProtocol {
    var logger = Logger(label: "formsctl serve")
    logger.logLevel = .error
    let limits = self.limits
    return Application(
      responder: Responder(server: self),
      server: .http1(configuration: HTTP1Channel.Configuration(additionalChannelHandlers: limits.channelHandlers())),
      configuration: ApplicationConfiguration(
        address: .hostname(host, port: port), serverName: "formsctl",
        availableConnectionsDelegate: MaximumAvailableConnections(limits.connections)),
      onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) },
      logger: logger)
  }

  /// Serves until interrupted (SIGINT or SIGTERM: open pages' event streams end first) or the
  /// store's watch fails: the application and the watch that makes pages live, together.
  public func run(
    host: String, port: Int, onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
  ) async throws {
    let app = application(host: host, port: port, onRunning: onRunning)
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { try await live.run(store: store) }
      group.addTask { try await app.runService() }
      // The server ends (Ctrl-C) or the watch fails: either way, stop both.
      try await group.next()
      group.cancelAll()
    }
  }

  struct Responder: HTTPResponder {
    typealias Context = BasicRequestContext
    let server: FormsServer

    func respond(to request: Request, context: Context) async throws -> Response {
      var response = await server.response(to: request)
      for field in ServerSecurity.headers where response.headers[field.name] == nil { response.headers.append(field) }
      return response
    }
  }

  /// The response to `request`: the security checks, then the route.
  func response(to request: Request) async -> Response {
    if let (status, message) = security.refusal(request) { return plain(status, message) }
    guard let (path, query) = split(request.uri.string) else {
      return plain(.badRequest, "the address's query is not UTF-8 text with valid %-escapes")
    }
    // The printed URL: its token becomes the cookie, and the browser goes on without it in the address.
    if request.method == .get, let token = query["token"] {
      guard ServerSecurity.constantTimeEqual(token, security.token) else {
        return plain(.forbidden, "that token is not this server's; open the URL `formsctl serve` printed")
      }
      // The path again from its checked segments: never `//elsewhere` (another site) or `/\\…`.
      var response = redirect(Self.segments(path).map { Link($0).url } ?? "/")
      response.headers[.setCookie] = security.cookie
      return response
    }
    guard security.isAuthenticated(request) else {
      return plain(.forbidden, "open the URL `formsctl serve` printed (it holds this server's token)")
    }
    guard let segments = Self.segments(path) else {
      return plain(.badRequest, "the address is not a path of this application")
    }
    switch request.method {
    case .get, .head:
      return await get(segments, query: query, head: request.method == .head)
    case .post:
      guard security.checkSameOrigin(request) else { return plain(.forbidden, "the form came from another site") }
      var request = request
      let body: ByteBuffer
      do {
        body = try await request.collectBody(upTo: ServerSecurity.maximumBody)
      } catch {
        return plain(.contentTooLarge, "the form is larger than \(ServerSecurity.maximumBody) bytes")
      }
      let form: FormInput
      do throws(FormInputError) {
        form = try FormInput(urlEncoded: body.readableBytesView)
      } catch {
        return plain(.badRequest, error.description)
      }
      guard security.isCSRFValid(form["_csrf"]) else {
        return plain(.forbidden, "the form does not carry this server's CSRF token; reload the page and try again")
      }
      return post(segments, form: form)
    default:
      return plain(.methodNotAllowed, "only GET and POST")
    }
  }

  /// `/a/b%2Fc` → ["a", "b/c"], each segment percent-decoded; nil for a segment that does not
  /// decode, or is empty, `.` or `..` (never a path of the application).
  static func segments(_ path: String) -> [String]? {
    var out: [String] = []
    for raw in path.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
      if raw.isEmpty && out.isEmpty { continue }
      guard let segment = Link.decode(raw), !segment.isEmpty, segment != ".", segment != "..",
        !segment.unicodeScalars.contains(where: { $0.value < 0x20 || $0 == "\u{7F}" })
      else { return nil }
      out.append(segment)
    }
    return out
  }

  /// The path and the query's fields of a request target; nil when the query does not decode.
  func split(_ target: String) -> (String, FormInput)? {
    let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
    guard parts.count > 1 else { return (String(parts[0]), FormInput()) }
    do throws(FormInputError) {
      return (String(parts[0]), try FormInput(urlEncoded: Array(parts[1].utf8)))
    } catch {
      return nil
    }
  }

  // MARK: Responses

  func html(_ page: Page, status: HTTPResponse.Status = .ok) -> Response {
    Response(
      status: status, headers: [.contentType: "text/html; charset=utf-8"],
      body: ResponseBody(byteBuffer: ByteBuffer(string: pages.context.document(page))))
  }

  func plain(_ status: HTTPResponse.Status, _ message: String) -> Response {
    html(Pages.problem(status.reasonPhrase, message), status: status)
  }

  func redirect(_ location: String) -> Response {
    Response(status: .seeOther, headers: [.location: location])
  }

  /// A store error as a page: its one-line message (store messages never quote a sealed value),
  /// the status its kind means.
  func failure(_ error: StoreError) -> Response {
    let status: HTTPResponse.Status =
      switch error {
      case .notFound, .fileNotFound: .notFound
      case .refused(.changedMeanwhile): .conflict
      default:
        switch error.kind {
        case .usage: .badRequest
        case .badInput: .unprocessableContent
        case .noInput: .notFound
        case .tryAgain: .serviceUnavailable
        case .ioError, .internalError: .internalServerError
        }
      }
    // A refused move or approval names its diagnostics, as a refused save shows them by field.
    if case .invalidDocument(_, let diagnostics) = error, !diagnostics.isEmpty {
      let title = status.reasonPhrase
      let body: HTML = """
        <h1>\(title)</h1><p class="error" role="alert">\(error.description)</p>\
        \(FormRenderer.problemList(diagnostics))<p><a href="/">Back to the store</a></p>
        """
      return html(Page(title: title, body: body), status: status)
    }
    return plain(status, error.description)
  }
}

extension FormsServer {
  /// What ended a server that did not stop by Ctrl-C: the store's own error (its watch), or the
  /// port that could not be opened, as an I/O error with the system's reason.
  public static func failure(_ error: any Error, address: String, port: Int) -> StoreError {
    if let error = error as? StoreError { return error }
    let code = (error as? IOError)?.errnoCode ?? EIO
    return .io("\(address) port \(port)", operation: "listen on", errno: Errno(rawValue: code))
  }
}
