import FormsTestSupport
import Foundation
import Testing

@testable import FormsStore

/// `Sources/FormsStore/Schemas/BuiltinSchemas.swift` embeds `schemas/` so an installed formsctl can `init`
/// without this repository. This test fails when they drift; `RECORD_SNAPSHOTS=1` regenerates it.
struct BuiltinSchemasTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  static func generatedSource() throws -> String {
    let directory = root.appendingPathComponent("schemas").path
    var out = """
      // swift-format-ignore-file
      // Generated from schemas/ by `RECORD_SNAPSHOTS=1 swift test --filter BuiltinSchemasTests`; do not edit.

      /// The built-in schema descriptors, embedded so `formsctl init` needs no checkout of this repository.
      enum BuiltinSchemas {
        static let files: [(path: String, contents: String)] = [

      """
    for path in try FileIO.files(under: FilePath(directory), suffix: ".yaml") {
      let relative = String(path.dropFirst(directory.count + 1))
      let contents = try String(contentsOfFile: path, encoding: .utf8)
      out += "    (\"\(relative)\", #\"\"\"\n\(contents)\n\"\"\"#),\n"
    }
    return out + "  ]\n}\n"
  }

  @Test func embeddedSchemasMatchTheRepository() throws {
    let target = Self.root.appendingPathComponent("Sources/FormsStore/Schemas/BuiltinSchemas.swift")
    let generated = try Self.generatedSource()
    if let embedded = try Golden.difference(generated, at: target) {
      #expect(embedded == generated, "run RECORD_SNAPSHOTS=1 swift test --filter BuiltinSchemasTests")
    }
    let onDisk = try FileIO.files(under: FilePath(Self.root.appendingPathComponent("schemas").path), suffix: ".yaml")
      .count
    #expect(BuiltinSchemas.files.count == onDisk)
  }
}
