import FormsCore
import FormsLanguageServer
import FormsStore
import FormsTestSupport
import Foundation

/// `formsctl lsp` on a large store: from a `didChange` sent over stdio to the
/// `publishDiagnostics` that answers it, for a purchase order whose relation is broken and mended
/// in turn, after start-up (the first answer, which opens the store and starts its watch, is
/// reported apart).
enum LanguageServerBenchmark {
  static func run(count: Int, repository: String, rounds: Int = 41) throws {
    let directory = NSTemporaryDirectory() + "formsctl-bench-lsp-\(count)-\(getpid())"
    defer { ExampleStore.remove(directory) }
    _ = try ExampleStore.prepare(count: count, at: directory, repository: repository)
    let path = directory + "/data/purchase-orders/PO-000001.json"
    let saved = String(decoding: try FileIO.read(FilePath(path)), as: UTF8.self)
    // A relation to an acquisition that does not exist (the generated orders name none).
    let broken = saved.replacingOccurrences(
      of: "\"currency\": \"USD\",", with: "\"acquisition_id\": \"ACQ-2099-999\",\n  \"currency\": \"USD\",")

    let process = Process()
    process.executableURL = URL(fileURLWithPath: repository + "/.build/release/formsctl")
    process.arguments = ["lsp"]
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    var reader = FrameReader(output.fileHandleForReading)
    var id = 0
    func send(_ message: JSONValue) {
      let body = Array(JSONWriter.compact(message).utf8)
      input.fileHandleForWriting.write(Data(Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body))
    }
    func object(_ members: [(String, JSONValue)]) -> JSONValue {
      .object(JSONObject(members.map { JSONObject.Member(key: $0.0, value: $0.1) }))
    }
    func request(_ method: String, _ params: JSONValue) {
      id += 1
      send(
        object([
          ("jsonrpc", .string("2.0")), ("id", .number(JSONNumber(id))), ("method", .string(method)), ("params", params),
        ]))
    }
    func notify(_ method: String, _ params: JSONValue) {
      send(object([("jsonrpc", .string("2.0")), ("method", .string(method)), ("params", params)]))
    }
    let uri = JSONValue.string("file://" + path)
    /// Sends `text` as version `version` and waits for its diagnostics; milliseconds and how many.
    func change(_ text: String, version: Int, open: Bool = false) -> (Double, Int) {
      let start = DispatchTime.now().uptimeNanoseconds
      if open {
        notify(
          "textDocument/didOpen",
          object([
            (
              "textDocument",
              object([
                ("uri", uri), ("languageId", .string("json")), ("version", .number(JSONNumber(version))),
                ("text", .string(text)),
              ])
            )
          ]))
      } else {
        notify(
          "textDocument/didChange",
          object([
            ("textDocument", object([("uri", uri), ("version", .number(JSONNumber(version)))])),
            ("contentChanges", .array([object([("text", .string(text))])])),
          ]))
      }
      while let body = reader.next() {
        guard let message = try? JSONParser().parse(body) else { continue }
        guard message["method"]?.stringValue == "textDocument/publishDiagnostics",
          message["params"]?["version"]?.numberValue?.intValue == version
        else { continue }
        let found = message["params"]?["diagnostics"]?.arrayValue?.count ?? 0
        return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6, found)
      }
      return (.infinity, 0)
    }

    print("\(count) purchase orders; \(rounds) changes of one order over stdio, its relation broken and mended in turn")
    let started = DispatchTime.now().uptimeNanoseconds
    request("initialize", object([("processId", .null), ("rootUri", .null), ("capabilities", object([]))]))
    notify("initialized", object([]))
    let (first, _) = change(saved, version: 1, open: true)
    print(
      String(
        format: "start-up to the first diagnostics: %.1f ms (the first answer itself %.1f ms)",
        Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6, first))
    var times: [Double] = []
    for k in 0..<rounds {
      let (milliseconds, found) = change(k % 2 == 0 ? broken : saved, version: k + 2)
      if found != (k % 2 == 0 ? 1 : 0) { print("round \(k): \(found) diagnostics, expected \(k % 2 == 0 ? 1 : 0)") }
      times.append(milliseconds)
    }
    request("shutdown", .null)
    notify("exit", .null)
    process.waitUntilExit()
    let sorted = times.sorted()
    print(
      String(
        format: "didChange → publishDiagnostics: median %.2f ms, p90 %.2f ms, max %.2f ms (target: under 50 ms)",
        sorted[sorted.count / 2], sorted[sorted.count * 9 / 10], sorted.last ?? 0))
  }
}
