extension String {
  /// The text with every control character (C0, DEL, C1) written as a JSON-style escape (`\n`,
  /// `\u001b`), so that input quoted in a message can neither split it over lines nor drive the
  /// terminal. Everything else, backslashes included, is left as it is.
  public var escapingControlCharacters: String {
    guard unicodeScalars.contains(where: \.isControl) else { return self }
    var out = String.UnicodeScalarView()
    for scalar in unicodeScalars {
      guard scalar.isControl else {
        out.append(scalar)
        continue
      }
      switch scalar {
      case "\n": out.append(contentsOf: #"\n"#.unicodeScalars)
      case "\r": out.append(contentsOf: #"\r"#.unicodeScalars)
      case "\t": out.append(contentsOf: #"\t"#.unicodeScalars)
      default:
        let hex = String(scalar.value, radix: 16)
        out.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
      }
    }
    return String(out)
  }
}

extension Unicode.Scalar {
  /// C0 controls, DEL and C1 controls.
  fileprivate var isControl: Bool { value < 0x20 || (0x7F...0x9F).contains(value) }
}
