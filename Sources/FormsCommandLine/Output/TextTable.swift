import FormsCore

/// A plain text table with columns padded to their widest cell; with `width`, the widest columns
/// but the first are cut (ending in …) until a row fits: the first column names the row (an id, a
/// snapshot, a kind), and a name cut short names nothing (`PO-0002…` six times). A cell's control characters are escaped (`\n`,
/// `\u001b`), as diagnostics escape them: a value can neither forge a row nor drive the terminal.
package enum TextTable {
  package static func render(_ rows: [[String]], width: Int? = nil) -> String {
    let rows: [[String]] = rows.map { $0.map(\.escapingControlCharacters) }
    guard let first = rows.first else { return "" }
    var widths = Array(repeating: 0, count: first.count)
    for row in rows {
      for (k, cell) in row.enumerated() where k < widths.count { widths[k] = max(widths[k], cell.count) }
    }
    if let width {
      while widths.reduce(0, +) + 2 * (widths.count - 1) > width,
        let widest = widths.indices.dropFirst().max(by: { widths[$0] < widths[$1] }),
        widths[widest] > 8
      {
        widths[widest] -= 1
      }
    }
    let cut: [[String]] = rows.map { row in
      row.enumerated().map { k, cell in cell.count > widths[k] ? String(cell.prefix(widths[k] - 1)) + "…" : cell }
    }
    return cut.map { row in
      row.enumerated().map { k, cell in
        k == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[k] - cell.count)
      }.joined(separator: "  ") + "\n"
    }.joined()
  }
}
