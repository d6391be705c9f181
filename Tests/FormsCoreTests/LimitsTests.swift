import Testing

@testable import FormsCore

/// Input that nests or grows without bound is refused with a message, never a crash.
struct LimitsTests {
  /// 25,000 `not`, 40,000 parentheses, 25,000 `and`: built here, so the test log names only the shape.
  static func hostile(_ shape: String) -> String {
    switch shape {
    case "not": return String(repeating: "not ", count: 25_000) + "a exists"
    case "parentheses":
      return String(repeating: "(", count: 40_000) + "a exists" + String(repeating: ")", count: 40_000)
    default: return Array(repeating: "a exists", count: 25_000).joined(separator: " and ")
    }
  }

  @Test(arguments: [
    ("not", "nested more than 64 deep"), ("parentheses", "nested more than 64 deep"),
    ("and", "more than 1024 'and'/'or'"),
  ])
  func deepOrLongExpressionsAreRefused(_ shape: String, _ message: String) {
    do {
      _ = try ExpressionParser.parse(Self.hostile(shape))
      Issue.record("accepted")
    } catch {
      #expect(error.message.contains(message), "\(error.message)")
    }
  }

  @Test func expressionsUpToTheLimitsEvaluate() throws {
    let nested = try ExpressionParser.parse(String(repeating: "not ", count: 64) + "a exists")
    #expect(nested.evaluate(.object(JSONObject(["a": .number(JSONNumber(1))]))))
    let long = try ExpressionParser.parse(Array(repeating: "a exists", count: 1025).joined(separator: " or "))
    #expect(long.evaluate(.object(JSONObject(["a": .number(JSONNumber(2))]))))
  }

  @Test func messagesQuoteControlCharactersEscaped() {
    #expect("a\nb\u{1B}[31m\u{7F}\u{0}\u{85}é\\d".escapingControlCharacters == #"a\nb\u001b[31m\u007f\u0000\u0085é\d"#)
    let diagnostic = Diagnostic(
      file: "data/x\n.json", position: SourcePosition(line: 1, column: 2),
      pointer: JSONPointer(tokens: ["key"]), rule: "type", message: "bad \"\u{0}\"\n")
    #expect(diagnostic.compilerStyle == #"data/x\n.json:1:2: error: key: bad "\u0000"\n [type]"#)
    #expect(!DiagnosticPrinter.render([diagnostic], as: .github).dropLast().contains("\n"))
  }

  @Test func canonicalJSONEscapesDELLikeJq() {
    #expect(JSONWriter.compact(.string("a\u{7F}b")) == #""a\u007fb""#)
  }

  @Test func lineDiffStaysLinearOnLargeRewrites() {
    let before = (0..<20_000).map { "line \($0)" }.joined(separator: "\n")
    let after = (0..<20_000).map { $0 % 2 == 0 ? "line \($0)" : "LINE \($0)" }.joined(separator: "\n")
    let diff = lineDiff(before, after)  // 400 M pairs: the quadratic table would take 3.2 GB
    #expect(diff.split(separator: "\n").count == 39_999)
    #expect(lineDiff("a\nb\nc", "a\nx\nc") == "  a\n+ x\n- b\n  c")
  }
}
