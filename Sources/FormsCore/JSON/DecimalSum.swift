/// An exact sum of JSON numbers, as decimals of any size (the digits the validator compares,
/// ``JSONNumber/compare(_:)``): `1e200 + 0.25` and a 40-digit amount with its cents are added
/// without rounding. It remembers the most decimals any number added was written with, so a sum
/// of amounts written `125000.00` is written so too.
public struct DecimalSum: Sendable, Equatable {
  /// The most digits from the lowest to the highest of a sum: a number this far from the others
  /// (`1e100000` beside `0.01`) is refused rather than written out digit by digit.
  public static let maximumDigits = 10_000
  /// The most characters of ``text`` without an exponent; a longer sum is written with one.
  static let plainLength = 120

  private var negative = false
  /// The digits, least significant first; empty for zero. The value is `digits × 10^exponent`.
  private var digits: [UInt8] = []
  private var exponent: Int64 = 0
  /// The most digits after the point that any number added was written with (`12.50` → 2).
  public private(set) var decimals = 0

  /// Zero, with no decimals.
  public init() {}

  /// Adds `number` exactly; false (and nothing added) when the sum would span more than
  /// ``maximumDigits`` digits.
  public mutating func add(_ number: JSONNumber) -> Bool {
    let parts = number.decimalParts
    let written = Self.writtenDecimals(number.text)
    guard !parts.digits.isEmpty else {
      decimals = max(decimals, min(written, Self.maximumDigits))
      return true
    }
    let other = parts.digits.utf8.reversed().map { $0 - UInt8(ascii: "0") }
    let low = digits.isEmpty ? parts.exponent : min(exponent, parts.exponent)
    let high = max(digits.isEmpty ? Int64.min : exponent + Int64(digits.count), parts.exponent + Int64(other.count))
    guard high - low <= Int64(Self.maximumDigits) else { return false }
    let mine = digits.isEmpty ? [] : Array(repeating: 0, count: Int(exponent - low)) + digits
    let theirs = Array(repeating: 0, count: Int(parts.exponent - low)) + other
    if digits.isEmpty || negative == parts.negative {
      digits = Self.sum(mine, theirs)
      negative = parts.negative
    } else if Self.less(mine, theirs) {
      digits = Self.difference(theirs, mine)
      negative = parts.negative
    } else {
      digits = Self.difference(mine, theirs)
    }
    exponent = low
    normalize()
    decimals = max(decimals, min(written, Self.maximumDigits))
    return true
  }

  /// The sum as a JSON number: plain, with at least ``decimals`` digits after the point (`125000.00`,
  /// `-0.5`, `0`), or, when that would be longer than 120 characters, as its digits and a power of
  /// ten (`1e200`, `10000000000000000000000000000000000000000000000000000000000000000000000000025e-2`).
  public var text: String { text(decimals: decimals) }

  /// ``text`` with at least `minimum` digits after the point (when written without an exponent).
  public func text(decimals minimum: Int) -> String {
    let sign = negative ? "-" : ""
    let figures = String(decoding: digits.reversed().map { $0 + UInt8(ascii: "0") }, as: UTF8.self)
    let places = max(Int64(max(decimals, min(minimum, Self.maximumDigits))), -exponent)
    let length = Int64(digits.count) + max(exponent, 0) + places + 2
    if digits.isEmpty {
      return places == 0 || length > Int64(Self.plainLength) ? "0" : "0." + String(repeating: "0", count: Int(places))
    }
    guard length <= Int64(Self.plainLength) else { return sign + figures + (exponent == 0 ? "" : "e\(exponent)") }
    // All digits with the point `places` from the right (`places >= -exponent`): zeros appended
    // for a positive exponent and for decimals the digits do not reach, and in front when the
    // digits are all decimals.
    var all = figures + String(repeating: "0", count: Int(exponent + places))
    if all.count <= places { all = String(repeating: "0", count: Int(places) - all.count + 1) + all }
    guard places > 0 else { return sign + all }
    let point = all.index(all.endIndex, offsetBy: -Int(places))
    return sign + all[..<point] + "." + all[point...]
  }

  /// How many digits past the sum's decimals an average that does not end is written with.
  public static let averageExtraDigits = 6

  /// The sum divided by `count`, exactly: with the fewest digits after the point that write it
  /// (at least `decimals`) when it ends within `decimals` + ``averageExtraDigits`` digits (`0.3 / 2`
  /// is `0.15`), else rounded half to even to exactly that many (`1 / 3` is `0.333333`). Written
  /// as ``text`` writes a sum (with an exponent when very long). Nil when `count` is not positive.
  public func quotient(dividingBy count: Int, decimals minimum: Int) -> String? {
    guard count > 0 else { return nil }
    let places = max(min(max(decimals, minimum), Self.maximumDigits) + Self.averageExtraDigits, Int(max(0, -exponent)))
    // The numerator `digits × 10^(exponent + places)`, most significant digit first, divided as by hand.
    let numerator = digits.reversed() + Array(repeating: UInt8(0), count: Int(exponent) + places)
    var quotient: [UInt8] = []
    quotient.reserveCapacity(numerator.count)
    var remainder = 0
    for digit in numerator {
      let current = remainder * 10 + Int(digit)
      quotient.append(UInt8(current / count))
      remainder = current % count
    }
    let exact = remainder == 0
    if !exact && (2 * remainder > count || (2 * remainder == count && (quotient.last ?? 0) % 2 == 1)) {
      var index = quotient.count - 1
      while index >= 0 && quotient[index] == 9 {
        quotient[index] = 0
        index -= 1
      }
      if index >= 0 { quotient[index] += 1 } else { quotient.insert(1, at: 0) }
    }
    // At least one digit before the point.
    if quotient.count <= places { quotient = Array(repeating: 0, count: places - quotient.count + 1) + quotient }
    var fraction = places
    if exact {
      while fraction > minimum && fraction > decimals && quotient.last == 0 {
        quotient.removeLast()
        fraction -= 1
      }
    }
    let figures = String(decoding: quotient.map { $0 + UInt8(ascii: "0") }, as: UTF8.self)
    let point = figures.index(figures.endIndex, offsetBy: -fraction)
    let plain = (negative ? "-" : "") + figures[..<point] + (fraction > 0 ? "." + figures[point...] : "")
    var written = DecimalSum()
    guard written.add(JSONNumber(unchecked: plain)) else { return plain }
    return written.text
  }

  /// Digits after the point as written, the exponent counted: `12.50` → 2, `1.5e-3` → 4, `1e2` → 0.
  static func writtenDecimals(_ text: String) -> Int {
    var fraction = 0
    var inFraction = false
    var exponentText = ""
    var inExponent = false
    for character in text {
      if inExponent {
        exponentText.append(character)
      } else if character == "e" || character == "E" {
        inExponent = true
      } else if character == "." {
        inFraction = true
      } else if inFraction {
        fraction += 1
      }
    }
    // An exponent too long to read is far beyond the digits any sum keeps.
    guard inExponent else { return fraction }
    guard let power = Int(exponentText.hasPrefix("+") ? String(exponentText.dropFirst()) : exponentText) else {
      return exponentText.hasPrefix("-") ? maximumDigits : 0
    }
    return max(0, min(maximumDigits, fraction - max(-maximumDigits, min(maximumDigits, power))))
  }

  /// No zeros above the highest digit or below the lowest (moved into the exponent); zero is
  /// positive with exponent 0.
  private mutating func normalize() {
    while digits.last == 0 { digits.removeLast() }
    let zeros = digits.prefix { $0 == 0 }.count
    if zeros > 0 {
      digits.removeFirst(zeros)
      exponent += Int64(zeros)
    }
    if digits.isEmpty {
      negative = false
      exponent = 0
    }
  }

  /// `a + b`, digits least significant first.
  private static func sum(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
    var result: [UInt8] = []
    result.reserveCapacity(max(a.count, b.count) + 1)
    var carry: UInt8 = 0
    for index in 0..<max(a.count, b.count) {
      let total = (index < a.count ? a[index] : 0) + (index < b.count ? b[index] : 0) + carry
      result.append(total % 10)
      carry = total / 10
    }
    if carry > 0 { result.append(carry) }
    return result
  }

  /// `a - b` for `a >= b`, digits least significant first.
  private static func difference(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
    var result: [UInt8] = []
    result.reserveCapacity(a.count)
    var borrow: Int = 0
    for index in 0..<a.count {
      var digit = Int(a[index]) - (index < b.count ? Int(b[index]) : 0) - borrow
      borrow = digit < 0 ? 1 : 0
      if digit < 0 { digit += 10 }
      result.append(UInt8(digit))
    }
    return result
  }

  /// `a < b` in magnitude, digits least significant first (zeros above the top allowed).
  private static func less(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    for index in stride(from: max(a.count, b.count) - 1, through: 0, by: -1) {
      let x = index < a.count ? a[index] : 0
      let y = index < b.count ? b[index] : 0
      if x != y { return x < y }
    }
    return false
  }
}
