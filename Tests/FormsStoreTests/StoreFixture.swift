import FormsCore
import Foundation

@testable import FormsStore

/// A store made by `init` (the built-in schemas) in a temporary directory, opened in-process with
/// a clock the test moves, fixed UUIDs and a fixed audit user.
final class StoreFixture: @unchecked Sendable {
  let root: String
  private(set) var store: Store
  nonisolated(unsafe) var clock = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11-18T08:53:20Z
  nonisolated(unsafe) var uuids = 0

  /// With `peopleEditOrders`, the purchase-order descriptor's `editable:` is dropped, for tests
  /// of people changing order items (the built-in leaves those to the feed).
  init(_ root: String, peopleEditOrders: Bool = true) throws {
    self.root = root
    _ = try Store.initialize(at: root)
    if peopleEditOrders {
      let path = root + "/schemas/purchase-order/1.1.0.yaml"
      let text = try String(contentsOfFile: path, encoding: .utf8)
      try text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("editable:") }.joined(
        separator: "\n"
      )
      .write(toFile: path, atomically: true, encoding: .utf8)
    }
    var configuration = Store.Configuration()
    configuration.user = "Ada Lovelace <ada@example.com>"
    configuration.lockWait = 5
    store = try Store.open(at: root, configuration: configuration)
    configuration.now = { [unowned self] in self.clock }
    configuration.makeUUID = { [unowned self] in
      self.uuids += 1
      return String(format: "00000000-0000-4000-8000-%012d", self.uuids)
    }
    reopen(configuration: configuration)
  }

  /// Opens the copy of `other`'s store at `root` with its schemas, keyring, clock and ids.
  init(copyOf other: StoreFixture, at root: String) throws {
    self.root = root
    clock = other.clock
    uuids = other.uuids
    store = other.store
    var configuration = other.store.configuration
    configuration.now = { [unowned self] in self.clock }
    configuration.makeUUID = { [unowned self] in
      self.uuids += 1
      return String(format: "00000000-0000-4000-8000-%012d", self.uuids)
    }
    store = Store(
      layout: try StoreLayout(root: root), registry: other.store.registry, configuration: configuration,
      keyring: other.store.keyring)
  }

  /// The store opened again with `configuration` (default: its own) or `keyring` (default: its own).
  func reopen(configuration: Store.Configuration? = nil, keyring: Keyring? = nil) {
    store = Store(
      layout: store.layout, registry: store.registry, configuration: configuration ?? store.configuration,
      keyring: keyring ?? store.keyring)
  }

  /// The store opened again from its files: its manifest and descriptors as they are now.
  func reload() throws {
    let layout = try StoreLayout(root: root)
    store = Store(
      layout: layout, registry: try SchemaRegistry.load(directory: layout.schemasDirectory, display: { $0 }),
      configuration: store.configuration, keyring: store.keyring)
  }

  /// Moves the clock on by `seconds`.
  func advance(_ seconds: TimeInterval) { clock += seconds }

  var time: String { Instant(clock).rfc3339 }

  func json(_ text: String) -> JSONValue { try! JSONParser().parse(text) }

  func read(_ kind: String, _ id: String) throws -> JSONValue { try store.read(kind: kind, id: id).value }

  func bytes(_ kind: String, _ id: String) throws -> [UInt8] { try store.read(kind: kind, id: id).bytes }

  /// The audit log's records, oldest first.
  var history: [JSONValue] { try! AuditLog.read(store.layout).records.map(\.value) }

  @discardableResult
  func acquisition(_ id: String = "ACQ-2026-001") throws -> Store.Document {
    try store.create(kind: "acquisition", base: json(#"{"id": "\#(id)", "title": "Chairs", "agency": "GSA"}"#))
  }

  @discardableResult
  func order(_ id: String = "PO-1", acquisition: String? = nil) throws -> Store.Document {
    let link = acquisition.map { #", "acquisition_id": "\#($0)""# } ?? ""
    return try store.create(
      kind: "purchase-order",
      base: json(
        """
        {"purchase_order_number": "\(id)"\(link), "issue_date": "2026-11-01T09:00:00Z",
         "items": [{"product_item_id": 1, "quantity": 5, "unit_price": 2.50, "last_updated": "2026-11-01T09:00:00Z"},
                   {"product_item_id": 2, "quantity": 6, "last_updated": "2026-11-01T09:00:00Z"}]}
        """))
  }

  /// A form in `state`, moved there along the workflow.
  @discardableResult
  func form(acquisition: String = "ACQ-2026-001", state: String = "draft") throws -> String {
    let created = try store.create(
      kind: "form",
      assignments: [
        try Assignment("form_type=SF30"), try Assignment("acquisition_id=\(acquisition)"),
        try Assignment("form_number=SF 30"),
        try Assignment("fields.effective_date=2026-12-01"), try Assignment("approved_by=K"),
        try Assignment("approved_on=2026-12-02"),
      ])
    let id = created.value["id"]!.stringValue!
    let path = [
      "draft": [], "in_review": ["in_review"], "approved": ["in_review", "approved"],
      "rejected": ["in_review", "rejected"],
    ]
    for next in path[state]! { try store.transition(kind: "form", id: id, to: next) }
    return id
  }
}

/// The error `body` throws, as a StoreError (nil when it does not throw).
func storeError(_ body: () throws -> Void) -> StoreError? {
  do {
    try body()
    return nil
  } catch let error as StoreError {
    return error
  } catch {
    return .internalError("\(error)")
  }
}
