import FormsCore
import FormsTestSupport

/// A small order kind for the merge tests: a document stamp, keyed items (with their own declared
/// stamp), invoices and receipts (whose stamps fall back to the document's field name).
let orderSchema = try! compile(
  """
  kind: po
  version: 1.0.0
  id: n
  timestamps: {updated: u}
  fields:
    n: string
    u: datetime
    c: datetime?
    note: string?
    items: {type: list, of: item, unique: [k]}
    invoices: {type: list, of: invoice, unique: [k], optional: true}
  types:
    item: {timestamps: {updated: u}, fields: {k: integer, q: integer, u: datetime}}
    invoice: {fields: {k: string, u: datetime, receipts: {type: list, of: receipt, unique: [k]}}}
    receipt: {fields: {k: integer, q: integer, u: datetime}}
  """)
