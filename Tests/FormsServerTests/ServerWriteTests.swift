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

/// Every change through the server is one call of the store's write path, audited as `serve`;
/// a refused one keeps what was typed and says why beside the field; none is ever lost.
struct ServerWriteTests {
  let id = ServerFixture.draftSF1449

  @Test func aSavedFormIsWrittenThroughTheWritePathAndAudited() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try ServerFixture(dir + "/store")
      let hash = try fixture.store.read(kind: "form", id: id).contentHash
      try await fixture.test { client in
        let saved = try await fixture.post(
          client, "/k/form/\(id)/edit",
          [
            ("_hash", hash), ("/fields/naics_code", "337214"), ("/fields/total_amount", "11599.60"),
            ("_action", "save"),
          ])
        #expect(saved.status == .seeOther, "\(saved.text)")
        #expect(saved.headers[.location] == "/k/form/\(id)")
      }
      let value = try fixture.value("form", id)
      #expect(value["fields"]?["naics_code"] == .string("337214"))
      // The decimal's digits as typed: the trailing zero kept.
      #expect(value["fields"]?["total_amount"]?.numberValue?.text == "11599.60")
      let record = try #require(try fixture.lastRecord())
      #expect(record.command == "formsctl serve" && record.user == "Test User" && record.operation == "edit")
    }
  }

  @Test func aRefusedSaveShowsEachDiagnosticBesideItsFieldAndKeepsWhatWasTyped() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try ServerFixture(dir + "/store")
      let before = try fixture.bytes("form", id)
      let hash = try fixture.store.read(kind: "form", id: id).contentHash
      try await fixture.test { client in
        let refused = try await fixture.post(
          client, "/k/form/\(id)/edit",
          [
            ("_hash", hash), ("/fields/naics_code", "12AB"), ("/fields/total_amount", "12,50"),
            ("/fields/solicitation_number", "KEEP-ME-<b>"), ("_action", "save"),
          ])
        #expect(refused.status == .unprocessableContent)
        let html = refused.text
        let naics = try #require(html.range(of: "data-pointer=\"/fields/naics_code\""))
        let next = html[naics.upperBound...].range(of: "<div class=\"field\"")!.lowerBound
        #expect(html[naics.upperBound..<next].contains("field-problems"))
        #expect(html[naics.upperBound..<next].contains("[pattern]"))
        #expect(html.contains("value=\"12AB\"") && html.contains("value=\"12,50\""))
        #expect(html.contains("value=\"KEEP-ME-&lt;b&gt;\""))
      }
      #expect(try fixture.bytes("form", id) == before)
    }
  }

  @Test func aSaveOverAChangedDocumentIsAConflictShowingBothVersions() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try ServerFixture(dir + "/store")
      let hash = try fixture.store.read(kind: "form", id: id).contentHash
      // Another writer (a terminal) changes the form after the page was rendered.
      try fixture.store.update(kind: "form", id: id, assignments: [try Assignment("form_number=FROM-TERMINAL")])
      let theirs = try fixture.bytes("form", id)
      try await fixture.test { client in
        let conflict = try await fixture.post(
          client, "/k/form/\(id)/edit", [("_hash", hash), ("/form_number", "FROM-BROWSER"), ("_action", "save")])
        #expect(conflict.status == .conflict)
        #expect(conflict.text.contains("FROM-TERMINAL") && conflict.text.contains("FROM-BROWSER"))
        // The form again, over the version stored now: saving it is a decision made having seen both.
        let fresh = try #require(hiddenValue("_hash", in: conflict.text))
        #expect(fresh == (try fixture.store.read(kind: "form", id: id)).contentHash)
        #expect(try fixture.bytes("form", id) == theirs)
        let again = try await fixture.post(
          client, "/k/form/\(id)/edit", [("_hash", fresh), ("/form_number", "FROM-BROWSER"), ("_action", "save")])
        #expect(again.status == .seeOther)
      }
      #expect(try fixture.value("form", id)["form_number"] == .string("FROM-BROWSER"))
    }
  }

  @Test func rowsAreAddedAndRemovedWithoutSaving() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try ServerFixture(dir + "/store")
      let before = try fixture.bytes("form", id)
      let hash = try fixture.store.read(kind: "form", id: id).contentHash
      try await fixture.test { client in
        let added = try await fixture.post(
          client, "/k/form/\(id)/edit",
          [
            ("_hash", hash), ("/fields/items#list", ""), ("/fields/solicitation_number", "S-1"),
            ("_action", "add /fields/items"),
          ])
        #expect(added.status == .ok)
        #expect(added.text.contains("name=\"/fields/items/0/item_number\""))
        #expect(added.text.contains("value=\"S-1\""))
        let saved = try await fixture.post(
          client, "/k/form/\(id)/edit",
          [
            ("_hash", hash), ("/fields/items#list", ""), ("/fields/items/0#row", ""),
            ("/fields/items/0/item_number", "0001"), ("/fields/items/0/description", "Chair"),
            ("/fields/items/0/quantity", "4"), ("/fields/items/0/unit", "EA"), ("/fields/items/0/unit_price", "10.00"),
            ("_action", "save"),
          ])
        #expect(saved.status == .seeOther, "\(saved.text)")
        let items = try fixture.value("form", id)["fields"]?["items"]?.arrayValue
        #expect(items?.count == 1 && items?.first?["unit_price"]?.numberValue?.text == "10.00")
        let fresh = try fixture.store.read(kind: "form", id: id).contentHash
        let removed = try await fixture.post(
          client, "/k/form/\(id)/edit",
          [("_hash", fresh), ("/fields/items#list", ""), ("_action", "save")])
        #expect(removed.status == .seeOther)
        #expect(try fixture.value("form", id)["fields"]?["items"]?.arrayValue?.isEmpty == true)
      }
      #expect(try fixture.bytes("form", id) != before)
    }
  }

  @Test func aNewDocumentIsCreatedFromTheFormOrATemplate() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try ServerFixture(dir + "/store")
      try await fixture.test { client in
        let made = try await fixture.post(
          client, "/k/acquisition/new",
          [("/id", "ACQ-2026-777"), ("/title", "Standing desks"), ("/agency", "GSA"), ("_action", "save")])
        #expect(made.status == .seeOther, "\(made.text)")
        #expect(made.headers[.location] == "/k/acquisition/ACQ-2026-777")
        let missing = try await fixture.post(
          client, "/k/acquisition/new", [("/id", "ACQ-2026-778"), ("_action", "save")])
        #expect(missing.status == .unprocessableContent)
        #expect(missing.text.contains("missing required field"))
        #expect(missing.text.contains("value=\"ACQ-2026-778\""))
        let duplicate = try await fixture.post(
          client, "/k/acquisition/new",
          [("/id", "ACQ-2026-777"), ("/title", "Again"), ("/agency", "GSA"), ("_action", "save")])
        #expect(duplicate.status == .unprocessableContent)
        let template = try await fixture.post(
          client, "/k/form/new",
          [
            ("_template", "sf30-amendment"), ("/acquisition_id", "ACQ-2026-001"), ("/form_number", "SF 30"),
            ("/fields/amendment_number", "0001"), ("/fields/description_of_change", "Extends the due date"),
            ("_action", "save"),
          ])
        #expect(template.status == .seeOther, "\(template.text)")
      }
      #expect(try fixture.value("acquisition", "ACQ-2026-777")["title"] == .string("Standing desks"))
      #expect(try fixture.lastRecord()?.command == "formsctl serve")
    }
  }

  @Test func workflowDeleteAndRenameGoThroughTheWritePath() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try ServerFixture(dir + "/store")
      let hash = try fixture.store.read(kind: "form", id: id).contentHash
      try await fixture.test { client in
        let notNext = try await fixture.post(client, "/k/form/\(id)/status", [("_hash", hash), ("state", "approved")])
        #expect(notNext.status == .unprocessableContent)
        let stale = try await fixture.post(client, "/k/form/\(id)/status", [("_hash", "0"), ("state", "in_review")])
        #expect(stale.status == .conflict)
        let renamePlan = Pages.fingerprint(
          try fixture.store.planMove(kind: "acquisition", from: "ACQ-2026-002", to: "ACQ-2026-902"))
        let stalePlan = try await fixture.post(
          client, "/k/acquisition/ACQ-2026-002/rename", [("to", "ACQ-2026-902"), ("_plan", "0")])
        #expect(stalePlan.status == .conflict && stalePlan.text.contains("This is the plan now"))
        let rename = try await fixture.post(
          client, "/k/acquisition/ACQ-2026-002/rename", [("to", "ACQ-2026-902"), ("_plan", renamePlan)])
        #expect(rename.status == .seeOther)
        let badRename = try await fixture.post(client, "/k/acquisition/ACQ-2026-902/rename", [("to", "../x")])
        #expect(badRename.status == .unprocessableContent)
        // The plan the person saw, then a form added to the acquisition: the delete is refused.
        let page = try await fixture.get(client, "/k/acquisition/ACQ-2026-902/delete")
        let seen = try #require(hiddenValue("_plan", in: page.text))
        try fixture.store.create(
          kind: "form", assignments: [try Assignment("form_type=SF30"), try Assignment("acquisition_id=ACQ-2026-902")])
        let changed = try await fixture.post(client, "/k/acquisition/ACQ-2026-902/delete", [("_plan", seen)])
        #expect(changed.status == .conflict)
        let now = try #require(hiddenValue("_plan", in: changed.text))
        let delete = try await fixture.post(client, "/k/acquisition/ACQ-2026-902/delete", [("_plan", now)])
        #expect(delete.status == .seeOther)
        let approve = try await fixture.post(client, "/k/form/\(id)/approve", [("decision", "approve")])
        #expect(approve.status == .forbidden)
      }
      #expect(!FileManager.default.fileExists(atPath: dir + "/store/data/acquisitions/ACQ-2026-902.json"))
      #expect(try fixture.value("form", id)["status"] == .string("draft"))
      #expect(try fixture.lastRecord()?.operation == "rm")
    }
  }
}

extension ServerWriteTests {
  /// The plan a person (or an assistant) saw is checked again under the lock: a dependant that
  /// came meanwhile refuses the deletion, and nothing is deleted; the same plan goes through.
  @Test func aDeletionOrRenameExpectingAPlanIsRefusedWhenThePlanChanged() throws {
    try withTemporaryDirectory { dir in
      let fixture = try ServerFixture(dir + "/store")
      let store = fixture.store
      let seen = try store.planDelete(kind: "acquisition", id: "ACQ-2026-002")
      try store.create(
        kind: "form", assignments: [try Assignment("form_type=SF30"), try Assignment("acquisition_id=ACQ-2026-002")])
      #expect(throws: StoreError.self) { try store.delete(kind: "acquisition", id: "ACQ-2026-002", expecting: seen) }
      #expect(try store.read(kind: "acquisition", id: "ACQ-2026-002").id == "ACQ-2026-002")
      let rename = try store.planMove(kind: "acquisition", from: "ACQ-2026-002", to: "ACQ-2026-802")
      try store.move(kind: "acquisition", from: "ACQ-2026-002", to: "ACQ-2026-802", expecting: rename)
      let now = try store.planDelete(kind: "acquisition", id: "ACQ-2026-802")
      try store.delete(kind: "acquisition", id: "ACQ-2026-802", expecting: now)
      #expect(throws: StoreError.self) { try store.read(kind: "acquisition", id: "ACQ-2026-802") }
    }
  }

  /// New from a template is held to the store's rule: a placeholder left empty is refused, as
  /// `new --template` refuses it, with the form kept as typed; nothing is written.
  @Test func aTemplatesPlaceholderLeftEmptyIsRefusedAsTheStoreRefusesIt() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try ServerFixture(dir + "/store")
      let forms = try fixture.store.list(kind: "form", query: Store.Query()).documents.count
      try await fixture.test { client in
        let unfilled = try await fixture.post(
          client, "/k/form/new",
          [
            ("_template", "sf30-amendment"), ("/acquisition_id", "ACQ-2026-001"), ("/form_number", "SF 30"),
            ("/fields/amendment_number", "0001"), ("/fields/description_of_change", ""), ("_action", "save"),
          ])
        #expect(unfilled.status == .unprocessableContent, "\(unfilled.text)")
        #expect(unfilled.text.contains("leaves {{what changes}} at fields.description_of_change"), "\(unfilled.text)")
        #expect(unfilled.text.contains("value=\"0001\""))
      }
      #expect(try fixture.store.list(kind: "form", query: Store.Query()).documents.count == forms)
    }
  }
}
