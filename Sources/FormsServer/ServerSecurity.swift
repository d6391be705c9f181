import FormsCore
import Foundation
import HTTPTypes
import Hummingbird

/// Who may talk to the server and how: the secret token (in the printed URL once, then an
/// HttpOnly, SameSite=Strict cookie), the Host names it answers to (a rebinding attack names
/// another), the CSRF token every state-changing form carries, and the bounds of a request.
public struct ServerSecurity: Sendable {
  /// The secret of the printed URL and of the cookie.
  public let token: String
  /// The value every state-changing form carries back as `_csrf`.
  public let csrf: String
  /// Host names (without port) the server answers to.
  public let hosts: Set<String>
  /// The most bytes a request body may have.
  public static let maximumBody = 1 << 20
  /// The most bytes of a request's target (path and query).
  public static let maximumTarget = 8192
  /// The name of this server's cookie. A browser sends a loopback host's cookies to every port
  /// of it, so each server names its own (``cookieName(port:)``): a second server never replaces
  /// the first's cookie, and never logs its browser out.
  public let cookieName: String

  public init(
    token: String = ServerSecurity.randomToken(), csrf: String = ServerSecurity.randomToken(), hosts: Set<String>,
    cookieName: String = ServerSecurity.cookieName(port: 0)
  ) {
    self.token = token
    self.csrf = csrf
    self.hosts = hosts
    self.cookieName = cookieName
  }

  /// The cookie name of a server on `port`: `formsctl_PORT`, so that a server started again on
  /// its port replaces its own cookie; for port 0 (any free port) one of its own,
  /// `formsctl_` and 8 random hex digits.
  public static func cookieName(port: Int) -> String {
    guard port == 0 else { return "formsctl_\(port)" }
    var generator = SystemRandomNumberGenerator()
    return "formsctl_"
      + (0..<4).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }
      .joined()
  }

  /// 32 random bytes as hex, from the system's generator.
  public static func randomToken() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
  }

  /// The host names a server listening on `address` answers to: the loopback names, the address
  /// itself, and `names` (`--host-name`).
  public static func hosts(listening address: String, names: [String]) -> Set<String> {
    Set(["127.0.0.1", "localhost", "::1", "[::1]", address.lowercased()] + names.map { $0.lowercased() })
  }

  /// Why the request may not be served, or nil. Host first (before the token is looked at).
  func refusal(_ request: Request) -> (HTTPResponse.Status, String)? {
    guard let authority = request.head.authority, hosts.contains(Self.hostName(authority)) else {
      return (.forbidden, "this server does not answer to that Host name (start it with --host-name NAME to add one)")
    }
    guard request.uri.string.utf8.count <= Self.maximumTarget else {
      return (.uriTooLong, "the address is longer than \(Self.maximumTarget) bytes")
    }
    return nil
  }

  /// True when the request carries the token: the cookie, or `Authorization: Bearer` (a script).
  func isAuthenticated(_ request: Request) -> Bool {
    if let bearer = request.headers[.authorization], bearer.hasPrefix("Bearer "),
      Self.constantTimeEqual(String(bearer.dropFirst(7)), token)
    {
      return true
    }
    for header in request.headers[values: .cookie] {
      for part in header.split(separator: ";") {
        let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        if pair.count == 2, pair[0] == cookieName, Self.constantTimeEqual(pair[1], token) { return true }
      }
    }
    return false
  }

  /// The cookie that holds the token from now on.
  var cookie: String { "\(cookieName)=\(token); HttpOnly; SameSite=Strict; Path=/" }

  /// A state-changing request is refused unless its form carries the CSRF token and its Origin,
  /// when the browser sends one, is this server: the scheme, the name and the port the request
  /// was sent to (another port of 127.0.0.1 is another site). `null` (what a browser sends for a
  /// page whose policy hides its address) is left to the CSRF token and the SameSite cookie.
  func checkSameOrigin(_ request: Request) -> Bool {
    guard let origin = request.headers[.origin], origin != "null" else { return true }
    guard let authority = request.head.authority else { return false }
    return origin.lowercased() == "http://" + authority.lowercased()
  }

  func isCSRFValid(_ value: String?) -> Bool { value.map { Self.constantTimeEqual($0, csrf) } ?? false }

  /// `host:port`, `[v6]:port`, `host` → the host name, lower-cased.
  static func hostName(_ authority: String) -> String {
    let lower = authority.lowercased()
    if lower.hasPrefix("[") { return String(lower.prefix { $0 != "]" }) + "]" }
    return String(lower.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
  }

  static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8)
    let y = Array(b.utf8)
    guard x.count == y.count else { return false }
    var difference: UInt8 = 0
    for index in x.indices { difference |= x[index] ^ y[index] }
    return difference == 0
  }

  // Header names HTTPTypes does not define (both literals are valid names).
  static let referrerPolicy = HTTPField.Name("Referrer-Policy") ?? .cacheControl
  static let frameOptions = HTTPField.Name("X-Frame-Options") ?? .cacheControl

  /// The headers every response carries: no script but the application's own, no framing, no
  /// caching, no sniffing, no referrer sent to another site.
  static let headers: HTTPFields = [
    .contentSecurityPolicy:
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
      + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    .xContentTypeOptions: "nosniff",
    // same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` with forms.
    referrerPolicy: "same-origin",
    .cacheControl: "no-store",
    frameOptions: "DENY",
  ]
}
