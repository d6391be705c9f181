import FormsCore
import FormsTestSupport
import FormsYAML
import Foundation
import Testing

@testable import FormsStore

/// Approval chains: three people (a preparer, a reviewer, an officer), signatures that validate
/// checks, separation of duties, stale approvals, and the refusals of each bad request.
struct ApprovalTests {
  static let descriptor = """
    kind: claim
    version: 1.0.0
    directory: claims
    timestamps:
      updated: changed
    fields:
      id: string
      amount: {type: decimal, min: 0, scale: 2}
      note: {type: string, optional: true}
      changed: {type: datetime, optional: true}
      status: {type: enum, values: [draft, in_review, approved, rejected], default: draft}
    workflow:
      field: status
      transitions:
        draft: [in_review]
        in_review: [approved, rejected]
        rejected: [draft]
        approved: [draft]
    approvals:
      free: [note]
      on_change: ON_CHANGE
      chains:
        - from: in_review
          to: approved
          reject_to: rejected
          steps:
            - {name: review, role: reviewer}
            - {name: sign, role: officer}

    """

  struct People {
    let preparer = Identity.generate()
    let reviewer = Identity.generate()
    let officer = Identity.generate()
  }

  /// A store of claims whose roles name `people`; claim `c1` exists in draft.
  func store(_ dir: String, _ people: People, onChange: String = "refuse") throws -> Store {
    try writeFile(
      """
      formsctl: 1
      roles:
        reviewer: [\(people.reviewer.signer)]
        officer: [\(people.officer.signer), \(people.reviewer.signer)]

      """, to: dir + "/formsctl.yaml")
    try writeFile(
      Self.descriptor.replacingOccurrences(of: "ON_CHANGE", with: onChange), to: dir + "/schemas/claim/1.0.0.yaml")
    var configuration = Store.Configuration()
    configuration.user = "test"
    let store = try Store.open(at: dir, configuration: configuration)
    #expect(store.registry.diagnostics.isEmpty, "\(store.registry.diagnostics.map(\.compilerStyle))")
    try store.create(kind: "claim", assignments: [try Assignment("id=c1"), try Assignment("amount=19.99")])
    return store
  }

  /// The store of ``store(_:_:onChange:)`` with `c1` submitted by the preparer and approved by
  /// the reviewer and the officer.
  func approvedStore(_ dir: String, _ people: People) throws -> Store {
    let store = try store(dir, people)
    try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
    try store.approve(kind: "claim", id: "c1", identity: people.reviewer)
    try store.approve(kind: "claim", id: "c1", identity: people.officer)
    return store
  }

  func validate(_ store: Store) throws -> [Diagnostic] {
    let validator = StoreValidator(layout: store.layout, registry: store.registry, display: { $0 })
    return try validator.validate(try validator.allFiles()).diagnostics
  }

  func refusal(_ body: () throws -> Void) -> Refusal? {
    do { try body() } catch {
      if case .refused(let refusal)? = error as? StoreError { return refusal }
      Issue.record("not a refusal: \(error)")
    }
    return nil
  }

  @Test func aCompleteChainMovesTheDocumentAndValidates() throws {
    try withTemporaryDirectory { dir in
      let people = People()
      let store = try store(dir, people)
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      let first = try store.approve(kind: "claim", id: "c1", comment: "amount checked", identity: people.reviewer)
      #expect(first.record.step == "review" && first.moved == nil && first.waiting == ["sign (1 more officer)"])
      let second = try store.approve(kind: "claim", id: "c1", identity: people.officer)
      #expect(second.record.step == "sign" && second.moved == "approved")
      let stored = try store.read(kind: "claim", id: "c1").value
      #expect(stored["status"] == .string("approved") && stored["_approvals"]?.arrayValue?.count == 3)
      #expect(try validate(store).isEmpty)
      // The audit log names the operations.
      let log = try readFile(dir + "/.formsctl/history.jsonl")
      #expect(log.contains(#""operation":"approve""#))
    }
  }

  @Test func separationOfDutiesAndOrderAreRefusedWithNothingWritten() throws {
    try withTemporaryDirectory { dir in
      let people = People()
      let store = try store(dir, people)
      let path = dir + "/data/claims/c1.json"
      #expect(
        refusal { _ = try store.approve(kind: "claim", id: "c1", identity: people.reviewer) }
          == .notInReview(
            kind: "claim", id: "c1", state: "draft", reviewStates: ["in_review"]))
      #expect(
        refusal { try store.transition(kind: "claim", id: "c1", to: "in_review") }
          == .submitNeedsIdentity(
            kind: "claim", state: "in_review"))
      let toReview = [try Assignment("status=in_review")]
      #expect(
        refusal { _ = try store.update(kind: "claim", id: "c1", assignments: toReview) }
          == .submitUnsigned(kind: "claim", id: "c1", state: "in_review"))
      // Nobody approves by moving the state.
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.reviewer)
      let before = try readFile(path)
      #expect(
        refusal { _ = try store.approve(kind: "claim", id: "c1", identity: people.reviewer) }
          == .selfApproval(
            kind: "claim", id: "c1"))
      #expect(
        refusal { _ = try store.approve(kind: "claim", id: "c1", identity: people.preparer) }
          == .holdsNoRole(signer: people.preparer.signer.description, roles: ["officer", "reviewer"]))
      #expect(
        refusal { _ = try store.approve(kind: "claim", id: "c1", step: "sign", identity: people.officer) }
          == .noStepFor(
            kind: "claim", id: "c1", roles: ["officer"], waiting: ["review (1 more reviewer)", "sign (1 more officer)"])
      )
      #expect(
        refusal { _ = try store.approve(kind: "claim", id: "c1", step: "sing", identity: people.officer) }
          == .unknownStep(
            step: "sing", steps: ["review", "sign"]))
      let toApproved = [try Assignment("status=approved")]
      do throws(StoreError) {
        _ = try store.update(kind: "claim", id: "c1", assignments: toApproved)
        Issue.record("moved into a guarded state without approvals")
      } catch {
        guard case .invalidDocument(_, let diagnostics) = error else { throw error }
        #expect(diagnostics.contains { $0.rule == "approval-chain" }, "\(diagnostics)")
      }
      #expect(try readFile(path) == before)
    }
  }

  @Test func aForgedOrCopiedApprovalIsAnErrorAtItsPlace() throws {
    try withTemporaryDirectory { dir in
      let people = People()
      let store = try store(dir, people)
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      try store.approve(kind: "claim", id: "c1", identity: people.reviewer)
      let path = dir + "/data/claims/c1.json"
      let honest = try readFile(path)
      // By hand: an officer's approval whose signature is not the officer's, and the state moved.
      var document = try JSONParser().parse(Array(honest.utf8))
      var records = document["_approvals"]!.arrayValue!
      var forged = records[1].objectValue!
      forged["step"] = .string("sign")
      forged["role"] = .string("officer")
      forged["signer"] = .string(people.officer.signer.description)
      records.append(.object(forged))
      document["_approvals"] = .array(records)
      document["status"] = .string("approved")
      try writeFile(String(decoding: JSONWriter.canonical(document), as: UTF8.self), to: path)
      let found = try validate(store)
      #expect(found.contains { $0.rule == "approval-signature" && $0.pointer.description == "/_approvals/2/signature" })
      #expect(found.contains { $0.rule == "approval-chain" && $0.pointer.description == "/status" })
      #expect(found.allSatisfy { $0.position != nil })
    }
  }

  /// A person's move into the state a chain guards, before the chain is complete, is refused for
  /// that reason at every door, not for a rule of the state it would reach.
  @Test func aMoveIntoAGuardedStateIsRefusedForTheChainNotTheStatesRules() throws {
    try withTemporaryDirectory { dir in
      let people = People()
      _ = try store(dir, people)
      let rule =
        "rules:\n  - {when: 'status == \"approved\"', require: 'note exists', message: an approved claim has a note}\n"
      try writeFile(
        try readFile(dir + "/schemas/claim/1.0.0.yaml") + rule, to: dir + "/schemas/claim/1.0.0.yaml")
      let store = try Store.open(at: dir, configuration: Store.Configuration())
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      let before = try readFile(dir + "/data/claims/c1.json")
      do throws(StoreError) {
        try store.transition(kind: "claim", id: "c1", to: "approved")
        Issue.record("moved into the guarded state")
      } catch {
        guard case .invalidDocument(_, let diagnostics) = error else {
          Issue.record("refused for another reason: \(error)")
          return
        }
        #expect(diagnostics.map(\.rule) == ["approval-chain"], "\(diagnostics.map(\.message))")
        #expect(diagnostics.first?.message.contains("in_review → approved guards") == true)
      }
      #expect(try readFile(dir + "/data/claims/c1.json") == before)
    }
  }

  @Test func anUnsignedMemberBesideASignedRecordIsAnError() throws {
    try withTemporaryDirectory { dir in
      let people = People()
      let store = try approvedStore(dir, people)
      #expect(try validate(store).isEmpty)
      let path = dir + "/data/claims/c1.json"
      // By hand: a condition added to the officer's signed record, which its signature never covered.
      for extra: (String, JSONValue) in [("conditions", .string("only if the amount halves")), ("step", .bool(true))] {
        var document = try JSONParser().parse(Array(try readFile(path).utf8))
        var records = document["_approvals"]!.arrayValue!
        let honest = records[2]
        var changed = honest.objectValue!
        changed[extra.0] = extra.1
        records[2] = .object(changed)
        document["_approvals"] = .array(records)
        try writeFile(String(decoding: JSONWriter.canonical(document), as: UTF8.self), to: path)
        let found = try validate(store)
        #expect(found.contains { $0.rule == "approval" && $0.pointer.description == "/_approvals/2" }, "\(extra.0)")
        #expect(found.contains { $0.rule == "approval-chain" }, "\(extra.0): the chain is no longer complete")
        records[2] = honest
        document["_approvals"] = .array(records)
        try writeFile(String(decoding: JSONWriter.canonical(document), as: UTF8.self), to: path)
      }
    }
  }

  @Test func anEditThatTakesBackARecordOfApprovalsIsRefused() throws {
    try withTemporaryDirectory { dir in
      let people = People()
      let store = try store(dir, people)
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      try store.approve(kind: "claim", id: "c1", identity: people.reviewer)
      let submitted = try store.read(kind: "claim", id: "c1")
      // A change of submitted content ends the round with a record; changing it back does not revive it.
      try store.update(kind: "claim", id: "c1", assignments: [try Assignment("amount=20.00")], voidingApprovals: true)
      let reopened = try store.update(
        kind: "claim", id: "c1", assignments: [try Assignment("amount=19.99")], voidingApprovals: true)
      let records = try #require(reopened.value["_approvals"]?.arrayValue)
      #expect(records.count == 3)
      // An editor that drops the record that ended the round, or writes back the file as it was
      // before the change, is refused: the old round's approval would count again.
      var dropped = reopened.value
      dropped["_approvals"] = .array(Array(records.prefix(2)))
      var reordered = reopened.value
      reordered["_approvals"] = .array([records[1], records[0], records[2]])
      for (edited, index) in [(dropped, 2), (submitted.value, 2), (reordered, 0)] {
        let refusal = refusal { try store.replace(kind: "claim", id: "c1", original: reopened.bytes, with: edited) }
        #expect(refusal == .approvalsRewritten(kind: "claim", id: "c1", index: index))
      }
      #expect(try store.read(kind: "claim", id: "c1").bytes == reopened.bytes)
      // The officer cannot complete the old round.
      #expect(refusal { try store.approve(kind: "claim", id: "c1", identity: people.officer) } != nil)
    }
  }

  @Test func changedContentMakesApprovalsStale() throws {
    try withTemporaryDirectory { dir in
      let people = People()
      let store = try approvedStore(dir, people)
      // An approval-free field may change; signed content may not (on_change: refuse).
      try store.update(kind: "claim", id: "c1", assignments: [try Assignment("note=filed")])
      let path = dir + "/data/claims/c1.json"
      let before = try readFile(path)
      let amount = [try Assignment("amount=20.00")]
      do throws(StoreError) {
        _ = try store.update(kind: "claim", id: "c1", assignments: amount)
        Issue.record("a change of approved content was written")
      } catch {
        guard case .invalidDocument(_, let diagnostics) = error else { throw error }
        #expect(diagnostics.contains { $0.rule == "approval-chain" && $0.message.contains("stale") }, "\(diagnostics)")
      }
      #expect(try readFile(path) == before)
      // By hand: validate reports the stale approvals.
      try writeFile(before.replacingOccurrences(of: "19.99", with: "20.00"), to: path)
      #expect(try validate(store).contains { $0.rule == "approval-chain" && $0.message.contains("stale") })
    }
  }

  @Test func reopenSendsAChangedDocumentBackToReview() throws {
    try withTemporaryDirectory { dir in
      let people = People()
      let store = try store(dir, people, onChange: "reopen")
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      try store.approve(kind: "claim", id: "c1", identity: people.reviewer)
      try store.approve(kind: "claim", id: "c1", identity: people.officer)
      let amount = [try Assignment("amount=20.00")]
      let changed: Store.Document
      do throws(StoreError) {
        changed = try store.update(kind: "claim", id: "c1", assignments: amount, voidingApprovals: true)
      } catch {
        if case .invalidDocument(_, let diagnostics) = error { Issue.record("\(diagnostics.map(\.compilerStyle))") }
        throw error
      }
      #expect(changed.value["status"] == .string("in_review"))
      #expect(changed.staleApprovals?.records == 3 && changed.staleApprovals?.reopenedTo == "in_review")
      #expect(try validate(store).isEmpty)
      // The reopened round starts empty: the preparer submits again, then both sign again.
      #expect(
        refusal { _ = try store.approve(kind: "claim", id: "c1", identity: people.reviewer) }
          == .submitAgain(kind: "claim", id: "c1", state: "in_review"))
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      try store.approve(kind: "claim", id: "c1", identity: people.reviewer)
      #expect(try store.approve(kind: "claim", id: "c1", identity: people.officer).moved == "approved")
    }
  }

  @Test func aRejectionEndsTheRound() throws {
    try withTemporaryDirectory { dir in
      let people = People()
      let store = try store(dir, people)
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      let rejected = try store.reject(kind: "claim", id: "c1", comment: "wrong amount", identity: people.reviewer)
      #expect(rejected.moved == "rejected")
      #expect(try validate(store).isEmpty)
      try store.transition(kind: "claim", id: "c1", to: "draft")
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      try store.approve(kind: "claim", id: "c1", identity: people.reviewer)
      #expect(try store.approve(kind: "claim", id: "c1", identity: people.officer).moved == "approved")
    }
  }

  @Test func listWhereSelectsTheDocumentsAwaitingARole() throws {
    try withTemporaryDirectory { dir in
      let people = People()
      let store = try store(dir, people)
      try store.create(kind: "claim", assignments: [try Assignment("id=c2"), try Assignment("amount=5.00")])
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      func awaiting(_ role: String) throws -> [String] {
        let query = Store.Query(filters: [try ExpressionParser.parse(#"_awaiting[] == "\#(role)""#)])
        return try store.list(kind: "claim", query: query).documents.map(\.id)
      }
      // Ordered: the reviewer's step comes first; c2 is a draft nobody is asked to approve.
      #expect(try awaiting("reviewer") == ["c1"])
      #expect(try awaiting("officer") == [])
      try store.approve(kind: "claim", id: "c1", identity: people.reviewer)
      #expect(try awaiting("reviewer") == [])
      #expect(try awaiting("officer") == ["c1"])
      try store.approve(kind: "claim", id: "c1", identity: people.officer)
      #expect(try awaiting("officer") == [])
      // The computed member is never answered from the index (no file stores it).
      #expect(store.indexedMembers("claim", paths: [try #require(FilterExpression.Path("_awaiting"))]) == nil)
    }
  }

  @Test func theAuditLogNamesTheStepRoleAndSigner() throws {
    try withTemporaryDirectory { dir in
      let people = People()
      let store = try store(dir, people)
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      try store.approve(kind: "claim", id: "c1", comment: "amount checked", identity: people.reviewer)
      let records = try AuditLog.query(store.layout, AuditLog.Query(kind: "claim", id: "c1")).records
      let approval = try #require(records.first?.approval)
      #expect(approval.action == "approve" && approval.step == "review")
      #expect(approval.role == "reviewer" && approval.comment == "amount checked")
      #expect(approval.signer == people.reviewer.signer.description)
    }
  }

  @Test func movingAnApprovedDocumentIsRefusedWithNothingWritten() throws {
    try withTemporaryDirectory { dir in
      let people = People()
      let store = try store(dir, people)
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      let before = try readFile(dir + "/data/claims/c1.json")
      let refused = refusal { _ = try store.move(kind: "claim", from: "c1", to: "c9") }
      guard case .signedRename(kind: "claim", id: "c1", records: 1)? = refused else {
        Issue.record("\(String(describing: refused))")
        return
      }
      #expect(try readFile(dir + "/data/claims/c1.json") == before)
      #expect(!FileManager.default.fileExists(atPath: dir + "/data/claims/c9.json"))
    }
  }

  @Test func concurrentApprovalsInTwoClonesMergeAsAUnion() throws {
    try withTemporaryDirectory { dir in
      let people = People()
      let store = try store(dir, people)
      try writeFile(
        try readFile(dir + "/schemas/claim/1.0.0.yaml").replacingOccurrences(
          of: "reject_to: rejected\n", with: "reject_to: rejected\n      ordered: false\n"),
        to: dir + "/schemas/claim/1.0.0.yaml")
      let unordered = try Store.open(at: dir)
      try unordered.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      let path = dir + "/data/claims/c1.json"
      let base = try readFile(path)
      // Two clones: the reviewer signs in one, the officer in the other.
      try unordered.approve(kind: "claim", id: "c1", identity: people.reviewer)
      let ours = try readFile(path)
      try writeFile(base, to: path)
      try unordered.approve(kind: "claim", id: "c1", identity: people.officer)
      let theirs = try readFile(path)
      let schema = try #require(unordered.registry.latest("claim"))
      let parse = { (text: String) throws -> JSONValue in try JSONParser().parse(Array(text.utf8)) }
      let merged = ThreeWayMerge(schema: schema).merge(
        base: try parse(base), ours: try parse(ours), theirs: try parse(theirs))
      #expect(merged.conflicts == 0, "\(merged.text)")
      let document = try parse(merged.text)
      #expect(document["_approvals"]?.arrayValue?.count == 3)
      let review = ApprovalReview(document, schema: schema, kind: "claim", id: "c1", roles: unordered.layout.roles)
      #expect(review.findings.isEmpty && review.rounds["approved"]?.isComplete == true, "\(review.findings)")
      _ = store
    }
  }

  @Test func descriptorsAndManifestsWithBadApprovalsAreErrors() throws {
    let bad = Self.descriptor.replacingOccurrences(of: "ON_CHANGE", with: "explode")
      .replacingOccurrences(of: "to: approved\n", with: "to: draft\n")
    let result = DescriptorCompiler.compile(try #require(try YAMLReader().read(Array(bad.utf8))), file: "c.yaml") { _ in
      throw YAMLError(message: "no includes", position: SourcePosition(line: 1, column: 1))
    }
    let messages = result.diagnostics.map(\.message)
    #expect(messages.contains { $0.contains("no transition in_review → draft") }, "\(messages)")
    #expect(messages.contains { $0.contains("on_change is refuse or reopen") }, "\(messages)")
    try withTemporaryDirectory { dir in
      try writeFile("formsctl: 1\nroles:\n  reviewer: [ed25519:nope]\n", to: dir + "/formsctl.yaml")
      try FileManager.default.createDirectory(atPath: dir + "/schemas", withIntermediateDirectories: true)
      #expect(throws: StoreError.self) { _ = try StoreLayout(root: dir) }
    }
  }
}
