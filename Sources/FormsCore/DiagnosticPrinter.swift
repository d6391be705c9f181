/// Renders diagnostics for people, scripts and GitHub Actions; separate from finding them.
public enum DiagnosticPrinter {
  /// The output formats of `--format`.
  public enum Format: String, Sendable, CaseIterable {
    case text, json, github
  }

  /// Diagnostics in `format`, sorted by file and position; each line ends with a newline.
  public static func render(_ diagnostics: [Diagnostic], as format: Format) -> String {
    let sorted = sortedDiagnostics(diagnostics)
    switch format {
    case .text:
      return sorted.map { $0.compilerStyle + "\n" }.joined()
    case .json:
      return JSONWriter.canonicalString(.array(sorted.map(json)))
    case .github:
      return sorted.map(github).joined()
    }
  }

  /// Sorted by file, then line and column, then rule (stable for golden files).
  public static func sortedDiagnostics(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
    diagnostics.sorted {
      if $0.file != $1.file { return codePointLess($0.file, $1.file) }
      let a = $0.position ?? SourcePosition(line: 0, column: 0)
      let b = $1.position ?? SourcePosition(line: 0, column: 0)
      if a != b { return a < b }
      return $0.rule < $1.rule
    }
  }

  /// `{file, line, column, pointer, rule, message, severity}`.
  public static func json(_ d: Diagnostic) -> JSONValue {
    .object(
      JSONObject([
        "file": .string(d.file),
        "line": d.position.map { .number(JSONNumber($0.line)) } ?? .null,
        "column": d.position.map { .number(JSONNumber($0.column)) } ?? .null,
        "pointer": .string(d.pointer.description),
        "rule": .string(d.rule),
        "message": .string(d.message),
        "severity": .string(d.severity.rawValue),
      ]))
  }

  /// `::error file=F,line=L,col=C,title=RULE::MESSAGE` with GitHub's escapes.
  static func github(_ d: Diagnostic) -> String {
    func escapeData(_ s: String) -> String {
      // One annotation per line: control characters (newlines too) escaped like every message.
      s.replacingOccurrences("%", "%25").escapingControlCharacters
    }
    func escapeProperty(_ s: String) -> String {
      escapeData(s).replacingOccurrences(":", "%3A").replacingOccurrences(",", "%2C")
    }
    var properties = ["file=\(escapeProperty(d.file))"]
    if let p = d.position { properties += ["line=\(p.line)", "col=\(p.column)"] }
    properties.append("title=\(escapeProperty(d.rule))")
    let path = d.pointer.path
    return "::\(d.severity == .note ? "notice" : d.severity.rawValue) \(properties.joined(separator: ","))::"
      + escapeData((path.isEmpty ? "" : path + ": ") + d.message) + "\n"
  }
}
