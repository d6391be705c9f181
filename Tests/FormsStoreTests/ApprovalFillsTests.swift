import FormsCore
import FormsTestSupport
import FormsYAML
import Foundation
import Testing

@testable import FormsStore

/// The signature is the approval: the approval that completes a chain fills in who approved
/// (the signer's name beside their key in `roles:`) and when (`approvals: fills:`), fields that
/// no signature covers, so typing them during review voids nothing.
struct ApprovalFillsTests {
  static let descriptor = ApprovalTests.descriptor
    .replacingOccurrences(
      of: "  changed: {type: datetime, optional: true}\n",
      with: "  changed: {type: datetime, optional: true}\n  approved_by: {type: string, optional: true}\n"
        + "  approved_on: {type: date, optional: true}\n"
    )
    .replacingOccurrences(of: "  on_change: ON_CHANGE\n", with: "  on_change: refuse\n  fills: FILLS\n")

  func store(_ dir: String, _ people: ApprovalTests.People, fills: String = "{by: approved_by, on: approved_on}")
    throws -> Store
  {
    try writeFile(
      """
      formsctl: 1
      roles:
        reviewer: ["Rae Reviewer <\(people.reviewer.signer)>"]
        officer: ["Cory Diaz <\(people.officer.signer)>", "Rae Reviewer <\(people.reviewer.signer)>"]

      """, to: dir + "/formsctl.yaml")
    try writeFile(
      Self.descriptor.replacingOccurrences(of: "FILLS", with: fills), to: dir + "/schemas/claim/1.0.0.yaml")
    var configuration = Store.Configuration()
    configuration.user = "test"
    let now = Date(timeIntervalSince1970: TimeInterval(try #require(Instant("2026-11-24T15:30:00Z")).seconds))
    configuration.now = { now }
    let store = try Store.open(at: dir, configuration: configuration)
    try store.create(kind: "claim", assignments: [try Assignment("id=c1"), try Assignment("amount=19.99")])
    return store
  }

  @Test func theCompletingApprovalFillsInWhoAndWhen() throws {
    try withTemporaryDirectory { dir in
      let people = ApprovalTests.People()
      let store = try store(dir, people)
      #expect(store.layout.signerNames[people.officer.signer] == "Cory Diaz")
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      try store.approve(kind: "claim", id: "c1", identity: people.reviewer)
      // Typed during review: free, so the review stands (nothing stale), and replaced at the end.
      let typed = try store.update(kind: "claim", id: "c1", assignments: [try Assignment("approved_by=someone")])
      #expect(typed.staleApprovals == nil)
      #expect(try store.read(kind: "claim", id: "c1").value["approved_on"] == nil, "not before the chain completes")
      let outcome = try store.approve(kind: "claim", id: "c1", identity: people.officer)
      #expect(outcome.moved == "approved")
      let approved = try store.read(kind: "claim", id: "c1").value
      #expect(approved["approved_by"] == .string("Cory Diaz"))
      #expect(approved["approved_on"] == .string("2026-11-24"))
      #expect(try ApprovalTests().validate(store).isEmpty)
    }
  }

  @Test func aSignerWithoutANameIsNamedByTheirKey() throws {
    try withTemporaryDirectory { dir in
      let people = ApprovalTests.People()
      let store = try store(dir, people, fills: "{by: approved_by}")
      let manifest = try readFile(dir + "/formsctl.yaml")
      try writeFile(
        manifest.replacingOccurrences(of: "\"Cory Diaz <\(people.officer.signer)>\"", with: "\(people.officer.signer)"),
        to: dir + "/formsctl.yaml")
      let reopened = try Store.open(at: dir)
      try reopened.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      try reopened.approve(kind: "claim", id: "c1", identity: people.reviewer)
      try reopened.approve(kind: "claim", id: "c1", identity: people.officer)
      let approved = try reopened.read(kind: "claim", id: "c1").value
      #expect(approved["approved_by"] == .string(people.officer.signer.description))
      #expect(approved["approved_on"] == nil)
      _ = store
    }
  }

  @Test(arguments: [
    ("{by: nothing}", "\"nothing\" is not a top-level field"),
    ("{by: status}", "the workflow's field is moved by approvals, not filled"),
    ("{by: amount}", "fills: by: \"amount\" is a decimal; it must be a string"),
    ("{on: amount}", "fills: on: \"amount\" is a decimal; it must be a date or datetime or string"),
    ("{when: approved_on}", "when"),
    ("approved_by", "fills takes {by: FIELD, on: FIELD}"),
    ("{by: note, on: note}", "by and on name the same field \"note\""),
    ("{on: changed}", "\"changed\" is a timestamp the store keeps"),
    ("{by: id}", "\"id\" must be optional"),
  ])
  func badFillsAreDescriptorErrors(_ fills: String, _ expected: String) throws {
    let text = Self.descriptor.replacingOccurrences(of: "FILLS", with: fills)
    let result = DescriptorCompiler.compile(try #require(try YAMLReader().read(Array(text.utf8))), file: "c.yaml") {
      _ in
      throw YAMLError(message: "no includes", position: SourcePosition(line: 1, column: 1))
    }
    let messages = result.diagnostics.map(\.message)
    #expect(messages.contains { $0.contains(expected) }, "\(messages)")
  }

  @Test func aFilledFieldIsFree() throws {
    let text = Self.descriptor.replacingOccurrences(of: "FILLS", with: "{by: approved_by, on: approved_on}")
    let result = DescriptorCompiler.compile(try #require(try YAMLReader().read(Array(text.utf8))), file: "c.yaml") {
      _ in
      throw YAMLError(message: "no includes", position: SourcePosition(line: 1, column: 1))
    }
    #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.message))")
    let approvals = try #require(result.schema?.approvals)
    #expect(approvals.free == ["note", "approved_by", "approved_on"])
    #expect(approvals.fills == Schema.Approvals.Fills(by: "approved_by", on: "approved_on"))
  }

  @Test(arguments: [
    ("reviewer: [\"A <KEY>\", \"B <KEY>\"]", "is listed twice"),
    ("reviewer: [\"A <KEY>\"]\n  officer: [\"B <KEY>\"]", "is named \"A\" and \"B\""),
    ("reviewer: [\"A\\u0007 <KEY>\"]", "no control or format characters"),
    ("reviewer: [\"A <nope>\"]", "nope"),
    ("reviewer: [\"Cory <ed25519:AAAA> <KEY>\"]", "no < or >"),
    ("reviewer: [\"Cory\u{2028}Diaz <KEY>\"]", "no control or format characters"),
    ("reviewer: [\"Cory\u{202E}Diaz <KEY>\"]", "no control or format characters"),
    ("reviewer: [\"OTHER <KEY>\"]", "no < or >, no key"),
    ("reviewer: [\"Rae <KEY>\", \"rae <KEY2>\"]", "names both"),
  ])
  func badSignerNamesAreManifestErrors(_ roles: String, _ expected: String) throws {
    let key = Identity.generate().signer.description
    let text =
      "formsctl: 1\nroles:\n  "
      + roles.replacingOccurrences(of: "KEY2", with: Identity.generate().signer.description)
      .replacingOccurrences(of: "KEY", with: key).replacingOccurrences(
        of: "OTHER", with: Identity.generate().signer.description) + "\n"
    let error = storeError { _ = try StoreLayout.roles(inManifest: Array(text.utf8), shown: "formsctl.yaml") }
    #expect(error?.description.contains(expected) == true, "\(String(describing: error))")
  }

  @Test func aChangeThatVoidsSignaturesIsToldBeforeItIsWritten() throws {
    try withTemporaryDirectory { dir in
      let people = ApprovalTests.People()
      let store = try store(dir, people)
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      let path = dir + "/data/claims/c1.json"
      let before = try readFile(path)
      let refused = storeError {
        _ = try store.update(
          kind: "claim", id: "c1", assignments: [try Assignment("amount=20.00")], voidingApprovals: false)
      }
      guard case .refused(.wouldVoidApprovals(let stale))? = refused else {
        Issue.record("expected wouldVoidApprovals, got \(String(describing: refused))")
        return
      }
      #expect(stale.id == "c1" && stale.records == 1)
      #expect(try readFile(path) == before, "nothing written")
      // A free field voids nothing, and is written.
      let noted = try store.update(
        kind: "claim", id: "c1", assignments: [try Assignment("note=ok")], voidingApprovals: false)
      #expect(noted.staleApprovals == nil)
      // An edit: refused, its text kept; resumed with voidingApprovals, written.
      let edited = storeError {
        _ = try store.edit(kind: "claim", id: "c1", voidingApprovals: false) { file in
          let text = (try? readFile(file)) ?? ""
          do { try writeFile(text.replacingOccurrences(of: "19.99", with: "21.00"), to: file) } catch { return 1 }
          return 0
        }
      }
      guard case .editKept(.refused(.wouldVoidApprovals), let kept, _, _)? = edited else {
        Issue.record("expected the edit kept, got \(String(describing: edited))")
        return
      }
      #expect(try readFile(path).contains("19.99"))
      let resumed = try store.edit(kind: "claim", id: "c1", resuming: kept, voidingApprovals: true) { _ in 0 }
      guard case .saved(let document) = resumed else {
        Issue.record("expected saved, got \(resumed)")
        return
      }
      #expect(document.staleApprovals?.records == 1)
      #expect(try readFile(path).contains("21.00"))
    }
  }

  @Test func whatTheApprovalFilledStaysAsItFilledIt() throws {
    try withTemporaryDirectory { dir in
      let people = ApprovalTests.People()
      let store = try store(dir, people)
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      try store.approve(kind: "claim", id: "c1", identity: people.reviewer)
      try store.approve(kind: "claim", id: "c1", identity: people.officer)
      for assignment in ["approved_by=Rae Reviewer", "approved_on=2020-01-01", "approved_by-"] {
        let error = storeError {
          _ = try store.update(kind: "claim", id: "c1", assignments: [try Assignment(assignment)])
        }
        guard case .refused(.filledByApproval(_, _, let field, let state))? = error else {
          Issue.record("\(assignment): expected filledByApproval, got \(String(describing: error))")
          continue
        }
        #expect(state == "approved" && assignment.hasPrefix(field))
      }
      #expect(try store.read(kind: "claim", id: "c1").value["approved_by"] == .string("Cory Diaz"))
    }
  }

  @Test func aMoveOutOfReviewOverALiveRoundIsAskedFor() throws {
    try withTemporaryDirectory { dir in
      let people = ApprovalTests.People()
      let store = try store(dir, people)
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      try store.approve(kind: "claim", id: "c1", identity: people.reviewer)
      let moved = storeError {
        _ = try store.transition(kind: "claim", id: "c1", to: "rejected", voidingApprovals: false)
      }
      guard case .refused(.leavesReview(_, _, "in_review", "rejected"))? = moved else {
        Issue.record("expected leavesReview, got \(String(describing: moved))")
        return
      }
      let set = storeError {
        _ = try store.update(
          kind: "claim", id: "c1", assignments: [try Assignment("status=rejected")], voidingApprovals: false)
      }
      #expect(set == moved)
      #expect(try store.read(kind: "claim", id: "c1").value["status"] == .string("in_review"))
      // Into the guarded state over a complete round is what the round was for: not refused.
      try store.approve(kind: "claim", id: "c1", identity: people.officer)
      #expect(try store.read(kind: "claim", id: "c1").value["status"] == .string("approved"))
      try store.create(kind: "claim", assignments: [try Assignment("id=c2"), try Assignment("amount=1.00")])
      try store.transition(kind: "claim", id: "c2", to: "in_review", identity: people.preparer)
      // Asked for, it moves; a signed rejection never needed asking.
      #expect(
        try store.transition(kind: "claim", id: "c2", to: "rejected", voidingApprovals: true).value["status"]
          == .string("rejected"))
    }
  }
}
