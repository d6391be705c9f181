import FormsTestSupport
import Foundation
import Testing

@testable import FormsCore

/// The byte matcher for simple anchored patterns must answer exactly as NSRegularExpression does.
struct CompiledPatternTests {
  static let patterns = [
    "^ACQ-[0-9]{4}-[0-9]{3}$", "^[0-9A-Z-]{1,32}$", "^[0-9]{4}[A-Z]?$", "^[0-9]{6}$", "^[A-Z][A-Z.]{0,5}$",
    "^[A-Z]{3}$",
    "^a*a$", "^[ab]+b{2,}$", "^\\d{2}\\.\\d?$", "^x{0}y$", "^[a-c-]*$", "^[-a]{1,2}$", "^AB?C*$", "^[\\-.]+$", "^$",
  ]

  @Test(arguments: patterns)
  func answersAsICUDoes(_ source: String) throws {
    let steps = try #require(CompiledPattern.compileSimple(source), "\(source) is in the simple subset")
    let regex = try NSRegularExpression(pattern: source)
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
      #expect(CompiledPattern(source)!.matches(text) == expected)
    }
  }

  @Test func leavesEverythingElseToICU() {
    for source in [
      "[A-Z]{3}", "^[^a]$", "^a|b$", "^(ab)+$", "^a.b$", "^[a-z&&[^b]]$", "^a+?$", "^[[:alpha:]]$", "^\\w$", "^[a--b]$",
    ] {
      #expect(CompiledPattern.compileSimple(source) == nil, "\(source)")
    }
    // A line break at the end: ICU's `$` matches before it; such text never takes the fast path.
    #expect(
      CompiledPattern("^[A-Z]{3}$")!.matches("USD\n")
        == ((try? NSRegularExpression(pattern: "^[A-Z]{3}$"))!.firstMatch(
          in: "USD\n", range: NSRange(location: 0, length: 4)) != nil))
  }

  /// A pattern of the byte matcher's subset gets its NSRegularExpression only when a string needs
  /// it, so the subset must be ICU syntax: random patterns over its characters, each one taken
  /// must be one ICU compiles (and answers as it does).
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
      guard let steps = CompiledPattern.compileSimple(source) else { continue }
      taken += 1
      let regex = try #require(try? NSRegularExpression(pattern: source), "ICU refuses \(source)")
      for text in ["", "a", "aZ0", "a-c.", "0,3", "aaa", "Z-"] {
        let expected = regex.firstMatch(in: text, range: NSRange(location: 0, length: text.utf16.count)) != nil
        let answer = Array(text.utf8).withUnsafeBufferPointer { CompiledPattern.match(steps[...], $0[...]) }
        #expect(answer == expected, "\(source) on \"\(text)\"")
        // Not ASCII: answered by the NSRegularExpression made on first use.
        let accented = text + "é"
        let range = NSRange(location: 0, length: accented.utf16.count)
        #expect(CompiledPattern(source)?.matches(accented) == (regex.firstMatch(in: accented, range: range) != nil))
      }
    }
    #expect(taken > 2_000, "\(taken) patterns of the subset")
  }
}
