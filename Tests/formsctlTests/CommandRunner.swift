import FormsTestSupport
import Foundation
import Testing

/// The result of one run of the built `formsctl`.
struct RunResult: Equatable {
  var status: Int32
  var stdout: String
  var stderr: String

  /// The form golden files hold.
  var transcript: String { "exit: \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
}

enum Formsctl {
  /// The `formsctl` binary built beside this test bundle.
  static let binary: URL = {
    var candidates: [URL] = []
    for base in [Bundle.main.bundleURL, Bundle.main.executableURL?.deletingLastPathComponent()].compactMap({ $0 }) {
      candidates += [
        base, base.deletingLastPathComponent(), base.deletingLastPathComponent().deletingLastPathComponent(),
      ]
    }
    for directory in candidates {
      let url = directory.appendingPathComponent("formsctl")
      if FileManager.default.isExecutableFile(atPath: url.path) { return url }
    }
    fatalError("the formsctl binary was not found near \(Bundle.main.bundleURL.path); run `swift build` first")
  }()

  static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  /// Runs `formsctl args` in `directory` with `environment` added, feeding `input` on stdin.
  static func run(_ args: [String], in directory: String, environment: [String: String] = [:], input: String? = nil)
    throws -> RunResult
  {
    let process = Process()
    process.executableURL = binary
    process.arguments = args
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    var env = testEnvironment()
    env["COLUMNS"] = "100"
    env.merge(environment) { $1 }
    process.environment = env
    let out = Pipe()
    let err = Pipe()
    let inPipe = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = inPipe
    try process.run()
    if let input { inPipe.fileHandleForWriting.write(Data(input.utf8)) }
    try inPipe.fileHandleForWriting.close()
    // Read both pipes concurrently so a large output never deadlocks the child.
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
}

/// Compares a run with `Snapshots/<name>.txt` (see `Golden`: `RECORD_SNAPSHOTS=1` re-records, and fails).
func assertSnapshot(_ result: RunResult, named name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
  let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots/\(name).txt")
  if let expected = try Golden.difference(result.transcript, at: url) {
    #expect(
      result.transcript == expected, "golden file \(name).txt differs; RECORD_SNAPSHOTS=1 re-records",
      sourceLocation: sourceLocation)
  }
}

/// Drops `editable:` from the store's purchase-order descriptor: for tests of merges and stamps
/// that need people to change order items (the built-in leaves those to the feed).
func letPeopleEditOrders(_ store: String) throws {
  let path = store + "/schemas/purchase-order/1.1.0.yaml"
  let text = try readFile(path)
  try writeFile(
    text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("editable:") }.joined(
      separator: "\n"), to: path)
}

/// The bundled example store copied to `path`, its descriptors read from this repository.
func copyExampleStore(to path: String) throws {
  try FileManager.default.copyItem(
    atPath: Formsctl.packageRoot.appendingPathComponent("examples/acquisitions").path, toPath: path)
  try writeFile(
    exampleManifest(schemas: Formsctl.packageRoot.appendingPathComponent("schemas").path), to: path + "/formsctl.yaml")
}

/// The example stores' manifest with `schemas:` pointing at `schemas` (nil: the store's own), and
/// their `encryption:` block (the recipient of `examples/demo-identity`).
func exampleManifest(schemas: String?) throws -> String {
  let example = try readFile(Formsctl.packageRoot.appendingPathComponent("examples/acquisitions/formsctl.yaml").path)
  let encryption = example.components(separatedBy: "encryption:").dropFirst().first.map { "encryption:" + $0 } ?? ""
  return "formsctl: 1\n" + (schemas.map { "schemas: \($0)\n" } ?? "") + encryption
}

/// A copy of the example stores' demo identity at `path`, mode 0600 (git checks it out 0644, which
/// formsctl refuses, as ssh would).
@discardableResult
func demoIdentity(at path: String) throws -> String {
  try FileManager.default.copyItem(
    atPath: Formsctl.packageRoot.appendingPathComponent("examples/demo-identity").path, toPath: path)
  try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
  return path
}

/// The environment the binary runs in: this process's, without a store or an identity of the
/// person running the tests (HOME names a directory that does not exist, so no key is found).
func testEnvironment() -> [String: String] {
  var environment = ProcessInfo.processInfo.environment
  environment["FORMSCTL_STORE"] = nil
  environment["FORMSCTL_IDENTITY"] = nil
  environment["HOME"] = "/nonexistent/formsctl-test-home"
  return environment
}

/// Runs `lines` in one shell in `directory`; each must exit 0 or 1, or the code its comment
/// names (`# exit 64: ...`). Returns the lines that did not.
func runShellLines(_ lines: [String], in directory: String, environment extra: [String: String] = [:]) throws
  -> [String]
{
  let checks = lines.map { line -> String in
    let expected = line.range(of: #"# exit (\d+)"#, options: .regularExpression).map { String(line[$0].dropFirst(7)) }
    let test = expected.map { "[ $status -eq \($0) ]" } ?? "[ $status -le 1 ]"
    return
      "\(line)\nstatus=$?; \(test) || echo \"FAILED ($status): \(line.replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "$", with: "\\$"))\" >&2"
  }
  let stderr = try runShell(checks.joined(separator: "\n"), in: directory, environment: extra).stderr
  return stderr.split(separator: "\n").filter { $0.hasPrefix("FAILED") }.map(String.init)
}

/// Runs `script` with `/bin/sh` in `directory`, the built formsctl first on PATH (stdout dropped);
/// returns its exit status and stderr.
func runShell(_ script: String, in directory: String, environment extra: [String: String] = [:]) throws -> (
  status: Int32, stderr: String
) {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/bin/sh")
  process.arguments = ["-c", script]
  process.currentDirectoryURL = URL(fileURLWithPath: directory)
  var environment = testEnvironment()
  environment["PATH"] =
    Formsctl.binary.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
  environment["EDITOR"] = "true"
  environment["VISUAL"] = nil
  environment.merge(extra) { $1 }
  process.environment = environment
  let errors = Pipe()
  process.standardError = errors
  process.standardOutput = FileHandle.nullDevice
  try process.run()
  let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  process.waitUntilExit()
  return (process.terminationStatus, stderr)
}
