import FormsCore
import FormsStore

/// A document as a printed form: the form's number, title and edition at the head, then every
/// data element in the order its descriptor gives (the order of the official form's blocks),
/// numbered, with line items as a table. FAR 53.105 allows computer-generated forms that keep
/// the official form's content and order; the edition printed is the document's `revision`.
/// Self-contained HTML (its style inline in a `<style>` element, no script, nothing fetched), so
/// `formsctl render` writes a file that prints anywhere.
public struct PrintView: Sendable {
  /// The official names of the form types the `form` kind knows, by `form_type`.
  public static let formNames: [String: (number: String, title: String)] = [
    "SF1449": ("SF 1449", "Solicitation/Contract/Order for Commercial Products and Commercial Services"),
    "SF33": ("SF 33", "Solicitation, Offer and Award"),
    "SF30": ("SF 30", "Amendment of Solicitation/Modification of Contract"),
    "SF18": ("SF 18", "Request for Quotations"),
    "SF26": ("SF 26", "Award/Contract"),
    "SF44": ("SF 44", "Purchase Order-Invoice-Voucher"),
    "DD1155": ("DD 1155", "Order for Supplies or Services"),
  ]

  /// The print view of `kind` `id` (its sealed values opened where the store's identity can,
  /// recorded first), as a whole HTML document.
  public static func render(store: Store, kind: String, id: String) throws(StoreError) -> String {
    let read = try store.readToShow(kind: kind, id: id)
    let value = store.shown(read)
    let latest = try store.schema(kind)
    let schema = store.registry.schema(of: value) ?? latest
    let formType = value["form_type"]?.stringValue
    let known = formType.flatMap { formNames[$0] }
    let number = known?.number ?? formType ?? (schema.title ?? kind)
    let title = known?.title ?? (schema.title ?? kind)
    let edition = value["revision"]?.stringValue.map { "Edition: \($0)" } ?? "Edition: not recorded"
    var counter = 0
    let blocks = Self.blocks(schema.root, value, parent: nil, prefix: "", counter: &counter)
    let html: HTML = """
      <!doctype html>
      <html lang="en">
      <head><meta charset="utf-8"><title>\(number) \(read.id)</title>
      <style>\(HTML(stringLiteral: PrintView.style))</style></head>
      <body class="print">
      <header class="form-head"><div class="number">\(number)</div><div class="title">\(title)</div>\
      <div class="edition">\(edition)</div><div class="id">\(kind) \(read.id)</div></header>
      <ol class="blocks">\(blocks)</ol>
      <footer>Computer-generated form (FAR 53.105): the content and order of the official form's data elements.</footer>
      </body>
      </html>
      """
    return html.text
  }

  /// Every data element in the descriptor's order, numbered; reserved members are not printed.
  static func blocks(_ type: SchemaType, _ value: JSONValue, parent: JSONValue?, prefix: String, counter: inout Int)
    -> HTML
  {
    let resolved = type.resolved(parent: parent, value: value)
    var out: HTML = ""
    for name in resolved.fieldOrder {
      guard let field = resolved.fields[name] else { continue }
      let member = value[name]
      let inner = field.type.resolved(parent: value, value: member)
      let label = prefix + FormRenderer.label(name)
      switch (inner.kind, member) {
      case (.object, let member?):
        out += blocks(inner, member, parent: value, prefix: label + " — ", counter: &counter)
      case (.list, .array(let elements)?) where inner.element?.kind == .object:
        guard let element = inner.element else { continue }
        counter += 1
        out +=
          "<li class=\"block\"><span class=\"n\">\(counter)</span><span class=\"label\">\(label)</span>\(table(element, elements))</li>"
      default:
        counter += 1
        let shown: HTML = member.map(HTML.value) ?? ""
        out +=
          "<li class=\"block\"><span class=\"n\">\(counter)</span><span class=\"label\">\(label)</span><span class=\"value\">\(shown)</span></li>"
      }
    }
    return out
  }

  static func table(_ element: SchemaType, _ rows: [JSONValue]) -> HTML {
    let columns = element.fieldOrder
    let head = columns.map { "<th>\(FormRenderer.label($0))</th>" as HTML }
    let body = rows.map { row -> HTML in
      let cells = columns.map { "<td>\(row[$0].map(HTML.value) ?? "")</td>" as HTML }
      return "<tr>\(cells.joined())</tr>"
    }
    return "<table class=\"items\"><thead><tr>\(head.joined())</tr></thead><tbody>\(body.joined())</tbody></table>"
  }

  static let style: StaticString = """
    body.print{font:11pt/1.35 "DejaVu Sans",Arial,sans-serif;margin:1.5cm;color:#000}
    .form-head{display:grid;grid-template-columns:8em 1fr auto;gap:.2em 1em;border:2px solid #000;padding:.5em}
    .form-head .number{font-weight:bold;font-size:14pt}.form-head .title{font-weight:bold}
    .form-head .edition,.form-head .id{grid-column:2/4;font-size:9pt}
    ol.blocks{list-style:none;padding:0;margin:0;display:grid;grid-template-columns:1fr 1fr;border-left:1px solid #000}
    li.block{border-right:1px solid #000;border-bottom:1px solid #000;padding:.3em .5em;min-height:2.4em}
    li.block:has(table){grid-column:1/3}
    .n{font-size:8pt;margin-right:.4em}.label{font-size:8pt;text-transform:uppercase;display:block}
    .value{display:block;white-space:pre-wrap;word-break:break-word}
    table.items{border-collapse:collapse;width:100%;font-size:9pt}table.items th,table.items td{border:1px solid #000;padding:2px 4px;text-align:left}
    footer{margin-top:1em;font-size:8pt}
    @page{size:letter;margin:1.2cm}
    """
}
