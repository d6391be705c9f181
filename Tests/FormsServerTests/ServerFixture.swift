import FormsCore
import FormsPages
import FormsStore
import FormsTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import FormsServer

/// A copy of the example store (its own descriptors) and a server over it, as `formsctl serve`
/// makes one: the audit log's user fixed, the command line `serve`.
struct ServerFixture {
  static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path
  let root: String
  let store: Store
  let server: FormsServer

  init(_ root: String, identity: Identity? = nil, copying source: String? = nil, clock: Date? = nil) throws {
    self.root = root
    if let source {
      try FileManager.default.copyItem(atPath: source, toPath: root)
    } else {
      try FileManager.default.copyItem(atPath: Self.repository + "/examples/acquisitions", toPath: root)
      try FileManager.default.copyItem(atPath: Self.repository + "/schemas", toPath: root + "/schemas")
      let manifest = try readFile(root + "/formsctl.yaml").replacingOccurrences(
        of: "schemas: ../../schemas", with: "schemas: schemas")
      try writeFile(manifest, to: root + "/formsctl.yaml")
    }
    store = try Self.open(root, clock: clock)
    server = FormsServer(
      store: store,
      security: ServerSecurity(
        token: "t0ken", csrf: "c5rf", hosts: ServerSecurity.hosts(listening: "127.0.0.1", names: []),
        cookieName: Self.cookie),
      identity: identity, user: "Test User")
  }

  static func open(_ root: String, clock: Date? = nil) throws -> Store {
    var configuration = Store.Configuration()
    configuration.user = "Test User"
    configuration.arguments = ["serve"]
    if let clock { configuration.now = { clock } }
    return try Store.open(at: root, configuration: configuration)
  }

  /// The name of the fixture server's cookie (a server on port 8700).
  static let cookie = ServerSecurity.cookieName(port: 8700)
  /// The headers of a browser that opened the printed URL.
  static let signedIn: HTTPFields = [.cookie: "\(cookie)=t0ken"]
  /// The same, as a line of a request.
  static let cookieHeader = "Cookie: \(cookie)=t0ken"

  /// A form body: the fields URL-encoded, the CSRF token first unless `csrf` is nil.
  static func form(_ fields: [(String, String)], csrf: String? = "c5rf") -> ByteBuffer {
    let all = (csrf.map { [("_csrf", $0)] } ?? []) + fields
    return ByteBuffer(string: all.map { Link.encode($0.0) + "=" + Link.encode($0.1) }.joined(separator: "&"))
  }

  static let formHeaders: HTTPFields = [
    .cookie: "\(cookie)=t0ken", .contentType: "application/x-www-form-urlencoded",
  ]

  /// Runs `body` with an in-process client of the server (HummingbirdTesting's router framework).
  func test(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
    try await server.application(host: "127.0.0.1", port: 0).test(.router, body)
  }

  func get(_ client: some TestClientProtocol, _ uri: String) async throws -> TestResponse {
    try await client.execute(uri: uri, method: .get, headers: Self.signedIn)
  }

  func post(_ client: some TestClientProtocol, _ uri: String, _ fields: [(String, String)]) async throws -> TestResponse
  {
    try await client.execute(uri: uri, method: .post, headers: Self.formHeaders, body: Self.form(fields))
  }

  /// A stored document's value.
  func value(_ kind: String, _ id: String) throws -> JSONValue { try Self.open(root).read(kind: kind, id: id).value }
  func bytes(_ kind: String, _ id: String) throws -> [UInt8] { try Self.open(root).read(kind: kind, id: id).bytes }

  /// The newest audit record.
  func lastRecord() throws -> AuditRecord? {
    try AuditLog.query(store.layout, AuditLog.Query(limit: 1)).records.first
  }

  static let draftSF1449 = "59cb9311-ca54-55b8-a24a-0bd316fc0df7"
}

extension TestResponse {
  var text: String { String(buffer: body) }
}

/// The value of `name`'s hidden input in `html` (the first one).
func hiddenValue(_ name: String, in html: String) -> String? {
  guard let range = html.range(of: "name=\"\(name)\" value=\"") else { return nil }
  return String(html[range.upperBound...].prefix { $0 != "\"" })
}
