import FormsCore
import FormsServer
import FormsStore
import FormsTestSupport
import Foundation
import Synchronization

/// `formsctl serve` on a large store, over real loopback HTTP: a warm list page (first 50 rows,
/// the kind's order) and a document page, beside the same list from the command line (a process
/// per query: what the server saves); from a commit to the page's refreshed content (the event,
/// then the page fetched again, as the browser does); and memory while it watches.
enum ServeBenchmark {
  /// `directory`: an existing store of `count` generated orders to use (and change) instead of a new one.
  static func run(count: Int, repository: String, rounds: Int = 41, directory given: String? = nil) throws {
    let directory = given ?? NSTemporaryDirectory() + "formsctl-bench-serve-\(count)-\(getpid())"
    defer { if given == nil { ExampleStore.remove(directory) } }
    if given == nil { _ = try ExampleStore.prepare(count: count, at: directory, repository: repository) }
    var configuration = Store.Configuration()
    configuration.user = "bench"
    configuration.arguments = ["serve"]
    // As `formsctl serve` runs: a watcher of its own vouches for what changed (decision 0120).
    configuration.indexWatching = .process(IndexWatcher.Options())
    let store = try Store.open(at: directory, configuration: configuration)
    let security = ServerSecurity(token: "bench", hosts: ServerSecurity.hosts(listening: "127.0.0.1", names: []))
    let server = FormsServer(store: store, security: security, identity: nil, user: "bench")
    let port = Mutex<Int?>(nil)
    Task { try await server.run(host: "127.0.0.1", port: 0) { bound in port.withLock { $0 = bound } } }
    while port.withLock({ $0 }) == nil { usleep(10_000) }
    let client = try HTTPClient(port: port.withLock { $0 }!, cookie: "formsctl_token=bench")
    print("\(count) purchase orders; formsctl serve in this process, on loopback; \(rounds) requests each")

    // Warm: the index is built and the files are in the page cache.
    for _ in 0..<3 { _ = try client.get("/k/purchase-order") }
    var list: [Double] = []
    var rows = 0
    for _ in 0..<rounds {
      let started = DispatchTime.now().uptimeNanoseconds
      let page = try client.get("/k/purchase-order")
      list.append(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6)
      rows = page.components(separatedBy: "<tr data-id=").count - 1
    }
    WriteBenchmark.printFigures("list page, first \(rows) rows, newest first", list)
    var document: [Double] = []
    for k in 0..<rounds {
      let started = DispatchTime.now().uptimeNanoseconds
      _ = try client.get("/k/purchase-order/PO-\(pad(k * 7 % count, 6))")
      document.append(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6)
    }
    WriteBenchmark.printFigures("document page", document)
    let formsctl = URL(fileURLWithPath: repository + "/.build/release/formsctl")
    if FileManager.default.isExecutableFile(atPath: formsctl.path) {
      var peer: [Double] = []
      for _ in 0..<min(rounds, 11) {
        let process = Process()
        process.executableURL = formsctl
        process.arguments = ["list", "purchase-order", "--limit", "50", "--store", directory]
        process.standardOutput = FileHandle.nullDevice
        let started = DispatchTime.now().uptimeNanoseconds
        try process.run()
        process.waitUntilExit()
        peer.append(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6)
      }
      WriteBenchmark.printFigures("peer: formsctl list --limit 50 (a process)", peer)
    } else {
      print("peer skipped: build .build/release/formsctl first (swift build -c release --product formsctl)")
    }

    // A page listening for changes, as the browser's script does.
    let listener = try HTTPClient(port: port.withLock { $0 }!, cookie: "formsctl_token=bench")
    try listener.startEvents()
    let rssBefore = WatchBenchmark.residentMegabytes()
    var events: [Double] = []
    func changes(_ rounds: Int, offset: Int) throws -> [Double] {
      var out: [Double] = []
      for k in 0..<rounds {
        let id = "PO-\(pad(1 + (offset + k) % (count - 1), 6))"
        _ = try store.update(
          kind: "purchase-order", id: id, assignments: [try Assignment("delivery_note=serve \(offset + k)")])
        let committed = DispatchTime.now().uptimeNanoseconds
        try listener.awaitEvent(naming: "purchase-order/\(id)")
        events.append(Double(DispatchTime.now().uptimeNanoseconds - committed) / 1e6)
        _ = try client.get("/k/purchase-order")
        out.append(Double(DispatchTime.now().uptimeNanoseconds - committed) / 1e6)
        usleep(20_000)
      }
      return out
    }
    let refreshed = try changes(rounds, offset: 0)
    WriteBenchmark.printFigures("commit → event at the page", events)
    WriteBenchmark.printFigures("commit → event → list page fetched again", refreshed)
    let afterFirst = WatchBenchmark.residentMegabytes()
    _ = try changes(rounds * 5, offset: rounds)
    let afterMore = WatchBenchmark.residentMegabytes()
    print(
      String(
        format: "resident: %.0f MB before watching, %.0f MB after %d changes, %.0f MB after %d (flat when these agree)",
        rssBefore, afterFirst, rounds, afterMore, rounds * 6))
  }
}

/// A small HTTP/1.1 client on one keep-alive connection: GET a page whole, or read server-sent events.
final class HTTPClient {
  let socket: Int32
  let cookie: String
  var buffer: [UInt8] = []

  init(port: Int, cookie: String) throws {
    self.cookie = cookie
    socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else { throw StoreError.internalError("cannot connect to port \(port)") }
  }

  deinit { close(socket) }

  func send(_ path: String) throws {
    let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: \(cookie)\r\n\r\n"
    let bytes = Array(request.utf8)
    guard write(socket, bytes, bytes.count) == bytes.count else { throw StoreError.internalError("write failed") }
  }

  func fill() throws {
    var chunk = [UInt8](repeating: 0, count: 65536)
    let n = read(socket, &chunk, chunk.count)
    guard n > 0 else { throw StoreError.internalError("the server closed the connection") }
    buffer += chunk[0..<n]
  }

  /// The body of `path` (a 200 with a Content-Length).
  func get(_ path: String) throws -> String {
    try send(path)
    var end: Int?
    while end == nil {
      if let found = buffer.firstRange(of: Array("\r\n\r\n".utf8)) { end = found.upperBound } else { try fill() }
    }
    let head = String(decoding: buffer[0..<end!], as: UTF8.self)
    let lengthLine = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
    guard head.hasPrefix("HTTP/1.1 200"), let line = lengthLine,
      let length = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces))
    else { throw StoreError.internalError("unexpected response: \(head.prefix(200))") }
    while buffer.count < end! + length { try fill() }
    let body = String(decoding: buffer[end!..<(end! + length)], as: UTF8.self)
    buffer.removeFirst(end! + length)
    return body
  }

  func startEvents() throws {
    try send("/events")
    while buffer.firstRange(of: Array("\r\n\r\n".utf8)) == nil { try fill() }
    buffer.removeFirst(buffer.firstRange(of: Array("\r\n\r\n".utf8))!.upperBound)
  }

  /// Waits for the event `data: topic`.
  func awaitEvent(naming topic: String) throws {
    let wanted = Array("data: \(topic)\n".utf8)
    while true {
      if let found = buffer.firstRange(of: wanted) {
        buffer.removeFirst(found.upperBound)
        return
      }
      try fill()
    }
  }
}
