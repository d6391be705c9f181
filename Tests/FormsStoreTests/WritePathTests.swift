import FormsCore
import FormsTestSupport
import Foundation
import Testing

@testable import FormsStore

/// The single write path (docs/design.md §12), through the library as an app would use it.
struct WritePathTests {
  @Test func aPersonCannotMoveAFormBackAlongNoTransition() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir)
      try fixture.acquisition()
      let id = try fixture.form(state: "in_review")
      let before = try fixture.bytes("form", id)
      let refusal = storeError {
        try fixture.store.update(kind: "form", id: id, assignments: [try Assignment("status=draft")])
      }
      #expect(
        refusal
          == .refused(
            .transition(
              kind: "form", id: id, field: "status", from: "in_review", to: "draft", allowed: ["approved", "rejected"],
              strict: false)))
      #expect(
        refusal?.description == "form \(id) is in_review; it cannot move to draft. Allowed next: approved, rejected")
      #expect(refusal?.kind == .badInput)
      #expect(try fixture.bytes("form", id) == before, "nothing written")
      // edit's path: the whole document replaced
      var edited = try fixture.read("form", id)
      edited["status"] = .string("draft")
      #expect(storeError { try fixture.store.replace(kind: "form", id: id, original: before, with: edited) } == refusal)
      // an allowed move goes through, by set as by status
      try fixture.store.update(kind: "form", id: id, assignments: [try Assignment("status=approved")])
      #expect(try fixture.read("form", id)["status"] == .string("approved"))
      #expect(
        storeError { try fixture.store.transition(kind: "form", id: id, to: "rejected") }?
          .description == "form \(id) is approved; it cannot move to rejected. Allowed next: none (approved is final)")
    }
  }

  @Test func anEditAlongNoTransitionReopensWithTheRefusal() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir)
      try fixture.acquisition()
      var shown: [String] = []
      let outcome = try fixture.store.edit(kind: "acquisition", id: "ACQ-2026-001") { path in
        let text = try! readFile(path)
        shown.append(text)
        let (from, to) = shown.count == 1 ? ("planning", "awarded") : ("awarded", "solicitation")
        try! writeFile(Store.stripHeader(text).replacingOccurrences(of: "\"\(from)\"", with: "\"\(to)\""), to: path)
        return 0
      }
      guard case .saved(let document) = outcome else {
        Issue.record("\(outcome)")
        return
      }
      #expect(document.value["status"] == .string("solicitation"))
      #expect(shown.count == 2)
      #expect(
        shown[1].contains(
          "#   acquisition ACQ-2026-001 is planning; it cannot move to awarded. Allowed next: solicitation, cancelled\n"
        ))
    }
  }

  @Test func aWorkflowValueOutsideTheEnumIsAValidationError() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir)
      try fixture.acquisition()
      let id = try fixture.form()
      let error = storeError { try fixture.store.transition(kind: "form", id: id, to: "bogus") }
      guard case .invalidDocument(_, let diagnostics)? = error else {
        Issue.record("\(String(describing: error))")
        return
      }
      #expect(diagnostics.map(\.rule) == ["enum"])
      #expect(diagnostics.first?.message.contains("\"bogus\" is not one of") == true)
    }
  }

  @Test func newStartsInAStateNoTransitionLeadsInto() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir)
      let approved = storeError {
        try fixture.store.create(
          kind: "form", assignments: [try Assignment("form_type=SF30"), try Assignment("status=approved")])
      }
      #expect(
        approved
          == .refused(.creationState(kind: "form", state: "approved", allowed: ["draft"])))
      #expect(try FileIO.files(under: FilePath(dir + "/data"), suffix: ".json").isEmpty)
      // purchase orders: open is the default and no transition leads into it
      try fixture.order()
      #expect(try fixture.read("purchase-order", "PO-1")["status"] == .string("open"))
      let received = storeError {
        try fixture.store.create(
          kind: "purchase-order",
          base: fixture.json(#"{"purchase_order_number": "PO-2", "status": "received", "items": []}"#))
      }
      #expect(
        received
          == .refused(.creationState(kind: "purchase-order", state: "received", allowed: ["open"])))
    }
  }

  @Test func changingTheIdOrTheSchemaByHandIsRefused() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir)
      try fixture.order()
      let stored = try fixture.store.read(kind: "purchase-order", id: "PO-1")
      var renamed = stored.value
      renamed["purchase_order_number"] = .string("PO-9")
      #expect(
        storeError {
          try fixture.store.replace(kind: "purchase-order", id: "PO-1", original: stored.bytes, with: renamed)
        }
          == .refused(.idChanged(kind: "purchase-order", from: "PO-1", to: "PO-9")))
      #expect(
        storeError {
          try fixture.store.update(
            kind: "purchase-order", id: "PO-1", assignments: [try Assignment("purchase_order_number=PO-9")])
        }
          != nil)
      var older = stored.value
      older["_schema"] = .string("purchase-order@1.0.0")
      #expect(
        storeError {
          try fixture.store.replace(kind: "purchase-order", id: "PO-1", original: stored.bytes, with: older)
        }?
        .description.contains("_schema cannot be changed by hand") == true)
      #expect(!FileIO.exists(FilePath(dir + "/data/purchase-orders/PO-9.json")))
    }
  }

  @Test func immutableFieldsAreEnforcedForPeople() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir)
      try fixture.acquisition()
      let id = try fixture.form(state: "approved")
      let error = storeError {
        try fixture.store.update(kind: "form", id: id, assignments: [try Assignment("form_number=SF 30A")])
      }
      guard case .invalidDocument(_, let diagnostics)? = error else {
        Issue.record("\(String(describing: error))")
        return
      }
      #expect(diagnostics.map(\.rule) == ["immutable"])
      #expect(
        diagnostics.first?.message
          == #"changed from "SF 30" to "SF 30A", but it is immutable once the document was `status == "approved"`"#)
    }
  }

  @Test func changingAnElementStampsItAndTheDocumentButNotItsSiblings() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir)
      try fixture.order()
      fixture.advance(3600)
      try fixture.store.update(
        kind: "purchase-order", id: "PO-1", assignments: [try Assignment("items[0].quantity=1234")])
      let order = try fixture.read("purchase-order", "PO-1")
      let items = order["items"]!.arrayValue!
      #expect(items[0]["last_updated"] == .string(fixture.time))
      #expect(items[1]["last_updated"] == .string("2026-11-01T09:00:00Z"), "an unchanged item keeps its stamp")
      #expect(order["last_updated"] == .string(fixture.time))
      // a new element gets the write time, nested ones too
      fixture.advance(60)
      try fixture.store.update(
        kind: "purchase-order", id: "PO-1",
        assignments: [
          try Assignment(
            #"invoices=[{"invoice_number": "INV-1", "received_status": 0, "receipts": [{"product_item_id": 1, "received_quantity": 2}]}]"#,
            json: true)
        ])
      let invoice = try fixture.read("purchase-order", "PO-1")["invoices"]!.arrayValue![0]
      #expect(invoice["last_updated"] == .string(fixture.time) && invoice["created"] == .string(fixture.time))
      #expect(invoice["receipts"]?.arrayValue?[0]["last_updated"] == .string(fixture.time))
      // a receipt changed deep inside: the receipt, its invoice and the document are stamped
      fixture.advance(60)
      try fixture.store.update(
        kind: "purchase-order", id: "PO-1", assignments: [try Assignment("invoices[0].receipts[0].received_quantity=3")]
      )
      let after = try fixture.read("purchase-order", "PO-1")
      #expect(after["invoices"]?.arrayValue?[0]["receipts"]?.arrayValue?[0]["last_updated"] == .string(fixture.time))
      #expect(after["invoices"]?.arrayValue?[0]["last_updated"] == .string(fixture.time))
      #expect(after["invoices"]?.arrayValue?[0]["created"] == invoice["created"], "created stays")
      #expect(after["items"]?.arrayValue?[0]["last_updated"] == items[0]["last_updated"])
    }
  }

  @Test func newFillsMissingElementStampsAndKeepsGivenOnes() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir)
      let order = try fixture.store.create(
        kind: "purchase-order",
        base: fixture.json(
          """
          {"purchase_order_number": "PO-7", "items": [{"product_item_id": 1, "quantity": 1}, {"product_item_id": 2, "quantity": 1, "last_updated": "2026-01-01T00:00:00Z"}]}
          """)
      ).value
      #expect(
        order["items"]?.arrayValue?.map { $0["last_updated"]! } == [
          .string(fixture.time), .string("2026-01-01T00:00:00Z"),
        ])
      #expect(order["issue_date"] == .string(fixture.time) && order["currency"] == .string("USD"))
    }
  }

  @Test func everyChangeIsAuditedWithItsPointersAndStates() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir)
      var configuration = fixture.store.configuration
      configuration.arguments = ["test"]
      fixture.reopen(configuration: configuration)
      try fixture.acquisition()
      let id = try fixture.form()
      fixture.advance(60)
      try fixture.store.transition(kind: "form", id: id, to: "in_review")
      try fixture.store.update(kind: "acquisition", id: "ACQ-2026-001", assignments: [try Assignment("title=Desks")])
      let unchanged = fixture.history.count
      try fixture.store.update(kind: "acquisition", id: "ACQ-2026-001", assignments: [try Assignment("title=Desks")])
      #expect(fixture.history.count == unchanged, "a write that changes nothing records nothing")
      let records = fixture.history
      #expect(records.map { $0["operation"]!.stringValue! } == ["new", "new", "status", "set"])
      #expect(
        records.allSatisfy {
          $0["user"] == .string("Ada Lovelace <ada@example.com>") && $0["command"] == .string("formsctl test")
        })
      #expect(
        JSONWriter.compact(records[2]["documents"]!)
          == #"[{"action":"update","from":"draft","id":"\#(id)","kind":"form","pointers":["/last_modified_date","/status"],"to":"in_review"}]"#
      )
      #expect(
        JSONWriter.compact(records[3]["documents"]!)
          == #"[{"action":"update","id":"ACQ-2026-001","kind":"acquisition","pointers":["/last_modified_date","/title"]}]"#
      )
      #expect(records[1]["documents"]?.arrayValue?[0]["to"] == .string("draft"))
      #expect(records[3]["time"] == .string(fixture.time))
    }
  }

  @Test func rmAndMvGoThroughThePathAndAreAuditedWhole() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir)
      try fixture.acquisition()
      let form = try fixture.form()
      try fixture.order(acquisition: "ACQ-2026-001")
      fixture.advance(60)
      let moved = try fixture.store.move(kind: "acquisition", from: "ACQ-2026-001", to: "ACQ-2026-002")
      #expect(moved.rewrites.map(\.id) == ["ACQ-2026-002", form, "PO-1"])
      #expect(try fixture.read("purchase-order", "PO-1")["acquisition_id"] == .string("ACQ-2026-002"))
      #expect(try fixture.read("purchase-order", "PO-1")["last_updated"] == .string(fixture.time))
      let mv = fixture.history.last!
      #expect(mv["operation"] == .string("mv"))
      #expect(
        mv["documents"]?.arrayValue?.first.map(JSONWriter.compact)
          == #"{"action":"rename","id":"ACQ-2026-002","kind":"acquisition","pointers":["/id","/last_modified_date"],"previous_id":"ACQ-2026-001"}"#
      )
      let plan = try fixture.store.delete(kind: "acquisition", id: "ACQ-2026-002")
      #expect(plan.deletes.map(\.kind) == ["acquisition", "form"] && plan.rewrites.map(\.id) == ["PO-1"])
      let rm = fixture.history.last!
      #expect(
        rm["documents"]?.arrayValue?.map { "\($0["action"]!.stringValue!) \($0["kind"]!.stringValue!)" }
          == ["update purchase-order", "delete acquisition", "delete form"])
      #expect(try fixture.read("purchase-order", "PO-1")["acquisition_id"] == nil)
    }
  }

  @Test func aDryRunChecksEverythingAndWritesNothing() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir)
      try fixture.acquisition()
      try fixture.form()
      let history = fixture.history.count
      let plan = try fixture.store.delete(kind: "acquisition", id: "ACQ-2026-001", dryRun: true)
      #expect(plan.deletes.count == 2)
      #expect(
        try FileIO.files(under: FilePath(dir + "/data"), suffix: ".json").count == 2 && fixture.history.count == history
      )
    }
  }

  @Test func relationsAreCheckedUnderTheLockAgainstWhatTheSameChangeDeletes() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir)
      try fixture.acquisition()
      try fixture.store.delete(kind: "acquisition", id: "ACQ-2026-001")
      let dangling = storeError { try fixture.form() }
      guard case .invalidDocument(_, let diagnostics)? = dangling else {
        Issue.record("\(String(describing: dangling))")
        return
      }
      #expect(diagnostics.map(\.rule) == ["relation"])
      // inside one session, a document deleted earlier counts as gone
      try fixture.acquisition()
      let store = fixture.store
      let error = storeError {
        try store.write("test", summary: "test") { session throws(StoreError) in
          try session.remove(try store.read(kind: "acquisition", id: "ACQ-2026-001"), kind: "acquisition")
          let form = try store.schema("form")
          let document = fixture.json(
            #"{"_schema": "\#(form.reference)", "id": "00000000-0000-4000-8000-000000000099", "form_type": "SF30", "acquisition_id": "ACQ-2026-001"}"#
          )
          try session.save(document, replacing: nil, kind: "form", source: .person)
        }
      }
      #expect(error?.kind == .badInput)
      #expect(FileIO.exists(FilePath(dir + "/data/acquisitions/ACQ-2026-001.json")), "the failed session wrote nothing")
    }
  }

  @Test func newRacingRmNeverLeavesADanglingReference() throws {
    for trial in 0..<10 {
      try withTemporaryDirectory { dir in
        let fixture = try StoreFixture(dir)
        try fixture.acquisition()
        let group = DispatchGroup()
        let store = fixture.store
        DispatchQueue.global().async(group: group) { _ = try? store.delete(kind: "acquisition", id: "ACQ-2026-001") }
        DispatchQueue.global().async(group: group) {
          _ = try? store.create(
            kind: "form",
            assignments: [try Assignment("form_type=SF30"), try Assignment("acquisition_id=ACQ-2026-001")])
        }
        group.wait()
        let report = try StoreValidator(layout: store.layout, registry: store.registry, display: { $0 }).validate(
          try StoreValidator(layout: store.layout, registry: store.registry, display: { $0 }).allFiles())
        #expect(report.diagnostics.isEmpty, "trial \(trial): \(report.diagnostics.map(\.message))")
      }
    }
  }
}

/// The example in `Store`'s documentation, as written there.
struct StoreDocumentationExampleTests {
  @Test func theExampleRuns() throws {
    try withTemporaryDirectory { dir in
      _ = try Store.initialize(at: dir)
      let store = try Store.open(at: dir)
      let assignments = try ["id=ACQ-2026-001", "title=Office chairs", "agency=GSA"].map { try Assignment($0) }
      let created = try store.create(kind: "acquisition", assignments: assignments)
      let acquisition = try store.read(kind: "acquisition", id: "ACQ-2026-001")
      try store.update(kind: "acquisition", id: "ACQ-2026-001", assignments: [try Assignment("title=Desks")])
      #expect(created.path == acquisition.path)
      #expect(try store.read(kind: "acquisition", id: "ACQ-2026-001").value["title"] == .string("Desks"))
    }
  }
}
