import FormsCore
import FormsLanguageServer
import FormsStore
import FormsTestSupport
import Foundation
import Synchronization
import Testing

/// A client that talks to `formsctl lsp` over its stdin and stdout, as an editor does.
final class LSPClient: Sendable {
  let process: Process
  let input: FileHandle
  let received = Mutex<[JSONValue]>([])
  let arrived = DispatchSemaphore(value: 0)
  let nextID = Mutex(0)

  /// `formsctl lsp` started in `directory`, its stdin and stdout piped, its stderr dropped.
  static func start(in directory: String) throws -> (process: Process, stdin: Pipe, stdout: Pipe) {
    let process = Process()
    process.executableURL = Formsctl.binary
    process.arguments = ["lsp"]
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    process.environment = testEnvironment()
    let stdin = Pipe()
    let stdout = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = FileHandle.nullDevice
    try process.run()
    return (process, stdin, stdout)
  }

  init(in directory: String) throws {
    let (process, stdin, stdout) = try Self.start(in: directory)
    self.process = process
    input = stdin.fileHandleForWriting
    let output = stdout.fileHandleForReading
    let thread = Thread { [self] in
      var reader = FrameReader(output)
      while let body = reader.next() {
        guard let message = try? JSONParser().parse(body) else { continue }
        received.withLock { $0.append(message) }
        arrived.signal()
      }
    }
    thread.start()
  }

  func send(raw: [UInt8]) {
    input.write(Data(Array("Content-Length: \(raw.count)\r\n\r\n".utf8) + raw))
  }

  func notify(_ method: String, _ params: JSONValue) {
    send(raw: Array(JSONWriter.compact(["jsonrpc": "2.0", "method": .string(method), "params": params]).utf8))
  }

  /// Sends a request and waits for its response (its `result`, or the whole message on error).
  @discardableResult
  func request(_ method: String, _ params: JSONValue = .null) -> JSONValue {
    let id = nextID.withLock {
      $0 += 1
      return $0
    }
    send(
      raw: Array(
        JSONWriter.compact([
          "jsonrpc": "2.0", "id": .number(JSONNumber(id)), "method": .string(method), "params": params,
        ])
        .utf8))
    let response = wait { $0["id"] == .number(JSONNumber(id)) }
    return response?["result"] ?? response ?? .null
  }

  /// The first message received (and not yet taken) that `matches`, waiting up to 30 s (a busy CI machine).
  func wait(_ matches: (JSONValue) -> Bool) -> JSONValue? {
    let deadline = Date().addingTimeInterval(30)
    while Date() < deadline {
      let found = received.withLock { messages -> JSONValue? in
        guard let index = messages.firstIndex(where: matches) else { return nil }
        return messages.remove(at: index)
      }
      if let found { return found }
      _ = arrived.wait(timeout: .now() + 0.2)
    }
    return nil
  }

  /// The next diagnostics published for `uri` (with `version`, when given).
  func diagnostics(_ uri: String, version: Int? = nil) -> [JSONValue]? {
    wait {
      $0["method"] == "textDocument/publishDiagnostics" && $0["params"]?["uri"] == .string(uri)
        && (version == nil || $0["params"]?["version"] == .number(JSONNumber(version!)))
    }?["params"]?["diagnostics"]?.arrayValue
  }

  func open(_ path: String, text: String, version: Int = 1) {
    notify(
      "textDocument/didOpen",
      [
        "textDocument": [
          "uri": .string("file://" + path), "languageId": "json", "version": .number(JSONNumber(version)),
          "text": .string(text),
        ]
      ])
  }

  func change(_ path: String, text: String, version: Int) {
    notify(
      "textDocument/didChange",
      [
        "textDocument": ["uri": .string("file://" + path), "version": .number(JSONNumber(version))],
        "contentChanges": [["text": .string(text)]],
      ])
  }

  /// Shuts the server down; its exit status.
  func finish() -> Int32 {
    request("shutdown")
    notify("exit", .null)
    process.waitUntilExit()
    return process.terminationStatus
  }

  static func at(_ line: Int, _ character: Int) -> JSONValue {
    ["line": .number(JSONNumber(line)), "character": .number(JSONNumber(character))]
  }

  static func document(_ path: String, _ line: Int, _ character: Int) -> JSONValue {
    ["textDocument": ["uri": .string("file://" + path)], "position": at(line, character)]
  }
}

struct LanguageServerTests {
  static let initialize: JSONValue = ["processId": .null, "rootUri": .null, "capabilities": [:]]

  /// The example store, copied, and the text of one purchase order with `acquisition_id` changed.
  func store(_ dir: String) throws -> (store: String, order: String, text: String) {
    try copyExampleStore(to: dir + "/acquisitions")
    let order = dir + "/acquisitions/data/purchase-orders/PO-000201.json"
    return (dir + "/acquisitions", order, try readFile(order))
  }

  /// The 0-based line and UTF-16 character where `needle` starts in `text`.
  func position(of needle: String, in text: String) -> (Int, Int) {
    let before = text[..<text.range(of: needle)!.lowerBound]
    let lines = before.components(separatedBy: "\n")
    return (lines.count - 1, lines.last!.utf16.count)
  }

  @Test func diagnosticsFollowTheUnsavedBufferWithValidatesRules() throws {
    try withTemporaryDirectory { dir in
      let (root, order, saved) = try store(dir)
      let client = try LSPClient(in: root)
      let capabilities = client.request("initialize", Self.initialize)["capabilities"]
      #expect(capabilities?["positionEncoding"] == "utf-16")
      client.notify("initialized", [:])
      client.open(order, text: saved)
      #expect(client.diagnostics("file://" + order, version: 1) == [])
      // A relation to nothing, after a character that is two UTF-16 units on the same line.
      let broken = saved.replacingOccurrences(
        of: #""acquisition_id": "ACQ-2026-001""#, with: #""acquisition_id": "ACQ-2099-999", "𝄞note": 1"#)
      client.change(order, text: broken, version: 2)
      let found = client.diagnostics("file://" + order, version: 2) ?? []
      let relation = found.first { $0["code"] == "relation" }
      let (line, character) = position(of: "\"ACQ-2099-999\"", in: broken)
      #expect(relation?["range"]?["start"] == LSPClient.at(line, character))
      #expect(relation?["range"]?["end"] == LSPClient.at(line, character + 14))
      #expect(relation?["message"]?.stringValue?.contains("\"ACQ-2099-999\" names no acquisition") == true)
      let unknown = found.first { $0["code"] == "unknown-field" }
      let (_, keyCharacter) = position(of: "\"𝄞note\"", in: broken)
      #expect(unknown?["range"]?["start"] == LSPClient.at(line, keyCharacter))
      #expect(unknown?["range"]?["end"] == LSPClient.at(line, keyCharacter + 8), "𝄞 is two UTF-16 units")
      // The same messages and rule names as validate.
      try writeFile(broken, to: order)
      let validate = try Formsctl.run(["validate", "--format", "json"], in: root)
      for diagnostic in found {
        #expect(validate.stdout.contains(diagnostic["code"]!.stringValue!))
      }
      try writeFile(saved, to: order)
      // A workflow move the saved document may not make, and a parse error placed exactly.
      let form = root + "/data/forms/0adc90c4-92fd-5ab8-8b08-ceb26b213e40.json"
      let formText = try readFile(form)
      client.open(form, text: formText.replacingOccurrences(of: #""status": "approved""#, with: #""status": "draft""#))
      #expect(client.diagnostics("file://" + form)?.contains { $0["code"] == "workflow" } == true)
      client.change(form, text: "{\n  \"_schema\": \"form@2.0.0\",\n  \"id\": \n}\n", version: 3)
      let parse = client.diagnostics("file://" + form, version: 3)?.first
      #expect(
        parse?["code"] == "parse" && parse?["range"]?["start"] == LSPClient.at(3, 0), "\(String(describing: parse))")
      #expect(client.finish() == 0)
    }
  }

  @Test func completionHoverDefinitionReferencesFormattingAndFixes() throws {
    try withTemporaryDirectory { dir in
      let (root, order, saved) = try store(dir)
      let client = try LSPClient(in: root)
      client.request("initialize", Self.initialize)
      client.notify("initialized", [:])
      client.open(order, text: saved)
      // Field names in the items' objects, with their types; those already there are not offered.
      let withoutQuantity = saved.replacingOccurrences(of: "\"quantity\": 10,\n", with: "")
      client.change(order, text: withoutQuantity, version: 2)
      let (itemLine, itemCharacter) = position(of: "\"product_item_id\"", in: withoutQuantity)
      let fields =
        client.request("textDocument/completion", LSPClient.document(order, itemLine, itemCharacter))["items"]?
        .arrayValue ?? []
      #expect(fields.contains { $0["label"] == "quantity" && $0["detail"]?.stringValue?.hasPrefix("integer") == true })
      #expect(!fields.contains { $0["label"] == "unit_price" } && fields.contains { $0["label"] == "product_item_id" })
      client.change(order, text: saved, version: 3)
      // Related ids with their titles, at acquisition_id's value.
      let (idLine, idCharacter) = position(of: "\"ACQ-2026-001\"", in: saved)
      let ids = client.request("textDocument/completion", LSPClient.document(order, idLine, idCharacter + 5))["items"]?
        .arrayValue
      #expect(ids?.contains { $0["label"] == "ACQ-2026-001" && $0["detail"]?.stringValue?.isEmpty == false } == true)
      // Hover on the relation: the target's key fields; on a field: its type.
      let hover = client.request("textDocument/hover", LSPClient.document(order, idLine, idCharacter + 3))
      #expect(hover["contents"]?["value"]?.stringValue?.hasPrefix("**acquisition ACQ-2026-001**") == true, "\(hover)")
      let (currencyLine, currencyCharacter) = position(of: "\"currency\"", in: saved)
      let field = client.request("textDocument/hover", LSPClient.document(order, currencyLine, currencyCharacter + 2))
      #expect(field["contents"]?["value"]?.stringValue?.hasPrefix("**currency**") == true, "\(field)")
      // Definition: the acquisition; on _schema, the descriptor.
      let definition = client.request("textDocument/definition", LSPClient.document(order, idLine, idCharacter + 3))
      #expect(definition["uri"]?.stringValue?.hasSuffix("/data/acquisitions/ACQ-2026-001.json") == true)
      let descriptor = client.request("textDocument/definition", LSPClient.document(order, 1, 16))
      #expect(descriptor["uri"]?.stringValue?.hasSuffix("/purchase-order/1.1.0.yaml") == true, "\(descriptor)")
      // References: the purchase orders naming the acquisition.
      let acquisition = root + "/data/acquisitions/ACQ-2026-001.json"
      client.open(acquisition, text: try readFile(acquisition))
      let references = client.request("textDocument/references", LSPClient.document(acquisition, 0, 0)).arrayValue
      #expect(references?.contains { $0["uri"]?.stringValue?.hasSuffix("/PO-000201.json") == true } == true)
      // Formatting to canonical form; a misspelt field gets its fix.
      let messy = saved.replacingOccurrences(of: #""currency": "USD""#, with: #""curency":"USD""#)
      client.change(order, text: messy, version: 4)
      let edits = client.request("textDocument/formatting", ["textDocument": ["uri": .string("file://" + order)]])
      #expect(edits.arrayValue?.first?["newText"]?.stringValue?.contains(#""curency": "USD""#) == true)
      let (typoLine, typoCharacter) = position(of: "\"curency\"", in: messy)
      let actions = client.request(
        "textDocument/codeAction",
        [
          "textDocument": ["uri": .string("file://" + order)],
          "range": ["start": LSPClient.at(typoLine, typoCharacter), "end": LSPClient.at(typoLine, typoCharacter + 1)],
          "context": ["diagnostics": []],
        ]
      ).arrayValue
      #expect(
        actions?.contains { $0["title"] == "Rename \"curency\" to \"currency\"" } == true,
        "\(String(describing: actions))")
      // Nothing was written by the server.
      #expect(try readFile(order) == saved)
      #expect(client.finish() == 0)
    }
  }

  @Test func aFileChangedOnDiskChecksTheOpenBuffersAgain() throws {
    try withTemporaryDirectory { dir in
      let (root, order, saved) = try store(dir)
      let client = try LSPClient(in: root)
      client.request("initialize", Self.initialize)
      client.notify("initialized", [:])
      let text = saved.replacingOccurrences(of: #""ACQ-2026-001""#, with: #""ACQ-2026-077""#)
      client.open(order, text: text)
      #expect(client.diagnostics("file://" + order)?.map { $0["code"] } == ["relation"])
      // Another process creates the acquisition: the buffer's diagnostics clear without an edit.
      let acquisition = try readFile(root + "/data/acquisitions/ACQ-2026-001.json")
      try writeFile(
        acquisition.replacingOccurrences(of: "ACQ-2026-001", with: "ACQ-2026-077"),
        to: root + "/data/acquisitions/ACQ-2026-077.json")
      // (The buffer may be checked again meanwhile, as the watch starts: the clearing is what counts.)
      let cleared = client.wait {
        $0["method"] == "textDocument/publishDiagnostics" && $0["params"]?["uri"] == .string("file://" + order)
          && $0["params"]?["diagnostics"] == []
      }
      #expect(cleared != nil)
      #expect(client.finish() == 0)
    }
  }

  @Test func descriptorsGetWhatSchemaCheckSays() throws {
    try withTemporaryDirectory { dir in
      try copyExampleStore(to: dir + "/acquisitions")
      let root = dir + "/acquisitions"
      let store = try Store.open(at: root)
      let path = store.registry.files["acquisition@1.1.0"]!
      let client = try LSPClient(in: root)
      client.request("initialize", Self.initialize)
      client.notify("initialized", [:])
      let text = try readFile(path)
      client.open(path, text: text + "bogus_top_level_key: 1\n")
      let found = client.diagnostics("file://" + path) ?? []
      #expect(
        found.count == 1 && found.first?["message"]?.stringValue?.contains("bogus_top_level_key") == true, "\(found)")
      client.change(path, text: text, version: 2)
      #expect(client.diagnostics("file://" + path, version: 2) == [])
      #expect(client.finish() == 0)
    }
  }

  @Test func badMessagesGetJSONRPCErrorsAndTheServerGoesOn() throws {
    try withTemporaryDirectory { dir in
      let (root, _, _) = try store(dir)
      let client = try LSPClient(in: root)
      let early = client.request("textDocument/hover", LSPClient.document(root + "/x.json", 0, 0))
      #expect(early["error"]?["code"] == .number(JSONNumber(-32002)))
      client.send(raw: Array("{not json".utf8))
      #expect(client.wait { $0["error"]?["code"] == .number(JSONNumber(-32700)) } != nil)
      client.request("initialize", Self.initialize)
      let unknown = client.request("textDocument/rename", LSPClient.document(root + "/x.json", 0, 0))
      #expect(unknown["error"]?["code"] == .number(JSONNumber(-32601)))
      // A file in no store has nothing to say, and no error.
      #expect(client.request("textDocument/hover", LSPClient.document("/tmp/nowhere.json", 0, 0)) == .null)
      #expect(client.finish() == 0)
    }
  }

  @Test func exitWithoutShutdownIsStatusOne() throws {
    try withTemporaryDirectory { dir in
      let client = try LSPClient(in: dir)
      client.notify("exit", .null)
      client.process.waitUntilExit()
      #expect(client.process.terminationStatus == 1)
    }
  }
}

/// Protocol messages written as literals.
extension JSONValue: ExpressibleByStringLiteral, ExpressibleByDictionaryLiteral,
  ExpressibleByArrayLiteral
{
  public init(stringLiteral value: String) { self = .string(value) }
  public init(dictionaryLiteral elements: (String, JSONValue)...) {
    self = .object(JSONObject(elements.map { JSONObject.Member(key: $0.0, value: $0.1) }))
  }
  public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

/// A real editor: Neovim's built-in LSP client, headless, started as the README says (from the
/// repository's root, with `set exrc` in its init.vim, the file named on the command line), with
/// the `.nvimrc` that `formsctl editor setup --editor neovim` writes for two stores of the
/// repository, shows a relation error in an unsaved buffer. The check runs after startup (`-c`):
/// nothing but Neovim itself reads `.nvimrc`.
struct NeovimTests {
  static let neovim: String? = ["/usr/bin/nvim", "/usr/local/bin/nvim"].first {
    FileManager.default.isExecutableFile(atPath: $0)
  }
  static let inCI = ProcessInfo.processInfo.environment["CI"] == "true"

  static let script = """
    local file, other, out = _G.file, _G.other, _G.out
    local found = {}
    local buffer = vim.api.nvim_get_current_buf()
    vim.wait(15000, function() return #vim.lsp.buf_get_clients(buffer) > 0 end, 50)
    table.insert(found, 'clients ' .. #vim.lsp.buf_get_clients(buffer))
    -- An unsaved edit: the acquisition it names does not exist.
    local lines = vim.api.nvim_buf_get_lines(buffer, 0, -1, false)
    for i, line in ipairs(lines) do
      if line:find('"acquisition_id"') then
        vim.api.nvim_buf_set_lines(buffer, i - 1, i, false, { '  "acquisition_id": "ACQ-2099-999",' })
      end
    end
    vim.wait(15000, function() return #vim.diagnostic.get(buffer) > 0 end, 50)
    for _, d in ipairs(vim.diagnostic.get(buffer)) do
      table.insert(found, string.format('%d:%d-%d %s', d.lnum, d.col, d.end_col, d.message))
    end
    -- A document of the second store gets that store's own server.
    vim.cmd('edit ' .. vim.fn.fnameescape(other))
    local second = vim.api.nvim_get_current_buf()
    vim.wait(15000, function() return #vim.lsp.buf_get_clients(second) > 0 end, 50)
    for _, client in pairs(vim.lsp.buf_get_clients(second)) do
      table.insert(found, 'second ' .. client.config.root_dir)
    end
    vim.fn.writefile(found, out)
    vim.cmd('qa!')
    """

  @Test(.enabled(if: neovim != nil || inCI, "Neovim is not installed (apt-get install neovim); skipped outside CI"))
  func neovimStartedAsTheReadmeSaysShowsARelationErrorBeforeSaving() throws {
    try withTemporaryDirectory { dir in
      let repo = dir + "/repo"
      try copyExampleStore(to: repo + "/examples/acquisitions")
      try copyExampleStore(to: repo + "/ops/x{a,b} [EU]")
      #expect(try runShellLines(["git init -q ."], in: repo).isEmpty)
      for store in ["ops/x{a,b} [EU]", "examples/acquisitions/data"] {
        let setup = try Formsctl.run(["editor", "setup", "--editor", "neovim"], in: repo + "/" + store)
        #expect(setup.status == 0, "\(setup.stderr)")
      }
      let nvimrc = try readFile(repo + "/.nvimrc")
      #expect(nvimrc.contains(#"" formsctl-stores: ["examples/acquisitions","ops/x{a,b} [EU]"]"#), "\(nvimrc)")
      let file = "examples/acquisitions/data/purchase-orders/PO-000201.json"
      let other = repo + "/ops/x{a,b} [EU]/data/purchase-orders/PO-000201.json"
      let saved = try readFile(repo + "/" + file)
      try writeFile(Self.script, to: dir + "/check.lua")
      // The README's configuration: 'exrc' set in init.vim. Neovim 0.9 and later also want the
      // file trusted (:trust records its SHA-256 in the trust database); 0.7 and 0.8 ignore that.
      try writeFile("set exrc\n", to: dir + "/config/nvim/init.vim")
      let digest = try runShell("sha256sum .nvimrc >&2", in: repo).stderr.prefix(64)
      try writeFile(
        "\(digest) \(FileIO.realPath(FilePath(repo))!.string + "/.nvimrc")\n", to: dir + "/state/nvim/trust")
      let process = Process()
      process.executableURL = URL(fileURLWithPath: try #require(Self.neovim))
      process.arguments = [
        "--headless", "-i", "NONE", "--cmd",
        "lua _G.other = '\(other)'; _G.out = '\(dir)/found.txt'", file, "-c", "luafile \(dir)/check.lua",
      ]
      process.currentDirectoryURL = URL(fileURLWithPath: repo)
      var environment = testEnvironment()
      environment["PATH"] =
        Formsctl.binary.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
      environment["HOME"] = dir
      environment["XDG_CONFIG_HOME"] = dir + "/config"
      environment["XDG_STATE_HOME"] = dir + "/state"
      environment["XDG_DATA_HOME"] = dir + "/data"
      environment["XDG_CACHE_HOME"] = dir + "/cache"
      process.environment = environment
      process.standardInput = FileHandle.nullDevice
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      let deadline = Date().addingTimeInterval(90)
      while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
      if process.isRunning { process.terminate() }
      let found = FileIO.exists(FilePath(dir + "/found.txt")) ? try readFile(dir + "/found.txt") : ""
      let line = saved.components(separatedBy: "\n").firstIndex { $0.contains("\"acquisition_id\"") } ?? -1
      let lines = found.components(separatedBy: "\n")
      #expect(lines.first == "clients 1", "\(found)")
      #expect(
        lines.dropFirst().first?.hasPrefix(
          "\(line):20-34 acquisition_id: \"ACQ-2099-999\" names no acquisition (data/acquisitions/ACQ-2099-999.json ")
          == true,
        "\(found)")
      #expect(lines.contains("second " + FileIO.realPath(FilePath(repo))!.string + "/ops/x{a,b} [EU]"), "\(found)")
      #expect(try readFile(repo + "/" + file) == saved, "nothing saved")
    }
  }
}
