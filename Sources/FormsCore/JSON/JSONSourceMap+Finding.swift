extension JSONSourceMap {
  /// Where `finding` is in the text `bytes` this map was made from: its key or value, and for a
  /// finding inside a `json_string`, the place inside the string's text (escapes counted as written).
  public func position(of finding: Finding, in bytes: [UInt8]) -> SourcePosition {
    let base = finding.atKey ? keyPosition(finding.pointer) : valuePosition(finding.pointer)
    guard let inner = finding.inner else { return base }
    return SourcePosition.inside(stringAt: base, scalar: inner, in: bytes)
  }
}

extension SourcePosition {
  /// The position in `bytes` of scalar `index` of the decoded text of the JSON string whose
  /// opening quote is at `quote`: each escape (`\"`, `\n`, `\u00e9`, a surrogate pair) is as many
  /// columns as it is written with.
  static func inside(stringAt quote: SourcePosition, scalar index: Int, in bytes: [UInt8]) -> SourcePosition {
    let scalars = Array(String(decoding: bytes, as: UTF8.self).unicodeScalars)
    // The quote's scalar offset from line and column (a JSON string never spans lines).
    var line = 1
    var start = 0
    while line < quote.line, start < scalars.count {
      if scalars[start] == "\n" { line += 1 }
      start += 1
    }
    var raw = start + quote.column - 1 + 1
    var decoded = 0
    while decoded < index, raw < scalars.count, scalars[raw] != "\"" {
      if scalars[raw] == "\\", raw + 1 < scalars.count {
        if scalars[raw + 1] == "u" {
          let isHigh =
            raw + 5 < scalars.count && ["d", "D"].contains(scalars[raw + 2])
            && "89abAB".unicodeScalars.contains(scalars[raw + 3])
          raw += isHigh && raw + 7 < scalars.count && scalars[raw + 6] == "\\" ? 12 : 6
        } else {
          raw += 2
        }
      } else {
        raw += 1
      }
      decoded += 1
    }
    return SourcePosition(line: quote.line, column: raw - start + 1)
  }
}

extension String {
  /// The index, in Unicode scalars, of 1-based `position` (line, column in scalars) in this text.
  func scalarIndex(of position: SourcePosition) -> Int {
    var line = 1
    var column = 1
    for (index, scalar) in unicodeScalars.enumerated() {
      if line == position.line && column == position.column { return index }
      if scalar == "\n" {
        line += 1
        column = 1
      } else {
        column += 1
      }
    }
    return unicodeScalars.count
  }
}

extension Diagnostic {
  /// `findings` as diagnostics of `file`, each at its line and column in `bytes`, the text they
  /// were found in (parsed once for its source map); nil bytes: a file not written, no positions.
  public static func placed(_ findings: [Finding], in bytes: [UInt8]?, file: String) -> [Diagnostic] {
    let map = bytes.flatMap { try? JSONParser().parseWithSourceMap($0).1 }
    return findings.map { finding in
      Diagnostic(
        file: file, position: bytes.flatMap { bytes in map?.position(of: finding, in: bytes) },
        pointer: finding.pointer, rule: finding.rule, message: finding.message,
        remedy: finding.remedy)
    }
  }
}
