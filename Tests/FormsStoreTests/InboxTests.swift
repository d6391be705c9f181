import FormsCore
import FormsTestSupport
import Foundation
import Testing

@testable import FormsStore

/// `Store.inbox(for:)`: what waits for a signer, across kinds, oldest submission first; never
/// their own submission, a round they signed, a step out of order, or a round that ended.
struct InboxTests {
  let approvals = ApprovalTests()

  /// The store of ``ApprovalTests/store(_:_:onChange:)``, opened again on a clock of its own.
  func opened(_ dir: String, at time: String) throws -> Store {
    var configuration = Store.Configuration()
    configuration.user = "test"
    let now = Date(timeIntervalSince1970: TimeInterval(try #require(Instant(time)).seconds))
    configuration.now = { now }
    return try Store.open(at: dir, configuration: configuration)
  }

  func ids(_ store: Store, _ person: Identity) throws -> [String] {
    try store.inbox(for: person).items.map { "\($0.id) \($0.step)" }
  }

  @Test func eachSignerSeesWhatWaitsForThemOldestFirst() throws {
    try withTemporaryDirectory { dir in
      let people = ApprovalTests.People()
      let store = try approvals.store(dir, people)
      #expect(try ids(store, people.reviewer).isEmpty)
      #expect(try store.inbox(for: people.reviewer).roles == ["officer", "reviewer"])
      try store.create(kind: "claim", assignments: [try Assignment("id=c2"), try Assignment("amount=5.00")])
      // c1 is submitted after c2: c2 has waited longer, and comes first whatever the ids say.
      try opened(dir, at: "2026-11-02T09:00:00Z").transition(
        kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      try opened(dir, at: "2026-11-01T09:00:00Z").transition(
        kind: "claim", id: "c2", to: "in_review", identity: people.preparer)
      let inbox = try store.inbox(for: people.reviewer)
      #expect(inbox.items.map(\.id) == ["c2", "c1"])
      #expect(inbox.items.first?.since == "2026-11-01T09:00:00Z")
      #expect(inbox.items.first?.submittedBy == people.preparer.signer.description)
      #expect(inbox.items.allSatisfy { $0.kind == "claim" && $0.state == "in_review" && $0.role == "reviewer" })
      // The chain is ordered: the officer's step waits for the review.
      #expect(try ids(store, people.officer).isEmpty)
      // The preparer holds no role: nothing waits for them, and the report says why.
      let own = try store.inbox(for: people.preparer)
      #expect(own.items.isEmpty && own.roles.isEmpty)
      #expect(own.report(display: { $0 }).notes.first?.contains("no role") == true)

      try store.approve(kind: "claim", id: "c1", identity: people.reviewer)
      #expect(try ids(store, people.officer) == ["c1 sign"])
      // The reviewer also holds the officer's role, but signed this round already.
      #expect(try ids(store, people.reviewer) == ["c2 review"])
      try store.approve(kind: "claim", id: "c1", identity: people.officer)
      #expect(try ids(store, people.officer).isEmpty, "approved: nothing waits any more")
    }
  }

  /// Who submitted a form is named as `roles:` names them; a key no one named, by its first characters.
  @Test func theSubmitterIsNamedAsRolesNamesThem() throws {
    try withTemporaryDirectory { dir in
      let people = ApprovalTests.People()
      let store = try approvals.store(dir, people)
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      let unnamed = try store.inbox(for: people.reviewer).report(display: { $0 })
      #expect(unnamed.rows.first?[5] == people.preparer.signer.short)
      try writeFile(
        try readFile(dir + "/formsctl.yaml") + "  preparer: [\"Pat Preparer <\(people.preparer.signer)>\"]\n",
        to: dir + "/formsctl.yaml")
      let named = try opened(dir, at: "2026-11-03T09:00:00Z").inbox(for: people.reviewer).report(display: { $0 })
      #expect(named.rows.first?[5] == "Pat Preparer", "\(named.rows)")
    }
  }

  @Test func aRoundThatEndedOrWasRejectedWaitsForNoOne() throws {
    try withTemporaryDirectory { dir in
      let people = ApprovalTests.People()
      let store = try approvals.store(dir, people)
      try store.create(kind: "claim", assignments: [try Assignment("id=c2"), try Assignment("amount=5.00")])
      for id in ["c1", "c2"] { try store.transition(kind: "claim", id: id, to: "in_review", identity: people.preparer) }
      // A change of signed content ends c1's round: it must be submitted again.
      try store.update(kind: "claim", id: "c1", assignments: [try Assignment("amount=20.00")], voidingApprovals: true)
      // A free field does not.
      try store.update(kind: "claim", id: "c2", assignments: [try Assignment("note=checked")])
      #expect(try ids(store, people.reviewer) == ["c2 review"])
      try store.reject(kind: "claim", id: "c2", identity: people.reviewer)
      #expect(try ids(store, people.reviewer).isEmpty)
    }
  }

  @Test func aFileThatCannotBeReadIsNamedNotJudged() throws {
    try withTemporaryDirectory { dir in
      let people = ApprovalTests.People()
      let store = try approvals.store(dir, people)
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      try writeFile("{\"id\": \"c9\", ", to: dir + "/data/claims/c9.json")
      let inbox = try store.inbox(for: people.reviewer)
      #expect(inbox.items.map(\.id) == ["c1"])
      #expect(inbox.skipped.map { FilePath($0.path).name } == ["c9.json"])
    }
  }

  @Test func aStepApproveWouldRefuseIsNamedNotListed() throws {
    try withTemporaryDirectory { dir in
      let people = ApprovalTests.People()
      let stranger = Identity.generate()
      // The store of ApprovalTests, with a third reviewer who signs and then leaves the role.
      let store = try approvals.store(dir, people)
      let manifest = try readFile(dir + "/formsctl.yaml")
      try writeFile(
        manifest.replacingOccurrences(
          of: "reviewer: [\(people.reviewer.signer)]", with: "reviewer: [\(people.reviewer.signer), \(stranger.signer)]"
        ),
        to: dir + "/formsctl.yaml")
      let withStranger = try opened(dir, at: "2026-11-02T09:00:00Z")
      try withStranger.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      try withStranger.approve(kind: "claim", id: "c1", identity: stranger)
      try writeFile(manifest, to: dir + "/formsctl.yaml")
      // The stranger's review no longer counts (not a reviewer now), so the review step looks open
      // to the reviewer; but approve judges the whole document and refuses it.
      let after = try opened(dir, at: "2026-11-03T09:00:00Z")
      #expect(
        storeError { _ = try after.approve(kind: "claim", id: "c1", identity: people.reviewer) }?.kind == .badInput)
      let inbox = try after.inbox(for: people.reviewer)
      #expect(inbox.items.isEmpty)
      #expect(inbox.blocked.map(\.item.id) == ["c1"] && inbox.blocked.first?.item.step == "review")
      #expect(try store.inbox(for: people.officer).items.isEmpty)
    }
  }

  @Test func anInterruptedOperationIsRecoveredFirst() throws {
    try withTemporaryDirectory { dir in
      let people = ApprovalTests.People()
      let store = try approvals.store(dir, people)
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      let armed = FaultInjection.arm(FilePath(dir), fault: .init(call: .rename, nth: 1, persistent: true))
      let error = storeError { _ = try store.update(kind: "claim", id: "c1", assignments: [try Assignment("note=x")]) }
      armed.disarm()
      #expect(error?.kind == .tryAgain)
      #expect(storeError { _ = try store.inbox(for: people.reviewer) }?.kind == .tryAgain, "exit 75, as approve")
      _ = try Store.recover(store.layout, wait: 1)
      #expect(try ids(store, people.reviewer) == ["c1 review"])
    }
  }
}
