import FormsAssistant
import FormsCore
import FormsStore
import FormsTestSupport
import Foundation
import MCP
import Synchronization
import Testing

/// A client connected in process (the SDK's in-memory transport) to a server over `assistant`.
func connected(_ assistant: Assistant) async throws -> (Client, AssistantServer) {
  let (clientSide, serverSide) = await InMemoryTransport.createConnectedPair()
  let server = AssistantServer(assistant: assistant, version: "test")
  try await server.start(transport: serverSide)
  let client = Client(name: "formsctl-tests", version: "1")
  try await client.connect(transport: clientSide)
  return (client, server)
}

/// The text of a tool's answer, parsed.
func answer(_ content: [MCP.Tool.Content]) throws -> JSONValue {
  var text = ""
  for case .text(let part, _, _) in content { text += part }
  return try JSONParser().parse(Array(text.utf8))
}

/// The protocol side: what a client sees of the tools, the resources and the notifications.
struct AssistantServerTests {
  @Test func toolsAreListedAndCalledOverTheProtocol() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let store = try openStore(try exampleStore(in: dir))
      let (client, server) = try await connected(Assistant(store: store, allowSealed: false))
      defer { Task { await server.shutdown() } }
      let (tools, _) = try await client.listTools()
      let create = try #require(tools.first { $0.name == "create_form" })
      #expect(create.annotations.readOnlyHint == false)
      let get = try #require(tools.first { $0.name == "get" })
      #expect(get.annotations.readOnlyHint == true)
      guard case .object(let schema) = create.inputSchema, case .object(let properties)? = schema["properties"],
        case .object(let document)? = properties["document"], case .object(let fields)? = document["properties"],
        case .object(let formType)? = fields["form_type"], case .array(let values)? = formType["enum"]
      else {
        Issue.record("create_form's input schema has no form_type enum: \(create.inputSchema)")
        return
      }
      #expect(values.contains(.string("SF30")))

      let (checked, checkError) = try await client.callTool(
        name: "check_form",
        arguments: [
          "document": .object([
            "form_type": .string("SF30"), "acquisition_id": .string("ACQ-26-1"),
          ])
        ])
      #expect(checkError == false)
      #expect(try answer(checked)["diagnostics"]?.arrayValue?.first?["pointer"]?.stringValue == "/acquisition_id")

      let (refused, refusedError) = try await client.callTool(
        name: "get", arguments: ["kind": .string("form"), "id": .string("../../etc/passwd")])
      #expect(refusedError == true, "\(refused)")

      let (made, madeError) = try await client.callTool(
        name: "create_form",
        arguments: [
          "document": .object([
            "form_type": .string("SF30"), "form_number": .string("SF 30"), "acquisition_id": .string("ACQ-2026-003"),
            "fields": .object(["effective_date": .string("2026-12-01")]),
          ]),
          "apply": .bool(true),
        ])
      #expect(madeError == false, "\(made)")
      let id = try #require(try answer(made)["id"]?.stringValue)
      #expect(try store.read(kind: "form", id: id).value["acquisition_id"]?.stringValue == "ACQ-2026-003")
    }
  }

  @Test func documentsAndDescriptorsAreResources() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let store = try openStore(try exampleStore(in: dir))
      let (client, server) = try await connected(Assistant(store: store, allowSealed: false))
      defer { Task { await server.shutdown() } }
      let (resources, _) = try await client.listResources()
      let uris = resources.map(\.uri)
      #expect(
        uris.contains("formsctl://form") && uris.contains("formsctl://acquisition/ACQ-2026-001"), "\(uris.prefix(10))")
      #expect(uris.contains("formsctl://form/" + draftForm))
      let document = try await client.readResource(uri: "formsctl://form/" + draftForm)
      #expect(document.first?.mimeType == "application/json" && document.first?.text?.contains("\"draft\"") == true)
      let descriptor = try await client.readResource(uri: "formsctl://form")
      #expect(descriptor.first?.text?.contains("kind: form") == true, "\(descriptor)")
      await #expect(throws: (any Error).self) { _ = try await client.readResource(uri: "formsctl://form/../x") }
      await #expect(throws: (any Error).self) { _ = try await client.readResource(uri: "file:///etc/passwd") }
      await #expect(throws: (any Error).self) { _ = try await client.readResource(uri: "formsctl://form/0000dead") }
    }
  }

  /// Writes that wait for the store's lock (more of them than Swift's cooperative pool has
  /// threads) do not hold up another call: store work runs outside the pool. The lock is held
  /// until list_kinds has answered, or 30 s: answered while it is still held, list_kinds did not
  /// wait behind the writes (whatever else the machine is running).
  @Test func aWriteWaitingForTheLockHoldsUpNoOtherCall() async throws {
    try await withTemporaryDirectoryAsync { dir in
      var configuration = Store.Configuration()
      configuration.lockWait = 120
      let store = try Store.open(at: try exampleStore(in: dir), configuration: configuration)
      let (client, server) = try await connected(Assistant(store: store, allowSealed: false))
      defer { Task { await server.shutdown() } }
      let held = DispatchSemaphore(value: 0)
      let release = DispatchSemaphore(value: 0)
      let stillHeld = Mutex(true)
      Thread.detachNewThread {
        do {
          try store.withWriteLock("test") { () throws(StoreError) in
            held.signal()
            // Long enough for the slowest loaded machine (CI took more than 30 s to answer
            // list_kinds here); a server that made list_kinds wait behind the writes still fails.
            _ = release.wait(timeout: .now() + 600)
            stillHeld.withLock { $0 = false }
          }
        } catch {
          Issue.record("the test could not hold the lock: \(error)")
          held.signal()
        }
      }
      held.wait()
      let writes = (0..<ProcessInfo.processInfo.activeProcessorCount + 2).map { index in
        Task {
          try await client.callTool(
            name: "update",
            arguments: [
              "kind": .string("form"), "id": .string(draftForm), "set": .object(["revision": .string("R\(index)")]),
              "apply": .bool(true),
            ])
        }
      }
      try await Task.sleep(for: .milliseconds(300))
      let (_, listError) = try await client.callTool(name: "list_kinds", arguments: [:])
      let answeredWhileHeld = stillHeld.withLock { $0 }
      release.signal()
      #expect(listError == false)
      #expect(answeredWhileHeld, "list_kinds waited behind the writes waiting for the lock")
      for write in writes { _ = try await write.value }
    }
  }

  /// A store of more documents than one answer names is listed page by page, each once.
  @Test func resourcesArePaged() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let count = AssistantServer.resourcePage + 20
      _ = try ExampleStore.generate(count: count, at: dir + "/store", repository: repository)
      let store = try openStore(dir + "/store")
      let (client, server) = try await connected(Assistant(store: store, allowSealed: false))
      defer { Task { await server.shutdown() } }
      var uris: [String] = []
      var cursor: String?
      var pages = 0
      repeat {
        let (resources, next) = try await client.listResources(cursor: cursor)
        uris += resources.map(\.uri)
        cursor = next
        pages += 1
      } while cursor != nil && pages < 10
      #expect(pages == 2)
      #expect(
        Set(uris).count == uris.count && uris.filter { $0.hasPrefix("formsctl://purchase-order/") }.count == count)
      await #expect(throws: (any Error).self) { _ = try await client.listResources(cursor: "-5") }
    }
  }

  /// A commit (here by another store handle, as another process would) notifies the client: the
  /// subscribed document's update, and the list's change when a document is created.
  @Test func aCommitNotifiesTheClient() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let root = try exampleStore(in: dir)
      let store = try openStore(root)
      let heard = Mutex<[String]>([])
      let (client, server) = try await connected(Assistant(store: store, allowSealed: false))
      defer { Task { await server.shutdown() } }
      await client.onNotification(ResourceUpdatedNotification.self) { message in
        heard.withLock { $0.append(message.params.uri) }
      }
      await client.onNotification(ResourceListChangedNotification.self) { _ in
        heard.withLock { $0.append("list_changed") }
      }
      let uri = "formsctl://form/" + draftForm
      try await client.subscribeToResource(uri: uri)
      // The watch is ready once a first change is seen; retry the change until it is heard.
      let other = try openStore(root)
      let deadline = ContinuousClock.now + .seconds(20)
      var revision = 0
      while !heard.withLock({ $0.contains(uri) }) && ContinuousClock.now < deadline {
        revision += 1
        try other.update(kind: "form", id: draftForm, assignments: [try Assignment("revision=R\(revision)")])
        try await Task.sleep(for: .milliseconds(300))
      }
      #expect(heard.withLock { $0.contains(uri) }, "no notifications/resources/updated for \(uri)")
      try other.create(kind: "form", base: sf30(acquisition: "ACQ-2026-003"))
      while !heard.withLock({ $0.contains("list_changed") }) && ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(100))
      }
      #expect(heard.withLock { $0.contains("list_changed") }, "no notifications/resources/list_changed")
    }
  }
}
