import FormsCore
import FormsTestSupport
import Foundation
import Testing

@testable import FormsStore

/// The built-in purchase order: people change the delivery note and date and add items; the rest
/// comes from the feed.
struct EditableTests {
  /// A store whose orders come from a feed (import), as the app's did.
  func store(_ dir: String) throws -> StoreFixture {
    let fixture = try StoreFixture(dir + "/store", peopleEditOrders: false)
    try writeFile(
      """
      [{"purchase_order_number": "PO-1", "issue_date": "2026-11-01T09:00:00Z", "last_updated": "2026-11-01T09:00:00Z",
        "items": [{"product_item_id": 1, "quantity": 5, "last_updated": "2026-11-01T09:00:00Z"}]}]
      """, to: dir + "/feed.json")
    _ = try Importer(store: fixture.store).run(Importer.Request(kind: "purchase-order", feed: dir + "/feed.json"))
    return fixture
  }

  @Test func peopleChangeWhatIsEditableAndAddItems() throws {
    try withTemporaryDirectory { dir in
      let fixture = try store(dir)
      try fixture.store.update(
        kind: "purchase-order", id: "PO-1",
        assignments: [
          try Assignment("delivery_note=Dock B"), try Assignment("items[1].product_item_id=2"),
          try Assignment("items[1].quantity=3"),
        ])
      let order = try fixture.read("purchase-order", "PO-1")
      #expect(order["delivery_note"] == .string("Dock B"))
      #expect(order["items"]?.arrayValue?.count == 2)
    }
  }

  @Test(arguments: [["items[0].quantity=6"], ["status=closed"], ["currency=EUR"], ["issue_date=2020-01-01T00:00:00Z"]])
  func everythingElseIsRefusedNamingWhatIsEditable(_ changes: [String]) throws {
    try withTemporaryDirectory { dir in
      let fixture = try store(dir)
      let before = try fixture.bytes("purchase-order", "PO-1")
      let error = storeError {
        try fixture.store.update(
          kind: "purchase-order", id: "PO-1", assignments: try changes.map { try Assignment($0) })
      }
      #expect(error?.kind == .badInput)
      #expect(
        error?.description.contains(
          "is not for people to change; people may change delivery_note, preferred_delivery_date, items[+]") == true,
        "\(String(describing: error))")
      #expect(try fixture.bytes("purchase-order", "PO-1") == before)
    }
  }

  @Test func feedsMigrationsAndRenamesAreNotLimited() throws {
    try withTemporaryDirectory { dir in
      let fixture = try store(dir)
      try writeFile(
        """
        [{"purchase_order_number": "PO-1", "issue_date": "2026-11-01T09:00:00Z", "last_updated": "2026-11-02T09:00:00Z", "status": "closed",
          "items": [{"product_item_id": 1, "quantity": 9, "last_updated": "2026-11-02T09:00:00Z"}]}]
        """, to: dir + "/feed.json")
      _ = try Importer(store: fixture.store).run(
        Importer.Request(kind: "purchase-order", feed: dir + "/feed.json", strictWorkflow: false))
      #expect(try fixture.read("purchase-order", "PO-1")["status"] == .string("closed"))
      try fixture.store.move(kind: "purchase-order", from: "PO-1", to: "PO-2")
      #expect(
        try fixture.read("purchase-order", "PO-2")["items"]?.arrayValue?.first?["quantity"] == .number(JSONNumber(9)))
    }
  }

  @Test func aNewOrderFromAPersonMaySetOnlyWhatIsEditable() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store", peopleEditOrders: false)
      try fixture.acquisition()
      let error = storeError { try fixture.order("PO-9", acquisition: "ACQ-2026-001") }
      #expect(
        error?.description.contains("acquisition_id is not for people to change") == true,
        "\(String(describing: error))")
      try fixture.order("PO-10")  // its id, the maintained issue date and its items: all a person may give
    }
  }

  /// `_approvals` is not a field `editable:` names: a person whose kind limits what they change
  /// still submits (a signed record added), and the chain's signers still approve.
  @Test func aKindWithEditableIsSubmittedAndApproved() throws {
    try withTemporaryDirectory { dir in
      let people = ApprovalTests.People()
      try writeFile(
        "formsctl: 1\nroles:\n  reviewer: [\(people.reviewer.signer)]\n  officer: [\(people.officer.signer)]\n",
        to: dir + "/formsctl.yaml")
      try writeFile(
        ApprovalTests.descriptor.replacingOccurrences(of: "ON_CHANGE", with: "refuse").replacingOccurrences(
          of: "directory: claims\n", with: "directory: claims\neditable: [amount, note, status]\n"),
        to: dir + "/schemas/claim/1.0.0.yaml")
      let store = try Store.open(at: dir)
      #expect(store.registry.diagnostics.isEmpty, "\(store.registry.diagnostics.map(\.compilerStyle))")
      try store.create(kind: "claim", assignments: [try Assignment("id=c1"), try Assignment("amount=19.99")])
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      try store.approve(kind: "claim", id: "c1", identity: people.reviewer)
      try store.approve(kind: "claim", id: "c1", identity: people.officer)
      #expect(try store.read(kind: "claim", id: "c1").value["status"] == .string("approved"))
    }
  }
}
