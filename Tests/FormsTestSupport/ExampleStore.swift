import FormsCore
import FormsStore
import Foundation

/// A store of `count` purchase orders made from the six example orders of `examples/acquisitions`
/// (the shapes users keep), renumbered and varied: status, timestamps, quantities and invoice
/// numbers change from copy to copy; the example acquisitions come along so every relation holds.
/// The manifest is the example's; the store has its own copy of this repository's descriptors
/// (so the migrate row can add a version).
public enum ExampleStore {
  public static let statuses = ["open", "partially_received", "received", "closed", "cancelled"]

  /// `generate`, and the demo identity beside the store named by FORMSCTL_IDENTITY, so the
  /// example store's sensitive values open as they would for a key holder. `remove` undoes both.
  public static func prepare(count: Int, at directory: String, repository: String) throws -> [String] {
    let paths = try generate(count: count, at: directory, repository: repository)
    let identity = directory + ".identity"
    try FileManager.default.copyItem(atPath: repository + "/examples/demo-identity", toPath: identity)
    chmod(identity, 0o600)
    setenv("FORMSCTL_IDENTITY", identity, 1)
    return paths
  }

  /// Removes a prepared store and its identity.
  public static func remove(_ directory: String) {
    try? FileManager.default.removeItem(atPath: directory)
    unlink(directory + ".identity")
  }

  /// Writes the store at `directory`; returns the purchase orders' paths.
  @discardableResult
  public static func generate(count: Int, at directory: String, repository: String) throws -> [String] {
    let example = repository + "/examples/acquisitions"
    let orders = directory + "/data/purchase-orders"
    let acquisitions = directory + "/data/acquisitions"
    for made in [orders, acquisitions] {
      try FileManager.default.createDirectory(atPath: made, withIntermediateDirectories: true)
    }
    let manifest = try String(contentsOfFile: example + "/formsctl.yaml", encoding: .utf8)
      .replacingOccurrences(of: "schemas: ../../schemas", with: "schemas: schemas")
    try FileManager.default.copyItem(atPath: repository + "/schemas", toPath: directory + "/schemas")
    try Data(manifest.utf8).write(to: URL(fileURLWithPath: directory + "/formsctl.yaml"))
    for name in try FileManager.default.contentsOfDirectory(atPath: example + "/data/acquisitions") {
      try FileManager.default.copyItem(
        atPath: example + "/data/acquisitions/" + name, toPath: acquisitions + "/" + name)
    }
    let templates = try FileManager.default.contentsOfDirectory(atPath: example + "/data/purchase-orders").sorted()
      .map { try JSONParser().parse(FileIO.read(FilePath(example + "/data/purchase-orders/" + $0))) }
    let paths = (0..<count).map { orders + "/PO-\(pad($0, 6)).json" }
    _ = parallelMap(Array(0..<count), chunkSize: 512) { k -> Bool in
      let bytes = JSONWriter.canonical(order(k, from: templates[k % templates.count]))
      return (try? Data(bytes).write(to: URL(fileURLWithPath: paths[k]))) != nil
    }
    return paths
  }

  /// Copy `k` of a template: its own number, status, day and quantities.
  public static func order(_ k: Int, from template: JSONValue) -> JSONValue {
    var rng = SeededGenerator(state: UInt64(k) &* 0x9E37_79B9)
    let day = 1 + k % 28
    let month = 1 + (k / 28) % 12
    let minute = k % 60
    func shifted(_ value: JSONValue?) -> JSONValue? {
      // 2026-07-10T14:00:28.213Z keeps its hour and seconds, takes this copy's date and minute.
      guard let text = value?.stringValue, text.count == 24 else { return value }
      let hour = text.dropFirst(11).prefix(2)
      return .string("2026-\(pad(month))-\(pad(day))T\(hour):\(pad(minute))\(text.dropFirst(16))")
    }
    var order = template
    order["purchase_order_number"] = .string("PO-\(pad(k, 6))")
    order["status"] = .string(statuses[Int.random(in: 0..<statuses.count, using: &rng)])
    order["issue_date"] = shifted(order["issue_date"])
    order["last_updated"] = shifted(order["last_updated"])
    if order["preferred_delivery_date"] != nil {
      order["preferred_delivery_date"] = .string("2027-\(pad(month))-\(pad(day))")
    }
    if case .array(var items)? = order["items"] {
      for index in items.indices {
        items[index]["quantity"] = .number(JSONNumber(Int.random(in: 1...500, using: &rng)))
        items[index]["last_updated"] = shifted(items[index]["last_updated"])
      }
      order["items"] = .array(items)
    }
    if case .array(var invoices)? = order["invoices"] {
      for index in invoices.indices {
        invoices[index]["invoice_number"] = .string("INV-\(k)-\(index + 1)")
        invoices[index]["created"] = shifted(invoices[index]["created"])
        invoices[index]["last_updated"] = shifted(invoices[index]["last_updated"])
      }
      order["invoices"] = .array(invoices)
    }
    return order
  }
}

/// `n` in decimal, zero-padded to `width` digits (`pad(7)` is `07`).
public func pad(_ n: Int, _ width: Int = 2) -> String {
  let s = String(n)
  return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
}
