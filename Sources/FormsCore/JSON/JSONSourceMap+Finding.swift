extension JSONSourceMap {
  /// Where `finding` is in the text `bytes` this map was made from: its key or value, and for a
  /// finding inside a `json_string`, the place inside the string's text (escapes counted as written).
  public func position(of finding: Finding, in bytes: [UInt8]) -> SourcePosition {
    index.position(of: offset(of: finding, in: bytes))
  }

  /// The index, in Unicode scalars of the text, of `position(of: finding, in: bytes)`.
  public func scalarIndex(of finding: Finding, in bytes: [UInt8]) -> Int {
    index.scalarIndex(of: offset(of: finding, in: bytes))
  }

  /// The byte offset of `position(of:in:)`.
  func offset(of finding: Finding, in bytes: [UInt8]) -> Int {
    let offset = finding.atKey ? nearestKeyOffset(finding.pointer) : nearestValueOffset(finding.pointer)
    guard let inner = finding.inner else { return offset }
    return Self.offset(ofScalar: inner, inStringAt: offset, in: bytes)
  }

  /// The byte offset in `bytes` of scalar `index` of the decoded text of the JSON string whose
  /// opening quote is at byte `quote`: each escape (`\"`, `\n`, `\u00e9`, a surrogate pair) is
  /// passed over as written. Walks the string only, never the text before it.
  static func offset(ofScalar index: Int, inStringAt quote: Int, in bytes: [UInt8]) -> Int {
    let backslash = UInt8(ascii: "\\")
    var raw = quote + 1
    var decoded = 0
    while decoded < index, raw < bytes.count, bytes[raw] != UInt8(ascii: "\"") {
      if bytes[raw] == backslash, raw + 1 < bytes.count {
        if bytes[raw + 1] == UInt8(ascii: "u") {
          // A high surrogate escape followed by another escape is a pair: one scalar.
          let isHigh =
            raw + 5 < bytes.count && (bytes[raw + 2] | 0x20) == UInt8(ascii: "d")
            && [UInt8(ascii: "8"), UInt8(ascii: "9"), UInt8(ascii: "a"), UInt8(ascii: "b")].contains(
              bytes[raw + 3] | 0x20)
          raw += isHigh && raw + 7 < bytes.count && bytes[raw + 6] == backslash ? 12 : 6
        } else {
          raw += 2
        }
      } else {
        // One scalar: its lead byte and continuation bytes.
        raw += 1
        while raw < bytes.count, bytes[raw] & 0xC0 == 0x80 { raw += 1 }
      }
      decoded += 1
    }
    return min(raw, bytes.count)
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
