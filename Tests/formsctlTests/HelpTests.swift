import FormsTestSupport
import Foundation
import Testing

/// Every command's `--help` teaches: an `Examples:` section that survives an 80-column terminal
/// whole, and whose commands run against the bundled example store.
struct HelpTests {
  static func help(_ path: [String], columns: Int) throws -> String {
    try Formsctl.run(
      path + ["--help"], in: FileManager.default.currentDirectoryPath, environment: ["COLUMNS": "\(columns)"]
    ).stdout
  }

  /// Every command path, found from the SUBCOMMANDS sections of the help itself.
  static func commandPaths(_ path: [String] = []) throws -> [[String]] {
    let text = try help(path, columns: 200)
    guard let section = text.components(separatedBy: "SUBCOMMANDS:\n").dropFirst().first else { return [path] }
    let names = section.components(separatedBy: "\n\n")[0].split(separator: "\n").compactMap { line in
      line.split(separator: " ").first.map(String.init)
    }
    return try [path] + names.flatMap { try commandPaths(path + [$0]) }
  }

  /// The lines of the `Examples:` section, continuation lines (ending in `\`) joined.
  static func examples(_ help: String) -> [String] {
    guard let section = help.components(separatedBy: "Examples:\n").dropFirst().first else { return [] }
    var lines: [String] = []
    var pending = ""
    for line in section.components(separatedBy: "\n") {
      guard line.hasPrefix("  ") else { break }
      let text = line.trimmingCharacters(in: .whitespaces)
      if text.hasSuffix("\\") {
        pending += text.dropLast() + " "
      } else {
        lines.append(pending + text)
        pending = ""
      }
    }
    return lines
  }

  @Test func everyCommandHasExamplesThatFitAndRun() throws {
    let paths = try Self.commandPaths()
    #expect(paths.count > 30, "\(paths)")
    // sync's examples run against a real PostgreSQL, started for them (skipped outside CI
    // when PostgreSQL is not installed).
    var server: PostgresServer?
    defer { server?.stop() }
    try withTemporaryDirectory { dir in
      for path in paths {
        if path.first == "sync" && server == nil {
          guard PostgresServer.unavailable == nil || ProcessInfo.processInfo.environment["CI"] == "true" else {
            print(
              "skipping the examples of formsctl \(path.joined(separator: " ")): \(PostgresServer.unavailable ?? "")")
            continue
          }
          server = try PostgresServer()
        }
        let name = (["formsctl"] + path).joined(separator: " ")
        let narrow = try Self.help(path, columns: 80)
        let wide = try Self.help(path, columns: 300)
        let examples = Self.examples(wide)
        #expect(!examples.isEmpty, "\(name) --help has no Examples: section")
        #expect(Self.examples(narrow) == examples, "\(name): an example is split at 80 columns")
        for entry in wide.components(separatedBy: "\n  -") where entry.components(separatedBy: "(default:").count > 2 {
          Issue.record("\(name): a default stated twice: \(entry.prefix(120))")
        }
        // Run them in order (they may build on each other) on a fresh copy of the examples.
        let work = dir + "/" + path.joined(separator: "-") + "-run"
        try copyExampleStore(to: work + "/acquisitions")
        try FileManager.default.copyItem(
          atPath: Formsctl.packageRoot.appendingPathComponent("examples/feeds").path, toPath: work + "/feeds")
        try FileManager.default.copyItem(
          atPath: Formsctl.packageRoot.appendingPathComponent("examples/papers").path, toPath: work + "/papers")
        _ = try runShellLines(
          ["git init -q . && git add -A && git -c user.name=T -c user.email=t@example.com commit -qm examples"],
          in: work + "/acquisitions")
        // A key holder of the example store, whose home (where keygen writes) is the work directory.
        let identity = try demoIdentity(at: work + "/demo-identity")
        // A watch and a server run until interrupted: interrupted after 2 s, each must exit 0 (SIGINT
        // ends it cleanly).
        let runnable = examples.map {
          $0.hasPrefix("formsctl watch") || $0.contains(" --watch") || $0.contains("formsctl serve")
            ? "timeout --preserve-status -s INT 2 " + $0 : $0
        }
        let failures = try runShellLines(
          runnable, in: work + "/acquisitions",
          environment: [
            "FORMSCTL_NOW": "2026-11-20T10:00:00Z", "FORMSCTL_IDENTITY": identity, "HOME": work,
            "FORMSCTL_DATABASE_URL": server?.url ?? "",
          ])
        #expect(failures.isEmpty, "\(name): \(failures.joined(separator: "; "))")
      }
    }
  }
}
