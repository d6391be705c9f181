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

/// The server's writes join the fault-injection test every writer is held to: each save, creation
/// and cascade runs once to count the system calls it makes on the store, then once for every N
/// with the Nth call failing, once and from then on. After `recover` (without faults) the store is
/// exactly as before or exactly as after, the response never claimed a change that is not there,
/// and no failure is reported as a bug.
struct ServerFaultTests {
  struct Scenario: Sendable, CustomTestStringConvertible {
    let name: String
    let uri: String
    /// The form's fields; `HASH` stands for the stored form's content hash, `MOVED` for the moved form's.
    let fields: [(String, String)]
    var testDescription: String { name }
  }

  static let form = ServerFixture.draftSF1449
  static let moved = "b261db59-0b69-5c7c-a3e6-dfb72fe38308"
  static let scenarios = [
    Scenario(
      name: "save an edited form", uri: "/k/form/\(form)/edit",
      fields: [("_hash", "HASH"), ("/form_number", "SF 1449"), ("/fields/naics_code", "337214"), ("_action", "save")]),
    Scenario(
      name: "create an acquisition", uri: "/k/acquisition/new",
      fields: [("/id", "ACQ-2026-700"), ("/title", "Desks"), ("/agency", "GSA"), ("_action", "save")]),
    Scenario(
      name: "delete an acquisition and its forms", uri: "/k/acquisition/ACQ-2026-001/delete",
      fields: [("_plan", "PLAN")]),
    Scenario(
      name: "move a form along its workflow", uri: "/k/form/\(moved)/status",
      fields: [("_hash", "MOVED"), ("state", "draft")]),
  ]

  static let clock = Date(timeIntervalSince1970: 1_800_000_000)

  /// Every file of the store outside `.formsctl/`, and the audit log.
  static func state(_ root: String) throws -> [String: String] {
    var out: [String: String] = [:]
    for path in try FileIO.files(under: FilePath(root), suffix: "") where !path.contains("/.formsctl/") {
      out[String(path.dropFirst(root.count))] = try readFile(path)
    }
    out["history"] = (try? readFile(root + "/.formsctl/history.jsonl")) ?? ""
    return out
  }

  /// Posts the scenario's form (`hashes`: the forms' content hashes by placeholder, read before
  /// any fault is armed).
  func run(_ scenario: Scenario, on fixture: ServerFixture, hashes: [String: String], plan: String) async throws
    -> TestResponse
  {
    let fields = scenario.fields.map { ($0.0, hashes[$0.1] ?? ($0.1 == "PLAN" ? plan : $0.1)) }
    return try await fixture.server.application(host: "127.0.0.1", port: 0).test(.router) { client in
      try await fixture.post(client, scenario.uri, fields)
    }
  }

  @Test(arguments: scenarios)
  func everyFailedCallOfAServerWriteLeavesTheStoreWhole(_ scenario: Scenario) async throws {
    try await withTemporaryDirectoryAsync { dir in
      let pristine = try ServerFixture(dir + "/pristine", clock: Self.clock)
      let before = try Self.state(pristine.root)
      let hashes = [
        "HASH": try pristine.store.read(kind: "form", id: Self.form).contentHash,
        "MOVED": try pristine.store.read(kind: "form", id: Self.moved).contentHash,
      ]
      let plan = Pages.fingerprint(try pristine.store.planDelete(kind: "acquisition", id: "ACQ-2026-001"))
      let reference = try ServerFixture(dir + "/reference", copying: pristine.root, clock: Self.clock)
      let counter = FaultInjection.arm(FilePath(reference.root))
      let succeeded = try await run(scenario, on: reference, hashes: hashes, plan: plan)
      counter.disarm()
      #expect(succeeded.status == .seeOther, "\(scenario.name): \(succeeded.text)")
      let after = try Self.state(reference.root)
      #expect(after != before, "\(scenario.name) changes the store")
      let calls = counter.trace.count
      #expect(calls > 0)
      for nth in 1...calls {
        for persistent in [false, true] {
          let label =
            "\(scenario.name), call \(nth) of \(calls) (\(counter.trace[nth - 1].call)) failing \(persistent ? "from then on" : "once")"
          let fixture = try ServerFixture(dir + "/run", copying: pristine.root, clock: Self.clock)
          let armed = FaultInjection.arm(
            FilePath(fixture.root),
            fault: .init(nth: nth, persistent: persistent, errno: [EIO, ENOSPC, EACCES][nth % 3]))
          let response = try await run(scenario, on: fixture, hashes: hashes, plan: plan)
          armed.disarm()
          #expect(!response.text.contains("a bug in formsctl"), "\(label): \(response.text)")
          _ = try Store.recover(fixture.store.layout, wait: 1, now: fixture.store.now)
          let state = try Self.state(fixture.root)
          let changed = Set(state.keys).union(after.keys).filter { state[$0] != after[$0] }.sorted()
          #expect(state == before || state == after, "\(label): neither wholly applied nor wholly absent: \(changed)")
          #expect(
            response.status != .seeOther || state == after, "\(label): reported success, but the change is not there")
          try FileManager.default.removeItem(atPath: fixture.root)
        }
      }
    }
  }
}
