import FormsCore
import FormsLanguageServer
import FormsStore
import FormsTestSupport
import Foundation
import Synchronization
import Testing

/// `formsctl lsp` against a client that breaks the protocol: bad frames, messages out of order,
/// values of the wrong type, a client that goes away. The server answers with an error and goes
/// on (or ends cleanly), and never crashes.
struct LanguageServerProtocolTests {
  static let initialize: JSONValue = ["processId": .null, "rootUri": .null, "capabilities": [:]]

  func errorCode(_ message: JSONValue?) -> Int? { message?["error"]?["code"]?.numberValue?.intValue }

  /// Waits for the next error answered to no request (`id` null) and returns its code.
  func nextUnaddressedError(_ client: LSPClient) -> Int? {
    errorCode(client.wait { $0["error"] != nil && $0["id"] == .null })
  }

  @Test(arguments: [
    "Content-Length: -5\r\n\r\n", "Content-Length: abc\r\n\r\n", "Content-Length: +5\r\n\r\n",
    "Content-Length: 99999999999999999999999999\r\n\r\n", "Content-Type: x\r\n\r\n",
    "Content-Length: 2\r\nContent-Length: 3\r\n\r\n", "no colon here\r\n\r\n",
  ])
  func aBadHeaderIsAnsweredAndTheServerGoesOn(header: String) throws {
    try withTemporaryDirectory { dir in
      let client = try LSPClient(in: dir)
      client.input.write(Data(header.utf8))
      #expect(nextUnaddressedError(client) == -32700)
      // The next frame is read as usual.
      #expect(client.request("initialize", Self.initialize)["capabilities"] != nil)
      #expect(client.finish() == 0)
    }
  }

  @Test func aBodyOverTheLimitIsDroppedAsItArrivesAndTheNextFrameRead() throws {
    let pipe = Pipe()
    let length = FrameReader.maxBody + 1
    let writer = Thread {
      let handle = pipe.fileHandleForWriting
      handle.write(Data("Content-Length: \(length)\r\n\r\n".utf8))
      let chunk = Data(repeating: 0x20, count: 1 << 20)
      var left = length
      while left > 0 {
        let part = min(left, chunk.count)
        handle.write(chunk.prefix(part))
        left -= part
      }
      handle.write(Data("Content-Length: 2\r\n\r\n{}".utf8))
      try? handle.close()
    }
    writer.start()
    var reader = FrameReader(pipe.fileHandleForReading)
    guard case .invalid(let reason)? = reader.nextFrame() else {
      Issue.record("a body over the limit is not reported")
      return
    }
    #expect(reason.contains("more than the limit"))
    #expect(reader.nextFrame() == .message(Array("{}".utf8)))
    #expect(reader.nextFrame() == nil)
  }

  @Test func aHeaderThatNeverEndsEndsTheServerCleanly() throws {
    try withTemporaryDirectory { dir in
      let client = try LSPClient(in: dir)
      client.input.write(Data(repeating: UInt8(ascii: "x"), count: FrameReader.maxHeader + 10))
      #expect(nextUnaddressedError(client) == -32700)
      client.process.waitUntilExit()
      #expect(client.process.terminationReason == .exit && client.process.terminationStatus == 1)
    }
  }

  @Test func requestsAfterShutdownAreInvalidRequests() throws {
    try withTemporaryDirectory { dir in
      let client = try LSPClient(in: dir)
      client.request("initialize", Self.initialize)
      client.request("shutdown")
      #expect(errorCode(client.request("textDocument/hover", LSPClient.document(dir + "/x.json", 0, 0))) == -32600)
      // Before initialize it is -32002, and a second initialize is refused.
      let other = try LSPClient(in: dir)
      #expect(errorCode(other.request("textDocument/hover", LSPClient.document(dir + "/x.json", 0, 0))) == -32002)
      other.request("initialize", Self.initialize)
      #expect(errorCode(other.request("initialize", Self.initialize)) == -32600)
      #expect(other.finish() == 0)
      client.notify("exit", .null)
      client.process.waitUntilExit()
      #expect(client.process.terminationStatus == 0)
    }
  }

  @Test func messagesOfTheWrongShapeGetInvalidRequest() throws {
    try withTemporaryDirectory { dir in
      let client = try LSPClient(in: dir)
      client.request("initialize", Self.initialize)
      // A batch, a value that is no object, an id that is an object, no method: -32600 each.
      for raw in [
        #"[{"jsonrpc":"2.0","id":1,"method":"shutdown"}]"#, "42",
        #"{"jsonrpc":"2.0","id":{"a":1},"method":"shutdown"}"#, #"{"jsonrpc":"2.0","id":7}"#,
      ] {
        client.send(raw: Array(raw.utf8))
        let error = client.wait { $0["error"] != nil }
        #expect(errorCode(error) == -32600, "\(raw)")
      }
      // Not UTF-8: a parse error.
      client.send(raw: [0x7B, 0xFF, 0xFE, 0x7D])
      #expect(nextUnaddressedError(client) == -32700)
      // A notification sent with an id is a request LSP does not have.
      client.send(
        raw: Array(
          #"{"jsonrpc":"2.0","id":99,"method":"textDocument/didClose","params":{"textDocument":{"uri":"file:///x"}}}"#
            .utf8))
      #expect(errorCode(client.wait { $0["id"] == .number(JSONNumber(99)) }) == -32600)
      // An unknown notification is ignored; the shutdown that follows is still answered.
      client.notify("$/somethingElse", [:])
      #expect(client.finish() == 0)
    }
  }

  @Test func outOfOrderEditsAndWildPositionsDoNotCrash() throws {
    try withTemporaryDirectory { dir in
      try copyExampleStore(to: dir + "/acquisitions")
      let order = dir + "/acquisitions/data/purchase-orders/PO-000201.json"
      let text = try readFile(order)
      let client = try LSPClient(in: dir + "/acquisitions")
      // didOpen before initialize is dropped: nothing is published for it.
      client.open(order, text: text)
      client.request("initialize", Self.initialize)
      client.notify("initialized", [:])
      // A change to a buffer never opened is ignored.
      client.change(order, text: "{", version: 5)
      // A range change with positions far outside the text, and negative ones.
      client.open(order, text: text)
      #expect(client.diagnostics("file://" + order, version: 1) == [])
      client.notify(
        "textDocument/didChange",
        [
          "textDocument": ["uri": .string("file://" + order), "version": .number(JSONNumber(2))],
          "contentChanges": [
            [
              "range": ["start": LSPClient.at(-3, -1), "end": LSPClient.at(Int.max, Int.max)],
              "text": .string(text),
            ]
          ],
        ])
      #expect(client.diagnostics("file://" + order, version: 2) == [])
      for (line, character) in [(Int.max, Int.max), (-1, -1), (0, Int.max), (1 << 53, 0)] {
        let hover = client.request("textDocument/hover", LSPClient.document(order, line, character))
        #expect(hover["error"] == nil)
      }
      #expect(client.finish() == 0)
    }
  }

  @Test func aHugeDocumentIsCheckedAndAnswered() throws {
    try withTemporaryDirectory { dir in
      try copyExampleStore(to: dir + "/acquisitions")
      let order = dir + "/acquisitions/data/purchase-orders/PO-000201.json"
      let text = try readFile(order)
      let huge = text.replacingOccurrences(
        of: #""currency": "USD""#,
        with: #""currency": "USD", "padding": ""# + String(repeating: "x", count: 8 << 20) + "\"")
      let client = try LSPClient(in: dir + "/acquisitions")
      client.request("initialize", Self.initialize)
      client.open(order, text: huge)
      #expect(client.diagnostics("file://" + order)?.contains { $0["code"] == "unknown-field" } == true)
      #expect(client.finish() == 0)
    }
  }

  @Test func aClientThatGoesAwayEndsTheServerWithoutASignal() throws {
    try withTemporaryDirectory { dir in
      let (process, stdin, stdout) = try LSPClient.start(in: dir)
      // Nobody reads the answers: the server's write fails (EPIPE), and it must end by itself.
      try stdout.fileHandleForReading.close()
      let body = Array(
        JSONWriter.compact(
          ["jsonrpc": "2.0", "id": .number(JSONNumber(1)), "method": "initialize", "params": Self.initialize]).utf8)
      stdin.fileHandleForWriting.write(Data(Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body))
      let deadline = Date().addingTimeInterval(20)
      while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
      if process.isRunning {
        try stdin.fileHandleForWriting.close()
        process.waitUntilExit()
      }
      #expect(process.terminationReason == .exit, "ended by signal \(process.terminationStatus)")
    }
  }

  @Test func hoverIsPlainTextForAClientThatReadsNoMarkdown() throws {
    try withTemporaryDirectory { dir in
      try copyExampleStore(to: dir + "/acquisitions")
      let order = dir + "/acquisitions/data/purchase-orders/PO-000201.json"
      let text = try readFile(order)
      let client = try LSPClient(in: dir + "/acquisitions")
      client.request(
        "initialize",
        [
          "processId": .null, "rootUri": .null,
          "capabilities": ["textDocument": ["hover": ["contentFormat": ["plaintext"]]]],
        ])
      client.open(order, text: text)
      let lines = text.components(separatedBy: "\n")
      let line = try #require(lines.firstIndex { $0.contains("\"currency\"") })
      let hover = client.request("textDocument/hover", LSPClient.document(order, line, 4))
      #expect(hover["contents"]?["kind"] == "plaintext", "\(hover)")
      #expect(hover["contents"]?["value"]?.stringValue?.hasPrefix("currency: ") == true, "\(hover)")
      #expect(client.finish() == 0)
    }
  }

  @Test func didOpenPublishesItsDiagnosticsOnce() throws {
    try withTemporaryDirectory { dir in
      try copyExampleStore(to: dir + "/acquisitions")
      let order = dir + "/acquisitions/data/purchase-orders/PO-000201.json"
      let text = try readFile(order).replacingOccurrences(of: #""ACQ-2026-001""#, with: #""ACQ-2026-077""#)
      let client = try LSPClient(in: dir + "/acquisitions")
      client.request("initialize", Self.initialize)
      client.notify("initialized", [:])
      client.open(order, text: text)
      #expect(client.diagnostics("file://" + order)?.count == 1)
      // The watch of the store starts and takes its first look meanwhile: nothing new to say.
      Thread.sleep(forTimeInterval: 2)
      client.request("shutdown")
      let again = client.received.withLock { messages in
        messages.filter {
          $0["method"] == "textDocument/publishDiagnostics" && $0["params"]?["uri"] == .string("file://" + order)
        }
      }
      #expect(again.isEmpty, "published again: \(again)")
      client.notify("exit", .null)
      client.process.waitUntilExit()
    }
  }

  @Test func carriageReturnsAloneEndLines() throws {
    try withTemporaryDirectory { dir in
      try copyExampleStore(to: dir + "/acquisitions")
      let order = dir + "/acquisitions/data/purchase-orders/PO-000201.json"
      let saved = try readFile(order).replacingOccurrences(of: #""ACQ-2026-001""#, with: #""ACQ-2099-999""#)
      let client = try LSPClient(in: dir + "/acquisitions")
      client.request("initialize", Self.initialize)
      let lines = saved.components(separatedBy: "\n")
      let line = try #require(lines.firstIndex { $0.contains("ACQ-2099-999") })
      let character = try #require(lines[line].range(of: "\"ACQ-2099-999\"")).lowerBound.utf16Offset(in: lines[line])
      for ending in ["\r", "\r\n"] {
        let uri = dir + "/acquisitions/data/purchase-orders/PO-000201.json"
        client.open(uri, text: lines.joined(separator: ending))
        let found = client.diagnostics("file://" + uri)?.first { $0["code"] == "relation" }
        #expect(
          found?["range"]?["start"] == LSPClient.at(line, character), "\(ending.debugDescription): \(found as Any)")
        #expect(found?["range"]?["end"] == LSPClient.at(line, character + 14))
        client.notify("textDocument/didClose", ["textDocument": ["uri": .string("file://" + uri)]])
        _ = client.diagnostics("file://" + uri)
      }
      #expect(client.finish() == 0)
    }
  }
}

/// The hardening found by a hostile tester after the first: many diagnostics, a buffer over the
/// store's limit, a frame that loses its place, bare line feeds, missing params, odd ids, stale changes.
struct LanguageServerLimitsTests {
  static let initialize: JSONValue = ["processId": .null, "rootUri": .null, "capabilities": [:]]

  func errorCode(_ message: JSONValue?) -> Int? { message?["error"]?["code"]?.numberValue?.intValue }

  /// An order of `count` items, each with a negative quantity (one diagnostic each).
  func orderWithBadItems(_ text: String, count: Int) throws -> String {
    let start = try #require(text.range(of: "\"items\": ["))
    let end = try #require(text.range(of: "\n  ],", range: start.upperBound..<text.endIndex))
    let items = (1...count).map { index in
      "\n    {\n      \"last_updated\": \"2026-02-05T09:32:28.213Z\",\n      \"product_item_id\": \(index),\n"
        + "      \"quantity\": -1,\n      \"unit_price\": 4.5\n    }"
    }
    return String(text[..<start.upperBound]) + items.joined(separator: ",") + String(text[end.lowerBound...])
  }

  @Test func manyDiagnosticsEachPointAtTheirOwnLine() throws {
    try withTemporaryDirectory { dir in
      try copyExampleStore(to: dir + "/acquisitions")
      let order = dir + "/acquisitions/data/purchase-orders/PO-000201.json"
      let text = try orderWithBadItems(try readFile(order), count: 300)
      let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
      let client = try LSPClient(in: dir + "/acquisitions")
      client.request("initialize", Self.initialize)
      client.open(order, text: text)
      let diagnostics = try #require(client.diagnostics("file://" + order))
      let quantityLines = diagnostics.compactMap { diagnostic -> Int? in
        guard diagnostic["message"]?.stringValue?.contains("quantity") == true else { return nil }
        return diagnostic["range"]?["start"]?["line"]?.numberValue?.intValue
      }
      #expect(Set(quantityLines).count == 300)
      #expect(quantityLines.allSatisfy { $0 < lines.count && lines[$0].contains("\"quantity\": -1") })
      #expect(client.finish() == 0)
    }
  }

  @Test func aBufferOverTheDocumentLimitGetsOneDiagnosticAtOnce() throws {
    try withTemporaryDirectory { dir in
      try copyExampleStore(to: dir + "/acquisitions")
      let order = dir + "/acquisitions/data/purchase-orders/PO-000201.json"
      let text = try readFile(order)
      let huge = text.replacingOccurrences(
        of: "\"Receiving", with: "\"" + String(repeating: "A", count: FileIO.maxFileSize) + "Receiving")
      let client = try LSPClient(in: dir + "/acquisitions")
      client.request("initialize", Self.initialize)
      client.open(order, text: huge)
      let diagnostics = try #require(client.diagnostics("file://" + order, version: 1))
      #expect(diagnostics.count == 1)
      #expect(diagnostics.first?["message"]?.stringValue?.contains("more than the limit of 67108864 bytes") == true)
      // The server still answers.
      #expect(client.request("textDocument/hover", LSPClient.document(order, 0, 2))["error"] == nil)
      #expect(client.finish() == 0)
    }
  }

  @Test func aFrameWithoutALengthIsSkippedUpToTheNextFrame() throws {
    try withTemporaryDirectory { dir in
      let client = try LSPClient(in: dir)
      client.input.write(Data("X-Foo: 1\r\n\r\n{}".utf8))
      #expect(errorCode(client.wait { $0["error"] != nil && $0["id"] == .null }) == -32700)
      #expect(client.request("initialize", Self.initialize)["capabilities"] != nil)
      #expect(errorCode(client.request("foo/bar", [:])) == -32601)
      #expect(client.finish() == 0)
    }
  }

  @Test func headerLinesEndedByLineFeedsAlone() throws {
    try withTemporaryDirectory { dir in
      let client = try LSPClient(in: dir)
      let body = Array(
        JSONWriter.compact(
          ["jsonrpc": "2.0", "id": .number(JSONNumber(41)), "method": "initialize", "params": Self.initialize]
        ).utf8)
      client.input.write(Data(Array("Content-Type: x\nContent-Length: \(body.count)\n\n".utf8) + body))
      #expect(client.wait { $0["id"] == .number(JSONNumber(41)) }?["result"]?["capabilities"] != nil)
      #expect(client.finish() == 0)
    }
  }

  @Test func requestsWithoutTheirParamsAndOddIdsAreRefused() throws {
    try withTemporaryDirectory { dir in
      let client = try LSPClient(in: dir)
      client.request("initialize", Self.initialize)
      for method in ["textDocument/hover", "textDocument/completion", "textDocument/formatting"] {
        #expect(errorCode(client.request(method)) == -32602, "\(method)")
      }
      let noPosition: JSONValue = ["textDocument": ["uri": .string("file://" + dir + "/x.json")]]
      #expect(errorCode(client.request("textDocument/definition", noPosition)) == -32602)
      client.send(raw: Array(#"{"jsonrpc":"2.0","id":1.5,"method":"textDocument/hover","params":{}}"#.utf8))
      #expect(errorCode(client.wait { $0["error"] != nil && $0["id"] == .null }) == -32600)
      #expect(client.finish() == 0)
    }
  }

  @Test func aChangeOlderThanTheBufferIsIgnored() throws {
    try withTemporaryDirectory { dir in
      try copyExampleStore(to: dir + "/acquisitions")
      let order = dir + "/acquisitions/data/purchase-orders/PO-000201.json"
      let text = try readFile(order)
      let unknown = text.replacingOccurrences(of: "\"currency\": \"USD\"", with: "\"currency\": \"USD\", \"zz\": 1")
      let client = try LSPClient(in: dir + "/acquisitions")
      client.request("initialize", Self.initialize)
      client.open(order, text: text)
      #expect(client.diagnostics("file://" + order, version: 1) == [])
      client.change(order, text: unknown, version: 3)
      #expect(client.diagnostics("file://" + order, version: 3)?.contains { $0["code"] == "unknown-field" } == true)
      // Late: version 2 after version 3. Had it been applied, the text would not parse.
      client.change(order, text: "{", version: 2)
      client.notify(
        "textDocument/didChange",
        [
          "textDocument": ["uri": .string("file://" + order), "version": .number(JSONNumber(4))],
          "contentChanges": [["range": ["start": LSPClient.at(0, 0), "end": LSPClient.at(0, 0)], "text": " "]],
        ])
      let latest = try #require(client.diagnostics("file://" + order, version: 4))
      #expect(latest.contains { $0["code"] == "unknown-field" })
      #expect(!latest.contains { $0["code"] == "parse" })
      #expect(client.finish() == 0)
    }
  }
}
