import Testing

@testable import FormsCore

struct NumberTextTests {
  @Test func numbersAProgramLeftAloneKeepTheirText() throws {
    let before = try JSONParser().parse(#"{"a": 245122.0, "b": [1.50, 2e3, 7], "c": {"d": 10.0}, "e": 3.0}"#)
    // What jq prints for `.e = 4 | .f = 1.0`: its own number text, one value changed, one added.
    let after = try JSONParser().parse(#"{"a": 245122, "b": [1.5, 2000, 7], "c": {"d": 10}, "e": 4, "f": 1}"#)
    let kept = after.keepingNumberText(of: before)
    #expect(JSONWriter.compact(kept) == #"{"a":245122.0,"b":[1.50,2e3,7],"c":{"d":10.0},"e":4,"f":1}"#)
    // A value that moved (another place, or another type) is the program's.
    let moved = try JSONParser().parse(#"{"a": "245122", "b": [7, 1.5]}"#).keepingNumberText(of: before)
    #expect(JSONWriter.compact(moved) == #"{"a":"245122","b":[7,1.5]}"#)
  }
}
