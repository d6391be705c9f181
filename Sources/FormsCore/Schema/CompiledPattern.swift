import Foundation
import Synchronization

/// A descriptor's `pattern` (or an expression's `~ "regex"`), compiled once: an ECMA-262 regular
/// expression as JSON Schema means it (`ECMAPattern`), so that formsctl and the exported JSON
/// Schema accept the same strings. Unanchored, as in JSON Schema.
///
/// The patterns descriptors use most (`^[A-Z]{3}$`, `^ACQ-[0-9]{4}-[0-9]{3}$`: anchored runs of
/// characters and classes with counts) are also compiled to a small byte matcher, used for
/// strings of printable ASCII; anything else goes to NSRegularExpression with the pattern restated
/// in ICU syntax, which gives the same answers at a hundred times the cost. The restatement of such
/// a pattern is ICU syntax by construction, so its NSRegularExpression is only made when a string
/// first needs it: a command whose values are all judged by the byte matcher never starts ICU's
/// regular expressions (a few milliseconds of every `get` and `set`). Any other pattern is compiled
/// at once, so that one ICU refuses is refused when its descriptor is read.
public final class CompiledPattern: Sendable {
  public let source: String
  /// `source` in ICU syntax, with ECMA-262's meaning.
  let icuSource: String
  private let regex: Mutex<NSRegularExpression?>
  private let simple: [Step]?

  /// Compiles `source`, or says why it is not ECMA-262 or not a pattern formsctl matches.
  public init(_ source: String) throws(PatternError) {
    self.source = source
    icuSource = try ECMAPattern.icu(source)
    simple = Self.compileSimple(source)
    if simple == nil {
      do {
        regex = Mutex(try NSRegularExpression(pattern: icuSource))
      } catch {
        throw PatternError(reason: "its ICU form \(icuSource) does not compile", offset: 0, unsupported: true)
      }
    } else {
      regex = Mutex(nil)
    }
  }

  /// True when the pattern matches somewhere in `string`.
  public func matches(_ string: String) -> Bool {
    var text = string
    if let answer = text.withUTF8({ matches(bytes: $0) }) { return answer }
    let regex = self.regex.withLock { regex in
      // The simple subset's restatement is ICU syntax (CompiledPatternTests holds it to that).
      if regex == nil { regex = try? NSRegularExpression(pattern: icuSource) }
      return regex
    }
    guard let regex else { preconditionFailure("ICU refused the simple pattern \(source) as \(icuSource)") }
    let range = NSRange(string.startIndex..<string.endIndex, in: string)
    return regex.firstMatch(in: string, options: [], range: range) != nil
  }

  /// The byte matcher's answer for a string's UTF-8, or nil when it has none (a pattern beyond
  /// it, or text that is not printable ASCII): then only `matches` can say.
  public func matches(bytes: UnsafeBufferPointer<UInt8>) -> Bool? {
    guard let simple, bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
    return Self.match(simple[...], bytes[...])
  }

  /// One element of an anchored pattern: a set of ASCII bytes, repeated `min` to `max` times.
  struct Step {
    var set: (UInt64, UInt64)
    var min: Int
    var max: Int

    func contains(_ byte: UInt8) -> Bool {
      byte < 64 ? set.0 & (1 << UInt64(byte)) != 0 : byte < 128 && set.1 & (1 << UInt64(byte - 64)) != 0
    }
  }

  /// Whole-string match with backtracking (patterns are short).
  static func match(_ steps: ArraySlice<Step>, _ input: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
    guard let step = steps.first else { return input.isEmpty }
    var count = 0
    var position = input.startIndex
    while count < step.max && position < input.endIndex && step.contains(input[position]) {
      count += 1
      position += 1
    }
    while count >= step.min {
      if match(steps.dropFirst(), input[(input.startIndex + count)...]) { return true }
      count -= 1
    }
    return false
  }

  /// The largest count of a `{n,m}` the byte matcher takes.
  static let largestCount = 100_000

  /// `^ (atom quantifier?)* $` with atoms an ASCII literal, `\d`, an escaped punctuation mark or a
  /// non-negated class of them and ranges; nil for anything else. Only called on valid ECMA-262
  /// (which `\-` outside a class, say, is not); on printable ASCII, `^`, `$` and `\d` mean the
  /// same in ECMA-262 and here.
  static func compileSimple(_ source: String) -> [Step]? {
    let b = Array(source.utf8)
    guard b.count >= 2, b.first == UInt8(ascii: "^"), b.last == UInt8(ascii: "$"),
      b.allSatisfy({ $0 >= 0x20 && $0 < 0x7F })
    else { return nil }
    var i = 1
    let end = b.count - 1
    var steps: [Step] = []
    func add(_ byte: UInt8, to set: inout (UInt64, UInt64)) {
      if byte < 64 { set.0 |= 1 << UInt64(byte) } else { set.1 |= 1 << UInt64(byte - 64) }
    }
    func isPunctuation(_ byte: UInt8) -> Bool {
      (0x21...0x2F).contains(byte) || (0x3A...0x40).contains(byte) || (0x5B...0x60).contains(byte)
        || (0x7B...0x7E).contains(byte)
    }
    // Outside a class, any printable ASCII but ICU's metacharacters stands for itself.
    let metacharacters = Array("\\^$.|?*+()[]{}".utf8)
    func isPlain(_ byte: UInt8) -> Bool { byte >= 0x20 && byte < 0x7F && !metacharacters.contains(byte) }
    func escaped(_ byte: UInt8, into set: inout (UInt64, UInt64)) -> Bool {
      if byte == UInt8(ascii: "d") {
        for digit in UInt8(ascii: "0")...UInt8(ascii: "9") { add(digit, to: &set) }
        return true
      }
      guard isPunctuation(byte) else { return false }
      add(byte, to: &set)
      return true
    }
    while i < end {
      var set: (UInt64, UInt64) = (0, 0)
      let byte = b[i]
      if byte == UInt8(ascii: "\\") {
        guard i + 1 < end, escaped(b[i + 1], into: &set) else { return nil }
        i += 2
      } else if byte == UInt8(ascii: "[") {
        i += 1
        // Negation, ICU's set operations (`&&`, `--`) and POSIX classes are left to ICU.
        guard i < end, b[i] != UInt8(ascii: "^"), b[i] != UInt8(ascii: "]"),
          let close = b[i...].firstIndex(of: UInt8(ascii: "]")),
          !b[i..<close].contains(UInt8(ascii: "&")),
          !zip(b[i..<close], b[(i + 1)..<(close + 1)]).contains(where: { $0 == 0x2D && $1 == 0x2D })
        else { return nil }
        var first = true
        while i < end && (b[i] != UInt8(ascii: "]") || first) {
          first = false
          var low = b[i]
          if low == UInt8(ascii: "\\") {
            guard i + 1 < end, escaped(b[i + 1], into: &set) else { return nil }
            i += 2
            continue
          }
          guard low != UInt8(ascii: "["), low != UInt8(ascii: "]") else { return nil }
          i += 1
          if i + 1 < end, b[i] == UInt8(ascii: "-"), b[i + 1] != UInt8(ascii: "]") {
            let high = b[i + 1]
            guard high >= low, high != UInt8(ascii: "\\"), high != UInt8(ascii: "[") else { return nil }
            while low < high {
              add(low, to: &set)
              low += 1
            }
            add(high, to: &set)
            i += 2
          } else {
            add(low, to: &set)
          }
        }
        guard i < end else { return nil }
        i += 1
      } else if isPlain(byte) {
        add(byte, to: &set)
        i += 1
      } else {
        return nil
      }
      var step = Step(set: set, min: 1, max: 1)
      if i < end {
        switch b[i] {
        case UInt8(ascii: "?"): (step.min, step.max, i) = (0, 1, i + 1)
        case UInt8(ascii: "*"): (step.min, step.max, i) = (0, Int.max, i + 1)
        case UInt8(ascii: "+"): (step.min, step.max, i) = (1, Int.max, i + 1)
        case UInt8(ascii: "{"):
          guard let close = b[i...].firstIndex(of: UInt8(ascii: "}")), close < end else { return nil }
          let inner = String(decoding: b[(i + 1)..<close], as: UTF8.self).split(
            separator: ",", omittingEmptySubsequences: false)
          guard let low = inner.first.flatMap({ Int($0) }), inner.count <= 2 else { return nil }
          let high = inner.count == 1 ? low : (inner[1].isEmpty ? Int.max : Int(inner[1]))
          // Counts ICU would refuse as too big are left to it, to be refused.
          guard let high, high >= low, low <= Self.largestCount, high == Int.max || high <= Self.largestCount else {
            return nil
          }
          (step.min, step.max, i) = (low, high, close + 1)
        default: break
        }
        // A quantifier after a quantifier (`a+?`, `a{2}+`) is lazy or possessive: not this subset.
        if i < end, [UInt8(ascii: "?"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "{")].contains(b[i]),
          step.min != 1 || step.max != 1
        {
          return nil
        }
      }
      steps.append(step)
    }
    return steps
  }
}
