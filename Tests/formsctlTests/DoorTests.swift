import FormsTestSupport
import Foundation
import Testing

/// `formsctl sync` is the program `formsctl-sync`, run from beside formsctl.
struct DoorTests {
  /// Run from beside formsctl: its help, its exit codes and its errors are sync's own.
  @Test func syncRunsTheProgramBesideFormsctl() throws {
    let example = Formsctl.packageRoot.appendingPathComponent("examples/acquisitions").path
    let help = try Formsctl.run(["sync", "--help"], in: example)
    #expect(help.status == 0 && help.stdout.contains("USAGE: formsctl sync"), "\(help.transcript)")
    let wrong = try Formsctl.run(["sync", "resolve", "form"], in: example)
    #expect(wrong.status == 64, "\(wrong.transcript)")
    #expect(wrong.stderr.contains("(formsctl sync resolve --help shows the usage)"), "\(wrong.transcript)")
    let unknown = try Formsctl.run(["sync", "stauts"], in: example)
    #expect(unknown.status == 64 && unknown.stderr.contains("'stauts'"), "\(unknown.transcript)")
  }

  /// A formsctl without its sync program beside it (a release build of formsctl alone, copied
  /// somewhere) says which program is missing and how to build it: exit 66, nothing else run.
  @Test func aMissingProgramIsNamedWithTheBuildThatMakesIt() throws {
    try withTemporaryDirectory { dir in
      try FileManager.default.copyItem(atPath: Formsctl.binary.path, toPath: dir + "/formsctl")
      // A formsctl-sync on PATH is never taken for the one beside formsctl.
      try writeFile("#!/bin/sh\necho from-path\n", to: dir + "/path/formsctl-sync")
      chmod(dir + "/path/formsctl-sync", 0o755)
      let process = Process()
      process.executableURL = URL(fileURLWithPath: dir + "/formsctl")
      process.arguments = ["sync", "status"]
      process.currentDirectoryURL = Formsctl.packageRoot.appendingPathComponent("examples/acquisitions")
      process.environment = ["PATH": dir + "/path:/usr/bin:/bin"]
      let out = Pipe()
      let err = Pipe()
      process.standardOutput = out
      process.standardError = err
      try process.run()
      process.waitUntilExit()
      let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      #expect(process.terminationStatus == 66, "\(stderr)")
      #expect(stdout.isEmpty)
      #expect(
        stderr.hasPrefix("formsctl: error: formsctl sync is the program formsctl-sync, which is not beside formsctl")
          && stderr.contains("swift build --product formsctl-sync") && stderr.split(separator: "\n").count == 1,
        "\(stderr)")
    }
  }
}
