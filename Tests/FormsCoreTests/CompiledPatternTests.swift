import FormsTestSupport
import Foundation
import Testing

@testable import FormsCore

/// Patterns mean what ECMA-262 (JSON Schema, with Ajv's `u` flag) says, and the byte matcher for
/// simple anchored patterns answers exactly as NSRegularExpression does on their ICU restatement.
struct CompiledPatternTests {
  /// Pattern, string, and whether `new RegExp(pattern, "u").test(string)` in node 20.
  static let ecmaAnswers: [(String, String, Bool)] = [
    ("^[A-Z]{3}$", "USD", true),
    ("^[A-Z]{3}$", "USD\u{A}", false),
    ("^[A-Z]{3}$", "\u{A}USD", false),
    ("^[A-Z]{3}$", "usd", false),
    ("^[a-z]+$", "abc", true),
    ("^[a-z]+$", "abc\u{A}", false),
    ("^[a-z]+$", "abc\u{D}\u{A}", false),
    ("[A-Z]$", "A\u{A}", false),
    ("[A-Z]$", "A", true),
    ("^b", "a\u{A}b", false),
    ("^b", "b", true),
    (#"^\w+$"#, "abc_1", true),
    (#"^\w+$"#, "é", false),
    (#"^\w+$"#, "abé", false),
    (#"^\W$"#, "é", true),
    (#"^\W$"#, "a", false),
    (#"^\W$"#, "_", false),
    (#"^\d+$"#, "123", true),
    (#"^\d+$"#, "\u{663}", false),
    (#"^\d+$"#, "\u{FF11}", false),
    (#"^\D$"#, "\u{663}", true),
    (#"^\D$"#, "3", false),
    (#"^\s$"#, " ", true),
    (#"^\s$"#, "\u{9}", true),
    (#"^\s$"#, "\u{B}", true),
    (#"^\s$"#, "\u{C}", true),
    (#"^\s$"#, "\u{A0}", true),
    (#"^\s$"#, "\u{1680}", true),
    (#"^\s$"#, "\u{2000}", true),
    (#"^\s$"#, "\u{200A}", true),
    (#"^\s$"#, "\u{2028}", true),
    (#"^\s$"#, "\u{2029}", true),
    (#"^\s$"#, "\u{202F}", true),
    (#"^\s$"#, "\u{205F}", true),
    (#"^\s$"#, "\u{3000}", true),
    (#"^\s$"#, "\u{FEFF}", true),
    (#"^\s$"#, "\u{85}", false),
    (#"^\s$"#, "\u{180E}", false),
    (#"^\s$"#, "\u{200B}", false),
    (#"^\S$"#, "\u{85}", true),
    (#"^\S$"#, "\u{A0}", false),
    (#"^\S$"#, "a", true),
    ("^.$", "\u{A}", false),
    ("^.$", "\u{D}", false),
    ("^.$", "\u{2028}", false),
    ("^.$", "\u{2029}", false),
    ("^.$", "\u{85}", true),
    ("^.$", "\u{B}", true),
    ("^.$", "\u{C}", true),
    ("^.$", "\u{1F600}", true),
    ("^.$", "a", true),
    (#"\bx"#, "éx", true),
    (#"\bx"#, "ax", false),
    (#"\bx"#, "x", true),
    (#"x\B"#, "xé", false),
    (#"x\B"#, "xa", true),
    ("^[^a]$", "\u{A}", true),
    ("^[^a]$", "a", false),
    ("^[^a]$", "\u{1F600}", true),
    (#"^[\d-]+$"#, "1-2", true),
    (#"^[\d-]+$"#, "a", false),
    (#"^[\s]$"#, "\u{A0}", true),
    (#"^[\s]$"#, "\u{85}", false),
    (#"^[^\D]$"#, "5", true),
    (#"^[^\D]$"#, "\u{663}", false),
    ("^[a-c-e]+$", "a-e", true),
    ("^[a-c-e]+$", "d", false),
    (#"^\p{Lu}+$"#, "ÉA", true),
    (#"^\p{Lu}+$"#, "é", false),
    (#"^\P{L}$"#, "1", true),
    (#"^\P{L}$"#, "a", false),
    (#"^[\p{Nd}a]+$"#, "a\u{663}", true),
    (#"^[\p{Nd}a]+$"#, "b", false),
    ("^[^]$", "\u{A}", true),
    ("^[^]$", "\u{1F600}", true),
    ("^[]?$", "", true),
    ("^[]?$", "a", false),
    (#"^\u{1F600}$"#, "\u{1F600}", true),
    (#"^\uD83D\uDE00$"#, "\u{1F600}", true),
    (#"^\x41\cJ\0$"#, "A\u{A}\u{0}", true),
    (#"^[\b]$"#, "\u{8}", true),
    (#"^[\b]$"#, "b", false),
    ("^(?:ab|cd)+$", "abcd", true),
    ("^(?:ab|cd)+$", "abc", false),
    (#"^(?<year>\d{4})-(\d\d)$"#, "2026-11", true),
    (#"^(?<year>\d{4})-(\d\d)$"#, "2026-1", false),
    (#"(?<=\$)\d+"#, "$12", true),
    (#"(?<=\$)\d+"#, "12", false),
    (#"(?<!\$)\b\d+"#, "$12", false),
    (#"(?<!\$)\b\d+"#, "12", true),
    (#"^(?=.*\d)(?!.*\s).{3,}$"#, "ab1", true),
    (#"^(?=.*\d)(?!.*\s).{3,}$"#, "a b1", false),
    (#"^(?=.*\d)(?!.*\s).{3,}$"#, "abc", false),
    ("^[[]$", "[", true),
    ("^a+?b*?$", "aab", true),
    (#"^\/\.\*\{\}$"#, "/.*{}", true),
    (#"^[\-\]\\]+$"#, "-]\\", true),
    ("", "", true),
    ("", "x", true),
    ("a|^$", "", true),
    ("a|^$", "b", false),
    ("a|^$", "ba", true),
    ("^café$", "café", true),
    ("^café$", "cafe\u{301}", false),
    (#"^[^\n]*$"#, "a\u{D}b", true),
    (#"^[^\n]*$"#, "a\u{A}b", false),
  ]

  @Test func matchesAsECMA262Does() throws {
    for (source, text, expected) in Self.ecmaAnswers {
      let pattern = try CompiledPattern(source)
      #expect(pattern.matches(text) == expected, "\(source) on \(text.debugDescription) (ICU \(pattern.icuSource))")
    }
  }

  /// Pattern, and whether node 20 compiles it with the `u` flag (refused as not supported) or
  /// not (refused as not ECMA-262). ICU would take most of these, with another meaning.
  static let refusals: [(String, Bool)] = [
    ("^a{2}+$", false), ("^[a-z&&[^b]]$", false), ("^[[:alpha:]]+$", false), (#"\Z"#, false), (#"\A"#, false),
    (#"abc\z"#, false), ("(?i)abc", false), (#"^\-$"#, false), (#"^[\w-z]$"#, false), ("^[z-a]$", false),
    ("a{2,1}", false), ("a{", false), ("}", false), ("]", false), ("(?=a)*", false), ("^*", false), (#"\e"#, false),
    (#"\x4"#, false), (#"\u12"#, false), (#"\c1"#, false), (#"\01"#, false), ("(a", false), ("a)", false),
    ("[a", false), ("(?<a>x)(?<a>y)", false), (#"\u{110000}"#, false), ("a**", false), ("a{,5}", false),
    (#"^(a)\1$"#, true), (#"(?<n>a)\k<n>"#, true), ("(?<=a+)b", true), ("(?<!a*)b", true),
    (#"\p{Script=Latin}"#, true), (#"\p{scx=Grek}"#, true), ("a{100001}", true), ("a{1,100001}", true),
    (#"\p{Emoji}"#, true),
  ]

  @Test func refusesWhatItWouldNotMatchAsECMA262Does() {
    for (source, validECMA) in Self.refusals {
      #expect(throws: PatternError.self, "\(source)") { try CompiledPattern(source) }
      do {
        _ = try CompiledPattern(source)
      } catch {
        #expect(error.unsupported == validECMA, "\(source): \(error)")
      }
    }
    // Valid ECMA-262 taken: named groups, General_Category, bounded lookbehinds, counts up to 100,000.
    for source in [
      #"\p{gc=Lu}"#, #"\p{General_Category=Decimal_Number}"#, #"\p{Any}"#, "(?<=ab|c)d", "a{100000}", "(?<é>x)",
    ] {
      #expect(throws: Never.self, "\(source)") { try CompiledPattern(source) }
    }
  }

  static let patterns = [
    "^ACQ-[0-9]{4}-[0-9]{3}$", "^[0-9A-Z-]{1,32}$", "^[0-9]{4}[A-Z]?$", "^[0-9]{6}$", "^[A-Z][A-Z.]{0,5}$",
    "^[A-Z]{3}$",
    "^a*a$", "^[ab]+b{2,}$", "^\\d{2}\\.\\d?$", "^x{0}y$", "^[a-c-]*$", "^[-a]{1,2}$", "^AB?C*$", "^[\\-.]+$", "^$",
  ]

  @Test(arguments: patterns)
  func answersAsICUDoes(_ source: String) throws {
    let steps = try #require(CompiledPattern.compileSimple(source), "\(source) is in the simple subset")
    let regex = try NSRegularExpression(pattern: try ECMAPattern.icu(source))
    var rng = SeededGenerator(state: UInt64(source.utf8.count))
    let alphabet = Array("0123456789ABCAZaby.-x ".utf8)
    for length in 0..<14 {
      for _ in 0..<60 {
        let input = (0..<length).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
        let text = String(decoding: input, as: UTF8.self)
        let expected = regex.firstMatch(in: text, range: NSRange(text.startIndex..<text.endIndex, in: text)) != nil
        #expect(
          input.withUnsafeBufferPointer { CompiledPattern.match(steps[...], $0[...]) } == expected,
          "\(source) on \"\(text)\"")
      }
    }
    for text in ["ACQ-2026-001", "0001A", "USD", "GSA.", "aa", "abbb"] {
      let expected = regex.firstMatch(in: text, range: NSRange(text.startIndex..<text.endIndex, in: text)) != nil
      #expect(try CompiledPattern(source).matches(text) == expected)
    }
  }

  @Test func leavesEverythingElseToICU() {
    for source in [
      "[A-Z]{3}", "^[^a]$", "^a|b$", "^(ab)+$", "^a.b$", "^[a-z&&[^b]]$", "^a+?$", "^[[:alpha:]]$", "^\\w$", "^[a--b]$",
    ] {
      #expect(CompiledPattern.compileSimple(source) == nil, "\(source)")
    }
  }

  /// A pattern of the byte matcher's subset gets its NSRegularExpression only when a string needs
  /// it, so the restatement of the subset must be ICU syntax: random patterns over its characters,
  /// each valid ECMA-262 one taken must be one ICU compiles (and answers as it does).
  @Test func everyPatternOfTheSubsetIsOneICUCompiles() throws {
    var rng = SeededGenerator(state: 3)
    let pieces = [
      "a", "Z", "0", "-", ".", ",", "[", "]", "{", "}", "?", "*", "+", "\\d", "\\.", "\\-", "\\", "^", "$", "a-c", "3",
      "{2}", "{1,3}", "{2,}", "{0}", "{100001}", "{3,1}", "&", " ",
    ]
    var taken = 0
    for _ in 0..<30_000 {
      let body = (0..<Int.random(in: 0...6, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
      let source = "^" + body + "$"
      guard let steps = CompiledPattern.compileSimple(source), let icu = try? ECMAPattern.icu(source) else { continue }
      taken += 1
      let regex = try #require(try? NSRegularExpression(pattern: icu), "ICU refuses \(source) as \(icu)")
      for text in ["", "a", "aZ0", "a-c.", "0,3", "aaa", "Z-"] {
        let expected = regex.firstMatch(in: text, range: NSRange(location: 0, length: text.utf16.count)) != nil
        let answer = Array(text.utf8).withUnsafeBufferPointer { CompiledPattern.match(steps[...], $0[...]) }
        #expect(answer == expected, "\(source) on \"\(text)\"")
        // Not ASCII: answered by the NSRegularExpression made on first use.
        let accented = text + "é"
        let range = NSRange(location: 0, length: accented.utf16.count)
        #expect(
          (try? CompiledPattern(source))?.matches(accented) == (regex.firstMatch(in: accented, range: range) != nil))
      }
    }
    #expect(taken > 2_000, "\(taken) patterns of the subset")
  }
}
