import FormsCore
import FormsTestSupport
import Foundation
import Testing

@testable import FormsStore

struct EditorSetupTests {
  @Test func settingsAreMergedAndRerunsReplaceOnlyFormsctlsEntries() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      let setup = EditorSetup(layout: fixture.store.layout, registry: fixture.store.registry)
      try writeFile(
        #"{"editor.tabSize": 2, "json.schemas": [{"fileMatch": ["x.json"], "url": "https://example.com/x.json"}]}"#,
        to: dir + "/store/.vscode/settings.json")
      for _ in 0..<2 {
        try setup.writeVSCodeSettings(
          try setup.exportSchemas(to: setup.defaultDirectory), directory: setup.defaultDirectory)
      }
      let settings = try JSONParser().parse(Array(try readFile(dir + "/store/.vscode/settings.json").utf8))
      #expect(settings["editor.tabSize"] == .number(JSONNumber(2)))
      let urls = settings["json.schemas"]?.arrayValue?.compactMap { $0["url"]?.stringValue } ?? []
      #expect(urls.first == "https://example.com/x.json")
      #expect(urls.count == 1 + fixture.store.registry.kinds.count, "\(urls)")
      #expect(urls.contains("./.formsctl/schemas-json/form.schema.json"))
      let dispatcher = try readFile(dir + "/store/.formsctl/schemas-json/form.schema.json")
      #expect(
        dispatcher.contains(#""$ref": "form-2.0.0.schema.json""#) && dispatcher.contains(#""const": "form@1.0.0""#))
    }
  }

  @Test func aSettingsFileThatIsNotStrictJSONIsLeftAlone() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      let setup = EditorSetup(layout: fixture.store.layout, registry: fixture.store.registry)
      let text = "{\n  // mine\n  \"editor.tabSize\": 2,\n}\n"
      try writeFile(text, to: dir + "/store/.vscode/settings.json")
      let error = storeError { try setup.writeVSCodeSettings([], directory: setup.defaultDirectory) }
      #expect(error?.kind == .badInput)
      #expect(error?.description.hasPrefix(".vscode/settings.json:2:3: ") == true, "\(String(describing: error))")
      #expect(try readFile(dir + "/store/.vscode/settings.json") == text)
    }
  }
}
