import FormsCommandLine
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

  /// Every door's program is built beside formsctl, and formsctl knows its help.
  @Test func everyDoorsProgramIsBesideFormsctl() throws {
    let example = Formsctl.packageRoot.appendingPathComponent("examples/acquisitions").path
    for door in Door.allCases {
      let program = Formsctl.binary.deletingLastPathComponent().appendingPathComponent(door.program).path
      #expect(FileManager.default.isExecutableFile(atPath: program), "\(program) is not built")
      let help = try Formsctl.run([door.rawValue, "--help"], in: example)
      #expect(help.status == 0 && help.stdout.contains("USAGE: formsctl \(door.rawValue)"), "\(help.transcript)")
    }
  }

  /// `formsctl help sync status` and the completion script are formsctl's own: sync's
  /// subcommands and options are known without running the program.
  @Test func syncsHelpAndCompletionAreFormsctls() throws {
    let example = Formsctl.packageRoot.appendingPathComponent("examples/acquisitions").path
    let help = try Formsctl.run(["help", "sync", "status"], in: example)
    #expect(help.status == 0 && help.stdout.contains("USAGE: formsctl sync status"), "\(help.transcript)")
    let script = try Formsctl.run(["--generate-completion-script", "bash"], in: example).stdout
    let sync = script.components(separatedBy: "_formsctl_sync() {").dropFirst().first ?? ""
    #expect(["run", "init", "status", "resolve"].allSatisfy { sync.contains($0) }, "\(sync.prefix(800))")
  }

  /// formsctl beside a copy of itself (`formsctl-sync` a link to formsctl, or a copy, or a
  /// directory, or not executable) never runs it as sync: one line, exit 66, the store unchanged.
  @Test func aWrongProgramBesideFormsctlIsRefused() throws {
    try withTemporaryDirectory { dir in
      let store = dir + "/store"
      try copyExampleStore(to: store)
      let before = try readFile(store + "/data/acquisitions/ACQ-2026-001.json")
      try FileManager.default.copyItem(atPath: Formsctl.binary.path, toPath: dir + "/formsctl")
      let cases: [(String, () throws -> Void, String)] = [
        (
          "a link to formsctl",
          {
            try FileManager.default.createSymbolicLink(atPath: dir + "/formsctl-sync", withDestinationPath: "formsctl")
          }, "is formsctl itself"
        ),
        (
          "a copy of formsctl",
          { try FileManager.default.copyItem(atPath: Formsctl.binary.path, toPath: dir + "/formsctl-sync") },
          "is formsctl itself"
        ),
        (
          "a directory",
          {
            try FileManager.default.createDirectory(atPath: dir + "/formsctl-sync", withIntermediateDirectories: false)
          }, "is not a file"
        ),
        ("not executable", { try writeFile("#!/bin/sh\n", to: dir + "/formsctl-sync") }, "there but not executable"),
      ]
      for (name, make, says) in cases {
        try make()
        defer { try? FileManager.default.removeItem(atPath: dir + "/formsctl-sync") }
        let run = try Self.run(dir + "/formsctl", ["sync", "status"], in: store)
        #expect(run.status == 66 && run.stdout.isEmpty, "\(name): \(run.stderr)")
        #expect(run.stderr.contains(says) && run.stderr.split(separator: "\n").count == 1, "\(name): \(run.stderr)")
      }
      #expect(try readFile(store + "/data/acquisitions/ACQ-2026-001.json") == before)
    }
  }

  /// The program gets the arguments as they came, byte for byte (not as Swift decoded them).
  @Test func argumentsReachTheProgramByteForByte() throws {
    try withTemporaryDirectory { dir in
      try FileManager.default.copyItem(atPath: Formsctl.binary.path, toPath: dir + "/formsctl")
      try writeFile(
        // It also prints the signals it was started with blocked or ignored (as grep, which it
        // becomes: the shell itself blocks signals while it waits for a pipeline), which must be none.
        "#!/bin/sh\nfor a in \"$@\"; do printf '%s' \"$a\" | od -An -tx1; done\n"
          + "exec grep -E '^Sig(Blk|Ign)' /proc/self/status\n", to: dir + "/formsctl-sync")
      chmod(dir + "/formsctl-sync", 0o755)
      let example = Formsctl.packageRoot.appendingPathComponent("examples/acquisitions").path
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/bin/sh")
      process.arguments = ["-c", #"exec "$0" sync resolve form "$(printf 'caf\351')" --ours"#, dir + "/formsctl"]
      process.currentDirectoryURL = URL(fileURLWithPath: example)
      let out = Pipe()
      process.standardOutput = out
      try process.run()
      process.waitUntilExit()
      let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      #expect(printed.contains(" 63 61 66 e9\n"), "\(printed)")
      #if os(Linux)
        // Nothing blocked; HUP, INT, QUIT, PIPE and TERM not ignored (the C library's own
        // real-time signals may be).
        let ignored = printed.components(separatedBy: "SigIgn:\t").dropFirst().first.flatMap {
          UInt64($0.prefix(16), radix: 16)
        }
        #expect(printed.contains("SigBlk:\t0000000000000000") && ignored.map { $0 & 0x500F == 0 } == true, "\(printed)")
      #endif
      #expect(process.terminationStatus == 0)
    }
  }

  /// Runs `binary` with `arguments` in `directory`, with a plain PATH after `path`.
  static func run(_ binary: String, _ arguments: [String], in directory: String, path: String? = nil) throws
    -> RunResult
  {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binary)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    process.environment = ["PATH": (path.map { $0 + ":" } ?? "") + "/usr/bin:/bin"]
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    process.waitUntilExit()
    return RunResult(
      status: process.terminationStatus,
      stdout: String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
      stderr: String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
  }

  /// A formsctl without its sync program beside it (a release build of formsctl alone, copied
  /// somewhere) says which program is missing and how to build it: exit 66, nothing else run.
  @Test func aMissingProgramIsNamedWithTheBuildThatMakesIt() throws {
    try withTemporaryDirectory { dir in
      try FileManager.default.copyItem(atPath: Formsctl.binary.path, toPath: dir + "/formsctl")
      // A formsctl-sync on PATH is never taken for the one beside formsctl.
      try writeFile("#!/bin/sh\necho from-path\n", to: dir + "/path/formsctl-sync")
      chmod(dir + "/path/formsctl-sync", 0o755)
      let run = try Self.run(
        dir + "/formsctl", ["sync", "status"],
        in: Formsctl.packageRoot.appendingPathComponent("examples/acquisitions").path,
        path: dir + "/path")
      let stderr = run.stderr
      #expect(run.status == 66, "\(stderr)")
      #expect(run.stdout.isEmpty)
      #expect(
        stderr.hasPrefix("formsctl: error: formsctl sync is the program formsctl-sync, which is not beside formsctl")
          && stderr.contains("swift build --product formsctl-sync") && stderr.split(separator: "\n").count == 1,
        "\(stderr)")
    }
  }
}
