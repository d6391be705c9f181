import FormsCore
import FormsTestSupport
import Foundation
import Testing

@testable import FormsStore
@testable import FormsSync

/// A sync that fails at any system call of the store (EIO, disk full, permission) converges
/// on the next run: after `recover`, a second sync leaves both sides equal, every document
/// synced, and a third run changes nothing.
@Suite(
  PostgresServer.enabled)
struct SyncFaultTests {
  @Test func aSyncFailingAtAnyCallConvergesOnTheNextRun() throws {
    let server = try PostgresServer()
    defer { server.stop() }
    try withTemporaryDirectory { dir in
      let pristine = dir + "/pristine"
      let store = try SyncTests().store(pristine)
      let sync = try Sync(store: store, url: try DatabaseURL(server.url))
      _ = try sync.initialize()
      _ = try sync.run()
      // Changes on both sides: one to pull, one to push, one to merge.
      try server.psql(
        "UPDATE formsctl.claim SET document = jsonb_set(document, '{note}', '\"sql\"') WHERE id IN ('c1', 'c2')")
      try store.update(kind: "claim", id: "c1", assignments: [try Assignment("amount=1.00")])
      try store.update(kind: "claim", id: "c3", assignments: [try Assignment("note=here")])
      try server.psql("CREATE TABLE formsctl.saved AS SELECT * FROM formsctl.claim")

      let reference = try copy(pristine, to: dir + "/reference", server: server)
      let counter = FaultInjection.arm(reference.layout.rootPath)
      let actions = try Sync(store: reference, url: try DatabaseURL(server.url)).run().map(\.action)
      counter.disarm()
      #expect(actions == ["merged", "pulled", "pushed"], "\(actions)")
      let calls = counter.trace.count
      #expect(calls > 10)

      for nth in 1...calls {
        for persistent in [false, true] {
          let run =
            "call \(nth) of \(calls) (\(counter.trace[nth - 1].call)) failing \(persistent ? "from then on" : "once")"
          let copied = try copy(pristine, to: dir + "/run", server: server)
          defer { try? FileManager.default.removeItem(atPath: dir + "/run") }
          let faulty = try Sync(store: copied, url: try DatabaseURL(server.url))
          let armed = FaultInjection.arm(copied.layout.rootPath, fault: .init(nth: nth, persistent: persistent))
          var failed: SyncError?
          do throws(SyncError) { _ = try faulty.run() } catch { failed = error }
          armed.disarm()
          if let failed { #expect(failed.kind != .internalError, "\(run): \(failed)") }
          _ = try Store.recover(copied.layout, wait: 1)
          let settled = try faulty.run()
          #expect(!settled.contains { $0.action == "conflict" || $0.action == "rejected" }, "\(run): \(settled)")
          #expect(try faulty.run() == [], "\(run): a third run still changes something")
          let statuses = Set(try Sync.status(copied).rows.map { $0[2] })
          #expect(statuses == ["synced"], "\(run): \(statuses)")
          for id in ["c1", "c2", "c3"] {
            let local = try JSONParser().parse(
              try FileIO.read(FilePath(copied.layout.dataDirectory + "/claims/\(id).json")))
            let remote = try JSONParser().parse(
              Array(try server.psql("SELECT canonical FROM formsctl.claim WHERE id = '\(id)'").utf8))
            #expect(local == remote, "\(run): \(id) differs")
            #expect(local["note"] != nil, "\(run): \(id) lost a change")
          }
        }
      }
    }
  }

  /// A copy of the store at `source` (its sync records included), with the database put back
  /// as it was saved.
  func copy(_ source: String, to target: String, server: PostgresServer) throws -> Store {
    try? FileManager.default.removeItem(atPath: target)
    try FileManager.default.copyItem(atPath: source, toPath: target)
    // Put back exactly, revisions included: the trigger (a new revision on every insert) is skipped.
    try server.psql(
      """
      BEGIN; SET LOCAL session_replication_role = replica;
      DELETE FROM formsctl.claim; INSERT INTO formsctl.claim SELECT * FROM formsctl.saved; COMMIT
      """)
    var configuration = Store.Configuration()
    configuration.user = "tester"
    let opened = try Store.open(at: target, configuration: configuration)
    return Store(
      layout: opened.layout, registry: opened.registry, configuration: configuration,
      keyring: Keyring(recipients: [SyncTests.alice.recipient], identity: SyncTests.alice))
  }
}
