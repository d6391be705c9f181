import FormsCore
import Testing

/// ``DecimalSum``: exact sums of JSON numbers of any size, written with the decimals they had.
struct DecimalSumTests {
  static func sum(_ texts: [String]) -> String? {
    var sum = DecimalSum()
    for text in texts { guard sum.add(JSONNumber(unchecked: text)) else { return nil } }
    return sum.text
  }

  @Test(arguments: [
    ([], "0"),
    (["1e200"], "1e200"),
    (["1e200", "-1e200"], "0"),
    (["1234567890123456789012345678901234567890.25", "0.75"], "1234567890123456789012345678901234567891.00"),
    (["0.1", "0.2"], "0.3"),
    (["125000.00", "1"], "125001.00"),
    (["-0"], "0"),
    (["-0.00"], "0.00"),
    (["1E+2", "-0.5"], "99.5"),
    (["1.5e-3"], "0.0015"),
    (["-12.5", "2.5"], "-10.0"),
    (["5", "-7"], "-2"),
    (["100", "-99.99"], "0.01"),
    (["999999999999999999999", "1"], "1000000000000000000000"),
    (["1e-200"], "1e-200"),
    (["0e-99999"], "0"),
    (
      ["12345678901234567890123456789012345678901234567890123456789012345678901234567890e-100"],
      "1234567890123456789012345678901234567890123456789012345678901234567890123456789e-99"
    ),
  ])
  func sumsExactly(_ texts: [String], _ expected: String) {
    #expect(Self.sum(texts) == expected, "\(texts)")
  }

  @Test func aNumberTooFarFromTheOthersIsRefusedAndAddsNothing() {
    var sum = DecimalSum()
    let small = sum.add(JSONNumber(unchecked: "0.01"))
    let far = sum.add(JSONNumber(unchecked: "1e100000"))
    #expect(small && !far && sum.text == "0.01")
    let wide = sum.add(JSONNumber(unchecked: "1e9000"))
    #expect(wide && sum.text.hasPrefix("1") && sum.text.hasSuffix("1e-2"), "\(sum.text.suffix(10))")
  }

  @Test func moreDecimalsOnRequest() {
    var sum = DecimalSum()
    _ = sum.add(JSONNumber(unchecked: "3"))
    #expect(sum.text(decimals: 2) == "3.00" && sum.text == "3")
  }
}
