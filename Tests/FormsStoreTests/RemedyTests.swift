import FormsCore
import FormsTestSupport
import Testing

@testable import FormsStore

/// The library hands out next steps as ``Remedy`` values and never words them as commands.
@Suite struct RemedyTests {
  @Test func aConflictedFileCarriesTheFormatRemedyNotACommand() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      try fixture.acquisition()
      let path = fixture.root + "/data/acquisitions/ACQ-2026-001.json"
      try writeFile("<<<<<<< ours\n" + (try readFile(path)) + "=======\n{}\n>>>>>>> theirs\n", to: path)
      let validator = StoreValidator(layout: fixture.store.layout, registry: fixture.store.registry) { $0 }
      let conflict = try #require(try validator.validate([path]).diagnostics.first { $0.rule == "conflict" })
      #expect(conflict.remedy == .format)
      #expect(!conflict.message.contains("formsctl"), "\(conflict.message)")
    }
  }
}
