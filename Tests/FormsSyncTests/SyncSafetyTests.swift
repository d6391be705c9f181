import FormsCore
import FormsStore
import FormsSync
import FormsTestSupport
import Foundation
import Testing

/// A run never does more harm than its bound allows, on either side, whatever the database did
/// (found by a hostile pass).
extension SyncTests {
  /// Payers p1, p2; claims c1..c4 of p1 and c5 of p2, deleted with their payer (cascade); synced.
  func withCascade(_ body: (PostgresServer, Store, Sync, String) throws -> Void) throws {
    try withServer { server, dir in
      try writePayersAndClaims(dir, onDelete: "cascade")
      let store = try Store.open(at: dir)
      for payer in ["p1", "p2"] { try store.create(kind: "payer", assignments: [try Assignment("id=\(payer)")]) }
      for (claim, payer) in [("c1", "p1"), ("c2", "p1"), ("c3", "p1"), ("c4", "p1"), ("c5", "p2")] {
        try store.create(kind: "claim", assignments: [try Assignment("id=\(claim)"), try Assignment("payer=\(payer)")])
      }
      let syncer = try sync(store, server)
      _ = try syncer.initialize()
      #expect(try syncer.run().count == 7)
      try body(server, store, syncer, dir)
    }
  }

  /// One payer row deleted in SQL would cascade here to 4 of 5 claims: beyond the bound, the
  /// run is refused before anything is written on either side.
  @Test func aPulledDeletionIsBoundedWithWhatItCascadesTo() throws {
    try withCascade { server, store, syncer, dir in
      try server.psql("DELETE FROM formsctl.payer WHERE id = 'p1'")
      let refused = #expect(throws: SyncError.self) { try syncer.run() }
      guard case .deletionBeyondBound(let kind, let removing, let of, let inDatabase, _)? = refused else {
        Issue.record("\(String(describing: refused))")
        return
      }
      #expect(kind == "claim" && removing == 4 && of == 5 && !inDatabase)
      for claim in ["c1", "c2", "c3", "c4", "c5"] {
        #expect(FileManager.default.fileExists(atPath: dir + "/data/claims/\(claim).json"))
      }
      #expect(FileManager.default.fileExists(atPath: dir + "/data/payers/p1.json"))
      #expect(try server.psql("SELECT count(*) FROM formsctl.claim") == "5\n")
      // Allowed: deleted here with its claims, and the claims' rows then.
      let allowed = try syncer.run(maxDelete: .percent(100))
      #expect(allowed.contains { $0.action == "deleted-here" && $0.id == "p1" }, "\(allowed)")
      _ = try syncer.run(maxDelete: .percent(100))
      #expect(try server.psql("SELECT string_agg(id, ',' ORDER BY id) FROM formsctl.claim") == "c5\n")
      _ = store
    }
  }

  /// Changes written with the trigger off (`session_replication_role = replica`) keep the
  /// revision: the row's content, against what was recorded, shows them. Pulled; and a push of
  /// a change here never overwrites one, it waits, and both ways merges.
  @Test func aChangeWrittenAroundTheTriggerIsSeenAndNeverOverwritten() throws {
    try withSynced { server, store, syncer, dir in
      func around(_ id: String, _ note: String) throws {
        try server.psql(
          """
          SET session_replication_role = replica;
          UPDATE formsctl.claim SET document = jsonb_set(document, '{note}', '"\(note)"') WHERE id = '\(id)'
          """)
      }
      try around("c1", "replica")
      let pulled = try syncer.run()
      #expect(pulled.map(\.action) == ["pulled"], "\(pulled)")
      #expect(try file(dir, "c1").contains("\"note\": \"replica\""))
      #expect(try syncer.run() == [])
      try around("c2", "theirs")
      try store.update(kind: "claim", id: "c2", assignments: [try Assignment("amount=21.00")])
      let pushed = try syncer.run(.push)
      #expect(pushed.map(\.action) == ["waiting"], "\(pushed)")
      #expect(try server.psql("SELECT document->>'note' FROM formsctl.claim WHERE id = 'c2'") == "theirs\n")
      #expect(try syncer.run().map(\.action) == ["merged"])
      #expect(try file(dir, "c2").contains("\"note\": \"theirs\"") && (try file(dir, "c2")).contains("21.00"))
      #expect(try syncer.run() == [])
    }
  }

  /// An SQL writer that names someone in `updated_by` is recorded as the role it logged in as,
  /// with the claimed name only beside it; formsctl's own pushes name the store's user.
  @Test func aNameWrittenInUpdatedByIsKeptOnlyBesideTheRealRole() throws {
    try withSynced { server, store, syncer, _ in
      try server.psql(
        """
        UPDATE formsctl.claim SET document = jsonb_set(document, '{note}', '"by sql"'),
        updated_by = 'Contracting Officer Cory' WHERE id = 'c1'
        """)
      let role = try server.psql("SELECT session_user").trimmingCharacters(in: .whitespacesAndNewlines)
      #expect(
        try server.psql("SELECT updated_by FROM formsctl.claim WHERE id = 'c1'")
          == "\(role) (claimed Contracting Officer Cory)\n")
      let pulled = try syncer.run()
      #expect(pulled.map(\.detail) == ["by \(role) (claimed Contracting Officer Cory)"], "\(pulled)")
      try store.update(kind: "claim", id: "c2", assignments: [try Assignment("note=here")])
      #expect(try syncer.run().map(\.action) == ["pushed"])
      #expect(try server.psql("SELECT updated_by FROM formsctl.claim WHERE id = 'c2'") == "tester\n")
    }
  }

  /// A row back at a revision below the one recorded (the database restored from an older
  /// dump) is refused with its id, 65: its old content is never pulled over the newer file.
  @Test func aDatabaseThatWentBackIsRefusedNamingTheRows() throws {
    try withSynced { server, _, syncer, dir in
      let before = try file(dir, "c1")
      try server.psql(
        """
        SET session_replication_role = replica;
        UPDATE formsctl.claim SET revision = revision - 1, document = jsonb_set(document, '{note}', '"old"'),
        canonical = NULL, content_sha256 = NULL WHERE id = 'c1'
        """)
      let refused = #expect(throws: SyncError.self) { try syncer.run() }
      #expect(refused == .wentBack(kind: "claim", ids: ["c1"]))
      #expect(refused?.kind == .badInput)
      #expect(try file(dir, "c1") == before)
    }
  }
}
