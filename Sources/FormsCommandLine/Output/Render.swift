import ArgumentParser
import FormsCore

/// The formats every report prints in: a table for people; JSON, one JSON record per line, or
/// CSV for scripts.
package enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
  case table, json, ndjson, csv
}

/// Prints `report` on stdout as `format` asks: the one place a report becomes text.
package func render(_ report: TableReport, as format: ReportFormat) {
  let out = FileHandleOutput.standardOutput
  switch format {
  case .json:
    out.write(JSONWriter.canonicalString(.array(report.records)))
  case .ndjson:
    for record in report.records { printOut(JSONWriter.compact(record)) }
  case .csv:
    for row in [report.columns] + report.rows { printOut(row.map(csvField).joined(separator: ",")) }
  case .table:
    out.write(
      TextTable.render(
        [report.columns.map { $0.uppercased() }] + report.rows, width: out.isTerminal ? terminalWidth() : nil))
    for note in report.notes { printOut(note) }
    for remedy in report.remedies { printOut("next: " + ErrorText.advice(for: remedy)) }
  }
}

/// Prints `diagnostics` on `output` as `format` asks, each remedy worded by ``ErrorText``.
package func render(_ diagnostics: [Diagnostic], as format: DiagnosticPrinter.Format, to output: FileHandleOutput) {
  output.write(DiagnosticPrinter.render(ErrorText.worded(diagnostics), as: format))
}

/// A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break.
package func csvField(_ text: String) -> String {
  guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
  return "\"" + String(text.flatMap { $0 == "\"" ? ["\"", "\""] : [$0] }) + "\""
}
