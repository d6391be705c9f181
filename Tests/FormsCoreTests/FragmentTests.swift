import FormsTestSupport
import Testing

@testable import FormsCore

/// `FilterExpression.compactFragments` are necessary: every document an expression holds for has, in
/// the compact text of its top-level scalars, one fragment of each group. Random documents with
/// awkward strings (escapes, non-ASCII, canonically equivalent spellings, dates) and random
/// expressions of every shape; and `TextFragment.occurs` agrees with a plain search.
struct FragmentTests {
  static let keys = ["status", "agency", "note", "due", "s", "é"]
  static let strings = [
    "open", "closed", "Open", "op\"en", "a\\b", "tab\there", "é", "e\u{301}", "\u{212A}", "K", "\u{7F}", "",
    "2026-03-01", "2026-03-01T00:00:00Z", "2026-03-01T00:00:00+00:00", "2026-03-01T05:00:00+05:00", "status",
    "\"status\":\"open\"",
  ]

  static func value(_ rng: inout SeededGenerator) -> JSONValue {
    switch Int.random(in: 0..<10, using: &rng) {
    case 0: return .number(JSONNumber(Int.random(in: 0...3, using: &rng)))
    case 1: return .bool(Bool.random(using: &rng))
    case 2: return .null
    case 3:
      let key = Self.keys.randomElement(using: &rng)!
      return .object(JSONObject([JSONObject.Member(key: key, value: .string("open"))]))
    case 4: return .array([.string("open")])
    default: return .string(Self.strings.randomElement(using: &rng)!)
    }
  }

  static func expression(_ rng: inout SeededGenerator, depth: Int = 0) -> FilterExpression {
    let path = FilterExpression.Operand.path(
      FilterExpression.Path(steps: [.member(Self.keys.randomElement(using: &rng)!)]))
    let literal = FilterExpression.Operand.literal(.string(Self.strings.randomElement(using: &rng)!))
    switch Int.random(in: 0..<(depth < 2 ? 8 : 4), using: &rng) {
    case 0: return .compare(path, .equal, literal)
    case 1: return .compare(literal, .equal, path)
    case 2:
      let values = (0..<Int.random(in: 0...3, using: &rng)).map { _ in
        Bool.random(using: &rng) ? JSONValue.string(Self.strings.randomElement(using: &rng)!) : .number(JSONNumber(1))
      }
      return .isIn(path, values)
    case 3: return .compare(path, [.notEqual, .less, .greaterOrEqual].randomElement(using: &rng)!, literal)
    case 4, 5: return .and(expression(&rng, depth: depth + 1), expression(&rng, depth: depth + 1))
    case 6: return .or(expression(&rng, depth: depth + 1), expression(&rng, depth: depth + 1))
    default: return .not(expression(&rng, depth: depth + 1))
    }
  }

  /// The compact text of `object`'s top-level scalars, as the index keeps it.
  static func scalarText(_ object: JSONObject) -> [UInt8] {
    var scalars = JSONObject()
    for member in object.members {
      switch member.value {
      case .object, .array: continue
      default: scalars[member.key] = member.value
      }
    }
    return Array(JSONWriter.compact(.object(scalars)).utf8)
  }

  @Test func everyDocumentThatHoldsHasAFragmentOfEachGroup() {
    var rng = SeededGenerator(state: 11)
    var held = 0
    var turnedAway = 0
    for _ in 0..<20_000 {
      var object = JSONObject()
      for key in Self.keys where Bool.random(using: &rng) { object[key] = Self.value(&rng) }
      let expression = Self.expression(&rng)
      let text = Self.scalarText(object)
      let groups = expression.compactFragments
      let found = text.withUnsafeBufferPointer { text in groups.allSatisfy { $0.contains { $0.occurs(in: text) } } }
      if expression.evaluate(.object(object)) {
        held += 1
        #expect(found, "\(expression) holds for \(JSONWriter.compact(.object(object))) without its fragments")
      } else if !found {
        turnedAway += 1
      }
    }
    // The test means something: both outcomes happen often.
    #expect(held > 1_000 && turnedAway > 1_000, "held \(held), turned away \(turnedAway)")
  }

  @Test(arguments: [
    ("status == \"open\"", [[#""status":"open""#]]), ("\"open\" == status", [[#""status":"open""#]]),
    ("status in [\"open\", \"closed\"]", [[#""status":"open""#, #""status":"closed""#]]),
    ("status == \"open\" and agency == \"GSA\"", [[#""status":"open""#], [#""agency":"GSA""#]]),
    ("status == \"open\" or agency == \"GSA\"", [[#""status":"open""#, #""agency":"GSA""#]]),
    ("status == \"open\" or total > 1", []), ("not status == \"open\"", []), ("status != \"open\"", []),
    ("due == \"2026-03-01\"", []), ("due == \"2026-03-01T00:00:00Z\"", []), ("status in [\"open\", 1]", []),
    ("items.status == \"open\"", []), ("status == \"a\\\"b\"", [[#""status":"a\"b""#]]),
  ])
  func fragmentsOfEachShape(_ text: String, _ expected: [[String]]) throws {
    let groups = try ExpressionParser.parse(text).compactFragments
    #expect(groups.map { $0.map { String(decoding: $0.bytes, as: UTF8.self) } } == expected)
  }

  @Test func aFragmentOccursWhereAPlainSearchFindsIt() {
    var rng = SeededGenerator(state: 5)
    let alphabet = Array(#"ab":,"#.utf8)
    for _ in 0..<20_000 {
      let text = (0..<Int.random(in: 0...24, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
      let needle = (0..<Int.random(in: 1...4, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
      let places = text.count >= needle.count ? Array(0...(text.count - needle.count)) : []
      let plain = places.contains { text[$0..<($0 + needle.count)].elementsEqual(needle) }
      #expect(text.withUnsafeBufferPointer { TextFragment(needle).occurs(in: $0) } == plain, "\(text) \(needle)")
    }
  }
}
