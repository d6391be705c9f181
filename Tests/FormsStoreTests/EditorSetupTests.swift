import FormsCore
import FormsTestSupport
import Foundation
import Testing

@testable import FormsStore

struct EditorSetupTests {
  /// A store in `repo/stores/main`, inside a git repository.
  func nestedStore(_ dir: String) throws -> (StoreFixture, EditorSetup) {
    try FileManager.default.createDirectory(atPath: dir + "/repo", withIntermediateDirectories: true)
    #expect(try IndexTests.runGit(["init", "-q"], in: dir + "/repo") == 0)
    let fixture = try StoreFixture(dir + "/repo/stores/main")
    return (fixture, try EditorSetup(layout: fixture.store.layout, registry: fixture.store.registry))
  }

  @Test func settingsGoToTheGitTopLevelKeepingCommentsAndOtherEntries() throws {
    try withTemporaryDirectory { dir in
      let (fixture, setup) = try nestedStore(dir)
      let settings = dir + "/repo/.vscode/settings.json"
      try writeFile(
        "{\n  // mine\n  \"editor.tabSize\": 2,\n  \"json.schemas\": [{\"fileMatch\": [\"x.json\"], \"url\": \"https://example.com/x.json\"},],\n}\n",
        to: settings)
      var written: [String] = []
      for _ in 0..<2 {
        let associations = try setup.exportSchemas(to: setup.defaultDirectory, draft: .draft07)
        try setup.write(
          setup.configuration(for: .vscode, associations: associations, schemaDirectory: setup.defaultDirectory))
        written.append(try readFile(settings))
      }
      #expect(written[0] == written[1], "a rerun changes nothing")
      #expect(written[0].hasPrefix("{\n  // mine\n  \"editor.tabSize\": 2,\n"))
      let parsed = try JSONParser().parse(JSONText.blankingComments(Array(written[0].utf8)))
      let entries = parsed["json.schemas"]?.arrayValue ?? []
      #expect(entries.first?["url"] == .string("https://example.com/x.json"))
      #expect(entries.count == 1 + fixture.store.registry.kinds.count)
      #expect(
        entries.contains {
          $0["url"] == .string("./stores/main/json-schema/form.schema.json")
            && $0["fileMatch"] == .array([.string("/stores/main/data/forms/*.json")])
        }, "\(entries)")
      let dispatcher = try readFile(dir + "/repo/stores/main/json-schema/form.schema.json")
      #expect(dispatcher.contains(#""$schema": "http://json-schema.org/draft-07/schema#""#))
      #expect(
        dispatcher.contains(#""$ref": "form-2.0.0.schema.json""#) && dispatcher.contains(#""const": "form@1.0.0""#))
      #expect(!FileIO.exists(dir + "/repo/stores/main/.vscode"))
    }
  }

  @Test func aSettingsFileThatDoesNotParseIsLeftAlone() throws {
    try withTemporaryDirectory { dir in
      let (_, setup) = try nestedStore(dir)
      let text = "{\n  // mine\n  \"editor.tabSize\": ,\n}\n"
      try writeFile(text, to: dir + "/repo/.vscode/settings.json")
      let error = storeError {
        _ = try setup.configuration(for: .vscode, associations: [], schemaDirectory: setup.defaultDirectory)
      }
      #expect(error?.kind == .badInput)
      #expect(error?.description.hasPrefix(".vscode/settings.json:4:1: ") == true, "\(String(describing: error))")
      #expect(try readFile(dir + "/repo/.vscode/settings.json") == text)
    }
  }

  @Test func everyEditorGetsTheLanguageServerOrTheSchemas() throws {
    try withTemporaryDirectory { dir in
      let (_, setup) = try nestedStore(dir)
      let associations = try setup.exportSchemas(to: setup.defaultDirectory, draft: .draft2020)
      let files = try EditorSetup.Editor.allCases.map {
        try setup.configuration(for: $0, associations: associations, schemaDirectory: setup.defaultDirectory)
      }
      let texts = files.map { String(decoding: $0.contents, as: UTF8.self) }
      #expect(
        files.map(\.path)
          == [".vscode/settings.json", ".nvim.lua", ".helix/languages.toml", ".zed/settings.json"].map {
            dir + "/repo/" + $0
          })
      #expect(texts[1].contains("local store = root .. '/stores/main'") && texts[1].contains("'formsctl', 'lsp'"))
      #expect(texts[2].contains("[language-server.formsctl]"))
      let zed = try JSONParser().parse(files[3].contents)
      #expect(
        zed["lsp"]?["json-language-server"]?["settings"]?["json"]?["schemas"]?.arrayValue?.count == associations.count)
    }
  }

  @Test func schemaCheckReportsAnExportTheDescriptorsNoLongerMake() throws {
    try withTemporaryDirectory { dir in
      let (fixture, setup) = try nestedStore(dir)
      let layout = fixture.store.layout
      #expect(try fixture.store.registry.staleJSONSchemas(in: layout.jsonSchemaDirectory, display: { $0 }).isEmpty)
      _ = try setup.exportSchemas(to: setup.defaultDirectory, draft: .draft2020)
      #expect(try fixture.store.registry.staleJSONSchemas(in: layout.jsonSchemaDirectory, display: { $0 }).isEmpty)
      try FileManager.default.removeItem(atPath: layout.jsonSchemaDirectory + "/form.schema.json")
      try writeFile("{}", to: layout.jsonSchemaDirectory + "/form-1.0.0.schema.json")
      let stale = try fixture.store.registry.staleJSONSchemas(in: layout.jsonSchemaDirectory, display: { $0 })
      #expect(stale.map(\.rule) == ["stale-export", "stale-export"])
      #expect(stale.contains { $0.file.hasSuffix("/form.schema.json") && $0.message.hasPrefix("missing") })
    }
  }
}
