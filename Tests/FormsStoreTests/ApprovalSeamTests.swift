import FormsCore
import FormsTestSupport
import Foundation
import Testing

@testable import FormsStore

/// Approvals where they meet the other capabilities (issue 63): what a migration, a rename and a
/// nullified reference do to signatures is the write path's verdict, asked for before it voids.
struct ApprovalSeamTests {
  let base = ApprovalTests()

  /// A second version of the claim descriptor, `from: 1.0.0`: 2.0.0 with `changes`, or 1.1.0,
  /// the version alone, when there are none.
  func addVersion(_ dir: String, changes: String = "") throws {
    let version = changes.isEmpty ? "1.1.0" : "2.0.0"
    let descriptor =
      try readFile(dir + "/schemas/claim/1.0.0.yaml")
      .replacingOccurrences(of: "version: 1.0.0\n", with: "version: \(version)\nfrom: 1.0.0\n")
      + (changes.isEmpty ? "" : "changes:\n" + changes)
    try writeFile(descriptor, to: dir + "/schemas/claim/\(version).yaml")
  }

  func claim(_ dir: String, _ id: String = "c1") throws -> JSONValue {
    try JSONParser().parse(Array(try readFile(dir + "/data/claims/\(id).json").utf8))
  }

  @Test func aMigrationOfTheVersionAloneVoidsNoSignature() throws {
    try withTemporaryDirectory { dir in
      let people = ApprovalTests.People()
      let store = try base.approvedStore(dir, people)
      // c2 waits in review, in the reviewer's inbox.
      try store.create(kind: "claim", assignments: [try Assignment("id=c2"), try Assignment("amount=5.00")])
      try store.transition(kind: "claim", id: "c2", to: "in_review", identity: people.preparer)
      let records = try claim(dir)["_approvals"]?.arrayValue?.count
      try addVersion(dir)
      let migrated = try Store.open(at: dir)
      #expect(migrated.registry.diagnostics.isEmpty, "\(migrated.registry.diagnostics.map(\.compilerStyle))")
      let report = try Migrator(store: migrated).run(.init(snapshot: false))
      #expect(report.migrated == 2 && report.voids.isEmpty)
      let after = try claim(dir)
      #expect(after["_schema"] == .string("claim@1.1.0"))
      #expect(after["status"] == .string("approved") && after["_approvals"]?.arrayValue?.count == records)
      #expect(try base.validate(migrated).isEmpty)
      // Still in the reviewer's inbox, and still signable.
      #expect(try migrated.inbox(for: people.reviewer).items.contains { $0.id == "c2" })
      try migrated.approve(kind: "claim", id: "c2", identity: people.reviewer)
      try migrated.approve(kind: "claim", id: "c2", identity: people.officer)
      #expect(try claim(dir, "c2")["status"] == .string("approved"))
      #expect(try base.validate(migrated).isEmpty)
    }
  }

  @Test func aMigrationThatChangesSignedContentIsRefusedNamingTheFormsUnlessAsked() throws {
    try withTemporaryDirectory { dir in
      let people = ApprovalTests.People()
      _ = try base.approvedStore(dir, people)
      try addVersion(
        dir, changes: "  - add: {field: note, value: \"migrated\"}\n  - rename: {from: amount, to: total}\n")
      var descriptor = try readFile(dir + "/schemas/claim/2.0.0.yaml")
      descriptor = descriptor.replacingOccurrences(of: "  amount:", with: "  total:")
      try writeFile(descriptor, to: dir + "/schemas/claim/2.0.0.yaml")
      let store = try Store.open(at: dir)
      let before = try readFile(dir + "/data/claims/c1.json")
      do throws(StoreError) {
        _ = try Migrator(store: store).run(.init(snapshot: false))
        Issue.record("a migration voided signatures without being asked")
      } catch {
        guard case .refused(.migrationVoidsApprovals(let documents)) = error else { throw error }
        #expect(documents == ["claim c1 (approved)"])
      }
      #expect(try readFile(dir + "/data/claims/c1.json") == before)
      // The dry run lists them and writes nothing.
      let plan = try Migrator(store: store).run(.init(dryRun: true, snapshot: false))
      #expect(plan.voids.map(\.id) == ["c1"])
      #expect(try readFile(dir + "/data/claims/c1.json") == before)
      // Asked: the round ends through the write path's step, and the form is back in review.
      let report = try Migrator(store: store).run(.init(snapshot: false, voidingApprovals: true))
      #expect(report.voids.map(\.reopenedTo) == ["in_review"])
      let after = try claim(dir)
      #expect(after["status"] == .string("in_review"))
      #expect(after["_approvals"]?.arrayValue?.last?["action"] == .string("reopen"))
      #expect(try base.validate(store).isEmpty)
      #expect(try readFile(dir + "/.formsctl/history.jsonl").contains("stale_approvals"))
    }
  }

  /// A migration's steps never take back a signature: a `jq` step that drops `_approvals`
  /// records fails the run, even when asked to void, and nothing is written.
  @Test func aMigrationThatDropsApprovalRecordsIsRefused() throws {
    try withTemporaryDirectory { dir in
      let people = ApprovalTests.People()
      _ = try base.approvedStore(dir, people)
      try addVersion(dir, changes: "  - jq: '._approvals |= .[0:1]'\n")
      let store = try Store.open(at: dir)
      let before = try readFile(dir + "/data/claims/c1.json")
      do throws(StoreError) {
        _ = try Migrator(store: store).run(.init(snapshot: false, voidingApprovals: true))
        Issue.record("a migration took back approval records")
      } catch {
        guard case .migrationFailed(_, let diagnostics) = error else { throw error }
        #expect(diagnostics.contains { $0.message.contains("_approvals only grows") }, "\(diagnostics)")
      }
      #expect(try readFile(dir + "/data/claims/c1.json") == before)
    }
  }

  @Test func recordsSignedOverTheVersionStillCountAfterAMigrationOfTheVersion() throws {
    try withTemporaryDirectory { dir in
      let people = ApprovalTests.People()
      let store = try base.store(dir, people)
      // Records as the fourth release signed them: the content hashed with its `_schema`.
      var document = try claim(dir)
      let schema = try #require(store.registry.schema(of: document))
      let legacy = ApprovalContent.hash(document, schema: schema, version: "claim@1.0.0")
      #expect(legacy != ApprovalContent.hash(document, schema: schema))
      let time = "2026-01-01T00:00:00Z"
      let submit = try ApprovalRecord.signed(
        .submit, chain: "approved", step: nil, role: nil, by: people.preparer, time: time, comment: nil,
        content: legacy, kind: "claim", id: "c1")
      let review = try ApprovalRecord.signed(
        .approve, chain: "approved", step: "review", role: "reviewer", by: people.reviewer, time: time, comment: nil,
        content: legacy, round: submit.signature, kind: "claim", id: "c1")
      let sign = try ApprovalRecord.signed(
        .approve, chain: "approved", step: "sign", role: "officer", by: people.officer, time: time, comment: nil,
        content: legacy, round: submit.signature, kind: "claim", id: "c1")
      document["_approvals"] = .array([submit.json, review.json, sign.json])
      document["status"] = .string("approved")
      try writeFile(JSONWriter.canonicalString(document), to: dir + "/data/claims/c1.json")
      #expect(try base.validate(store).isEmpty)
      try addVersion(dir)
      let migrated = try Store.open(at: dir)
      _ = try Migrator(store: migrated).run(.init(snapshot: false))
      #expect(try claim(dir)["_schema"] == .string("claim@1.1.0"))
      #expect(try base.validate(migrated).isEmpty)
    }
  }

  @Test func aPersonsChangeOfSignedContentIsRefusedThroughTheLibraryUnlessAsked() throws {
    try withTemporaryDirectory { dir in
      let people = ApprovalTests.People()
      let store = try base.store(dir, people)
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      try store.approve(kind: "claim", id: "c1", identity: people.reviewer)
      let before = try readFile(dir + "/data/claims/c1.json")
      // The library's own default: a new writer cannot forget to ask.
      let refused = base.refusal {
        try store.update(kind: "claim", id: "c1", assignments: [try Assignment("amount=25.00")])
      }
      guard case .wouldVoidApprovals(let stale)? = refused else {
        Issue.record("not refused: \(String(describing: refused))")
        return
      }
      #expect(stale.id == "c1" && stale.records == 2)
      #expect(try readFile(dir + "/data/claims/c1.json") == before)
      // The same from a batch, an edit's replace and a document's attachments' writers.
      #expect(
        base.refusal {
          _ = try store.update(
            kind: "claim", matching: [try ExpressionParser.parse(#"id == "c1""#)],
            assignments: [try Assignment("amount=25.00")])
        } != nil)
      var edited = try claim(dir)
      edited["amount"] = .number(JSONNumber("26.00")!)
      #expect(
        base.refusal { try store.replace(kind: "claim", id: "c1", original: Array(before.utf8), with: edited) } != nil)
      #expect(try readFile(dir + "/data/claims/c1.json") == before)
      // A free field (note) is not signed content.
      try store.update(kind: "claim", id: "c1", assignments: [try Assignment("note=checked")])
    }
  }
}

/// A claim that names a vendor: a rename or a removal of the vendor rewrites a signed reference.
struct RelationVoidingTests {
  let base = ApprovalTests()

  func store(_ dir: String, _ people: ApprovalTests.People) throws -> Store {
    _ = try base.store(dir, people, onChange: "reopen")
    try writeFile(
      """
      kind: vendor
      version: 1.0.0
      directory: vendors
      fields:
        id: string

      """, to: dir + "/schemas/vendor/1.0.0.yaml")
    let claim = try readFile(dir + "/schemas/claim/1.0.0.yaml")
      .replacingOccurrences(
        of: "  note: {type: string, optional: true}\n",
        with: "  note: {type: string, optional: true}\n  vendor: {type: string, optional: true}\n"
      )
      .replacingOccurrences(
        of: "workflow:\n",
        with: "relations:\n  - {field: vendor, kind: vendor, on_delete: nullify}\nworkflow:\n")
    try writeFile(claim, to: dir + "/schemas/claim/1.0.0.yaml")
    let store = try Store.open(at: dir)
    #expect(store.registry.diagnostics.isEmpty, "\(store.registry.diagnostics.map(\.compilerStyle))")
    try store.create(kind: "vendor", assignments: [try Assignment("id=v1")])
    try store.update(kind: "claim", id: "c1", assignments: [try Assignment("vendor=v1")])
    try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
    try store.approve(kind: "claim", id: "c1", identity: people.reviewer)
    try store.approve(kind: "claim", id: "c1", identity: people.officer)
    return store
  }

  @Test func aRenameThatRewritesASignedReferenceIsRefusedAndItsDryRunSaysSo() throws {
    try withTemporaryDirectory { dir in
      let people = ApprovalTests.People()
      let store = try store(dir, people)
      let before = try readFile(dir + "/data/claims/c1.json")
      let plan = try store.planMove(kind: "vendor", from: "v1", to: "v2")
      #expect(plan.voids.map(\.id) == ["c1"] && plan.voids.first?.reopenedTo == "in_review")
      let refused = base.refusal { try store.move(kind: "vendor", from: "v1", to: "v2") }
      guard case .wouldVoidApprovals(let stale)? = refused else {
        Issue.record("not refused: \(String(describing: refused))")
        return
      }
      #expect(stale.kind == "claim" && stale.id == "c1")
      #expect(try readFile(dir + "/data/claims/c1.json") == before)
      #expect(FileManager.default.fileExists(atPath: dir + "/data/vendors/v1.json"))
      // Asked: written, the round ended, and the plan names it.
      let done = try store.move(kind: "vendor", from: "v1", to: "v2", voidingApprovals: true)
      #expect(done.voids.map(\.id) == ["c1"])
      let after = try JSONParser().parse(Array(try readFile(dir + "/data/claims/c1.json").utf8))
      #expect(after["vendor"] == .string("v2") && after["status"] == .string("in_review"))
      #expect(try base.validate(store).isEmpty)
    }
  }

  @Test func aRemovalThatNullifiesASignedReferenceIsRefusedUnlessAsked() throws {
    try withTemporaryDirectory { dir in
      let people = ApprovalTests.People()
      let store = try store(dir, people)
      let before = try readFile(dir + "/data/claims/c1.json")
      #expect(try store.planDelete(kind: "vendor", id: "v1").voids.map(\.id) == ["c1"])
      guard case .wouldVoidApprovals? = base.refusal({ try store.delete(kind: "vendor", id: "v1") }) else {
        Issue.record("a removal voided signatures without being asked")
        return
      }
      #expect(try readFile(dir + "/data/claims/c1.json") == before)
      #expect(FileManager.default.fileExists(atPath: dir + "/data/vendors/v1.json"))
      try store.delete(kind: "vendor", id: "v1", voidingApprovals: true)
      #expect(try base.validate(store).isEmpty)
    }
  }
}

/// A long-lived door judges each write by the rules on disk (docs/design.md §15): a store opened
/// before a descriptor or the manifest changed writes nothing until opened again.
struct RulesOnDiskTests {
  let base = ApprovalTests()

  @Test func aWriteAfterTheRulesChangedIsRefusedUntilTheStoreIsOpenedAgain() throws {
    try withTemporaryDirectory { dir in
      let people = ApprovalTests.People()
      let store = try base.store(dir, people)
      let path = dir + "/data/claims/c1.json"
      // A `git pull` takes the reviewer out of `roles:`.
      let manifest = try readFile(dir + "/formsctl.yaml")
      try writeFile(
        manifest.replacingOccurrences(of: "  reviewer: [\(people.reviewer.signer)]\n", with: ""),
        to: dir + "/formsctl.yaml")
      let before = try readFile(path)
      guard
        case .rulesChanged(let changed)? = base.refusal({
          try store.update(kind: "claim", id: "c1", assignments: [try Assignment("amount=1.00")])
        })
      else {
        Issue.record("a write went by rules that are no longer on disk")
        return
      }
      #expect(changed.hasSuffix("formsctl.yaml"))
      #expect(try readFile(path) == before)
      // A descriptor added beside the others (a new chain, a new version) is seen too.
      let reopened = try Store.open(at: dir)
      try reopened.update(kind: "claim", id: "c1", assignments: [try Assignment("amount=1.00")])
      try writeFile(
        try readFile(dir + "/schemas/claim/1.0.0.yaml")
          .replacingOccurrences(of: "version: 1.0.0\n", with: "version: 1.1.0\nfrom: 1.0.0\n"),
        to: dir + "/schemas/claim/1.1.0.yaml")
      #expect(
        base.refusal { try reopened.update(kind: "claim", id: "c1", assignments: [try Assignment("amount=2.00")]) }
          != nil)
      try Store.open(at: dir).update(kind: "claim", id: "c1", assignments: [try Assignment("amount=2.00")])
    }
  }

  @Test func aStoreMadeFromRulesLoadedEarlierStillRefusesAfterTheyChanged() throws {
    try withTemporaryDirectory { dir in
      let people = ApprovalTests.People()
      let first = try base.store(dir, people)
      // A door that builds a store per write from the layout and registry it loaded at start.
      try writeFile(try readFile(dir + "/formsctl.yaml") + "\n", to: dir + "/formsctl.yaml")
      let second = Store(layout: first.layout, registry: first.registry, configuration: first.configuration)
      guard
        case .rulesChanged? = base.refusal({
          try second.update(kind: "claim", id: "c1", assignments: [try Assignment("note=x")])
        })
      else {
        Issue.record("a store built from rules loaded earlier wrote after they changed")
        return
      }
      // A change while a write runs is caught before it commits.
      let reopened = try Store.open(at: dir)
      let path = dir + "/data/claims/c1.json"
      let before = try readFile(path)
      let refused = base.refusal {
        try reopened.write("set", summary: "set claim c1") { session throws(StoreError) in
          let stored = try reopened.read(kind: "claim", id: "c1")
          var document = stored.value
          document["note"] = .string("during")
          try session.save(document, replacing: stored, kind: "claim", source: .person)
          try? writeFile(try readFile(dir + "/schemas/claim/1.0.0.yaml") + "\n", to: dir + "/schemas/claim/1.0.0.yaml")
        }
      }
      guard case .rulesChanged? = refused else {
        Issue.record("a write committed by rules that changed while it ran")
        return
      }
      #expect(try readFile(path) == before)
    }
  }

  @Test func aManifestThatIsALinkIsRefused() throws {
    try withTemporaryDirectory { dir in
      _ = try base.store(dir, ApprovalTests.People())
      try FileManager.default.moveItem(atPath: dir + "/formsctl.yaml", toPath: dir + "/elsewhere.yaml")
      try FileManager.default.createSymbolicLink(atPath: dir + "/formsctl.yaml", withDestinationPath: "elsewhere.yaml")
      #expect(throws: StoreError.self) { try Store.open(at: dir) }
    }
  }
}
