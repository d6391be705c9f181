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
  /// `free` lists the fields outside what a signature covers; `named` names the preparer in `roles:`.
  func fixture(_ dir: String, identity: Identity, free: [String] = [], named: Bool = false) throws -> ServerFixture {
    let base = try ServerFixture(dir + "/base")
    let preparers = named ? "  preparer: [\"Pat Preparer <\(preparer.signer)>\"]\n" : ""
    try writeFile(
      try readFile(base.root + "/formsctl.yaml") + "roles:\n  reviewer: [\"Rae Reviewer <\(reviewer.signer)>\"]\n"
        + preparers,
      to: base.root + "/formsctl.yaml")
    try writeFile(
      try readFile(base.root + "/schemas/form/2.0.0.yaml")
        + "approvals:\n  fills: {by: approved_by, on: approved_on}\n  free: [\(free.joined(separator: ", "))]\n"
        + "  chains:\n"
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

  /// A terminal `set` while the page is open: the Approve button of that page signs nothing (the
  /// store checks the page's hash under the lock); the answer is the form as it is now, the
  /// change named, with buttons that carry the new hash.
  @Test func aButtonOfAPageShownBeforeAChangeSignsNothingAndShowsTheChange() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try fixture(dir, identity: reviewer, free: ["revision"])
      try await fixture.test { client in
        let page = try await fixture.get(client, "/k/form/\(id)")
        let shown = try #require(hiddenValue("_hash", in: page.text))
        // Outside the signed content: the round stays live, so only the page's hash can refuse it.
        try fixture.store.update(kind: "form", id: id, assignments: [try Assignment("revision=QX-9")])
        let before = try fixture.bytes("form", id)
        for decision in ["approve", "reject"] {
          let stale = try await fixture.post(
            client, "/k/form/\(id)/approve", [("_hash", shown), ("decision", decision), ("comment", "ok")])
          #expect(stale.status == .conflict, "\(stale.text)")
          #expect(stale.text.contains("changed since") && stale.text.contains("QX-9"), "\(stale.text)")
          #expect(stale.text.contains("/revision"), "the change is named: \(stale.text)")
          let now = try #require(hiddenValue("_hash", in: stale.text))
          let stored = try fixture.store.read(kind: "form", id: id).contentHash
          #expect(now != shown && now == stored)
        }
        let moved = try await fixture.post(client, "/k/form/\(id)/status", [("_hash", shown), ("state", "rejected")])
        #expect(moved.status == .conflict && moved.text.contains("QX-9"), "\(moved.text)")
        #expect(try fixture.bytes("form", id) == before)
      }
      #expect(try fixture.value("form", id)["status"] == .string("in_review"))
    }
  }

  /// A Move, Approve or Reject that does not say which version of the page it came from is
  /// refused: nothing is signed or moved unseen.
  @Test func aButtonWithoutItsPagesHashIsRefused() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try fixture(dir, identity: reviewer)
      let before = try fixture.bytes("form", id)
      try await fixture.test { client in
        for decision in ["approve", "reject"] {
          let unseen = try await fixture.post(client, "/k/form/\(id)/approve", [("decision", decision)])
          #expect(unseen.status == .badRequest, "\(unseen.text)")
        }
        let move = try await fixture.post(client, "/k/form/\(id)/status", [("state", "rejected")])
        #expect(move.status == .badRequest, "\(move.text)")
      }
      #expect(try fixture.bytes("form", id) == before)
    }
  }

  /// No button moves a form into a state an approval chain guards (only a complete chain reaches
  /// it); a move the store refuses answers with the store's reason, on the form's own page.
  @Test func noMoveIsOfferedIntoAGuardedStateAndARefusedMoveSaysWhy() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try fixture(dir, identity: reviewer)
      let before = try fixture.bytes("form", id)
      try await fixture.test { client in
        let page = try await fixture.get(client, "/k/form/\(id)")
        #expect(!page.text.contains("value=\"approved\""), "\(page.text)")
        let hash = try #require(hiddenValue("_hash", in: page.text))
        let forced = try await fixture.post(client, "/k/form/\(id)/status", [("_hash", hash), ("state", "approved")])
        #expect(forced.status == .unprocessableContent, "\(forced.text)")
        #expect(
          forced.text.contains("in_review → approved guards") && forced.text.contains("1 more reviewer"),
          "\(forced.text)")
        // The way back: the form's page, its buttons with it.
        #expect(forced.text.contains("name=\"decision\" value=\"approve\""), "\(forced.text)")
      }
      #expect(try fixture.bytes("form", id) == before)
    }
  }

  /// The inbox names who submitted a form by the name `roles:` gives them.
  @Test func theInboxNamesTheSubmitterByTheirRolesName() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try fixture(dir, identity: reviewer, named: true)
      try await fixture.test { client in
        let home = try await fixture.get(client, "/")
        #expect(home.text.contains("submitted by Pat Preparer"), "\(home.text)")
        #expect(!home.text.contains(preparer.signer.description))
      }
    }
  }

  /// A save refused because it would void signatures offers one clearly labelled button that
  /// saves the same form (the same hash) and voids them; the form's page hash still guards it.
  @Test func aRefusedSaveOffersSaveAndVoidTheSignatures() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try fixture(dir, identity: reviewer)
      let hash = try fixture.store.read(kind: "form", id: id).contentHash
      try await fixture.test { client in
        let refused = try await fixture.post(
          client, "/k/form/\(id)/edit", [("_hash", hash), ("/form_number", "SF 1449 rev"), ("_action", "save")])
        #expect(refused.status == .unprocessableContent)
        let button = "<button type=\"submit\" name=\"_void\" value=\"1\""
        #expect(refused.text.contains(button) && refused.text.contains("Save and void 1 signature<"), "\(refused.text)")
        #expect(hiddenValue("_hash", in: refused.text) == hash)
        // The button sends the form as it is, with _void=1 and no _action: a save.
        let voided = try await fixture.post(
          client, "/k/form/\(id)/edit", [("_hash", hash), ("/form_number", "SF 1449 rev"), ("_void", "1")])
        #expect(voided.status == .seeOther, "\(voided.text)")
      }
      #expect(try fixture.value("form", id)["form_number"] == .string("SF 1449 rev"))
    }
  }
}
