import FormsCore
import FormsTestSupport

/// Realistic purchase orders (2–4 KB: items, invoices, receipts), deterministic for a seed.
struct PurchaseOrderGenerator {
  var rng: SeededGenerator

  init(seed: UInt64) { rng = SeededGenerator(state: seed) }

  mutating func next(number: Int) -> JSONValue {
    let day = 1 + Int.random(in: 0..<28, using: &rng)
    let month = 1 + Int.random(in: 0..<12, using: &rng)
    func stamp(_ hour: Int) -> String {
      "2026-\(pad(month))-\(pad(day))T\(pad(hour)):\(pad(Int.random(in: 0..<60, using: &rng))):07.213Z"
    }
    let itemCount = Int.random(in: 4...9, using: &rng)
    let items: [JSONValue] = (0..<itemCount).map { k in
      .object(
        JSONObject([
          "product_item_id": .number(JSONNumber(100 + k * 7)),
          "quantity": .number(JSONNumber(Int.random(in: 1...500, using: &rng))),
          "unit_price": .number(
            JSONNumber(unchecked: "\(Int.random(in: 1...900, using: &rng)).\(pad(Int.random(in: 0...99, using: &rng)))")
          ),
          "last_updated": .string(stamp(9 + k % 8)),
        ]))
    }
    let invoices: [JSONValue] = (0..<Int.random(in: 1...2, using: &rng)).map { k in
      .object(
        JSONObject([
          "invoice_number": .string("INV-\(number)-\(k + 1)"),
          "received_status": .number(JSONNumber(Int.random(in: 0...3, using: &rng))),
          "created": .string(stamp(10)),
          "last_updated": .string(stamp(11)),
          "receipts": .array(
            (0..<Int.random(in: 1...3, using: &rng)).map { r in
              .object(
                JSONObject([
                  "product_item_id": .number(JSONNumber(100 + r * 7)),
                  "received_quantity": .number(JSONNumber(Int.random(in: 0...500, using: &rng))),
                  "last_updated": .string(stamp(12)),
                ]))
            }),
        ]))
    }
    let statuses = ["open", "partially_received", "received", "closed", "cancelled"]
    return .object(
      JSONObject([
        "_schema": .string("purchase-order@1.1.0"),
        "purchase_order_number": .string("PO-\(pad(number, 6))"),
        "status": .string(statuses.randomElement(using: &rng)!),
        "issue_date": .string(stamp(8)),
        "last_updated": .string(stamp(13)),
        "preferred_delivery_date": .string("2027-\(pad(month))-\(pad(day))"),
        "delivery_note": .string(
          "Deliver to receiving dock B, building 7; call ahead. Ref \(number) — handle with care."),
        "currency": .string("USD"),
        "items": .array(items),
        "invoices": .array(invoices),
      ]))
  }
}
