extension ByteReader {
  /// Parses a string at `i` (which holds the opening quote), validating UTF-8 and escapes.
  mutating func parseString() throws(ByteError) -> String {
    let start = i + 1
    i = start
    // Fast path: plain ASCII and valid UTF-8 without escapes become a String straight from the bytes.
    i = plainRun(from: i)
    while i < bytes.count {
      let byte = bytes[i]
      if byte == UInt8(ascii: "\"") {
        let string = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
        i += 1
        return string
      }
      if byte == UInt8(ascii: "\\") { break }
      if byte < 0x20 { throw controlCharacter(byte) }
      if byte < 0x80 { i += 1 } else { try skipUTF8Sequence() }
    }
    guard i < bytes.count else { throw ByteError(message: "unterminated string", offset: start - 1) }
    scratch.removeAll(keepingCapacity: true)
    scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i]))
    while i < bytes.count {
      let byte = bytes[i]
      switch byte {
      case UInt8(ascii: "\""):
        i += 1
        return String(decoding: scratch, as: UTF8.self)
      case UInt8(ascii: "\\"):
        try parseEscape()
      case 0..<0x20:
        throw controlCharacter(byte)
      case 0..<0x80:
        scratch.append(byte)
        i += 1
      default:
        let from = i
        try skipUTF8Sequence()
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[from..<i]))
      }
    }
    throw ByteError(message: "unterminated string", offset: start - 1)
  }

  /// The first index from `start` that holds a quote, a backslash, a control character or a
  /// non-ASCII byte: eight bytes at a time (SWAR), then the caller looks at that byte.
  @inline(__always)
  func plainRun(from start: Int) -> Int {
    var k = start
    guard let base = bytes.baseAddress else { return k }
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    while k + 8 <= bytes.count {
      let word = UInt64(littleEndian: UnsafeRawPointer(base + k).loadUnaligned(as: UInt64.self))
      let quote = word ^ (ones &* 0x22)
      let backslash = word ^ (ones &* 0x5C)
      // A byte is zero in `quote` where the word has '"'; (x - 1) & ~x has the high bit set there.
      let special = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | (word &- ones &* 0x20) | word
      if special & highs != 0 { break }
      k += 8
    }
    return k
  }

  func controlCharacter(_ byte: UInt8) -> ByteError {
    let hex = String(byte, radix: 16, uppercase: true)
    return ByteError(
      message: "control character U+\(hex.count == 1 ? "000" : "00")\(hex) in a string must be escaped", offset: i)
  }

  /// Validates one multi-byte UTF-8 sequence at `i` (RFC 3629: no overlongs, no surrogates, ≤ U+10FFFF).
  mutating func skipUTF8Sequence() throws(ByteError) {
    let lead = bytes[i]
    let length: Int
    var low: UInt8 = 0x80
    var high: UInt8 = 0xBF
    switch lead {
    case 0xC2...0xDF: length = 2
    case 0xE0:
      length = 3
      low = 0xA0
    case 0xE1...0xEC, 0xEE...0xEF: length = 3
    case 0xED:
      length = 3
      high = 0x9F
    case 0xF0:
      length = 4
      low = 0x90
    case 0xF1...0xF3: length = 4
    case 0xF4:
      length = 4
      high = 0x8F
    default: throw ByteError(message: "invalid UTF-8 byte 0x\(String(lead, radix: 16, uppercase: true))", offset: i)
    }
    for k in 1..<length {
      let at = i + k
      guard at < bytes.count else { throw ByteError(message: "invalid UTF-8: sequence cut off", offset: i) }
      let byte = bytes[at]
      let (lo, hi) = k == 1 ? (low, high) : (UInt8(0x80), UInt8(0xBF))
      guard byte >= lo && byte <= hi else { throw ByteError(message: "invalid UTF-8 sequence", offset: i) }
    }
    i += length
  }

  mutating func parseEscape() throws(ByteError) {
    let escapeStart = i
    i += 1
    guard i < bytes.count else { throw ByteError(message: "unterminated escape", offset: escapeStart) }
    let byte = bytes[i]
    i += 1
    switch byte {
    case UInt8(ascii: "\""): scratch.append(0x22)
    case UInt8(ascii: "\\"): scratch.append(0x5C)
    case UInt8(ascii: "/"): scratch.append(0x2F)
    case UInt8(ascii: "b"): scratch.append(0x08)
    case UInt8(ascii: "f"): scratch.append(0x0C)
    case UInt8(ascii: "n"): scratch.append(0x0A)
    case UInt8(ascii: "r"): scratch.append(0x0D)
    case UInt8(ascii: "t"): scratch.append(0x09)
    case UInt8(ascii: "u"):
      var scalar = try hex4(escapeStart)
      if scalar >= 0xDC00 && scalar <= 0xDFFF {
        throw ByteError(message: "lone low surrogate \\u\(String(scalar, radix: 16)) in a string", offset: escapeStart)
      }
      if scalar >= 0xD800 && scalar <= 0xDBFF {
        guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
          throw ByteError(
            message: "lone high surrogate \\u\(String(scalar, radix: 16)) in a string", offset: escapeStart)
        }
        let lowStart = i
        i += 2
        let low = try hex4(lowStart)
        guard low >= 0xDC00 && low <= 0xDFFF else {
          throw ByteError(
            message: "high surrogate \\u\(String(scalar, radix: 16)) not followed by a low one", offset: escapeStart)
        }
        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
      }
      // Surrogates were paired above, so every value here is a scalar.
      guard let unicode = Unicode.Scalar(scalar) else {
        throw ByteError(message: "\\u\(String(scalar, radix: 16)) is not a Unicode scalar", offset: escapeStart)
      }
      appendUTF8(unicode)
    default:
      throw ByteError(message: "invalid escape '\\\(Character(Unicode.Scalar(byte)))'", offset: escapeStart)
    }
  }

  mutating func hex4(_ escapeStart: Int) throws(ByteError) -> UInt32 {
    var value: UInt32 = 0
    for _ in 0..<4 {
      guard i < bytes.count else { throw ByteError(message: "unterminated \\u escape", offset: escapeStart) }
      let byte = bytes[i]
      let digit: UInt32
      switch byte {
      case 48...57: digit = UInt32(byte - 48)
      case 65...70: digit = UInt32(byte - 55)
      case 97...102: digit = UInt32(byte - 87)
      default: throw ByteError(message: "invalid \\u escape; expected four hex digits", offset: escapeStart)
      }
      value = value << 4 | digit
      i += 1
    }
    return value
  }

  mutating func appendUTF8(_ scalar: Unicode.Scalar) {
    scratch.append(contentsOf: String(scalar).utf8)
  }
}
