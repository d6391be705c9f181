import FormsCore
import FormsTestSupport
import Foundation
import Testing

/// `references:` in a descriptor: values inside a document that must name another list's keys.
struct ReferenceRuleTests {
  static let declaration = """
    references:
      - {field: 'invoices[].receipts[].product_item_id', to: 'items[].product_item_id'}

    """

  @Test func aReceiptMustNameAnItemOfItsOrder() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      // The store's own copy of the descriptors, the purchase order with the reference.
      try FileManager.default.removeItem(atPath: dir + "/schemas")
      try FileManager.default.copyItem(
        atPath: Formsctl.packageRoot.appendingPathComponent("schemas").path, toPath: dir + "/schemas")
      let descriptor = dir + "/schemas/purchase-order/1.1.0.yaml"
      try writeFile(try readFile(descriptor) + Self.declaration, to: descriptor)
      #expect(try Formsctl.run(["validate"], in: store, environment: env).status == 0, "the examples hold")
      let path = store + "/data/purchase-orders/PO-000202.json"
      let text = try readFile(path)
      // The first product_item_id of PO-000202 is its first invoice's receipt (keys are sorted).
      let receipt = try #require(text.range(of: #""product_item_id": 100,"#))
      try writeFile(text.replacingCharacters(in: receipt, with: #""product_item_id": 999,"#), to: path)
      let result = try Formsctl.run(["validate", "data/purchase-orders/PO-000202.json"], in: store, environment: env)
      #expect(result.status == 1)
      let line = text[..<receipt.lowerBound].split(separator: "\n", omittingEmptySubsequences: false).count
      #expect(
        result.stdout.contains(
          "data/purchase-orders/PO-000202.json:\(line):"), "\(result.stdout)")
      #expect(
        result.stdout.contains(
          "product_item_id: 999 is none of this document's items[].product_item_id (100, 107, 114, 121) [reference]"),
        "\(result.stdout)")
      // The write path refuses what validate reports.
      let set = try Formsctl.run(
        ["set", "purchase-order", "PO-000202", "delivery_note=x"], in: store, environment: env)
      #expect(set.status == 65 && set.stderr.contains("[reference]"), "\(set.stderr)")
    }
  }

  @Test func badDeclarationsAreDescriptorErrors() throws {
    try withTemporaryDirectory { dir in
      let env = try makeStore(dir)
      let store = dir + "/store"
      let descriptor = store + "/schemas/purchase-order/1.1.0.yaml"
      let original = try readFile(descriptor)
      for (declaration, message) in [
        ("references: {field: a}\n", "references must be a list of {field, to, message}"),
        ("references:\n  - {field: 'items[].nope', to: 'items[].product_item_id'}\n", "field: items[].nope:"),
        ("references:\n  - {field: 'items[].quantity'}\n", "a reference needs `to:`"),
        ("references:\n  - {field: 'items[].quantity', to: 'items[]..x'}\n", "to: items[]..x is not a field path"),
        ("references:\n  - {field: 'items[].quantity', to: 'items[].quantity', by: 1}\n", "unknown key"),
      ] {
        try writeFile(original + declaration, to: descriptor)
        let check = try Formsctl.run(["schema", "check"], in: store, environment: env)
        #expect(check.status == 1 && check.stdout.contains(message), "\(declaration): \(check.stdout)")
      }
    }
  }
}
