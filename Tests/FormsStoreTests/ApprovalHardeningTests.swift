import FormsCore
import FormsTestSupport
import Foundation
import Testing

@testable import FormsStore

/// Ways around separation of duties — a change of submitted content, a reopened round
/// whose content comes back, records copied into a later round — each refused by the write path
/// and reported by `validate`.
struct ApprovalHardeningTests {
  let base = ApprovalTests()

  func read(_ dir: String) throws -> JSONValue {
    try JSONParser().parse(Array(try readFile(dir + "/data/claims/c1.json").utf8))
  }

  func write(_ document: JSONValue, _ dir: String) throws {
    try writeFile(String(decoding: JSONWriter.canonical(document), as: UTF8.self), to: dir + "/data/claims/c1.json")
  }

  @Test func aChangeOfSubmittedContentEndsTheRound() throws {
    try withTemporaryDirectory { dir in
      let people = ApprovalTests.People()
      let store = try base.store(dir, people)
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      // Anyone changes the content in review: accepted, but the submission no longer counts.
      let changed = try store.update(
        kind: "claim", id: "c1", assignments: [try Assignment("amount=999.00")], voidingApprovals: true)
      #expect(changed.staleApprovals?.records == 1 && changed.staleApprovals?.reopenedTo == nil)
      #expect(changed.value["status"] == .string("in_review"))
      #expect(
        base.refusal { _ = try store.approve(kind: "claim", id: "c1", identity: people.reviewer) }
          == .submitAgain(kind: "claim", id: "c1", state: "in_review"))
      #expect(try base.validate(store).isEmpty)
      // An approval-free field is no change of signed content: the round stands.
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      #expect(try store.update(kind: "claim", id: "c1", assignments: [try Assignment("note=n")]).staleApprovals == nil)
      try store.approve(kind: "claim", id: "c1", identity: people.reviewer)
      #expect(try store.approve(kind: "claim", id: "c1", identity: people.officer).moved == "approved")
      #expect(try base.validate(store).isEmpty)
      // The audit record of the change names the stale approvals.
      let log = try readFile(dir + "/.formsctl/history.jsonl")
      #expect(log.contains(#""stale_approvals":[{"id":"c1","kind":"claim","records":1,"state":"in_review"}]"#))
    }
  }

  @Test func approvalsOfContentThePreparerNeverSubmittedDoNotValidate() throws {
    try withTemporaryDirectory { dir in
      let people = ApprovalTests.People()
      let store = try base.store(dir, people)
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      // By hand (no reopen record): the content changes after the submission, and the reviewer
      // and officer sign the changed content with records of their own.
      var document = try read(dir)
      document["amount"] = .number(JSONNumber("999.00")!)
      let schema = try #require(store.registry.latest("claim"))
      let content = ApprovalContent.hash(document, schema: schema)
      var records = document["_approvals"]!.arrayValue!
      let submission = try #require(ApprovalRecord(records[0]))
      for (identity, step, role) in [(people.reviewer, "review", "reviewer"), (people.officer, "sign", "officer")] {
        let record = try ApprovalRecord.signed(
          .approve, chain: "approved", step: step, role: role, by: identity, time: "2026-11-27T00:00:00Z",
          comment: nil, content: content, round: submission.signature, kind: "claim", id: "c1")
        records.append(record.json)
      }
      document["_approvals"] = .array(records)
      document["status"] = .string("approved")
      try write(document, dir)
      let found = try base.validate(store)
      #expect(
        found.contains { $0.rule == "approval-chain" && $0.message.contains("changed after it was submitted") },
        "\(found.map(\.compilerStyle))")
    }
  }

  @Test func aReopenedRoundStartsEmptyEvenWhenTheContentComesBack() throws {
    try withTemporaryDirectory { dir in
      let people = ApprovalTests.People()
      let store = try base.store(dir, people, onChange: "reopen")
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      try store.approve(kind: "claim", id: "c1", identity: people.reviewer)
      try store.approve(kind: "claim", id: "c1", identity: people.officer)
      let reopened = try store.update(
        kind: "claim", id: "c1", assignments: [try Assignment("amount=20.00")], voidingApprovals: true)
      #expect(reopened.value["status"] == .string("in_review"))
      // Back to the signed bytes: the old signatures still do not count.
      try store.update(kind: "claim", id: "c1", assignments: [try Assignment("amount=19.99")], voidingApprovals: true)
      do throws(StoreError) {
        _ = try store.transition(kind: "claim", id: "c1", to: "approved")
        Issue.record("a reopened round was approved with the old signatures")
      } catch {
        guard case .invalidDocument(_, let diagnostics) = error else { throw error }
        #expect(diagnostics.contains { $0.rule == "approval-chain" }, "\(diagnostics)")
      }
      #expect(try read(dir)["status"] == .string("in_review"))
      // By hand: the status moved to approved is an error too.
      var document = try read(dir)
      document["status"] = .string("approved")
      try write(document, dir)
      #expect(try base.validate(store).contains { $0.rule == "approval-chain" })
    }
  }

  @Test func recordsCopiedIntoALaterRoundDoNotCount() throws {
    try withTemporaryDirectory { dir in
      let people = ApprovalTests.People()
      let store = try base.store(dir, people, onChange: "reopen")
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      try store.approve(kind: "claim", id: "c1", identity: people.reviewer)
      try store.approve(kind: "claim", id: "c1", identity: people.officer)
      let signed = try read(dir)["_approvals"]!.arrayValue!
      try store.update(kind: "claim", id: "c1", assignments: [try Assignment("amount=20.00")], voidingApprovals: true)
      try store.update(kind: "claim", id: "c1", assignments: [try Assignment("amount=19.99")], voidingApprovals: true)
      // By hand: the whole old round appended again after the reopen record, status approved.
      var document = try read(dir)
      document["_approvals"] = .array(document["_approvals"]!.arrayValue! + signed)
      document["status"] = .string("approved")
      try write(document, dir)
      var found = try base.validate(store)
      #expect(found.contains { $0.rule == "approval" && $0.message.contains("copy of record 0") })
      #expect(found.contains { $0.rule == "approval-chain" })
      // A new round, then the old round's approvals moved into it (no copies left behind).
      try write(try read(dir).removing(appended: signed.count, status: "in_review"), dir)
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      document = try read(dir)
      let moved = Array(signed.dropFirst())
      document["_approvals"] = .array(document["_approvals"]!.arrayValue!.filter { !moved.contains($0) } + moved)
      document["status"] = .string("approved")
      try write(document, dir)
      found = try base.validate(store)
      #expect(found.contains { $0.rule == "approval-order" && $0.message.contains("earlier round") })
      #expect(found.contains { $0.rule == "approval-chain" })
    }
  }

  @Test func submittingAgainInReviewStartsANewRound() throws {
    try withTemporaryDirectory { dir in
      let people = ApprovalTests.People()
      let store = try base.store(dir, people)
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      let before = try readFile(dir + "/data/claims/c1.json")
      // While the round stands, `status in_review` again changes nothing.
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      #expect(try readFile(dir + "/data/claims/c1.json") == before)
      try store.update(kind: "claim", id: "c1", assignments: [try Assignment("amount=5.00")], voidingApprovals: true)
      #expect(
        base.refusal { try store.transition(kind: "claim", id: "c1", to: "in_review") }
          == .submitNeedsIdentity(kind: "claim", state: "in_review"))
      // The reviewer submits the changed content: the reviewer is now the preparer.
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.reviewer)
      #expect(
        base.refusal { _ = try store.approve(kind: "claim", id: "c1", identity: people.reviewer) }
          == .selfApproval(kind: "claim", id: "c1"))
    }
  }
}

extension ApprovalHardeningTests {
  /// A claim store whose claims have a sensitive `secret`, sealed for `holder`; c1 approved.
  func sealedStore(_ dir: String, _ people: ApprovalTests.People, holder: Identity) throws -> Store {
    _ = try base.store(dir, people)
    try writeFile(
      try readFile(dir + "/formsctl.yaml") + "encryption:\n  recipients:\n    - \(holder.recipient)\n",
      to: dir + "/formsctl.yaml")
    try writeFile(
      try readFile(dir + "/schemas/claim/1.0.0.yaml").replacingOccurrences(
        of: "  note: {type: string, optional: true}\n",
        with: "  note: {type: string, optional: true}\n  secret: {type: string, optional: true, sensitive: true}\n"),
      to: dir + "/schemas/claim/1.0.0.yaml")
    let store = try open(dir, holder: holder)
    try store.update(kind: "claim", id: "c1", assignments: [try Assignment("secret=vendor bank account")])
    try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
    try store.approve(kind: "claim", id: "c1", identity: people.reviewer)
    try store.approve(kind: "claim", id: "c1", identity: people.officer)
    return store
  }

  @Test func aMigrationThatMapsAStateIntoAGuardedOneIsRefused() throws {
    try withTemporaryDirectory { dir in
      let people = ApprovalTests.People()
      _ = try base.store(dir, people)
      let first = try Store.open(at: dir)
      try first.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      // A new version whose migration maps in_review to approved: no chain was signed.
      let descriptor =
        try readFile(dir + "/schemas/claim/1.0.0.yaml")
        .replacingOccurrences(of: "version: 1.0.0\n", with: "version: 2.0.0\nfrom: 1.0.0\n")
        + "changes:\n  - map: {field: status, values: {in_review: approved}}\n"
      try writeFile(descriptor, to: dir + "/schemas/claim/2.0.0.yaml")
      let store = try Store.open(at: dir)
      let path = dir + "/data/claims/c1.json"
      let before = try readFile(path)
      do throws(StoreError) {
        _ = try Migrator(store: store).run(.init(snapshot: false))
        Issue.record("a migration moved a form into approved without its chain")
      } catch {
        guard case .migrationFailed(_, let diagnostics) = error else { throw error }
        #expect(diagnostics.contains { $0.rule == "approval-chain" }, "\(diagnostics)")
      }
      #expect(try readFile(path) == before)
    }
  }

  /// The store as a command opens it: its manifest's recipients, `holder`'s identity.
  func open(_ dir: String, holder: Identity) throws -> Store {
    let layout = try StoreLayout(root: dir)
    var configuration = Store.Configuration()
    configuration.user = "test"
    return Store(
      layout: layout, registry: try SchemaRegistry.load(directory: layout.schemasDirectory, display: { $0 }),
      configuration: configuration, keyring: Keyring(recipients: layout.recipients, identity: holder))
  }

  @Test func aResealThatStalesApprovalsIsRefusedNamingThemThenReopensThemThroughTheWritePath() throws {
    try withTemporaryDirectory { dir in
      let people = ApprovalTests.People()
      let holder = Identity.generate()
      let newcomer = Identity.generate()
      let store = try sealedStore(dir, people, holder: holder)
      let path = dir + "/data/claims/c1.json"
      let before = try readFile(path)
      let log = try readFile(dir + "/.formsctl/history.jsonl")
      #expect(try base.validate(store).isEmpty)
      // Refused before anything is written, naming the form.
      #expect(
        base.refusal { _ = try store.reseal("keys add") { $0 + [newcomer.recipient] } }
          == .resealStalesApprovals(operation: "keys add", documents: ["claim c1 (approved)"]))
      #expect(try readFile(path) == before)
      #expect(try readFile(dir + "/.formsctl/history.jsonl") == log)
      #expect(try !readFile(dir + "/formsctl.yaml").contains(newcomer.recipient.description))
      // A dry run lists it.
      let dry = try store.reseal("keys add", dryRun: true) { $0 + [newcomer.recipient] }
      #expect(dry.staleApprovals.map(\.id) == ["c1"] && dry.staleApprovals.first?.reopenedTo == "in_review")
      // With reopen: written through the pipeline, the form back in review, the round ended, and
      // the store still valid (never an approved form whose approvals fail).
      let report = try store.reseal("keys add", reopen: true) { $0 + [newcomer.recipient] }
      #expect(report.staleApprovals.map(\.id) == ["c1"] && report.documents == 1)
      let after = try JSONParser().parse(Array(try readFile(path).utf8))
      #expect(after["status"] == .string("in_review"))
      #expect(ApprovalRecord.Reopen(after["_approvals"]!.arrayValue!.last!) != nil)
      let found = try base.validate(store)
      #expect(found.isEmpty, "\(found.map(\.compilerStyle))")
      let record = try #require(try AuditLog.query(store.layout, AuditLog.Query(kind: "claim", id: "c1")).records.first)
      #expect(record.operation == "keys add")
      #expect(record.json["stale_approvals"]?.arrayValue?.first?["reopened_to"] == .string("in_review"))
      // And it can be approved again: submitted again, then each step signed again.
      let reopened = try open(dir, holder: holder)
      try reopened.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      try reopened.approve(kind: "claim", id: "c1", identity: people.reviewer)
      #expect(try reopened.approve(kind: "claim", id: "c1", identity: people.officer).moved == "approved")
      #expect(try base.validate(reopened).isEmpty)
    }
  }
}

extension JSONValue {
  /// The document without its last `count` approval records, in `status`.
  fileprivate func removing(appended count: Int, status: String) -> JSONValue {
    var document = self
    document["_approvals"] = .array(Array(self["_approvals"]!.arrayValue!.dropLast(count)))
    document["status"] = .string(status)
    return document
  }
}
