import FormsCore
import FormsTestSupport
import Foundation
import Testing

/// `formsctl mcp` driven by a real client: the official Python MCP SDK from PyPI (which `.ci/run`
/// installs when missing), over stdio, as an assistant starts it.
struct AssistantClientTests {
  /// Why the Python client cannot run here, or nil when it can.
  static let unavailable: String? = {
    let probe = Process()
    probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    probe.arguments = ["python3", "-c", "import mcp.client.stdio"]
    probe.standardOutput = FileHandle.nullDevice
    probe.standardError = FileHandle.nullDevice
    do {
      try probe.run()
      probe.waitUntilExit()
    } catch {
      return "python3 cannot be started: \(error)"
    }
    return probe.terminationStatus == 0 ? nil : "python3 has no mcp package (pip install mcp)"
  }()

  /// The client lists the tools, reads create_form's input schema, drafts an SF 30 with one
  /// mistake, gets the diagnostic, fixes it and applies it; `formsctl get` then finds the form,
  /// and `formsctl log` its audit record, marked as made through mcp.
  @Test func pythonClientDraftsChecksAndAppliesAnSF30() throws {
    if let unavailable = Self.unavailable {
      guard ProcessInfo.processInfo.environment["CI"] == nil else {
        Issue.record("the Python MCP client is required in CI: \(unavailable)")
        return
      }
      print("skipping the Python MCP client test: \(unavailable)")
      return
    }
    try withTemporaryDirectory { dir in
      let store = dir + "/store"
      try copyExampleStore(to: store)
      let script = Formsctl.packageRoot.appendingPathComponent(
        "Tests/FormsAssistantTests/Resources/assistant_client.py"
      ).path
      var environment = testEnvironment()
      environment["FORMSCTL_NOW"] = "2026-11-20T10:00:00Z"
      let client = try runProgram(
        ["python3", script, Formsctl.binary.path, store], in: store, environment: environment)
      try #require(client.status == 0, "the client failed: \(client.stderr)")
      let outData = Data(client.stdout.utf8)
      let report = try #require(
        try JSONSerialization.jsonObject(with: outData) as? [String: Any], "\(String(decoding: outData, as: UTF8.self))"
      )
      let id = try #require(report["id"] as? String)
      let diagnostic = report["diagnostic"] as? [String: Any]
      #expect(diagnostic?["pointer"] as? String == "/acquisition_id" && diagnostic?["rule"] as? String == "pattern")
      #expect((report["tools"] as? [String])?.contains("check_form") == true)

      let get = try Formsctl.run(["get", "form", id], in: store)
      #expect(get.status == 0, "\(get.transcript)")
      #expect(
        get.stdout.contains("\"form_type\": \"SF30\"") && get.stdout.contains("\"acquisition_id\": \"ACQ-2026-003\""))
      #expect(get.stdout.contains("\"status\": \"draft\""), "\(get.stdout)")
      let log = try Formsctl.run(["log", "form", id], in: store)
      #expect(log.status == 0, "\(log.transcript)")
      #expect(log.stdout.contains("new  by ") && log.stdout.contains("through mcp"), "\(log.stdout)")
      #expect(log.stdout.contains("$ formsctl mcp create_form"), "\(log.stdout)")
      #expect(log.stdout.contains("create form \(id)"), "\(log.stdout)")
      // One write: the dry runs and the refused draft left nothing in the log.
      let all = try Formsctl.run(["log", "--format", "ndjson"], in: store)
      #expect(all.stdout.split(separator: "\n").count == 1, "\(all.stdout)")
    }
  }

  /// `formsctl mcp` in `directory` fed `lines`, stopped after 30 s if it has not ended (a server
  /// that never exits when its input ends fails the test, and does not hang it).
  static func mcp(_ lines: [String], in directory: String) throws -> (run: RunResult, answers: [JSONValue]) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["timeout", "30", Formsctl.binary.path, "mcp"]
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    process.environment = testEnvironment()
    let (out, err, input) = (Pipe(), Pipe(), Pipe())
    process.standardOutput = out
    process.standardError = err
    process.standardInput = input
    try process.run()
    input.fileHandleForWriting.write(Data(lines.map { $0 + "\n" }.joined().utf8))
    try input.fileHandleForWriting.close()
    nonisolated(unsafe) var errData = Data()
    let group = DispatchGroup()
    DispatchQueue.global().async(group: group) { errData = err.fileHandleForReading.readDataToEndOfFile() }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    let run = RunResult(
      status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
      stderr: String(decoding: errData, as: UTF8.self))
    let answers = try run.stdout.split(separator: "\n").map { try JSONParser().parse(String($0)) }
    return (run, answers)
  }

  static let initialize = [
    #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
    #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
  ]

  /// The scenario whose `assumptions.revenue.base_revenue` (a decimal of any scale) the number
  /// tests set, and its file in the example store.
  static let scenario = "0b099fcf-b0da-549f-a1fc-60e2a2ae5484"
  static let scenarioFile = "/data/scenarios/0b099fcf-b0da-549f-a1fc-60e2a2ae5484.json"

  /// A request that sets the scenario's `base_revenue` to `number` (its JSON text), applied.
  static func update(_ number: String, id: Int = 2) -> String {
    #"{"jsonrpc":"2.0","id":\#(id),"method":"tools/call","params":{"name":"update","arguments":{"kind":"scenario","id":"\#(scenario)","set":{"assumptions.revenue.base_revenue":\#(number)},"apply":true}}}"#
  }

  /// Numbers keep their text through the assistant's door as through the command line: what is
  /// sent is written and answered as sent (never through a binary double).
  @Test(arguments: ["1234567890123456.78", "1.0000000000000001"])
  func numbersKeepTheirText(_ number: String) throws {
    try withTemporaryDirectory { dir in
      let store = dir + "/store"
      try copyExampleStore(to: store)
      let (run, answers) = try Self.mcp(Self.initialize + [Self.update(number)], in: store)
      #expect(run.status == 0, "\(run.transcript)")
      let answer = try #require(answers.first { $0["id"] == .number(JSONNumber(2)) }, "\(run.stdout)")
      #expect(answer["result"]?["isError"] == .bool(false), "\(run.stdout)")
      let structured = answer["result"]?["structuredContent"]
      #expect(
        structured?["document"]?["assumptions"]?["revenue"]?["base_revenue"]
          == .number(JSONNumber(unchecked: number)), "\(run.stdout)")
      let text = try #require(answer["result"]?["content"]?.arrayValue?.first?["text"]?.stringValue)
      #expect(try JSONParser().parse(text) == structured, "the text and the structured content differ")
      let file = try readFile(store + Self.scenarioFile)
      #expect(file.contains(#""base_revenue": \#(number),"#), "\(file)")
      let get = try Formsctl.run(
        ["get", "scenario", Self.scenario, "--field", "assumptions.revenue.base_revenue"], in: store)
      #expect(get.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == number, "\(get.transcript)")
    }
  }

  /// A number's text is what the rules judge: 1.0000000000000001 is refused where two decimals
  /// are allowed (as `set` refuses it), not taken as 1.
  @Test func aNumberIsJudgedByItsText() throws {
    try withTemporaryDirectory { dir in
      let store = dir + "/store"
      try copyExampleStore(to: store)
      let path = store + "/data/acquisitions/ACQ-2026-001.json"
      let before = try readFile(path)
      let request = Self.update("1.0000000000000001").replacingOccurrences(
        of: #""kind":"scenario""#, with: #""kind":"acquisition""#
      )
      .replacingOccurrences(of: Self.scenario, with: "ACQ-2026-001").replacingOccurrences(
        of: "assumptions.revenue.base_revenue", with: "estimated_value")
      let (run, answers) = try Self.mcp(Self.initialize + [request], in: store)
      #expect(run.status == 0, "\(run.transcript)")
      let answer = try #require(answers.first { $0["id"] == .number(JSONNumber(2)) }, "\(run.stdout)")
      #expect(answer["result"]?["isError"] == .bool(true), "\(run.stdout)")
      let diagnostic = answer["result"]?["structuredContent"]?["diagnostics"]?.arrayValue?.first
      #expect(diagnostic?["rule"] == .string("scale"), "\(run.stdout)")
      #expect(diagnostic?["message"]?.stringValue?.hasPrefix("1.0000000000000001 has 16 digits") == true)
      #expect(try readFile(path) == before)
    }
  }

  /// `12.0` sent back as stored is no change: nothing is written, nothing is reported changed.
  @Test func aNumberSentBackAsStoredIsNoChange() throws {
    try withTemporaryDirectory { dir in
      let store = dir + "/store"
      try copyExampleStore(to: store)
      let set = try Formsctl.run(
        ["set", "scenario", Self.scenario, "assumptions.revenue.base_revenue=12.0"], in: store)
      #expect(set.status == 0, "\(set.transcript)")
      let path = store + Self.scenarioFile
      let before = try readFile(path)
      #expect(before.contains(#""base_revenue": 12.0,"#), "\(before)")
      let (run, answers) = try Self.mcp(Self.initialize + [Self.update("12.0")], in: store)
      #expect(run.status == 0, "\(run.transcript)")
      let answer = try #require(answers.first { $0["id"] == .number(JSONNumber(2)) }, "\(run.stdout)")
      #expect(answer["result"]?["isError"] == .bool(false), "\(run.stdout)")
      #expect(answer["result"]?["structuredContent"]?["changed"] == .array([]), "\(run.stdout)")
      #expect(try readFile(path) == before)
    }
  }

  /// A request whose id is not a string or an integer is answered, as JSON-RPC says (-32600,
  /// id null), and runs nothing; the server still ends, at once, when its input does.
  @Test(arguments: ["null", "true", "1.5", "{}", "[1]", "1e400"])
  func aRequestWithAnInvalidIdIsAnsweredAndTheServerEnds(_ id: String) throws {
    try withTemporaryDirectory { dir in
      let store = dir + "/store"
      try copyExampleStore(to: store)
      let path = store + Self.scenarioFile
      let before = try readFile(path)
      let started = ContinuousClock.now
      let (run, answers) = try Self.mcp(
        Self.initialize + [
          #"{"jsonrpc":"2.0","id":\#(id),"method":"ping"}"#,
          Self.update("7").replacingOccurrences(of: #""id":2,"#, with: #""id":\#(id),"#),
          #"{"jsonrpc":"2.0","id":"last","method":"ping"}"#,
        ], in: store)
      #expect(run.status == 0, "\(run.transcript)")
      #expect(ContinuousClock.now - started < .seconds(10))
      let refused = answers.filter { $0["error"]?["code"] == .number(JSONNumber(-32600)) }
      #expect(refused.count == 2, "\(run.stdout)")
      #expect(refused.allSatisfy { $0["id"] == .null }, "\(run.stdout)")
      #expect(answers.contains { $0["id"] == .string("last") && $0["result"] != nil }, "\(run.stdout)")
      #expect(try readFile(path) == before)
    }
  }

  /// `formsctl mcp` is the program formsctl-mcp, run from beside formsctl: its help is formsctl's,
  /// its usage errors say so, and a client that closes its end after its requests gets every answer.
  @Test func mcpRunsTheProgramBesideFormsctl() throws {
    let example = Formsctl.packageRoot.appendingPathComponent("examples/acquisitions").path
    let help = try Formsctl.run(["mcp", "--help"], in: example)
    #expect(help.status == 0 && help.stdout.contains("USAGE: formsctl mcp"), "\(help.transcript)")
    let wrong = try Formsctl.run(["mcp", "--allow-seald"], in: example)
    #expect(wrong.status == 64 && wrong.stderr.contains("(formsctl mcp --help shows the usage)"), "\(wrong.transcript)")
    let requests = [
      #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
      #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
      #"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get","arguments":{"kind":"acquisition","id":"ACQ-2026-001","field":"title"}}}"#,
      #"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get","arguments":{"kind":"acquisition","id":"../x"}}}"#,
    ]
    let run = try Formsctl.run(["mcp"], in: example, input: requests.joined(separator: "\n") + "\n")
    #expect(run.status == 0, "\(run.transcript)")
    let lines = run.stdout.split(separator: "\n")
    #expect(lines.count == 3, "\(run.stdout)")
    #expect(lines.contains { $0.contains("\"id\":2") && $0.contains("\"isError\":false") }, "\(run.stdout)")
    #expect(lines.contains { $0.contains("\"id\":3") && $0.contains("\"isError\":true") }, "\(run.stdout)")
  }

  /// Before `initialize`, every request but `ping` is answered "not initialized" and reaches no
  /// tool (a write sent first writes nothing), and the server still ends when its input does.
  @Test func nothingButPingIsAnsweredBeforeInitialize() throws {
    try withTemporaryDirectory { dir in
      try copyExampleStore(to: dir + "/store")
      let before = try readFile(dir + "/store/data/acquisitions/ACQ-2026-003.json")
      let requests = [
        #"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"update","arguments":{"kind":"acquisition","id":"ACQ-2026-003","set":{"title":"x"},"apply":true}}}"#,
        #"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
        #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        #"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#,
      ]
      let run = try Formsctl.run(["mcp"], in: dir + "/store", input: requests.joined(separator: "\n") + "\n")
      #expect(run.status == 0, "\(run.transcript)")
      let lines = run.stdout.split(separator: "\n")
      #expect(lines.count == 3, "\(run.stdout)")
      #expect(lines.contains { $0.contains("\"id\":1") && $0.contains("-32002") }, "\(run.stdout)")
      #expect(lines.contains { $0.contains("\"id\":2") && $0.contains("\"result\"") }, "\(run.stdout)")
      #expect(lines.contains { $0.contains("\"id\":3") && $0.contains("-32002") }, "\(run.stdout)")
      #expect(try readFile(dir + "/store/data/acquisitions/ACQ-2026-003.json") == before)
    }
  }
}
