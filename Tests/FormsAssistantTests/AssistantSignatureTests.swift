import FormsAssistant
import FormsCore
import FormsStore
import FormsTestSupport
import Foundation
import Testing

/// A store whose claims pass an approval chain: this door never signs, and never voids a signature.
struct AssistantSignatureTests {
  static let descriptor = """
    kind: claim
    version: 1.0.0
    directory: claims
    fields:
      id: string
      amount: {type: decimal, min: 0, scale: 2}
      note: {type: string, optional: true}
      status: {type: enum, values: [draft, in_review, approved, rejected], default: draft}
    workflow:
      field: status
      transitions:
        draft: [in_review]
        in_review: [approved, rejected]
        rejected: [draft]
    approvals:
      free: [note]
      on_change: refuse
      chains:
        - from: in_review
          to: approved
          reject_to: rejected
          steps:
            - {name: review, role: reviewer}

    """

  @Test func aMoveThatNeedsASignatureIsRefused() throws {
    try withTemporaryDirectory { dir in
      let preparer = Identity.generate()
      let reviewer = Identity.generate()
      try writeFile("formsctl: 1\nroles:\n  reviewer: [\(reviewer.signer)]\n", to: dir + "/formsctl.yaml")
      try writeFile(Self.descriptor, to: dir + "/schemas/claim/1.0.0.yaml")
      let store = try openStore(dir)
      try store.create(kind: "claim", assignments: [try Assignment("id=c1"), try Assignment("amount=19.99")])
      try store.create(kind: "claim", assignments: [try Assignment("id=c2"), try Assignment("amount=5.00")])
      try store.transition(kind: "claim", id: "c2", to: "in_review", identity: preparer)
      try store.approve(kind: "claim", id: "c2", identity: reviewer)
      let before = try changes(store).count
      // Even a server that shows sealed values holds no key to sign with.
      let assistant = Assistant(store: store, allowSealed: true)
      for apply in [false, true] {
        let submit = assistant.call(
          "transition",
          arguments: args([
            "kind": .string("claim"), "id": .string("c1"), "to": .string("in_review"), "apply": .bool(apply),
          ]))
        #expect(submit.isError && submit.value["error"]?.stringValue?.contains("signed") == true, "\(submit.value)")
      }
      #expect(try store.read(kind: "claim", id: "c1").value["status"]?.stringValue == "draft")
      let void = assistant.call(
        "update",
        arguments: args([
          "kind": .string("claim"), "id": .string("c2"), "set": .object(JSONObject(["amount": .number(JSONNumber(6))])),
          "apply": .bool(true),
        ]))
      // Approved content changed: refused (the chain's rule), never written with stale signatures.
      #expect(void.isError, "\(void.value)")
      #expect(try changes(store).count == before)
      let free = assistant.call(
        "update",
        arguments: args([
          "kind": .string("claim"), "id": .string("c2"), "set": .object(JSONObject(["note": .string("checked")])),
          "apply": .bool(true),
        ]))
      #expect(!free.isError, "a free field voids nothing: \(free.value)")
      #expect(try changes(store).count == before + 1)
    }
  }
}
