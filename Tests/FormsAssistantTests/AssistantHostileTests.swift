import FormsAssistant
import FormsCore
import FormsStore
import FormsTestSupport
import Foundation
import Testing

/// The breaks a hostile pass found in the assistant door (issue 56), each held.
struct AssistantHostileTests {
  /// A delete checked to remove one document, waiting for the lock while a person saves a form
  /// that names it: under the lock the plan would cascade, so nothing is deleted.
  @Test func aDeleteThatCameToCascadeWhileWaitingIsRefused() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let root = try exampleStore(in: dir)
      let store = try openStore(root)
      try store.create(
        kind: "acquisition",
        base: .object(
          JSONObject(["id": .string("ACQ-2026-060"), "title": .string("lonely"), "agency": .string("GSA")])))
      let assistant = Assistant(store: store, allowSealed: false)
      let held = DispatchSemaphore(value: 0)
      let release = DispatchSemaphore(value: 0)
      Thread.detachNewThread {
        do {
          try store.withWriteLock("test") { () throws(StoreError) in
            held.signal()
            // Until the form is saved, however slow the machine: a timeout would let the delete go first.
            release.wait()
          }
        } catch {
          Issue.record("the test could not hold the lock: \(error)")
          held.signal()
        }
      }
      held.wait()
      let call = Task.detached {
        assistant.call(
          "delete",
          arguments: args(["kind": .string("acquisition"), "id": .string("ACQ-2026-060"), "apply": .bool(true)]))
      }
      try await Task.sleep(for: .milliseconds(1500))
      // Meanwhile a person's editor saves a form that references the acquisition.
      let copied = root + "/data/forms/aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee.json"
      var form = try #require(
        try JSONSerialization.jsonObject(with: Data(readFile(root + "/data/forms/\(draftForm).json").utf8))
          as? [String: Any])
      form["id"] = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"
      form["acquisition_id"] = "ACQ-2026-060"
      let text = try JSONSerialization.data(withJSONObject: form, options: [.prettyPrinted, .sortedKeys])
      try writeFile(String(decoding: text, as: UTF8.self), to: copied)
      release.signal()
      let answer = await call.value
      #expect(answer.isError, "\(answer.value)")
      // Refused: under the lock ("changed since its plan was shown"), as a cascade when the plan was
      // made after the save, or by the lock's wait on a machine so loaded it ran out: whichever
      // refusal, the person's form and the acquisition are both still there.
      #expect(FileManager.default.fileExists(atPath: copied))
      #expect(FileManager.default.fileExists(atPath: root + "/data/acquisitions/ACQ-2026-060.json"))
    }
  }

  /// With --allow-sealed, every answer that shows an opened sealed value records the read first:
  /// update (dry run and applied) and transition, as get does.
  @Test func everyAnswerShowingAnOpenedValueRecordsIt() throws {
    try withTemporaryDirectory { dir in
      let root = try exampleStore(in: dir)
      let store = try openStore(root, identity: true)
      let assistant = Assistant(store: store, allowSealed: true)
      func reads() throws -> Int { try AuditLog.query(store.layout, AuditLog.Query(access: true)).records.count }
      let id = "ACQ-2026-003"
      let calls: [(String, JSONObject)] = [
        (
          "update",
          args(["kind": .string("acquisition"), "id": .string(id), "set": .object(JSONObject(["title": .string("y")]))])
        ),
        (
          "update",
          args([
            "kind": .string("acquisition"), "id": .string(id), "set": .object(JSONObject(["title": .string("z")])),
            "apply": .bool(true),
          ])
        ),
        ("transition", args(["kind": .string("acquisition"), "id": .string(id), "to": .string("awarded")])),
      ]
      var opened = 0
      for (name, arguments) in calls {
        let before = try reads()
        let answer = assistant.call(name, arguments: arguments)
        let officer = answer.value["document"]?["contracting_officer"]?.stringValue
        guard let officer, officer != "«encrypted»" else { continue }
        opened += 1
        #expect(try reads() == before + 1, "\(name) showed an opened value without an access record")
      }
      #expect(opened >= 2, "update shows the document with its sealed values opened")
    }
  }

  /// An `items[+]` append is audited as written: `items[+]`, not the index it parsed to.
  @Test func anAppendIsAuditedAsWritten() throws {
    try withTemporaryDirectory { dir in
      let root = try exampleStore(in: dir)
      let store = try openStore(root)
      let assistant = Assistant(store: store, allowSealed: false)
      let done = assistant.call(
        "update",
        arguments: args([
          "kind": .string("purchase-order"), "id": .string("PO-000201"),
          "set": .object(
            JSONObject([
              "items[+]": .object(
                JSONObject(["product_item_id": .number(JSONNumber(4242)), "quantity": .number(JSONNumber(7))]))
            ])),
          "apply": .bool(true),
        ]))
      #expect(!done.isError, "\(done.value)")
      #expect(try changes(store).first?.command == "formsctl mcp update purchase-order PO-000201 items[+]")
    }
  }
}

extension AssistantSignatureTests {
  /// A document with approvals copied from another (its id and content changed) is not valid to
  /// check_KIND, as it is not to validate: the signatures sign another document's content.
  @Test func checkJudgesCopiedApprovalsAsValidateDoes() throws {
    try withTemporaryDirectory { dir in
      let preparer = Identity.generate()
      let reviewer = Identity.generate()
      try writeFile("formsctl: 1\nroles:\n  reviewer: [\(reviewer.signer)]\n", to: dir + "/formsctl.yaml")
      try writeFile(Self.descriptor, to: dir + "/schemas/claim/1.0.0.yaml")
      let store = try openStore(dir)
      try store.create(kind: "claim", assignments: [try Assignment("id=c2"), try Assignment("amount=5.00")])
      try store.transition(kind: "claim", id: "c2", to: "in_review", identity: preparer)
      try store.approve(kind: "claim", id: "c2", identity: reviewer)
      let assistant = Assistant(store: store, allowSealed: false)
      let signed = try store.read(kind: "claim", id: "c2").value
      #expect(signed["_approvals"]?.arrayValue?.isEmpty == false)
      let original = assistant.call("check_claim", arguments: args(["document": signed]))
      #expect(original.value["valid"]?.boolValue == true, "the signed document as stored: \(original.value)")
      var copy = try #require(signed.objectValue)
      copy["id"] = .string("c3")
      copy["amount"] = .number(JSONNumber(unchecked: "500.00"))
      let checked = assistant.call("check_claim", arguments: args(["document": .object(copy)]))
      let rules = Set(checked.value["diagnostics"]?.arrayValue?.compactMap { $0["rule"]?.stringValue } ?? [])
      #expect(checked.value["valid"]?.boolValue == false, "\(checked.value)")
      #expect(rules.contains { $0.hasPrefix("approval") }, "\(rules)")
    }
  }
}

/// Reading stdin: each line bounded, an oversized one skipped and answered, the next read.
struct LineTransportTests {
  @Test func linesAreSplitAcrossReadsAndOversizedOnesSkipped() {
    var reader = LineReader(limit: 8)
    var lines: [LineReader.Line] = []
    for chunk in ["{\"a\"", ":1}\n\n", String(repeating: "x", count: 5), String(repeating: "y", count: 20), "\n{}\n"] {
      lines += reader.feed(Array(chunk.utf8))
    }
    #expect(lines == [.message(Data("{\"a\":1}".utf8)), .tooLong(25), .message(Data("{}".utf8))])
  }

  /// A message of megabytes is not buffered: it is answered with an error and the next message is read.
  @Test func anOversizedMessageIsAnsweredAndTheNextRead() async throws {
    var request: [Int32] = [0, 0]
    var answers: [Int32] = [0, 0]
    #expect(pipe(&request) == 0 && pipe(&answers) == 0)
    let transport = LineTransport(input: request[0], output: answers[1], lineLimit: 64 * 1024)
    try await transport.connect()
    let writeEnd = request[1]
    Thread.detachNewThread {
      var huge = [UInt8](repeating: UInt8(ascii: "x"), count: 32 * 1024 * 1024)
      huge.append(contentsOf: Array("\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n".utf8))
      var offset = 0
      while offset < huge.count {
        let written = huge[offset...].withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) }
        if written <= 0 { break }
        offset += written
      }
      close(writeEnd)
    }
    var received: [String] = []
    for try await message in transport.receive() { received.append(String(decoding: message, as: UTF8.self)) }
    #expect(received == ["{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"])
    let readEnd = answers[0]
    let answer = await Task.detached {
      var bytes: [UInt8] = []
      var buffer = [UInt8](repeating: 0, count: 4096)
      while !bytes.contains(UInt8(ascii: "\n")) {
        let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
        if count <= 0 { break }
        bytes += buffer[..<count]
      }
      return String(decoding: bytes, as: UTF8.self)
    }.value
    #expect(answer.contains("\"id\":null") && answer.contains("-32600"), "\(answer)")
    close(request[0])
    close(answers[0])
    close(answers[1])
  }
}
