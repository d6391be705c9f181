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

/// Approvals through the server: the buttons appear for the roles its identity holds, a signature
/// is the store's, the preparer cannot approve their own form, and a save that would void
/// signatures is refused until the person says so.
struct ServerApprovalTests {
  let preparer = Identity.generate()
  let reviewer = Identity.generate()
  let id = ServerFixture.draftSF1449

  /// The example store with a one-step chain (in_review → approved, signed by a reviewer) and the
  /// SF 1449 filled and submitted by the preparer; a server over it signing as `identity`.
  func fixture(_ dir: String, identity: Identity) throws -> ServerFixture {
    let base = try ServerFixture(dir + "/base")
    try writeFile(
      try readFile(base.root + "/formsctl.yaml") + "roles:\n  reviewer: [\"Rae Reviewer <\(reviewer.signer)>\"]\n",
      to: base.root + "/formsctl.yaml")
    try writeFile(
      try readFile(base.root + "/schemas/form/2.0.0.yaml")
        + "approvals:\n  fills: {by: approved_by, on: approved_on}\n  chains:\n"
        + "    - {from: in_review, to: approved, steps: [{name: review, role: reviewer}]}\n",
      to: base.root + "/schemas/form/2.0.0.yaml")
    let store = try ServerFixture.open(base.root)
    try store.update(
      kind: "form", id: id,
      assignments: [
        try Assignment("form_number=SF 1449"), try Assignment("fields.solicitation_number=36C26026Q0114"),
      ])
    let items = #"[{"item_number": "0001", "description": "Chair", "quantity": 4, "unit": "EA", "unit_price": 10.00}]"#
    try store.update(kind: "form", id: id, assignments: [try Assignment("fields.items=" + items, json: true)])
    try store.transition(kind: "form", id: id, to: "in_review", identity: preparer)
    return try ServerFixture(dir + "/served", identity: identity, copying: base.root)
  }

  @Test func theReviewerApprovesInTheBrowser() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try fixture(dir, identity: reviewer)
      let hash = try fixture.store.read(kind: "form", id: id).contentHash
      try await fixture.test { client in
        let home = try await fixture.get(client, "/")
        #expect(home.text.contains("Waiting for your signature (reviewer)") && home.text.contains("/k/form/\(id)"))
        let page = try await fixture.get(client, "/k/form/\(id)")
        #expect(page.text.contains("Waits for your signature as reviewer"))
        let approved = try await fixture.post(
          client, "/k/form/\(id)/approve", [("_hash", hash), ("decision", "approve"), ("comment", "prices checked")])
        #expect(approved.status == .seeOther, "\(approved.text)")
      }
      let form = try fixture.value("form", id)
      #expect(form["status"] == .string("approved"))
      #expect(form["approved_by"] == .string("Rae Reviewer"))
      #expect(try fixture.lastRecord()?.command == "formsctl serve")
    }
  }

  @Test func thePreparerCannotApproveAndAStaleButtonIsRefused() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try fixture(dir, identity: preparer)
      let hash = try fixture.store.read(kind: "form", id: id).contentHash
      let before = try fixture.bytes("form", id)
      try await fixture.test { client in
        let page = try await fixture.get(client, "/k/form/\(id)")
        #expect(!page.text.contains("Waits for your signature"))
        let own = try await fixture.post(client, "/k/form/\(id)/approve", [("_hash", hash), ("decision", "approve")])
        #expect(own.status == .unprocessableContent)
        let stale = try await fixture.post(client, "/k/form/\(id)/approve", [("_hash", "0"), ("decision", "approve")])
        #expect(stale.status == .conflict)
      }
      #expect(try fixture.bytes("form", id) == before)
    }
  }

  @Test func aSaveThatWouldVoidSignaturesIsRefusedUntilThePersonSaysSo() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try fixture(dir, identity: reviewer)
      let hash = try fixture.store.read(kind: "form", id: id).contentHash
      let before = try fixture.bytes("form", id)
      try await fixture.test { client in
        let refused = try await fixture.post(
          client, "/k/form/\(id)/edit", [("_hash", hash), ("/form_number", "SF 1449 rev"), ("_action", "save")])
        #expect(refused.status == .unprocessableContent)
        #expect(refused.text.contains("name=\"_void\"") && refused.text.contains("value=\"SF 1449 rev\""))
        #expect(try fixture.bytes("form", id) == before)
        let confirmed = try await fixture.post(
          client, "/k/form/\(id)/edit",
          [("_hash", hash), ("/form_number", "SF 1449 rev"), ("_void", "1"), ("_action", "save")])
        #expect(confirmed.status == .seeOther, "\(confirmed.text)")
      }
      let approvals = try fixture.value("form", id)["_approvals"]?.arrayValue ?? []
      #expect(approvals.contains { $0["action"] == .string("reopen") })
    }
  }
}
