/// Why a descriptor's pattern is refused: not ECMA-262 syntax, or ECMA-262 that formsctl does not match.
public struct PatternError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What is wrong, in a few words.
  public let reason: String
  /// The 0-based index, in Unicode scalars, of the place in the pattern.
  public let offset: Int
  /// True when the pattern is valid ECMA-262 that formsctl refuses (a backreference, say).
  public let unsupported: Bool

  /// What follows the pattern in a message: `is not a valid regular expression (ECMA-262): nothing
  /// to repeat at character 3`.
  public var description: String {
    unsupported
      ? "is not supported: \(reason) at character \(offset + 1) (formsctl matches patterns exactly as ECMA-262, JSON Schema's dialect, does)"
      : "is not a valid regular expression (ECMA-262, JSON Schema's dialect): \(reason) at character \(offset + 1)"
  }
}

/// A JSON Schema `pattern`: an ECMA-262 regular expression as Ajv compiles it (the `u` flag, no
/// other), parsed and restated in ICU syntax with the same meaning, so that a string matches it in
/// formsctl exactly when it does in a JSON Schema validator. `^` and `$` only at the ends of the
/// string; `\d`, `\w`, `\b` ASCII; `\s` ECMA's WhiteSpace and LineTerminator; `.` anything but
/// `\n`, `\r`, U+2028 and U+2029. Backreferences, Unicode properties other than General_Category
/// (and `Any`, `ASCII`, `Assigned`), lookbehinds of unbounded length and counts above 100,000 are
/// refused rather than approximated.
struct ECMAPattern {
  /// The ICU pattern that means what `source` means in ECMA-262.
  static func icu(_ source: String) throws(PatternError) -> String {
    var parser = ECMAPattern(scalars: Array(source.unicodeScalars))
    let (out, _) = try parser.disjunction()
    if parser.i < parser.scalars.count {
      // `disjunction` stops only at `)` or the end.
      throw parser.invalid("unmatched ')'")
    }
    // ICU refuses an empty pattern; ECMA's matches everywhere.
    return out.isEmpty ? "(?:)" : out
  }

  /// ECMA's `\w` (without the `i` flag) and hence `\b`.
  static let word = "0-9A-Za-z_"
  /// ECMA's WhiteSpace (tab, VT, FF, space, NBSP, ZWNBSP and Space_Separator) and LineTerminator.
  static let space =
    "\\t\\n\\x{b}\\f\\r\\x{20}\\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}"
  /// ECMA's LineTerminator, which `.` does not match.
  static let lineTerminators = "\\n\\r\\x{2028}\\x{2029}"
  /// The largest count of a `{n,m}` taken.
  static let largestCount = 100_000

  let scalars: [Unicode.Scalar]
  var i = 0
  var groupNames: Set<String> = []

  init(scalars: [Unicode.Scalar]) { self.scalars = scalars }

  var peek: Unicode.Scalar? { i < scalars.count ? scalars[i] : nil }

  func invalid(_ reason: String, at offset: Int? = nil) -> PatternError {
    PatternError(reason: reason, offset: min(offset ?? i, scalars.count), unsupported: false)
  }

  func unsupported(_ reason: String, at offset: Int) -> PatternError {
    PatternError(reason: reason, offset: offset, unsupported: true)
  }

  mutating func eat(_ scalar: Unicode.Scalar) -> Bool {
    guard peek == scalar else { return false }
    i += 1
    return true
  }

  /// Alternatives up to a `)` or the end: the ICU text and the most scalars it can match (nil: no bound).
  mutating func disjunction() throws(PatternError) -> (String, Int?) {
    var (out, longest) = try alternative()
    while eat("|") {
      let (next, length) = try alternative()
      out += "|" + next
      longest = longest.flatMap { a in length.map { max(a, $0) } }
    }
    return (out, longest)
  }

  mutating func alternative() throws(PatternError) -> (String, Int?) {
    var out = ""
    var longest: Int? = 0
    while let c = peek, c != "|", c != ")" {
      let start = i
      let (atom, length, quantifiable) = try term()
      guard let (quantifier, high) = try quantifier() else {
        out += atom
        longest = longest.flatMap { a in length.map { a + $0 } }
        continue
      }
      guard quantifiable else { throw invalid("nothing to repeat", at: start) }
      out += "(?:" + atom + ")" + quantifier
      let repeated: Int? = length == 0 ? 0 : high.flatMap { h in length.map { h * $0 } }
      longest = longest.flatMap { a in repeated.map { a + $0 } }
    }
    return (out, longest)
  }

  /// A `*`, `+`, `?` or `{n,m}` (and a lazy `?`) in ICU syntax with its largest count (nil: none),
  /// or nil when no quantifier follows.
  mutating func quantifier() throws(PatternError) -> (text: String, high: Int?)? {
    let start = i
    var text: String
    var high: Int?
    switch peek {
    case "*": (text, high, i) = ("*", nil, i + 1)
    case "+": (text, high, i) = ("+", nil, i + 1)
    case "?": (text, high, i) = ("?", 1, i + 1)
    case "{":
      i += 1
      guard let low = try number() else { throw invalid("'{' that starts no count", at: start) }
      high = low
      if eat(",") { high = peek == "}" ? nil : try number() }
      guard eat("}") else { throw invalid("'{' that starts no count", at: start) }
      if let high, high < low { throw invalid("numbers out of order in {\(low),\(high)}", at: start) }
      text = high == low ? "{\(low)}" : "{\(low),\(high.map(String.init) ?? "")}"
    default: return nil
    }
    if eat("?") { text += "?" }
    return (text, high)
  }

  /// Decimal digits as a count (refused above `largestCount`); nil when there is no digit.
  mutating func number() throws(PatternError) -> Int? {
    let start = i
    var value = 0
    while let c = peek, ("0"..."9").contains(c) {
      value = min(value * 10 + Int(c.value - 48), Self.largestCount + 1)
      i += 1
    }
    guard i > start else { return nil }
    if value > Self.largestCount {
      throw unsupported("a count above \(Self.largestCount)", at: start)
    }
    return value
  }

  /// One assertion or atom: its ICU text, the most scalars it matches, and whether a quantifier may follow.
  mutating func term() throws(PatternError) -> (String, Int?, Bool) {
    let start = i
    guard let c = peek else { throw invalid("unexpected end") }
    i += 1
    switch c {
    case "^": return ("\\A", 0, false)
    case "$": return ("\\z", 0, false)
    case ".": return ("[^\(Self.lineTerminators)]", 1, true)
    case "[": return (try characterClass(), 1, true)
    case "(": return try group(start)
    case "\\":
      switch peek {
      case "b":
        i += 1
        let w = "[\(Self.word)]"
        return ("(?:(?<=\(w))(?!\(w))|(?<!\(w))(?=\(w)))", 0, false)
      case "B":
        i += 1
        let w = "[\(Self.word)]"
        return ("(?:(?<=\(w))(?=\(w))|(?<!\(w))(?!\(w)))", 0, false)
      case let d? where ("1"..."9").contains(d):
        throw unsupported("a backreference (\\\(d))", at: start)
      case "k":
        throw scalars.count > i + 1 && scalars[i + 1] == "<"
          ? unsupported("a named backreference (\\k<...>)", at: start) : invalid("\\k without <name>", at: start)
      default:
        return (try escape(inClass: false, start: start).text, 1, true)
      }
    case "*", "+", "?": throw invalid("nothing to repeat", at: start)
    case "{": throw invalid("lone '{' (write \\{)", at: start)
    case "}": throw invalid("lone '}' (write \\})", at: start)
    case "]": throw invalid("lone ']' (write \\])", at: start)
    case ")": throw invalid("unmatched ')'", at: start)
    default: return (Self.literal(c.value), 1, true)
    }
  }

  /// After `(`: a group, a non-capturing group or a lookaround, through its `)`.
  mutating func group(_ start: Int) throws(PatternError) -> (String, Int?, Bool) {
    var open = "(?:"
    var lookbehind = false
    var quantifiable = true
    if eat("?") {
      if eat(":") {
      } else if eat("=") {
        (open, quantifiable) = ("(?=", false)
      } else if eat("!") {
        (open, quantifiable) = ("(?!", false)
      } else if eat("<") {
        if eat("=") {
          (open, quantifiable, lookbehind) = ("(?<=", false, true)
        } else if eat("!") {
          (open, quantifiable, lookbehind) = ("(?<!", false, true)
        } else {
          try groupName(start)
        }
      } else {
        throw invalid("invalid group '(?'", at: start)
      }
    }
    // Captures are never read (no backreferences), so every group is non-capturing.
    let (body, length) = try disjunction()
    guard eat(")") else { throw invalid("unterminated group", at: start) }
    if lookbehind && length == nil {
      throw unsupported("a lookbehind that can match text of any length", at: start)
    }
    return (open + body + ")", quantifiable ? length : 0, quantifiable)
  }

  /// `name>` of a named group: an identifier, not used before.
  mutating func groupName(_ start: Int) throws(PatternError) {
    var name = ""
    while let c = peek, c != ">" {
      let valid =
        name.isEmpty ? (c.properties.isIDStart || c == "$" || c == "_") : (c.properties.isIDContinue || c == "$")
      if c == "\\" { throw unsupported("an escape in a group name", at: i) }
      guard valid else { throw invalid("invalid group name", at: i) }
      name.unicodeScalars.append(c)
      i += 1
    }
    guard !name.isEmpty, eat(">") else { throw invalid("invalid group name", at: start) }
    guard groupNames.insert(name).inserted else { throw invalid("duplicate group name \(name)", at: start) }
  }

  /// What an escape stands for: one code point (a lone surrogate is one, as with the `u` flag), or
  /// a set (in ICU set syntax, usable in and out of a class).
  enum Escaped {
    case scalar(UInt32)
    case set(String)

    var text: String {
      switch self {
      case .scalar(let c): ECMAPattern.literal(c)
      case .set(let s): s
      }
    }
  }

  /// After `\` (at `start`): a character escape or a class escape.
  mutating func escape(inClass: Bool, start: Int) throws(PatternError) -> Escaped {
    guard let c = peek else { throw invalid("\\ at end of pattern", at: start) }
    i += 1
    switch c {
    case "d": return .set("[0-9]")
    case "D": return .set("[^0-9]")
    case "w": return .set("[\(Self.word)]")
    case "W": return .set("[^\(Self.word)]")
    case "s": return .set("[\(Self.space)]")
    case "S": return .set("[^\(Self.space)]")
    case "p", "P": return .set(try property(negated: c == "P", start: start))
    case "f": return .scalar(0x0C)
    case "n": return .scalar(0x0A)
    case "r": return .scalar(0x0D)
    case "t": return .scalar(0x09)
    case "v": return .scalar(0x0B)
    case "b" where inClass: return .scalar(0x08)
    case "-" where inClass: return .scalar(0x2D)
    case "c":
      guard let letter = peek, ("a"..."z").contains(letter) || ("A"..."Z").contains(letter) else {
        throw invalid("\\c without a letter", at: start)
      }
      i += 1
      return .scalar(letter.value % 32)
    case "0":
      if let next = peek, ("0"..."9").contains(next) { throw invalid("octal escape", at: start) }
      return .scalar(0)
    case "x":
      guard let value = hex(count: 2) else { throw invalid("\\x without two hex digits", at: start) }
      return .scalar(value)
    case "u":
      return .scalar(try unicodeEscape(start))
    default:
      // With the `u` flag only syntax characters and `/` may be escaped.
      guard "^$\\.*+?()[]{}|/".unicodeScalars.contains(c) else {
        throw invalid("invalid escape \\\(c)", at: start)
      }
      return .scalar(c.value)
    }
  }

  /// After `\u`: `XXXX` (a surrogate pair of them is one code point) or `{X...}`.
  mutating func unicodeEscape(_ start: Int) throws(PatternError) -> UInt32 {
    if eat("{") {
      var value: UInt32 = 0
      var digits = 0
      while let c = peek, let digit = Self.hexValue(c) {
        value = min(value * 16 + digit, 0x11_0000)
        digits += 1
        i += 1
      }
      guard digits > 0, eat("}"), value <= 0x10_FFFF else { throw invalid("invalid \\u{...} escape", at: start) }
      return value
    }
    guard let value = hex(count: 4) else { throw invalid("\\u without four hex digits", at: start) }
    if (0xD800..<0xDC00).contains(value), scalars.count >= i + 6, scalars[i] == "\\", scalars[i + 1] == "u" {
      let save = i
      i += 2
      if let low = hex(count: 4), (0xDC00..<0xE000).contains(low) {
        return 0x10000 + (value - 0xD800) << 10 + (low - 0xDC00)
      }
      i = save
    }
    return value
  }

  mutating func hex(count: Int) -> UInt32? {
    guard i + count <= scalars.count else { return nil }
    var value: UInt32 = 0
    for k in i..<(i + count) {
      guard let digit = Self.hexValue(scalars[k]) else { return nil }
      value = value * 16 + digit
    }
    i += count
    return value
  }

  static func hexValue(_ c: Unicode.Scalar) -> UInt32? {
    switch c {
    case "0"..."9": c.value - 48
    case "a"..."f": c.value - 87
    case "A"..."F": c.value - 55
    default: nil
    }
  }

  /// ECMA's General_Category values, long and short names (ECMA-262 table "Value aliases").
  static let generalCategories: Set<String> = [
    "C", "Other", "Cc", "Control", "cntrl", "Cf", "Format", "Cn", "Unassigned", "Co", "Private_Use", "Cs",
    "Surrogate", "L", "Letter", "LC", "Cased_Letter", "Ll", "Lowercase_Letter", "Lm", "Modifier_Letter", "Lo",
    "Other_Letter", "Lt", "Titlecase_Letter", "Lu", "Uppercase_Letter", "M", "Mark", "Combining_Mark", "Mc",
    "Spacing_Mark", "Me", "Enclosing_Mark", "Mn", "Nonspacing_Mark", "N", "Number", "Nd", "Decimal_Number", "digit",
    "Nl", "Letter_Number", "No", "Other_Number", "P", "Punctuation", "punct", "Pc", "Connector_Punctuation", "Pd",
    "Dash_Punctuation", "Pe", "Close_Punctuation", "Pf", "Final_Punctuation", "Pi", "Initial_Punctuation", "Po",
    "Other_Punctuation", "Ps", "Open_Punctuation", "S", "Symbol", "Sc", "Currency_Symbol", "Sk", "Modifier_Symbol",
    "Sm", "Math_Symbol", "So", "Other_Symbol", "Z", "Separator", "Zl", "Line_Separator", "Zp",
    "Paragraph_Separator", "Zs", "Space_Separator",
  ]

  /// After `\p` or `\P`: `{Name}` or `{General_Category=Name}` as an ICU set.
  mutating func property(negated: Bool, start: Int) throws(PatternError) -> String {
    guard eat("{") else { throw invalid("\\p without {...}", at: start) }
    var text = ""
    while let c = peek, c != "}" {
      text.unicodeScalars.append(c)
      i += 1
    }
    guard eat("}"), !text.isEmpty else { throw invalid("unterminated \\p{...}", at: start) }
    let parts = text.split(separator: "=", omittingEmptySubsequences: false).map(String.init)
    let p = negated ? "P" : "p"
    if parts.count == 2, ["General_Category", "gc"].contains(parts[0]), Self.generalCategories.contains(parts[1]) {
      return "\\\(p){gc=\(Self.icuCategory(parts[1]))}"
    }
    if parts.count == 1, Self.generalCategories.contains(parts[0]) {
      return "\\\(p){gc=\(Self.icuCategory(parts[0]))}"
    }
    if parts.count == 1, ["Any", "ASCII", "Assigned"].contains(parts[0]) {
      return "\\\(p){\(parts[0])}"
    }
    throw unsupported(
      "the property \\\(p){\(text)} (only General_Category values, Any, ASCII and Assigned)", at: start)
  }

  /// ICU spells ECMA's aliases `cntrl`, `digit`, `punct` as these.
  static func icuCategory(_ name: String) -> String {
    ["cntrl": "Cc", "digit": "Nd", "punct": "P", "Combining_Mark": "M"][name] ?? name
  }

  /// After `[`: a class through its `]`, as an ICU set.
  mutating func characterClass() throws(PatternError) -> String {
    let start = i - 1
    let negated = eat("^")
    var items = ""
    while true {
      guard let c = peek else { throw invalid("unterminated character class", at: start) }
      if c == "]" {
        i += 1
        break
      }
      let atomStart = i
      let low = try classAtom()
      if peek == "-", i + 1 < scalars.count, scalars[i + 1] != "]" {
        i += 1
        let highStart = i
        let high = try classAtom()
        guard case .scalar(let a) = low, case .scalar(let b) = high else {
          throw invalid("a class escape in a range", at: atomStart)
        }
        guard a <= b else { throw invalid("range out of order", at: highStart) }
        items += Self.literal(a) + "-" + Self.literal(b)
      } else {
        items += low.text
      }
    }
    if items.isEmpty {
      // `[]` matches nothing, `[^]` anything; ICU has no empty set.
      return negated ? "[\\x{0}-\\x{10ffff}]" : "(?!)"
    }
    return "[" + (negated ? "^" : "") + items + "]"
  }

  mutating func classAtom() throws(PatternError) -> Escaped {
    guard let c = peek else { throw invalid("unterminated character class") }
    let start = i
    i += 1
    guard c == "\\" else { return .scalar(c.value) }
    return try escape(inClass: true, start: start)
  }

  /// One scalar as ICU text: ASCII letters and digits as themselves, anything else as `\x{...}`
  /// (no ICU metacharacter, set operator or whitespace rule can then apply).
  static func literal(_ c: UInt32) -> String {
    if (0x61...0x7A).contains(c) || (0x41...0x5A).contains(c) || (0x30...0x39).contains(c) {
      return String(UnicodeScalar(UInt8(c)))
    }
    return "\\x{\(String(c, radix: 16))}"
  }
}
