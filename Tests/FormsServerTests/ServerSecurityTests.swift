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

/// The server's door: the token, the cookie, the Host header, the CSRF token, the bounds.
struct ServerSecurityTests {
  @Test func everyRequestWithoutTheTokenIsRefused() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try ServerFixture(dir + "/store")
      try await fixture.test { client in
        for uri in [
          "/", "/k/form", "/k/form/\(ServerFixture.draftSF1449)", "/assets/app.js", "/events", "/lookup/acquisition",
        ] {
          let response = try await client.execute(uri: uri, method: .get)
          #expect(response.status == .forbidden, "\(uri)")
          #expect(!response.text.contains("ACQ-2026"), "\(uri) leaks data")
        }
        let wrong = try await client.execute(uri: "/?token=guess", method: .get)
        #expect(wrong.status == .forbidden)
        let cookie = try await client.execute(uri: "/", method: .get, headers: [.cookie: "formsctl_token=guess"])
        #expect(cookie.status == .forbidden)
        let post = try await client.execute(
          uri: "/k/form/\(ServerFixture.draftSF1449)/delete", method: .post,
          headers: [.contentType: "application/x-www-form-urlencoded"], body: ServerFixture.form([]))
        #expect(post.status == .forbidden)
      }
      #expect(FileManager.default.fileExists(atPath: dir + "/store/data/forms/\(ServerFixture.draftSF1449).json"))
    }
  }

  @Test func thePrintedURLSetsAnHttpOnlyStrictCookieAndDropsTheToken() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try ServerFixture(dir + "/store")
      try await fixture.test { client in
        let response = try await client.execute(uri: "/k/form?token=t0ken", method: .get)
        #expect(response.status == .seeOther)
        #expect(response.headers[.location] == "/k/form")
        let cookie = response.headers[.setCookie] ?? ""
        #expect(cookie.contains("formsctl_8700=t0ken"))
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
        let bearer = try await client.execute(uri: "/k/form", method: .get, headers: [.authorization: "Bearer t0ken"])
        #expect(bearer.status == .ok)
        let page = try await fixture.get(client, "/")
        #expect(page.status == .ok)
        #expect(page.headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true)
        #expect(page.headers[.xContentTypeOptions] == "nosniff")
      }
    }
  }

  @Test func aHostNameTheServerDoesNotAnswerToIsRefused() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try ServerFixture(dir + "/store")
      func request(_ authority: String?) -> Request {
        var head = HTTPRequest(method: .get, scheme: "http", authority: authority, path: "/")
        head.headerFields = ServerFixture.signedIn
        return Request(head: head, body: RequestBody(buffer: ByteBuffer()))
      }
      for refused in ["evil.example", "evil.example:8700", "127.0.0.1.evil.example", "localhost.", nil] {
        let response = await fixture.server.response(to: request(refused))
        #expect(response.status == .forbidden, "\(refused ?? "no Host")")
      }
      for allowed in ["127.0.0.1:8700", "localhost", "LOCALHOST:1", "[::1]:8700"] {
        let response = await fixture.server.response(to: request(allowed))
        #expect(response.status == .ok, "\(allowed)")
      }
      let named = ServerSecurity(
        token: "t", hosts: ServerSecurity.hosts(listening: "0.0.0.0", names: ["forms.example"]))
      #expect(named.hosts.contains("forms.example"))
    }
  }

  @Test func aStateChangingRequestNeedsTheCSRFTokenAndOurOrigin() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try ServerFixture(dir + "/store")
      let id = ServerFixture.draftSF1449
      try await fixture.test { client in
        for csrf in [nil, "wrong", ""] as [String?] {
          let response = try await client.execute(
            uri: "/k/form/\(id)/delete", method: .post, headers: ServerFixture.formHeaders,
            body: ServerFixture.form([], csrf: csrf))
          #expect(response.status == .forbidden, "\(csrf ?? "none")")
        }
        var headers = ServerFixture.formHeaders
        headers[.origin] = "http://evil.example"
        let foreign = try await client.execute(
          uri: "/k/form/\(id)/delete", method: .post, headers: headers, body: ServerFixture.form([]))
        #expect(foreign.status == .forbidden)
      }
      #expect(FileManager.default.fileExists(atPath: dir + "/store/data/forms/\(id).json"))
    }
  }

  @Test func requestsAreBounded() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try ServerFixture(dir + "/store")
      let id = ServerFixture.draftSF1449
      let before = try fixture.bytes("form", id)
      try await fixture.test { client in
        let huge = try await client.execute(
          uri: "/k/form/\(id)/edit", method: .post, headers: ServerFixture.formHeaders,
          body: ServerFixture.form([("/form_number", String(repeating: "x", count: ServerSecurity.maximumBody + 1))]))
        #expect(huge.status == .contentTooLarge)
        let many = try await client.execute(
          uri: "/k/form/\(id)/edit", method: .post, headers: ServerFixture.formHeaders,
          body: ServerFixture.form((0...FormInput.maximumFields).map { ("/x\($0)", "") }))
        #expect(many.status == .badRequest)
        let field = try await client.execute(
          uri: "/k/form/\(id)/edit", method: .post, headers: ServerFixture.formHeaders,
          body: ServerFixture.form([("/form_number", String(repeating: "y", count: FormInput.maximumValueBytes + 1))]))
        #expect(field.status == .badRequest)
        let broken = try await client.execute(
          uri: "/k/form/\(id)/edit", method: .post, headers: ServerFixture.formHeaders,
          body: ByteBuffer(string: "_csrf=c5rf&%ZZ=1"))
        #expect(broken.status == .badRequest)
        let long = try await client.execute(
          uri: "/k/form?where=" + String(repeating: "a", count: ServerSecurity.maximumTarget), method: .get,
          headers: ServerFixture.signedIn)
        #expect(long.status == .uriTooLong)
        let put = try await client.execute(uri: "/k/form", method: .put, headers: ServerFixture.signedIn)
        #expect(put.status == .methodNotAllowed)
      }
      #expect(try fixture.bytes("form", id) == before)
    }
  }

  @Test func idsAndPathsFromTheURLAreCheckedAsTheCommandLineChecksThem() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try ServerFixture(dir + "/store")
      // A link in the data directory pointing outside: never followed.
      try "{\"secret\": 1}".write(toFile: dir + "/outside.json", atomically: true, encoding: .utf8)
      symlink(dir + "/outside.json", dir + "/store/data/forms/linked.json")
      try await fixture.test { client in
        for (uri, status) in [
          ("/k/form/..", HTTPResponse.Status.badRequest), ("/k/form/%2e%2e", .badRequest),
          ("/k/form/%2E%2E/edit", .badRequest), ("/k/form/a%2Fb", .unprocessableContent),
          ("/k/form/a%00b", .badRequest), ("/k/..%2f..%2fetc/passwd", .unprocessableContent),
          ("/k/nosuchkind", .unprocessableContent), ("/k/form/no-such-form", .notFound),
          ("/k/form/linked", .unprocessableContent), ("/nowhere", .notFound), ("/assets/../../etc/passwd", .badRequest),
          ("/k/form/%ff", .badRequest),
        ] {
          let response = try await fixture.get(client, uri)
          #expect(response.status == status, "\(uri): \(response.status)")
          #expect(!response.text.contains("secret"), "\(uri)")
        }
      }
    }
  }
}

/// What the hostile pass found at the door, each held now.
struct ServerDoorRegressionTests {
  @Test func theOriginMustBeThisServerAndNullIsLeftToTheCSRFToken() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try ServerFixture(dir + "/store")
      let hash = try fixture.store.read(kind: "form", id: ServerFixture.draftSF1449).contentHash
      func save(origin: String?) async -> Response {
        var head = HTTPRequest(
          method: .post, scheme: "http", authority: "127.0.0.1:8700",
          path: "/k/form/\(ServerFixture.draftSF1449)/edit")
        head.headerFields = ServerFixture.formHeaders
        if let origin { head.headerFields[.origin] = origin }
        let body = ServerFixture.form([("_hash", hash), ("_action", "add /fields/items"), ("/fields/items#list", "")])
        return await fixture.server.response(to: Request(head: head, body: RequestBody(buffer: body)))
      }
      for foreign in ["http://127.0.0.1:1", "https://127.0.0.1:8700", "http://localhost:8700", "http://evil.example"] {
        #expect(await save(origin: foreign).status == .forbidden, "\(foreign)")
      }
      for own in ["http://127.0.0.1:8700", "null", nil] as [String?] {
        #expect(await save(origin: own).status == .ok, "\(own ?? "none")")
      }
      try await fixture.test { client in
        let page = try await fixture.get(client, "/")
        #expect(page.headers[ServerSecurity.referrerPolicy] == "same-origin")
      }
    }
  }

  @Test func thePrintedURLRedirectsOnlyWithinTheServer() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try ServerFixture(dir + "/store")
      try await fixture.test { client in
        for (uri, location) in [
          ("//evil.example/?token=t0ken", "/"), ("/%5Cevil.example/?token=t0ken", "/"),
          ("//evil.example?token=t0ken", "/evil.example"),
          ("/k/form?token=t0ken", "/k/form"), ("/?token=t0ken", "/"),
        ] {
          let response = try await client.execute(uri: uri, method: .get)
          #expect(response.status == .seeOther, "\(uri)")
          #expect(response.headers[.location] == location, "\(uri): \(response.headers[.location] ?? "")")
        }
      }
    }
  }
}

extension ServerDoorRegressionTests {
  @Test func aLinkedKindDirectoryIsNotReadThroughForOneDocument() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try ServerFixture(dir + "/store")
      let scenarios = dir + "/store/data/scenarios"
      let id = try #require(try FileManager.default.contentsOfDirectory(atPath: scenarios).first?.dropLast(5))
      try FileManager.default.moveItem(atPath: scenarios, toPath: dir + "/elsewhere")
      try FileManager.default.createSymbolicLink(atPath: scenarios, withDestinationPath: dir + "/elsewhere")
      try await fixture.test { client in
        for uri in ["/k/scenario/\(id)", "/k/scenario/\(id)/edit", "/k/scenario/\(id)/print"] {
          let page = try await fixture.get(client, uri)
          #expect(page.status == .unprocessableContent, "\(uri)")
          #expect(page.text.contains("symbolic link"), "\(uri)")
        }
      }
      #expect(throws: StoreError.self) { try fixture.store.read(kind: "scenario", id: String(id)) }
    }
  }

  @Test func aFeedOwnedWorkflowOffersNoButtonsAndJSONTypedIsKept() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try ServerFixture(dir + "/store")
      try await fixture.test { client in
        // The purchase order's status comes from the feed (`editable:` leaves it out).
        let order = try await fixture.get(client, "/k/purchase-order/PO-000201")
        #expect(!order.text.contains("Move to"))
        // A new form's fields, before its type is known, are JSON text: kept when it parses...
        let made = try await fixture.post(
          client, "/k/form/new",
          [("/form_type", "SF44"), ("/fields", #"{"vendor_name": "Cascade Outfitters"}"#), ("_action", "save")])
        #expect(made.status == .seeOther, "\(made.text)")
        let id = String((made.headers[.location] ?? "").split(separator: "/").last ?? "")
        #expect(try fixture.value("form", id)["fields"]?["vendor_name"] == .string("Cascade Outfitters"))
        // ...and shown again with the parser's reason when it does not.
        let bad = try await fixture.post(
          client, "/k/form/new", [("/form_type", "SF44"), ("/fields", "{vendor"), ("_action", "save")])
        #expect(bad.status == .unprocessableContent)
        #expect(bad.text.contains("not JSON") && bad.text.contains("{vendor"))
      }
    }
  }
}

/// What the hostile pass of issue 63 found at the door.
struct ServerDoorLinkAndCookieTests {
  @Test func aListPageRefusesAKindDirectoryThatBecameALink() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try ServerFixture(dir + "/store")
      let scenarios = dir + "/store/data/scenarios"
      let id = try #require(try FileManager.default.contentsOfDirectory(atPath: scenarios).first?.dropLast(5))
      let ready = AsyncStream<Void>.makeStream()
      let watch = Task {
        try await fixture.server.live.run(
          store: fixture.store, options: Store.ObserveOptions(ready: { ready.1.yield() }))
      }
      defer { watch.cancel() }
      for await _ in ready.0 { break }
      try await fixture.test { client in
        let before = try await fixture.get(client, "/k/scenario")
        #expect(before.status == .ok && before.text.contains(String(id)))
        // The directory moves away and a link to it takes its place (same rows behind it).
        try FileManager.default.moveItem(atPath: scenarios, toPath: dir + "/elsewhere")
        try FileManager.default.createSymbolicLink(atPath: scenarios, withDestinationPath: dir + "/elsewhere")
        for _ in 0..<3 {
          let page = try await fixture.get(client, "/k/scenario")
          #expect(page.status == .unprocessableContent, "\(page.status)")
          #expect(page.text.contains("symbolic link"), "\(page.text.prefix(300))")
          #expect(!page.text.contains(String(id)), "the list served rows through a link")
          try await Task.sleep(for: .milliseconds(100))
        }
      }
      watch.cancel()
      _ = await watch.result
      // Without the watch (nothing kept in memory), the same.
      try await fixture.test { client in
        let page = try await fixture.get(client, "/k/scenario")
        #expect(page.status == .unprocessableContent && !page.text.contains(String(id)), "\(page.status)")
      }
    }
  }

  @Test func aSecondServerOnAnotherPortNeverLogsTheFirstOut() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try ServerFixture(dir + "/store")
      let hosts = ServerSecurity.hosts(listening: "127.0.0.1", names: [])
      let first = fixture.server
      let second = FormsServer(
        store: fixture.store,
        security: ServerSecurity(token: "s3cond", hosts: hosts, cookieName: ServerSecurity.cookieName(port: 8701)),
        identity: nil, user: "Test User")
      // A browser's cookie jar for 127.0.0.1: cookies are kept by name, whatever the port.
      var jar: [String: String] = [:]
      func request(_ path: String) -> Request {
        var head = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:8700", path: path)
        head.headerFields[.cookie] = jar.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ")
        return Request(head: head, body: RequestBody(buffer: ByteBuffer()))
      }
      func signIn(_ server: FormsServer, _ token: String) async throws {
        let response = await server.response(to: request("/?token=\(token)"))
        let cookie = try #require(response.headers[.setCookie])
        let pair = try #require(cookie.split(separator: ";").first).split(separator: "=", maxSplits: 1)
        jar[String(pair[0])] = String(pair[1])
      }
      try await signIn(first, "t0ken")
      try await signIn(second, "s3cond")
      #expect(await first.response(to: request("/")).status == .ok, "the second server logged the first out")
      #expect(await second.response(to: request("/")).status == .ok)
      // Servers on any free port name their cookies apart too.
      let names = Set((0..<20).map { _ in ServerSecurity.cookieName(port: 0) })
      #expect(names.count == 20 && names.allSatisfy { $0.hasPrefix("formsctl_") })
      #expect(ServerSecurity.cookieName(port: 8700) != ServerSecurity.cookieName(port: 8701))
    }
  }
}
