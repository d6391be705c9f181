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

/// What no number of requests may take from the server: its arithmetic (numbers from the
/// address), its descriptors (connections held at once, idle ones closed), the places of pages
/// listening for changes.
struct ServerLimitsTests {
  /// `body` with a server over `fixture`'s store listening on a port of its own, with `limits`,
  /// as `formsctl serve` runs it (HummingbirdTesting's live client would drop the connection limit).
  func serving(
    _ fixture: ServerFixture, limits: ServerLimits, _ body: @escaping @Sendable (FormsServer, Int) async throws -> Void
  ) async throws {
    let server = FormsServer(
      store: fixture.store, security: fixture.server.security, identity: nil, user: "Test User", limits: limits)
    let (ports, port) = AsyncStream<Int>.makeStream()
    let running = Task {
      try await server.application(host: "127.0.0.1", port: 0) { port.yield($0) }.runService()
    }
    defer { running.cancel() }
    var listening: Int?
    for await port in ports {
      listening = port
      break
    }
    try await body(server, try #require(listening))
    // Connections the server accepted but has not taken up yet must be taken up before it stops:
    // cancelled with some still waiting, NIO traps (swift-server/swift-http-server#137).
    try await Task.sleep(for: .seconds(1))
    running.cancel()
    _ = await running.result
  }

  @Test func aPageNumberPastAnyListIsRefusedNotOverflowed() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try ServerFixture(dir + "/store")
      try await fixture.test { client in
        for page in ["999999999999999999", "9223372036854775807", "99999999999999999999999", "-1", "0", "1e3", "x", ""]
        {
          let response = try await fixture.get(client, "/k/form?page=\(page)")
          #expect(response.status == .badRequest, "page=\(page): \(response.status)")
          #expect(response.text.contains("whole number from 1 to"), "page=\(page)")
        }
        let last = try await fixture.get(client, "/k/form?page=\(Pages.maximumPage)")
        #expect(last.status == .ok, "\(last.text)")
        #expect(last.text.contains("Previous") && !last.text.contains("Next"))
        let first = try await fixture.get(client, "/k/form?page=1")
        #expect(first.status == .ok && first.text.contains("SF"))
      }
      // The library bounds what it is asked for itself, whatever its caller parsed.
      let pages = Pages(store: fixture.store, context: PageContext(csrf: "c", user: "u", roles: []), identity: nil)
      for page in [Int.max, Int.min, Int.max / Pages.pageSize + 2] {
        let (shown, status) = try pages.list(kind: "form", Pages.ListRequest(page: page))
        #expect(status == 200, "\(page)")
        #expect(shown.body.description.contains("page \(page > 0 ? Pages.maximumPage : 1)"), "\(page)")
      }
    }
  }

  @Test func aListenerPlaceIsGivenBackWhenItsResponseIsNeverSentOrIsHead() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try ServerFixture(dir + "/store")
      func request(_ method: HTTPRequest.Method) -> Request {
        var head = HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1:8700", path: "/events")
        head.headerFields = ServerFixture.signedIn
        return Request(head: head, body: RequestBody(buffer: ByteBuffer()))
      }
      for _ in 0..<(LiveUpdates.maximumListeners + 10) {
        let head = await fixture.server.response(to: request(.head))
        #expect(head.status == .ok)
        #expect(head.headers[.contentType] == "text/event-stream")
      }
      #expect(fixture.server.live.count == 0, "HEAD took places")
      // A GET whose response is dropped before its body runs (the connection went first).
      for _ in 0..<(LiveUpdates.maximumListeners + 10) {
        let get = await fixture.server.response(to: request(.get))
        #expect(get.status == .ok)
      }
      #expect(fixture.server.live.count == 0, "dropped responses kept their places")
      let held = await fixture.server.response(to: request(.get))
      #expect(fixture.server.live.count == 1, "a response not yet sent holds its place")
      _ = held
    }
  }

  @Test func aPageThatGoesAwayGivesItsPlaceBack() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try ServerFixture(dir + "/store")
      try await serving(fixture, limits: ServerLimits(connections: 100, idleTimeout: .seconds(30))) { server, port in
        let pages = try (0..<3).map { _ in try RawConnection(port: port) }
        for page in pages { page.request("/events", header: ServerFixture.cookieHeader) }
        for page in pages {
          let started = try await blocking { page.firstBytes(within: 5) }
          #expect(started?.contains("text/event-stream") == true, "\(started ?? "nothing")")
        }
        #expect(server.live.count == 3)
        let heads = try (0..<5).map { _ in try RawConnection(port: port) }
        for head in heads { head.request("/events", method: "HEAD", header: ServerFixture.cookieHeader) }
        for head in heads {
          let answered = try await blocking { head.receive(within: 20) }
          #expect(answered.text.hasPrefix("HTTP/1.1 200"), "\(answered.text)")
        }
        #expect(server.live.count == 3, "HEAD took a place")
        // The pages close without a word: each place is free once the server notices (its next event).
        for page in pages { page.hangUp() }
        var waited = 0.0
        while server.live.count > 0 && waited < 15 {
          try await Task.sleep(for: .milliseconds(100))
          waited += 0.1
        }
        #expect(server.live.count == 0, "closed pages kept \(server.live.count) place(s)")
      }
    }
  }

  @Test func connectionsPastTheLimitWaitAndIdleOnesAreClosed() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try ServerFixture(dir + "/store")
      // Four at once (give or take the few the system hands over in one go): one more waits
      // until they go, then is answered.
      try await serving(fixture, limits: ServerLimits(connections: 4, idleTimeout: .seconds(60))) { _, port in
        let idle = try (0..<12).map { _ in try RawConnection(port: port) }
        try await Task.sleep(for: .milliseconds(300))
        let next = try RawConnection(port: port)
        next.request("/", header: ServerFixture.cookieHeader)
        let early = try await blocking { next.firstBytes(within: 1.5) }
        #expect(early == nil, "a connection was served past the limit of 4 and 12 idle ones")
        for connection in idle { connection.hangUp() }
        let answered = try await blocking { next.receive(within: 30) }
        #expect(answered.text.hasPrefix("HTTP/1.1 200"), "\(answered.text.prefix(200))")
      }
      // Idle connections (nothing sent, or a request without the token answered) are closed, and
      // what waited behind them is served: the server never runs out of descriptors to them.
      try await serving(fixture, limits: ServerLimits(connections: 4, idleTimeout: .seconds(1))) { _, port in
        let silent = try (0..<8).map { _ in try RawConnection(port: port) }
        let refused = try RawConnection(port: port)
        refused.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let half = try RawConnection(port: port)
        half.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: \(ServerFixture.cookie)=t0ken\r\n")
        let client = try RawConnection(port: port)
        client.request("/", header: ServerFixture.cookieHeader)
        let answered = try await blocking { client.receive(within: 40) }
        #expect(answered.text.hasPrefix("HTTP/1.1 200"), "\(answered.text.prefix(200))")
        for connection in silent + [refused, half] {
          let seen = try await blocking { connection.receive(within: 20) }
          #expect(seen.closed, "an idle connection was kept open: \(seen.text.prefix(100))")
        }
      }
    }
  }

  @Test func theLimitsFollowTheDescriptorsTheProcessMayOpen() {
    #expect(ServerLimits.connections(openFiles: 128) == 32)
    #expect(ServerLimits.connections(openFiles: 1024) == 256)
    #expect(ServerLimits.connections(openFiles: 1 << 20) == 1000)
    #expect(ServerLimits.connections(openFiles: Int.max) == 1000)
    #expect(ServerLimits.connections(openFiles: 4) == 8)
    let here = ServerLimits.forThisProcess()
    #expect(here.connections >= 8 && here.connections <= 1000)
  }
}
