import FormsCore
import FormsStore
import FormsSync
import FormsTestSupport
import Foundation
import Testing

/// A careless SQL writer (psql) against a synced schema: whatever it writes, the rows, the typed
/// views and the files never disagree silently.
extension SyncTests {
  /// The store of `store(_:)`, synced once; `body` gets the server, the store, its sync and the
  /// store's directory.
  func withSynced(_ body: (PostgresServer, Store, Sync, String) throws -> Void) throws {
    try withServer { server, dir in
      let store = try store(dir)
      let syncer = try sync(store, server)
      _ = try syncer.initialize()
      #expect(try syncer.run().count == 3)
      try body(server, store, syncer, dir)
    }
  }

  /// `canonical` changed alone, with its hash: the trigger makes the jsonb from it, so the views
  /// and the file follow. Both changed so that they disagree: the jsonb wins, and the row gets
  /// its text back. Either way the row's columns agree after the run, and a second run is idle.
  @Test func aCanonicalTextWrittenAloneOrAgainstTheJsonbNeverLeavesTheRowDisagreeing() throws {
    try withSynced { server, _, syncer, dir in
      let sha = "encode(sha256(convert_to(c, 'UTF8')), 'hex')"
      try server.psql(
        """
        UPDATE formsctl.claim SET canonical = c, content_sha256 = \(sha)
        FROM (SELECT replace(canonical, '"amount": 10.50', '"amount": 77.00') AS c FROM formsctl.claim WHERE id = 'c1') AS n
        WHERE id = 'c1'
        """)
      #expect(try server.psql("SELECT amount FROM formsctl.claim_v1_0_0 WHERE _id = 'c1'") == "77.00\n")
      #expect(try syncer.run().map(\.action) == ["pulled"])
      #expect(try file(dir, "c1").contains("\"amount\": 77.00"))
      // The jsonb says one thing, a canonical text with a good hash another.
      try server.psql(
        """
        UPDATE formsctl.claim SET document = jsonb_set(document, '{note}', '"jsonb"'), canonical = c,
        content_sha256 = \(sha)
        FROM (SELECT replace(canonical, '"amount": 20.00', '"amount": 21.00') AS c FROM formsctl.claim WHERE id = 'c2') AS n
        WHERE id = 'c2'
        """)
      #expect(try syncer.run().map(\.action) == ["pulled"])
      #expect(try file(dir, "c2").contains("\"note\": \"jsonb\"") && (try file(dir, "c2")).contains("20.00"))
      #expect(
        try server.psql("SELECT canonical::jsonb = document FROM formsctl.claim WHERE id = 'c2'") == "t\n")
      #expect(try server.psql("SELECT canonical FROM formsctl.claim WHERE id = 'c2'") == (try file(dir, "c2")) + "\n")
      #expect(try syncer.run() == [])
    }
  }

  /// A row inserted under an id its document does not have is rejected with the reason; no
  /// document is made under the document's id, and the writer's row stays.
  @Test func aRowWhoseDocumentNamesAnotherIDIsRejected() throws {
    try withSynced { server, _, syncer, dir in
      try server.psql(
        """
        INSERT INTO formsctl.claim (id, schema_version, document)
        SELECT 'c9', schema_version, jsonb_set(document, '{id}', '"c8"') FROM formsctl.claim WHERE id = 'c1'
        """)
      let run = try syncer.run()
      #expect(run.map(\.action) == ["rejected"], "\(run)")
      #expect(run.first?.detail.contains("the row's id is c9, but its document says \"c8\"") == true, "\(run)")
      #expect(!FileManager.default.fileExists(atPath: dir + "/data/claims/c8.json"))
      #expect(!FileManager.default.fileExists(atPath: dir + "/data/claims/c9.json"))
      let again = try syncer.run()
      #expect(again.map(\.action) == ["waiting"] && again.allSatisfy(\.isProblem), "\(again)")
      #expect(try server.psql("SELECT string_agg(id, ',' ORDER BY id) FROM formsctl.claim") == "c1,c2,c3,c9\n")
    }
  }

  /// One row with a date, a number or a boolean that is not one: every view goes on answering,
  /// that row's cell NULL.
  @Test func aValueThatIsNotOfItsTypeLeavesTheViewAnswering() throws {
    try withSynced { server, _, syncer, _ in
      try server.psql(
        """
        UPDATE formsctl.claim SET document = document || '{"changed": "2026-13-45T00:00:00Z", "amount": "lots"}'
        WHERE id = 'c2'
        """)
      try server.psql("UPDATE formsctl.claim SET document = document || '{\"amount\": true}' WHERE id = 'c3'")
      #expect(
        try server.psql("SELECT _id, amount, changed IS NULL FROM formsctl.claim_v1_0_0 ORDER BY _id")
          == "c1|10.50|f\nc2||t\nc3||f\n")
      #expect(try syncer.run().map(\.action) == ["rejected", "rejected"])
    }
  }

  /// A workflow move the workflow does not list is applied with a warning in the report, or
  /// refused with strictWorkflow; a pulled change is stamped (the `updated` timestamp).
  @Test func aPulledWorkflowMoveIsWarnedOrRefusedAndAChangeIsStamped() throws {
    try withSynced { server, store, syncer, dir in
      let before = try store.read(kind: "claim", id: "c1").value["changed"]
      Thread.sleep(forTimeInterval: 1.1)
      try server.psql(
        "UPDATE formsctl.claim SET document = jsonb_set(document, '{status}', '\"paid\"') WHERE id IN ('c1', 'c2')")
      var strict = syncer
      strict.strictWorkflow = true
      let refused = try strict.run(.pull)
      #expect(refused.map(\.action) == ["rejected", "rejected"], "\(refused)")
      #expect(refused.first?.detail.contains("draft") == true && refused.first?.detail.contains("paid") == true)
      #expect(try file(dir, "c1").contains("\"status\": \"draft\""))
      try server.psql("UPDATE formsctl.claim SET document = jsonb_set(document, '{note}', '\"x\"') WHERE id = 'c1'")
      let applied = try syncer.run()
      #expect(applied.map(\.action) == ["pulled", "waiting"], "\(applied)")
      #expect(applied.first?.warnings.first?.contains("status draft → paid") == true, "\(applied)")
      #expect(Sync.report(applied).rows.first?[3].contains("warning: claim c1: status draft → paid") == true)
      let json = Sync.report(applied).records.first?["warnings"]?.arrayValue
      #expect(json?.count == 1)
      let after = try store.read(kind: "claim", id: "c1").value
      #expect(after["status"] == .string("paid"))
      #expect(after["changed"] != nil && after["changed"] != before, "\(String(describing: after["changed"]))")
      #expect(
        try server.psql("SELECT document->>'changed' FROM formsctl.claim WHERE id = 'c1'")
          == (after["changed"]?.stringValue ?? "") + "\n")
    }
  }

  /// Fields the descriptor's `editable:` leaves out, and immutable ones, are refused from a row
  /// as they are from a person.
  @Test func anEditOfFieldsPeopleMayNotEditIsRejected() throws {
    try withServer { server, dir in
      try writeFile("formsctl: 1\n", to: dir + "/formsctl.yaml")
      try writeFile(
        """
        kind: claim
        version: 1.0.0
        directory: claims
        fields:
          id: string
          amount: decimal
          note: string?
          reference: {type: string, optional: true, immutable: true}
        editable: [note, reference]

        """, to: dir + "/schemas/claim/1.0.0.yaml")
      let store = try Store.open(at: dir)
      let syncer = try sync(store, server)
      _ = try syncer.initialize()
      // A new row is a feed's record: all of it is taken.
      try server.psql(
        """
        INSERT INTO formsctl.claim (id, schema_version, document) VALUES ('c1', '1.0.0',
        '{"_schema": "claim@1.0.0", "id": "c1", "amount": 1, "reference": "R1"}')
        """)
      #expect(try syncer.run().map(\.action) == ["pulled"])
      try server.psql("UPDATE formsctl.claim SET document = jsonb_set(document, '{amount}', '2')")
      let amount = try syncer.run()
      #expect(amount.map(\.action) == ["rejected"] && amount[0].detail.contains("amount"), "\(amount)")
      try server.psql(
        "UPDATE formsctl.claim SET document = jsonb_set(jsonb_set(document, '{amount}', '1'), '{reference}', '\"R2\"')")
      let reference = try syncer.run()
      #expect(
        reference.map(\.action) == ["rejected"] && reference[0].detail.contains("/reference")
          && reference[0].detail.contains("immutable"), "\(reference)")
      try server.psql("UPDATE formsctl.claim SET document = jsonb_set(document, '{reference}', '\"R1\"')")
      try server.psql("UPDATE formsctl.claim SET document = jsonb_set(document, '{note}', '\"fine\"')")
      #expect(try syncer.run().map(\.action) == ["pulled"])
    }
  }

  /// A document field named like a row's own column (`revision`) is its own column in the view;
  /// the row's bookkeeping is `_revision` and the rest. A database made by an earlier formsctl
  /// (format 1, views with `revision`, revisions counted per row) is refused until `sync init`,
  /// which remakes its views and starts the revisions past every one recorded.
  @Test func bookkeepingColumnsNeverShadowAFieldAndSyncInitMigratesOlderDatabases() throws {
    try withServer { server, dir in
      let store = try store(dir)
      try writeFile(
        Self.descriptor.replacingOccurrences(
          of: "  note:", with: "  revision: {type: string, optional: true}\n  note:"),
        to: dir + "/schemas/claim/1.0.0.yaml")
      let opened = try opened(dir)
      try opened.update(kind: "claim", id: "c1", assignments: [try Assignment("revision=B")])
      let syncer = try sync(opened, server)
      _ = try syncer.initialize()
      _ = try syncer.run()
      #expect(
        try server.psql("SELECT revision, _revision > 0, _id FROM formsctl.claim_v1_0_0 WHERE _id = 'c1'")
          == "B|t|c1\n")
      // Made older: format 1, a view of the old shape, a row at a revision past the sequence.
      try server.psql(
        """
        UPDATE formsctl.formsctl_meta SET value = '1' WHERE key = 'format';
        DROP VIEW formsctl.claim_v1_0_0;
        CREATE VIEW formsctl.claim_v1_0_0 AS SELECT id, revision FROM formsctl.claim;
        ALTER TABLE formsctl.claim DISABLE TRIGGER formsctl_touch;
        UPDATE formsctl.claim SET revision = 1000 WHERE id = 'c2';
        ALTER TABLE formsctl.claim ENABLE TRIGGER formsctl_touch;
        """)
      _ = store
      let old = #expect(throws: SyncError.self) { _ = try syncer.run() }
      #expect(old == .otherFormat(schema: "formsctl", format: "1"))
      _ = try syncer.initialize()
      #expect(try syncer.run().map(\.action) == ["pulled"])  // c2's revision changed by hand
      #expect(try server.psql("SELECT revision FROM formsctl.claim_v1_0_0 WHERE _id = 'c1'") == "B\n")
      try server.psql("UPDATE formsctl.claim SET document = jsonb_set(document, '{note}', '\"n\"') WHERE id = 'c3'")
      #expect(try server.psql("SELECT revision > 1000 FROM formsctl.claim WHERE id = 'c3'") == "t\n")
      #expect(try syncer.run().map(\.action) == ["pulled"])
      #expect(try syncer.run() == [])
    }
  }

  /// An id written in SQL with a newline (or `/`, `..`): rejected, the reason whole and on one
  /// line with the newline escaped.
  @Test func aRejectedIDIsShownWholeAndEscaped() throws {
    try withSynced { server, _, syncer, dir in
      for id in ["x\ny", "a/b", ".."] {
        try server.psql(
          """
          INSERT INTO formsctl.claim (id, schema_version, document) VALUES ($$\(id)$$, '1.0.0',
          jsonb_build_object('_schema', 'claim@1.0.0', 'id', $$\(id)$$::text, 'amount', 1))
          """)
      }
      let run = try syncer.run()
      #expect(run.map(\.action) == ["rejected", "rejected", "rejected"], "\(run)")
      let newline = try #require(run.first { $0.id == "x\ny" })
      #expect(
        newline.detail.contains(#""x\ny" is not a valid id"#) && newline.detail.contains("not starting with")
          && !newline.detail.contains("\n"), "\(newline.detail)")
      #expect(try Sync.status(try opened(dir)).rows.filter { $0[2] == "rejected" }.count == 3)
      #expect(try syncer.run().allSatisfy(\.isProblem))
      #expect(
        try FileManager.default.contentsOfDirectory(atPath: dir + "/data/claims").sorted() == [
          "c1.json", "c2.json", "c3.json",
        ])
    }
  }

  /// A row deleted and inserted again with other content, in one transaction, is a change (its
  /// revision is new, never the one recorded); a `schema_version` set by hand against the
  /// document's `_schema` is put back, so the row stays in its version's view.
  @Test func aRowDeletedAndInsertedAgainOrGivenAnotherVersionIsNotMissed() throws {
    try withSynced { server, _, syncer, dir in
      try server.psql(
        """
        BEGIN;
        CREATE TEMP TABLE kept AS SELECT * FROM formsctl.claim WHERE id = 'c1';
        DELETE FROM formsctl.claim WHERE id = 'c1';
        INSERT INTO formsctl.claim (id, schema_version, document, revision)
        SELECT id, schema_version, jsonb_set(document, '{note}', '"again"'), revision FROM kept;
        COMMIT;
        """)
      #expect(try syncer.run().map(\.action) == ["pulled"])
      #expect(try file(dir, "c1").contains("\"note\": \"again\""))
      try server.psql("UPDATE formsctl.claim SET schema_version = '0.9.0' WHERE id = 'c2'")
      #expect(try server.psql("SELECT _id FROM formsctl.claim_v1_0_0 WHERE _id = 'c2'") == "c2\n")
      #expect(try server.psql("SELECT schema_version FROM formsctl.claim WHERE id = 'c2'") == "1.0.0\n")
      _ = try syncer.run()
      #expect(try syncer.run() == [])
    }
  }
}

extension SyncTests {
  /// A pulled change of signed content makes the approvals stale, and the report names them
  /// (in the detail of its table and as `staleApprovals` in JSON).
  @Test func aPullThatMakesApprovalsStaleNamesThem() throws {
    try withServer { server, dir in
      let preparer = Identity.generate()
      let reviewer = Identity.generate()
      try writeFile("formsctl: 1\nroles:\n  reviewer: [\(reviewer.signer)]\n", to: dir + "/formsctl.yaml")
      try writeFile(
        """
        kind: claim
        version: 1.0.0
        directory: claims
        fields:
          id: string
          amount: {type: decimal, min: 0, scale: 2}
          status: {type: enum, values: [draft, in_review, approved], default: draft}
        workflow:
          field: status
          transitions:
            draft: [in_review]
            in_review: [approved]
        approvals:
          on_change: reopen
          chains:
            - from: in_review
              to: approved
              steps:
                - {name: review, role: reviewer}
                - {name: sign, role: reviewer}

        """, to: dir + "/schemas/claim/1.0.0.yaml")
      let store = try Store.open(at: dir)
      try store.create(kind: "claim", assignments: [try Assignment("id=c1"), try Assignment("amount=5.00")])
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: preparer)
      _ = try store.approve(kind: "claim", id: "c1", identity: reviewer)
      let syncer = try sync(store, server)
      _ = try syncer.initialize()
      #expect(try syncer.run().map(\.action) == ["pushed"])
      try server.psql("UPDATE formsctl.claim SET document = jsonb_set(document, '{amount}', '6.00')")
      let run = try syncer.run()
      #expect(run.map(\.action) == ["pulled"], "\(run)")
      let stale = try #require(run.first?.staleApprovals.first)
      #expect(stale.kind == "claim" && stale.id == "c1" && stale.records == 2, "\(stale)")
      let report = Sync.report(run)
      #expect(report.rows.first?[3].contains("approvals made stale: claim c1: 2 signed records") == true)
      #expect(report.records.first?["staleApprovals"]?.arrayValue?.first?["records"] == .number(JSONNumber(2)))
    }
  }
}

extension SyncTests {
  /// A typed view dropped in SQL is made again by the next run (apps read it; it holds no data).
  @Test func aDroppedViewIsMadeAgainByTheNextRun() throws {
    try withSynced { server, _, syncer, _ in
      try server.psql("DROP VIEW formsctl.claim_v1_0_0")
      #expect(try syncer.run() == [])
      #expect(try server.psql("SELECT string_agg(_id, ',' ORDER BY _id) FROM formsctl.claim_v1_0_0") == "c1,c2,c3\n")
    }
  }
}
