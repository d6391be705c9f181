import Foundation
import Testing

@testable import FormsCore

/// The JSON conformance suite of ../shared, beside the clone in CI; skipped where it is absent.
enum JSONTestSuite {
  static let root: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("shared/JSONTestSuite")

  static var isPresent: Bool { FileManager.default.fileExists(atPath: root.path) }

  static func files(_ folder: String, prefix: String = "") -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)) ?? []
    return names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }.sorted()
  }

  static func bytes(_ folder: String, _ name: String) -> [UInt8] {
    [UInt8](
      FileManager.default.contents(atPath: root.appendingPathComponent(folder).appendingPathComponent(name).path)!)
  }
}

/// Our answer to each implementation-defined (`i_`) case: numbers of any size are kept as text;
/// every encoding problem (lone surrogates, invalid UTF-8, UTF-16, BOM) is refused.
let implementationDefinedOutcomes: [String: Bool] = [
  "i_number_double_huge_neg_exp.json": true,
  "i_number_huge_exp.json": true,
  "i_number_neg_int_huge_exp.json": true,
  "i_number_pos_double_huge_exp.json": true,
  "i_number_real_neg_overflow.json": true,
  "i_number_real_pos_overflow.json": true,
  "i_number_real_underflow.json": true,
  "i_number_too_big_neg_int.json": true,
  "i_number_too_big_pos_int.json": true,
  "i_number_very_big_negative_int.json": true,
  "i_object_key_lone_2nd_surrogate.json": false,
  "i_string_1st_surrogate_but_2nd_missing.json": false,
  "i_string_1st_valid_surrogate_2nd_invalid.json": false,
  "i_string_UTF-16LE_with_BOM.json": false,
  "i_string_UTF-8_invalid_sequence.json": false,
  "i_string_UTF8_surrogate_U+D800.json": false,
  "i_string_incomplete_surrogate_and_escape_valid.json": false,
  "i_string_incomplete_surrogate_pair.json": false,
  "i_string_incomplete_surrogates_escape_valid.json": false,
  "i_string_invalid_lonely_surrogate.json": false,
  "i_string_invalid_surrogate.json": false,
  "i_string_invalid_utf-8.json": false,
  "i_string_inverted_surrogates_U+1D11E.json": false,
  "i_string_iso_latin_1.json": false,
  "i_string_lone_second_surrogate.json": false,
  "i_string_lone_utf8_continuation_byte.json": false,
  "i_string_not_in_unicode_range.json": false,
  "i_string_overlong_sequence_2_bytes.json": false,
  "i_string_overlong_sequence_6_bytes.json": false,
  "i_string_overlong_sequence_6_bytes_null.json": false,
  "i_string_truncated-utf-8.json": false,
  "i_string_utf16BE_no_BOM.json": false,
  "i_string_utf16LE_no_BOM.json": false,
  "i_structure_500_nested_arrays.json": true,
  "i_structure_UTF-8_BOM_empty_object.json": false,
]

@Suite(
  .enabled(if: JSONTestSuite.isPresent, "../shared/JSONTestSuite is not beside this clone; conformance tests skipped"))
struct JSONTestSuiteTests {
  static let duplicateKeyCases: Set<String> = [
    "y_object_duplicated_key.json", "y_object_duplicated_key_and_value.json",
  ]

  @Test(arguments: JSONTestSuite.files("test_parsing", prefix: "y_"))
  func acceptsValid(_ name: String) throws {
    let bytes = JSONTestSuite.bytes("test_parsing", name)
    if Self.duplicateKeyCases.contains(name) {
      #expect(throws: JSONParseError.self) { try JSONParser().parse(bytes) }
    } else {
      let value = try JSONParser().parse(bytes)
      // What we write, we read back the same.
      #expect(try JSONParser().parse(JSONWriter.canonical(value)) == value)
    }
  }

  @Test(arguments: JSONTestSuite.files("test_parsing", prefix: "n_"))
  func refusesInvalid(_ name: String) {
    let bytes = JSONTestSuite.bytes("test_parsing", name)
    do {
      _ = try JSONParser().parse(bytes)
      Issue.record("\(name) was accepted")
    } catch {
      #expect(error.location.line >= 1 && error.location.column >= 1)
    }
  }

  @Test(arguments: JSONTestSuite.files("test_parsing", prefix: "i_"))
  func answersImplementationDefined(_ name: String) throws {
    let expected = try #require(implementationDefinedOutcomes[name] as Bool?, "no pinned outcome for \(name)")
    let accepted = (try? JSONParser().parse(JSONTestSuite.bytes("test_parsing", name))) != nil
    #expect(accepted == expected)
  }

  @Test func everyCaseIsCovered() {
    #expect(JSONTestSuite.files("test_parsing").count > 300)
    #expect(Set(JSONTestSuite.files("test_parsing", prefix: "i_")) == Set(implementationDefinedOutcomes.keys))
  }

  @Test(arguments: JSONTestSuite.files("test_transform"))
  func transformValuesSurvive(_ name: String) throws {
    let bytes = JSONTestSuite.bytes("test_transform", name)
    guard let value = try? JSONParser().parse(bytes) else {
      // Refused by policy: duplicate keys and invalid code points.
      #expect(name.contains("same_key") || name.contains("invalid_codepoint"))
      return
    }
    let written = JSONWriter.canonical(value)
    #expect(try JSONParser().parse(written) == value)
    if name.hasPrefix("number_") {
      // The number's text, not a rounding of it.
      #expect(JSONWriter.compact(value) == String(decoding: bytes, as: UTF8.self).filter { !$0.isWhitespace })
    }
    if name.hasPrefix("object_key_nf") {
      // NFC and NFD spellings are two different keys, both kept.
      #expect(value.objectValue?.count == 2)
    }
  }
}
