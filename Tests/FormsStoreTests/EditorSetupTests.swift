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
      #expect(!FileIO.exists(FilePath(dir + "/repo/stores/main/.vscode")))
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
          == [".vscode/settings.json", ".nvimrc", ".helix/languages.toml", ".zed/settings.json"].map {
            dir + "/repo/" + $0
          })
      #expect(texts[1].contains("local stores = {\n  \"stores/main\",\n}") && texts[1].contains("'formsctl', 'lsp'"))
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

  /// A document of the store that a link in the project points at, and its bytes.
  func storeDocument(_ fixture: StoreFixture) throws -> (path: String, text: String) {
    let path = fixture.store.layout.dataDirectory + "/acquisitions/ACQ-1.json"
    let text = "{\n  \"_schema\": \"acquisition@1.1.0\",\n  \"id\": \"ACQ-1\"\n}\n"
    try writeFile(text, to: path)
    return (path, text)
  }

  @Test(arguments: EditorSetup.Editor.allCases)
  func aConfigurationFileThatIsALinkIsRefusedAndNothingWritten(editor: EditorSetup.Editor) throws {
    try withTemporaryDirectory { dir in
      let (fixture, setup) = try nestedStore(dir)
      let (document, text) = try storeDocument(fixture)
      let file = dir + "/repo/" + EditorSetup.file(editor)
      try FileManager.default.createDirectory(
        atPath: FilePath(file).parent.string, withIntermediateDirectories: true)
      try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: document)
      let associations = try setup.exportSchemas(to: setup.defaultDirectory, draft: .draft07)
      let error = storeError {
        try setup.write(
          setup.configuration(for: editor, associations: associations, schemaDirectory: setup.defaultDirectory))
      }
      #expect(error?.kind == .badInput, "\(String(describing: error))")
      #expect(error?.description.contains("is a symbolic link") == true, "\(String(describing: error))")
      #expect(try readFile(document) == text)
      #expect(FileIO.entry(FilePath(file)) == .symlink)
    }
  }

  @Test func aLinkedDirectoryOrSchemaFileIsRefusedToo() throws {
    try withTemporaryDirectory { dir in
      let (fixture, setup) = try nestedStore(dir)
      let (document, text) = try storeDocument(fixture)
      // .vscode itself a link to the store's data: settings.json would land among the documents.
      try FileManager.default.createSymbolicLink(
        atPath: dir + "/repo/.vscode", withDestinationPath: fixture.store.layout.dataDirectory + "/acquisitions")
      let associations = try setup.exportSchemas(to: setup.defaultDirectory, draft: .draft07)
      let error = storeError {
        try setup.write(
          setup.configuration(for: .vscode, associations: associations, schemaDirectory: setup.defaultDirectory))
      }
      #expect(error?.kind == .badInput, "\(String(describing: error))")
      #expect(!FileIO.exists(FilePath(fixture.store.layout.dataDirectory + "/acquisitions/settings.json")))
      // One of the exported schema files a link to a document.
      let schema = setup.defaultDirectory + "/acquisition.schema.json"
      try FileManager.default.removeItem(atPath: schema)
      try FileManager.default.createSymbolicLink(atPath: schema, withDestinationPath: document)
      let exported = storeError { _ = try setup.exportSchemas(to: setup.defaultDirectory, draft: .draft07) }
      #expect(exported?.kind == .badInput && exported?.description.contains("symbolic link") == true)
      #expect(try readFile(document) == text)
    }
  }

  /// A store whose path has characters that globs treat specially.
  @Test(arguments: ["forms [EU]", "x{a,b}", "a*b?c", "naïve ,dir", "back\\slash"])
  func storePathsAreEscapedForEachEditor(name: String) throws {
    try withTemporaryDirectory { dir in
      try FileManager.default.createDirectory(atPath: dir + "/repo", withIntermediateDirectories: true)
      #expect(try IndexTests.runGit(["init", "-q"], in: dir + "/repo") == 0)
      let fixture = try StoreFixture(dir + "/repo/" + name)
      let setup = try EditorSetup(layout: fixture.store.layout, registry: fixture.store.registry)
      let associations = try setup.exportSchemas(to: setup.defaultDirectory, draft: .draft07)
      let form = try #require(associations.first { $0.kind == "form" })
      // VS Code's JSON service (and Zed's, the same) matches `**/` + the pattern against the
      // document's URI as vscode-uri writes it.
      let document = FileIO.realPath(FilePath(dir + "/repo"))!.string + "/" + name + "/data/forms/F-1.json"
      #expect(VSCodeGlob.matches(form.fileMatch, uri: VSCodeGlob.uri(document)), "\(form.fileMatch)")
      #expect(!VSCodeGlob.matches(form.fileMatch, uri: VSCodeGlob.uri(FilePath(document).parent.string + "/a/F.json")))
      #expect(!VSCodeGlob.matches(form.fileMatch, uri: VSCodeGlob.uri(dir + "/repo/other/data/forms/F-1.json")))
      // Neovim's configuration names the store as a Lua string, compared as it is (no pattern).
      let neovim = String(
        decoding: try setup.configuration(for: .neovim, associations: associations, schemaDirectory: "").contents,
        as: UTF8.self)
      #expect(neovim.contains("\n  " + EditorSetup.luaString(name) + ",\n"))
    }
  }

  @Test func neovimKeepsEveryStoreOfTheProject() throws {
    try withTemporaryDirectory { dir in
      let (_, first) = try nestedStore(dir)
      let second = try StoreFixture(dir + "/repo/ops/other")
      let other = try EditorSetup(layout: second.store.layout, registry: second.store.registry)
      try first.write(first.configuration(for: .neovim, associations: [], schemaDirectory: first.defaultDirectory))
      try other.write(other.configuration(for: .neovim, associations: [], schemaDirectory: other.defaultDirectory))
      let text = try readFile(dir + "/repo/.nvimrc")
      #expect(text.contains(#"" formsctl-stores: ["ops/other","stores/main"]"#), "\(text)")
      #expect(text.contains("  \"ops/other\",\n  \"stores/main\",\n"))
      // Run again for the first: unchanged. A store removed since is dropped.
      try first.write(first.configuration(for: .neovim, associations: [], schemaDirectory: first.defaultDirectory))
      #expect(try readFile(dir + "/repo/.nvimrc") == text)
      try FileManager.default.removeItem(atPath: dir + "/repo/ops")
      try first.write(first.configuration(for: .neovim, associations: [], schemaDirectory: first.defaultDirectory))
      #expect(try readFile(dir + "/repo/.nvimrc").contains(#"" formsctl-stores: ["stores/main"]"#))
    }
  }

  @Test func aNeovimFileFormsctlDidNotWriteIsLeftAlone() throws {
    try withTemporaryDirectory { dir in
      let (_, setup) = try nestedStore(dir)
      let mine = "set number\n"
      try writeFile(mine, to: dir + "/repo/.nvimrc")
      let error = storeError {
        _ = try setup.configuration(for: .neovim, associations: [], schemaDirectory: setup.defaultDirectory)
      }
      #expect(error?.kind == .badInput)
      #expect(error?.description.contains("not written by `formsctl editor setup`") == true)
      #expect(try readFile(dir + "/repo/.nvimrc") == mine)
    }
  }

  @Test func aStoreOutsideGitIsItsOwnProjectAndJSONCSettingsAreKept() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/alone")
      let setup = try EditorSetup(layout: fixture.store.layout, registry: fixture.store.registry)
      #expect(setup.workspace == fixture.store.layout.root)
      let settings = dir + "/alone/.vscode/settings.json"
      let text = "// top\n{\n  /* block */ \"files.eol\": \"\\n\", // tail\n  \"json.schemas\": [],\n}\n"
      try writeFile(text, to: settings)
      let associations = try setup.exportSchemas(to: setup.defaultDirectory, draft: .draft07)
      try setup.write(
        setup.configuration(for: .vscode, associations: associations, schemaDirectory: setup.defaultDirectory))
      let written = try readFile(settings)
      #expect(written.hasPrefix("// top\n{\n  /* block */ \"files.eol\": \"\\n\", // tail\n"), "\(written)")
      #expect(written.contains(#""fileMatch": ["#) && written.contains("\"/data/forms/*.json\""), "\(written)")
    }
  }

  @Test func aReadOnlySettingsFileIsAnIOErrorNamingIt() throws {
    try withTemporaryDirectory { dir in
      let (_, setup) = try nestedStore(dir)
      let vscode = dir + "/repo/.vscode"
      try writeFile("{}\n", to: vscode + "/settings.json")
      // A directory that cannot be written (root may write anyway: then the write simply works).
      try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: vscode)
      defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: vscode) }
      let associations = try setup.exportSchemas(to: setup.defaultDirectory, draft: .draft07)
      let error = storeError {
        try setup.write(
          setup.configuration(for: .vscode, associations: associations, schemaDirectory: setup.defaultDirectory))
      }
      if getuid() != 0 {
        #expect(error?.kind == .ioError && error?.description.contains(".vscode") == true)
      } else {
        #expect(error == nil)
      }
    }
  }
}

/// How VS Code's JSON language service matches a `fileMatch` pattern, written from its documented
/// behaviour: the pattern, its leading `/` dropped, is prefixed with `**/` and made a regular
/// expression (`**/` any directories, `*` within one name, `?` one character, `{a,b}` a choice,
/// `[...]` a class, other characters literal), and matched against the document's URI.
enum VSCodeGlob {
  /// A `file:` URI as vscode-uri writes it: everything but `A-Z a-z 0-9 - . _ ~ /` percent-encoded.
  static func uri(_ path: String) -> String {
    let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/")
    return "file://" + path.addingPercentEncoding(withAllowedCharacters: allowed)!
  }

  static func matches(_ pattern: String, uri: String) -> Bool {
    let glob = "**/" + (pattern.hasPrefix("/") ? String(pattern.dropFirst()) : pattern)
    var regex = "^"
    var inGroup = false
    let characters = Array(glob)
    var i = 0
    while i < characters.count {
      let c = characters[i]
      switch c {
      case "*":
        var stars = 1
        while i + 1 < characters.count, characters[i + 1] == "*" {
          stars += 1
          i += 1
        }
        if stars > 1 {
          if i + 1 < characters.count, characters[i + 1] == "/" { i += 1 }
          regex += "((?:[^/]*(?:/|$))*)"
        } else {
          regex += "([^/]*)"
        }
      case "?": regex += "."
      case "[", "]": regex += String(c)
      case "{":
        inGroup = true
        regex += "("
      case "}":
        inGroup = false
        regex += ")"
      case ",": regex += inGroup ? "|" : "\\,"
      case "/", "$", "^", "+", ".", "(", ")", "=", "!", "|": regex += "\\" + String(c)
      default: regex += String(c)
      }
      i += 1
    }
    regex += "$"
    guard let expression = try? NSRegularExpression(pattern: regex) else { return false }
    return expression.firstMatch(in: uri, range: NSRange(uri.startIndex..., in: uri)) != nil
  }
}
