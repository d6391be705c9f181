import Foundation

/// A JSON number kept as the exact text of the file, converted on demand.
///
/// `12.50`, `1e400` and `12345678901234567890` read and write unchanged; comparisons are exact,
/// decimal, and independent of spelling (`1.0 == 1` by `compare`, while `==` compares text).
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
  /// The number as it was written.
  public let text: String

  /// A number from text that is already valid JSON number syntax.
  public init(unchecked text: String) { self.text = text }

  /// A number from text, or nil when the text is not a JSON number.
  public init?(_ text: String) {
    guard JSONNumber.isValid(text) else { return nil }
    self.text = text
  }

  /// A number from an integer.
  public init(_ value: Int) { text = String(value) }

  public var description: String { text }

  /// The value as an `Int` when it is an integer in range (`5`, `5.0`, `5e0`), else nil.
  public var intValue: Int? {
    if let direct = Int(text) { return direct }
    let d = decimalParts
    guard d.isInteger, d.digits.count + Int(d.exponent) <= 19 else { return nil }
    var text = d.negative ? "-" : ""
    text += d.digits.isEmpty ? "0" : d.digits + String(repeating: "0", count: Int(d.exponent))
    return Int(text)
  }

  /// True for a whole number (`3`, `3.0`, `3e2`, `-0`).
  public var isInteger: Bool {
    if !text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
      return true
    }
    return decimalParts.isInteger
  }

  /// The count of significant digits after the decimal point (`12.50` → 1, `1.5e-3` → 4, `100` → 0).
  public var scale: Int {
    var afterPoint = -1
    var trailingZeros = 0
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "e"), UInt8(ascii: "E"):
        let d = decimalParts
        return d.exponent < 0 ? Int(-d.exponent) : 0
      case UInt8(ascii: "."):
        afterPoint = 0
      case UInt8(ascii: "0") where afterPoint >= 0:
        afterPoint += 1
        trailingZeros += 1
      default:
        if afterPoint >= 0 {
          afterPoint += 1
          trailingZeros = 0
        }
      }
    }
    if afterPoint <= 0 { return 0 }
    return afterPoint - trailingZeros
  }

  /// Compares two numbers exactly, as decimals of any size.
  public func compare(_ other: JSONNumber) -> ComparisonResult {
    // Most numbers are small integers; compare those without building decimal parts.
    if let a = Int(text), let b = Int(other.text) {
      return a < b ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
    }
    if let fast = comparePlainDecimals(text, other.text) { return fast }
    return decimalParts.compare(other.decimalParts)
  }

  /// Normalized sign, significant digits without leading or trailing zeros, and a power of ten.
  var decimalParts: DecimalParts { DecimalParts(text) }

  /// True when `text` matches the RFC 8259 number grammar.
  public static func isValid(_ text: String) -> Bool {
    let bytes = Array(text.utf8)
    return bytes.withUnsafeBufferPointer { scanNumber($0, from: 0) == bytes.count }
  }
}

/// Compares two numbers written without an exponent (`-12.50`, `0.3`) digit by digit, without
/// allocating; nil when either has an exponent.
func comparePlainDecimals(_ a: String, _ b: String) -> ComparisonResult? {
  var a = a
  var b = b
  return a.withUTF8 { x in
    b.withUTF8 { y -> ComparisonResult? in
      func split(_ s: UnsafeBufferPointer<UInt8>) -> (
        negative: Bool, integer: Range<Int>, fraction: Range<Int>, zero: Bool
      )? {
        var i = 0
        let negative = s.first == UInt8(ascii: "-")
        if negative { i = 1 }
        let start = i
        while i < s.count && s[i] != UInt8(ascii: ".") {
          if s[i] == UInt8(ascii: "e") || s[i] == UInt8(ascii: "E") { return nil }
          i += 1
        }
        let integer = start..<i
        var fractionEnd = s.count
        if i < s.count {
          for k in i + 1..<s.count where s[k] == UInt8(ascii: "e") || s[k] == UInt8(ascii: "E") { return nil }
          while fractionEnd > i + 1 && s[fractionEnd - 1] == UInt8(ascii: "0") { fractionEnd -= 1 }
        }
        let fraction = i < s.count ? i + 1..<fractionEnd : s.count..<s.count
        let zero = integer.count == 1 && s[integer.lowerBound] == UInt8(ascii: "0") && fraction.isEmpty
        return (negative && !zero, integer, fraction, zero)
      }
      guard let p = split(x), let q = split(y) else { return nil }
      if p.negative != q.negative { return p.negative ? .orderedAscending : .orderedDescending }
      var magnitude = ComparisonResult.orderedSame
      // JSON integer parts have no leading zeros, so a longer one is larger.
      if p.integer.count != q.integer.count {
        magnitude = p.integer.count < q.integer.count ? .orderedAscending : .orderedDescending
      } else {
        for k in 0..<p.integer.count where x[p.integer.lowerBound + k] != y[q.integer.lowerBound + k] {
          magnitude = x[p.integer.lowerBound + k] < y[q.integer.lowerBound + k] ? .orderedAscending : .orderedDescending
          break
        }
        if magnitude == .orderedSame {
          for k in 0..<max(p.fraction.count, q.fraction.count) {
            let c = k < p.fraction.count ? x[p.fraction.lowerBound + k] : UInt8(ascii: "0")
            let d = k < q.fraction.count ? y[q.fraction.lowerBound + k] : UInt8(ascii: "0")
            if c != d {
              magnitude = c < d ? .orderedAscending : .orderedDescending
              break
            }
          }
        }
      }
      return p.negative ? magnitude.reversed : magnitude
    }
  }
}

/// `-? digits × 10^exponent`, with `digits` free of leading and trailing zeros (empty for zero).
struct DecimalParts {
  var negative: Bool
  var digits: String
  var exponent: Int64

  var isInteger: Bool { digits.isEmpty || exponent >= 0 }

  init(_ text: String) {
    var negative = false
    var intDigits: [UInt8] = []
    var fracDigits: [UInt8] = []
    var exponent: Int64 = 0
    var expNegative = false
    var state = 0  // 0 integer, 1 fraction, 2 exponent
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "-") where state == 0: negative = true
      case UInt8(ascii: "-"): expNegative = true
      case UInt8(ascii: "+"): break
      case UInt8(ascii: "."): state = 1
      case UInt8(ascii: "e"), UInt8(ascii: "E"): state = 2
      default:
        switch state {
        case 0: intDigits.append(byte)
        case 1: fracDigits.append(byte)
        default: exponent = min(exponent &* 10 &+ Int64(byte - 48), 1 << 40)
        }
      }
    }
    if expNegative { exponent = -exponent }
    var all = intDigits + fracDigits
    exponent -= Int64(fracDigits.count)
    while let last = all.last, last == UInt8(ascii: "0") {
      all.removeLast()
      exponent += 1
    }
    let firstNonZero = all.firstIndex { $0 != UInt8(ascii: "0") } ?? all.count
    all.removeFirst(firstNonZero)
    self.negative = negative && !all.isEmpty
    self.digits = String(decoding: all, as: UTF8.self)
    self.exponent = all.isEmpty ? 0 : exponent
  }

  func compare(_ other: DecimalParts) -> ComparisonResult {
    if negative != other.negative { return negative ? .orderedAscending : .orderedDescending }
    let magnitude = compareMagnitude(other)
    return negative ? magnitude.reversed : magnitude
  }

  private func compareMagnitude(_ other: DecimalParts) -> ComparisonResult {
    if digits.isEmpty || other.digits.isEmpty {
      if digits.isEmpty && other.digits.isEmpty { return .orderedSame }
      return digits.isEmpty ? .orderedAscending : .orderedDescending
    }
    // The position of the most significant digit decides first.
    let top = Int64(digits.utf8.count) + exponent
    let otherTop = Int64(other.digits.utf8.count) + other.exponent
    if top != otherTop { return top < otherTop ? .orderedAscending : .orderedDescending }
    let a = Array(digits.utf8)
    let b = Array(other.digits.utf8)
    for i in 0..<max(a.count, b.count) {
      let x = i < a.count ? a[i] : UInt8(ascii: "0")
      let y = i < b.count ? b[i] : UInt8(ascii: "0")
      if x != y { return x < y ? .orderedAscending : .orderedDescending }
    }
    return .orderedSame
  }
}

extension ComparisonResult {
  var reversed: ComparisonResult {
    switch self {
    case .orderedAscending: return .orderedDescending
    case .orderedDescending: return .orderedAscending
    case .orderedSame: return .orderedSame
    }
  }
}

/// Scans an RFC 8259 number at `start`; returns the index after it, or -(index of the error) - 1.
func scanNumber(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
  var i = start
  let n = bytes.count
  @inline(__always) func isDigit(_ i: Int) -> Bool { i < n && bytes[i] >= 48 && bytes[i] <= 57 }
  if i < n && bytes[i] == UInt8(ascii: "-") { i += 1 }
  guard isDigit(i) else { return -i - 1 }
  if bytes[i] == UInt8(ascii: "0") {
    i += 1
    if isDigit(i) { return -i - 1 }
  } else {
    while isDigit(i) { i += 1 }
  }
  if i < n && bytes[i] == UInt8(ascii: ".") {
    i += 1
    guard isDigit(i) else { return -i - 1 }
    while isDigit(i) { i += 1 }
  }
  if i < n && (bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E")) {
    i += 1
    if i < n && (bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-")) { i += 1 }
    guard isDigit(i) else { return -i - 1 }
    while isDigit(i) { i += 1 }
  }
  return i
}
