import FormsCore
import FormsTestSupport
import Foundation
import Testing

/// `formsctl serve` in a real browser: Debian's Chromium, driven through chromedriver by Selenium
/// (Browser/serve_browser.py), against a server this test starts in a store of its own. The
/// browser lists, filters, edits (an invalid value, then the fix), prints, approves, watches a
/// change made from a terminal arrive, and shows a hostile title as text; this test then asks
/// the store itself (`formsctl get`, `formsctl log`) what the browser did, and stops the server
/// as Ctrl-C does. Screenshots of the list, the refused form and the print view are kept in
/// `$FORMSCTL_SCREENSHOTS` (default `.build/serve-screenshots`) for people to look at.
struct BrowserTests {
  static let inCI = ProcessInfo.processInfo.environment["CI"] == "true"

  /// What is missing to run a browser (nil: nothing).
  static let missing: String? = {
    let environment = ProcessInfo.processInfo.environment
    // (isExecutableFile alone says yes to a path that does not exist when the tests run as root.)
    func isProgram(_ path: String) -> Bool {
      FileManager.default.fileExists(atPath: path) && FileManager.default.isExecutableFile(atPath: path)
    }
    var missing: [String] = []
    if !isProgram(environment["FORMSCTL_CHROMIUM"] ?? "/usr/bin/chromium") { missing.append("chromium") }
    if !isProgram(environment["FORMSCTL_CHROMEDRIVER"] ?? "/usr/bin/chromedriver") { missing.append("chromedriver") }
    if (try? runProgram(["python3", "-c", "import selenium"]))?.status != 0 { missing.append("Python's selenium") }
    return missing.isEmpty ? nil : missing.joined(separator: ", ")
  }()

  static let script = Formsctl.packageRoot.appendingPathComponent("Tests/formsctlTests/Browser/serve_browser.py").path

  /// Where the screenshots are kept.
  static let screenshots =
    ProcessInfo.processInfo.environment["FORMSCTL_SCREENSHOTS"]
    ?? Formsctl.packageRoot.appendingPathComponent(".build/serve-screenshots").path

  /// The draft SF 1449 of the example store the browser edits.
  static let draft = "59cb9311-ca54-55b8-a24a-0bd316fc0df7"
  /// The draft SF 26 that Pat submits and Rae approves in the browser.
  static let review = "414f8616-0207-5281-aef0-edd1500d6c5b"
  static let hostile = "ACQ-2026-666"
  static let hostileTitle = "<script>window.__pwned=1</script>\"onmouseover=alert(1)"

  /// The example store at `dir/store` with descriptors of its own (the SF forms need a review by a
  /// reviewer to be approved), Pat and Rae's identities beside it (both reviewers), a git
  /// repository whose user is Rae, the SF 26 submitted by Pat and an acquisition with a hostile title.
  func prepare(_ dir: String) throws -> (store: String, rae: String, raeKey: String) {
    let store = dir + "/store"
    try FileManager.default.copyItem(
      atPath: Formsctl.packageRoot.appendingPathComponent("examples/acquisitions").path, toPath: store)
    try FileManager.default.copyItem(
      atPath: Formsctl.packageRoot.appendingPathComponent("schemas").path, toPath: store + "/schemas")
    var keys: [String: String] = [:]
    for name in ["pat", "rae"] {
      let made = try Formsctl.run(["keygen", "--signer", "--out", "\(dir)/\(name).id"], in: dir)
      #expect(made.status == 0, "\(made.stderr)")
      keys[name] = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    try writeFile(
      try exampleManifest(schemas: nil)
        + "roles:\n  reviewer: [\"Pat Preparer <\(keys["pat"]!)>\", \"Rae Reviewer <\(keys["rae"]!)>\"]\n",
      to: store + "/formsctl.yaml")
    try writeFile(
      try readFile(store + "/schemas/form/2.0.0.yaml")
        + "approvals:\n  fills: {by: approved_by, on: approved_on}\n  chains:\n"
        + "    - {from: in_review, to: approved, steps: [{name: review, role: reviewer}]}\n",
      to: store + "/schemas/form/2.0.0.yaml")
    for git in [
      ["init", "-q"], ["config", "user.name", "Rae Reviewer"], ["config", "user.email", "rae@example.com"],
    ] {
      #expect(try runProgram(["git"] + git, in: store).status == 0)
    }
    let submitted = try Formsctl.run(
      ["status", "form", Self.review, "in_review"], in: store, environment: ["FORMSCTL_IDENTITY": dir + "/pat.id"])
    #expect(submitted.status == 0, "\(submitted.stderr)")
    let hostile = try Formsctl.run(
      [
        "new", "acquisition", "--set", "id=\(Self.hostile)", "--set", "title=\(Self.hostileTitle)", "--set",
        "agency=GSA",
      ],
      in: store)
    #expect(hostile.status == 0, "\(hostile.stderr)")
    return (store, dir + "/rae.id", keys["rae"]!)
  }

  @Test(
    .enabled(
      if: missing == nil || inCI,
      "chromium, chromium-driver or Python's selenium is missing (apt-get install chromium chromium-driver; pip install selenium); skipped outside CI"
    ))
  func aPersonFiltersEditsApprovesAndWatchesInABrowser() throws {
    if let missing = Self.missing {
      Issue.record("in CI the browser test needs \(missing); .ci/run installs them")
      return
    }
    try withTemporaryDirectory { dir in
      let (store, rae, raeKey) = try prepare(dir)
      let server = try ServeProcess(store: store, environment: ["FORMSCTL_IDENTITY": rae], log: dir + "/serve.log")
      defer { server.kill() }
      print("BrowserTests: screenshots in \(Self.screenshots)")
      let browser = try runProgram(
        [
          "python3", Self.script, "--url", server.url, "--store", store, "--formsctl", Formsctl.binary.path,
          "--screenshots", Self.screenshots, "--draft", Self.draft, "--review", Self.review, "--hostile",
          Self.hostile, "--live", "ACQ-2026-001",
        ], in: dir, environment: Self.browserEnvironment(dir))
      print(browser.stdout + browser.stderr, terminator: "")
      #expect(browser.status == 0, "the browser run failed (\(browser.status)): \(browser.stderr)")
      #expect(browser.stdout.contains("live: "), "\(browser.stdout)")

      // What the browser saved, as the command line reads it.
      let naics = try Formsctl.run(["get", "form", Self.draft, "--field", "fields.naics_code"], in: store)
      #expect(naics.status == 0 && naics.stdout.contains("541511"), "\(naics.stdout) \(naics.stderr)")
      let total = try Formsctl.run(["get", "form", Self.draft, "--field", "fields.total_amount"], in: store)
      #expect(total.stdout.contains("1234.50"), "decimals keep the digits typed: \(total.stdout)")
      let edits = try auditRecords(["log", "form", Self.draft, "--format", "json"], in: store)
      let served = edits.filter { $0["command"]?.stringValue == "formsctl serve --port 0" }
      #expect(served.first?["operation"] == .string("edit"), "no audit record of the save names serve: \(edits)")
      #expect(served.first?["user"] == .string("Rae Reviewer <rae@example.com>"), "\(served)")
      // The invalid save and the refused move wrote nothing: one record of the server's only.
      #expect(served.count == 1, "\(edits)")
      let draft = try Formsctl.run(["get", "form", Self.draft, "--field", "status"], in: store)
      #expect(draft.stdout == "draft\n", "\(draft.stdout)")
      // A refused workflow move lists its diagnostics on the page that says it was refused.
      #expect(!browser.stdout.contains("BUG refused-move-diagnostics"), "\(browser.stdout)")

      // The approval the browser signed.
      let status = try Formsctl.run(["get", "form", Self.review, "--field", "status"], in: store)
      #expect(status.stdout.contains("approved"), "\(status.stdout) \(status.stderr)")
      let approvals = try Formsctl.run(["get", "form", Self.review, "--field", "_approvals"], in: store)
      let records = (try? JSONParser().parse(Array(approvals.stdout.utf8)))?.arrayValue ?? []
      let signed = records.first { $0["action"]?.stringValue == "approve" }
      #expect(signed?["signer"]?.stringValue?.contains(raeKey) == true, "\(approvals.stdout)")
      #expect(signed?["signature"] != nil && signed?["comment"] == .string("checked in the browser"), "\(records)")
      let approvalLog = try auditRecords(["log", "form", Self.review, "--format", "json"], in: store)
      #expect(
        approvalLog.contains {
          $0["command"] == .string("formsctl serve --port 0") && $0["operation"] == .string("approve")
        },
        "\(approvalLog)")
      let approvedBy = try Formsctl.run(["get", "form", Self.review, "--field", "approved_by"], in: store)
      #expect(approvedBy.stdout == "Rae Reviewer\n", "the signature fills approved_by: \(approvedBy.stdout)")
      let verdict = try Formsctl.run(["validate", "--format", "json"], in: store)
      #expect(
        !verdict.stdout.contains(Self.review), "validate finds fault with the browser's approval: \(verdict.stdout)")

      // The change made from the terminal is there, and the hostile title is stored as it was typed.
      let hostile = try Formsctl.run(["get", "acquisition", Self.hostile, "--field", "title"], in: store)
      #expect(hostile.stdout.contains(Self.hostileTitle), "\(hostile.stdout)")

      // Ctrl-C stops the server, and it says nothing went wrong.
      let stopped = server.interrupt()
      // Even with pages listening to /events: their streams end first.
      #expect(stopped == 0, "formsctl serve exited \(String(describing: stopped)) on SIGINT: \(server.log)")
    }
  }

  @Test func ctrlCStopsAServerNoPageListensTo() throws {
    try withTemporaryDirectory { dir in
      try copyExampleStore(to: dir + "/store")
      let server = try ServeProcess(store: dir + "/store", environment: [:], log: dir + "/serve.log")
      defer { server.kill() }
      #expect(server.url.hasPrefix("http://127.0.0.1:") && server.url.contains("/?token="), "\(server.url)")
      let stopped = server.interrupt()
      #expect(stopped == 0, "formsctl serve exited \(String(describing: stopped)) on SIGINT: \(server.log)")
    }
  }

  @Test(
    .enabled(
      if: missing == nil || inCI,
      "chromium is missing (apt-get install chromium); skipped outside CI"))
  func renderWritesAPDFThroughChromium() throws {
    try withTemporaryDirectory { dir in
      try copyExampleStore(to: dir + "/store")
      let made = try Formsctl.run(
        ["render", "form", Self.draft, "--format", "pdf", "--output", dir + "/x.pdf"], in: dir + "/store",
        environment: Self.browserEnvironment(dir))
      #expect(made.status == 0, "\(made.stderr)")
      let bytes = try Data(contentsOf: URL(fileURLWithPath: dir + "/x.pdf"))
      #expect(bytes.starts(with: Array("%PDF-".utf8)), "\(bytes.prefix(16))")
      #expect(bytes.count > 1000)
    }
  }

  /// The tests' environment with a HOME of its own under `dir`: Chromium writes its caches and
  /// crash reports there (under the tests' HOME, which must not exist, it would make it).
  static func browserEnvironment(_ dir: String) -> [String: String] {
    testEnvironment().merging(["HOME": dir + "/home"]) { $1 }
  }

  /// The records `formsctl log … --format json` prints (an array, or one object per line).
  func auditRecords(_ args: [String], in store: String) throws -> [JSONValue] {
    let result = try Formsctl.run(args, in: store)
    #expect(result.status == 0, "\(result.stderr)")
    if let array = (try? JSONParser().parse(Array(result.stdout.utf8)))?.arrayValue { return array }
    return result.stdout.split(separator: "\n").compactMap { try? JSONParser().parse(Array($0.utf8)) }
  }
}

/// `formsctl serve --port 0` running in a store: the URL it printed, its stderr in a file.
final class ServeProcess: @unchecked Sendable {
  let process = Process()
  let url: String
  let logPath: String

  /// `openFiles`: the most descriptors the server may open (`ulimit -n`, soft and hard), when set.
  init(store: String, environment: [String: String], log: String, openFiles: Int? = nil) throws {
    logPath = log
    if let openFiles {
      process.executableURL = URL(fileURLWithPath: "/bin/sh")
      process.arguments = [
        "-c", "ulimit -n \(openFiles) && exec \"$0\" \"$@\"", Formsctl.binary.path, "serve", "--port", "0",
      ]
    } else {
      process.executableURL = Formsctl.binary
      process.arguments = ["serve", "--port", "0"]
    }
    process.currentDirectoryURL = URL(fileURLWithPath: store)
    process.environment = testEnvironment().merging(environment) { $1 }
    let out = Pipe()
    process.standardOutput = out
    guard FileManager.default.createFile(atPath: log, contents: nil) else {
      throw FixtureError("cannot create the server's log \(log)")
    }
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // The server prints its URL once it listens; a server that says nothing for 30 s is stopped.
    let process = self.process
    DispatchQueue.global().asyncAfter(deadline: .now() + 30) { if process.isRunning { process.terminate() } }
    var printed = ""
    while !printed.contains("\n") || !printed.contains("formsctl serve: http") {
      let data = out.fileHandleForReading.availableData
      if data.isEmpty { break }
      printed += String(decoding: data, as: UTF8.self)
    }
    guard let line = printed.split(separator: "\n").first(where: { $0.hasPrefix("formsctl serve: http") }) else {
      process.waitUntilExit()
      throw ServeFailure(message: "formsctl serve printed no URL: \(printed) \((try? readFile(log)) ?? "")")
    }
    url = String(line.dropFirst("formsctl serve: ".count))
    // Keep reading what it prints, so that a full pipe never blocks it.
    DispatchQueue.global().async { _ = out.fileHandleForReading.readDataToEndOfFile() }
  }

  var log: String { (try? readFile(logPath)) ?? "" }

  /// Sends SIGINT (Ctrl-C) and waits up to 5 s: the exit status, or nil if it had to be killed.
  func interrupt() -> Int32? {
    process.interrupt()
    let deadline = Date().addingTimeInterval(5)
    while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
    guard !process.isRunning else {
      kill()
      return nil
    }
    return process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
  }

  /// SIGKILL (SIGTERM is a graceful stop, as SIGINT is) and the wait for it.
  func kill() {
    if process.isRunning {
      _ = Foundation.kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
  }
}

struct ServeFailure: Error, CustomStringConvertible {
  var message: String
  var description: String { message }
}

/// Runs `arguments` (the program looked up on PATH) in `directory`; its status and output.
func runProgram(_ arguments: [String], in directory: String? = nil, environment: [String: String]? = nil) throws
  -> RunResult
{
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = arguments
  if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
  if let environment { process.environment = environment }
  let out = Pipe()
  let err = Pipe()
  process.standardOutput = out
  process.standardError = err
  process.standardInput = FileHandle.nullDevice
  try process.run()
  nonisolated(unsafe) var errData = Data()
  let group = DispatchGroup()
  DispatchQueue.global().async(group: group) { errData = err.fileHandleForReading.readDataToEndOfFile() }
  let outData = out.fileHandleForReading.readDataToEndOfFile()
  group.wait()
  process.waitUntilExit()
  return RunResult(
    status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
    stderr: String(decoding: errData, as: UTF8.self))
}
