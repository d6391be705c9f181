import Foundation
import Testing

/// The README's tour, run as a newcomer would run it: every command behaves as shown.
struct ReadmeTests {
  /// The `sh` blocks of the README section headed `title`.
  static func blocks(under title: String) throws -> [[String]] {
    let readme = try readFile(Formsctl.packageRoot.appendingPathComponent("README.md").path)
    guard let section = readme.components(separatedBy: "\n## \(title)\n").dropFirst().first?.components(separatedBy: "\n## ").first else {
      return []
    }
    return section.components(separatedBy: "```sh\n").dropFirst().map { block in
      block.components(separatedBy: "\n```")[0].split(separator: "\n").map(String.init)
    }
  }

  /// Runs `lines` in one shell in `directory`; each must exit 0 or 1, or the code its comment
  /// names (`# exit 64: ...`). Returns the lines that did not.
  static func run(_ lines: [String], in directory: String) throws -> [String] {
    let checks = lines.map { line -> String in
      let expected = line.range(of: #"# exit (\d+)"#, options: .regularExpression).map { String(line[$0].dropFirst(7)) }
      let test = expected.map { "[ $status -eq \($0) ]" } ?? "[ $status -le 1 ]"
      return "\(line)\nstatus=$?; \(test) || echo \"FAILED ($status): \(line.replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "$", with: "\\$"))\" >&2"
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", checks.joined(separator: "\n")]
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    var environment = ProcessInfo.processInfo.environment
    environment["PATH"] = Formsctl.binary.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
    environment["EDITOR"] = "true"
    environment["VISUAL"] = nil
    process.environment = environment
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return stderr.split(separator: "\n").filter { $0.hasPrefix("FAILED") }.map(String.init)
  }

  @Test func theTourRunsAsShown() throws {
    let blocks = try Self.blocks(under: "A tour")
    #expect(blocks.count == 2, "the tour and the queries on the example store")
    try withTemporaryDirectory { dir in
      // The first line builds formsctl; the test uses the binary it was built with.
      let tour = blocks[0].filter { !$0.hasPrefix("swift build") }
      #expect(try Self.run(tour, in: dir) == [])
      try copyExampleStore(to: dir + "/examples")
      #expect(try Self.run(blocks[1], in: dir + "/examples") == [])
    }
  }
}
