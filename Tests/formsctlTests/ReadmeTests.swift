import FormsStore
import FormsTestSupport
import Foundation
import Testing

/// The README's tour and the user guides, run as a newcomer would run them: every command behaves as shown.
struct ReadmeTests {
  /// The `sh` blocks of the section headed `title` in `file` (a path from the package's root:
  /// `README.md`, or a guide such as `docs/guide/sync.md`). The section is the heading's line
  /// (`# title`, `## title`, ...) and everything up to the next heading of the same or a higher
  /// level; lines inside fenced blocks are never taken for headings.
  static func blocks(in file: String = "README.md", under title: String) throws -> [[String]] {
    let text = try readFile(Formsctl.packageRoot.appendingPathComponent(file).path)
    var level: Int?
    var inFence = false
    var blocks: [[String]] = []
    var current: [String]?
    for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
      if line.hasPrefix("```") {
        if let block = current, inFence {
          blocks.append(block)
          current = nil
        } else if !inFence, level != nil, line == "```sh" {
          current = []
        }
        inFence.toggle()
        continue
      }
      if inFence {
        if !line.isEmpty { current?.append(line) }
        continue
      }
      let hashes = line.prefix { $0 == "#" }.count
      guard hashes > 0, line.dropFirst(hashes).hasPrefix(" ") else { continue }
      if let open = level {
        if hashes <= open { break }
      } else if line.dropFirst(hashes + 1) == title {
        level = hashes
      }
    }
    return blocks
  }

  @Test func theTourRunsAsShown() throws {
    let blocks = try Self.blocks(under: "A tour")
    #expect(blocks.count == 2, "the tour and the queries on the example store")
    try withTemporaryDirectory { dir in
      // The first line builds formsctl; the test uses the binary it was built with.
      let tour = blocks[0].filter { !$0.hasPrefix("swift build") }
      #expect(try runShellLines(tour, in: dir) == [])
      try copyExampleStore(to: dir + "/examples")
      #expect(try runShellLines(blocks[1], in: dir + "/examples") == [])
    }
  }

  @Test func theSensitiveFieldsSectionRunsAsShown() throws {
    let blocks = try Self.blocks(in: "docs/guide/sensitive-fields.md", under: "Sensitive fields")
    #expect(blocks.count == 1)
    try withTemporaryDirectory { dir in
      try copyExampleStore(to: dir + "/examples/acquisitions")
      // As a clone checks it out: readable by others, which the block's chmod fixes.
      try FileManager.default.copyItem(
        atPath: Formsctl.packageRoot.appendingPathComponent("examples/demo-identity").path,
        toPath: dir + "/examples/demo-identity")
      try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: dir + "/examples/demo-identity")
      #expect(try runShellLines(blocks.first ?? [], in: dir) == [])
      let shown = try Formsctl.run(
        ["get", "acquisition", "ACQ-2026-001", "--field", "contracting_officer"], in: dir + "/examples/acquisitions",
        environment: ["FORMSCTL_IDENTITY": dir + "/examples/demo-identity"])
      #expect(shown.stdout == "J. Alvarez\n", "\(shown.stderr)")
    }
  }

  @Test func theEditorSectionRunsAsShown() throws {
    let blocks = try Self.blocks(in: "docs/guide/editors.md", under: "Editing in your editor")
    #expect(blocks.count == 1)
    try withTemporaryDirectory { dir in
      try copyExampleStore(to: dir + "/examples/acquisitions")
      #expect(try runShellLines(["git init -q ."], in: dir) == [])
      #expect(try runShellLines(blocks[0], in: dir) == [])
      let settings = try readFile(dir + "/.vscode/settings.json")
      #expect(settings.contains(#""url": "./examples/acquisitions/json-schema/purchase-order.schema.json""#))
      #expect(try readFile(dir + "/.nvimrc").contains(#"" formsctl-stores: ["examples/acquisitions"]"#))
      #expect(FileIO.exists(FilePath(dir + "/examples/acquisitions/json-schema/form-2.0.0.schema.json")))
    }
  }

  @Test(
    PostgresServer.enabled)
  func theSyncSectionRunsAsShown() throws {
    let blocks = try Self.blocks(in: "docs/guide/sync.md", under: "Sync with PostgreSQL")
    #expect(blocks.count == 1)
    let server = try PostgresServer()
    defer { server.stop() }
    try withTemporaryDirectory { (dir: String) throws -> Void in
      let environment = ["HOME": dir, "FORMSCTL_DATABASE_URL": server.url, "FORMSCTL_IDENTITY": ""]
      let failures = try runShellLines(blocks[0], in: dir, environment: environment)
      #expect(failures == [])
      // The README's own lines, in the store the guide made.
      let readme = try Self.blocks(under: "Sync with PostgreSQL").flatMap { $0 }
      #expect(!readme.isEmpty)
      #expect(try runShellLines(readme, in: dir + "/sync-demo", environment: environment) == [])
      let document = try readFile(dir + "/sync-demo/data/acquisitions/ACQ-2026-001.json")
      #expect(document.contains(#""title": "Desks""#))
      let title = try server.psql("SELECT title FROM formsctl.acquisition_v1_1_0")
      #expect(title == "Desks\n")
      let log = try readFile(dir + "/sync-demo/.formsctl/history.jsonl")
      #expect(log.contains(#""operation":"sync""#))
    }
  }

  /// The serve guide's commands: each server runs until interrupted (2 s, on any free port so it
  /// meets no other test's) and stops cleanly; render writes the print view, the PDF through a
  /// headless Chromium (skipped outside CI when none is installed).
  /// `formsctl serve` as the tests run it: on any free port (so that it never meets another
  /// test's), interrupted after 2 s, which must end it cleanly (exit 0).
  static let interruptedServer = "timeout --preserve-status -s INT 2 formsctl serve --port 0"

  @Test func theServeGuideRunsAsShown() throws {
    let blocks = try Self.blocks(in: "docs/guide/serve.md", under: "Forms in a browser (`formsctl serve`)")
    #expect(blocks.count == 2)
    try withTemporaryDirectory { dir in
      try copyExampleStore(to: dir + "/examples/acquisitions")
      try FileManager.default.createDirectory(atPath: dir + "/.config/formsctl", withIntermediateDirectories: true)
      let identity = try demoIdentity(at: dir + "/.config/formsctl/identity")
      #expect(FileManager.default.fileExists(atPath: identity))
      let serving = blocks[0].map {
        $0.replacingOccurrences(of: "formsctl serve", with: Self.interruptedServer)
          .replacingOccurrences(of: " --open", with: "")
      }
      let failed = try runShellLines(serving, in: dir, environment: ["HOME": dir])
      #expect(failed == [], "\(failed)")
      let chromium = ["chromium", "chromium-browser", "google-chrome"].contains { name in
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
          FileManager.default.isExecutableFile(atPath: "\($0)/\(name)")
        }
      }
      let rendering = blocks[1].filter {
        chromium || ProcessInfo.processInfo.environment["CI"] == "true" || !$0.contains("pdf")
      }
      #expect(try runShellLines(rendering, in: dir + "/examples/acquisitions", environment: ["HOME": dir]) == [])
      #expect(try readFile(dir + "/examples/acquisitions/sf30.html").contains("SF 30"))
      if rendering.count == blocks[1].count {
        let pdf = try Data(contentsOf: URL(fileURLWithPath: dir + "/examples/acquisitions/sf30.pdf"))
        #expect(pdf.starts(with: Array("%PDF".utf8)))
      } else {
        print("skipping the PDF of the serve guide: no Chromium on PATH")
      }
    }
  }

  @Test func theAttachmentsGuideRunsAsShown() throws {
    let blocks = try Self.blocks(in: "docs/guide/attachments.md", under: "Attachments")
    #expect(blocks.count == 1)
    try withTemporaryDirectory { dir in
      try copyExampleStore(to: dir + "/examples/acquisitions")
      for folder in ["feeds", "papers"] {
        try FileManager.default.copyItem(
          atPath: Formsctl.packageRoot.appendingPathComponent("examples/" + folder).path,
          toPath: dir + "/examples/" + folder)
      }
      #expect(try runShellLines(blocks[0], in: dir + "/examples/acquisitions", environment: ["HOME": dir]) == [])
      #expect(
        FileManager.default.fileExists(
          atPath: dir + "/examples/acquisitions/attachments/purchase-orders/PO-000299/quote.pdf"))
    }
  }

  @Test func theApprovalsSectionRunsAsShown() throws {
    let blocks = try Self.blocks(in: "docs/guide/approvals.md", under: "Approvals")
    #expect(blocks.count == 1)
    try withTemporaryDirectory { dir in
      let environment = [
        "HOME": dir, "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.com", "FORMSCTL_IDENTITY": "",
      ]
      #expect(try runShellLines(blocks[0], in: dir, environment: environment) == [])
      let readme = try Self.blocks(under: "Approvals").flatMap { $0 }
      #expect(!readme.isEmpty)
      #expect(try runShellLines(readme, in: dir + "/approvals-demo", environment: environment) == [])
      let forms = try FileManager.default.contentsOfDirectory(atPath: dir + "/approvals-demo/data/forms")
      let form = try readFile(dir + "/approvals-demo/data/forms/" + forms[0])
      #expect(form.contains(#""status": "approved""#) && form.contains(#""step": "sign""#))
    }
  }

  /// Every other section of the README shows a command or two and links to its guide: each runs
  /// as shown, in a copy of the repository's examples (from the top of the checkout when it starts
  /// with `cd` or names `examples/`, else inside the example store). `watch` runs until stopped,
  /// so it must still be running after two seconds; sync's needs a database, and the approvals
  /// section a store with a chain (their guides' tests run those).
  @Test func everyOtherReadmeSectionRunsAsShown() throws {
    let readme = try readFile(Formsctl.packageRoot.appendingPathComponent("README.md").path)
    let titles = readme.split(separator: "\n").filter { $0.hasPrefix("## ") }.map { String($0.dropFirst(3)) }
    let runElsewhere: Set = ["On a fresh machine", "A tour", "Sync with PostgreSQL", "Approvals"]
    var ran = 0
    for title in titles where !runElsewhere.contains(title) {
      for block in try Self.blocks(under: title) {
        try withTemporaryDirectory { dir in
          try copyExampleStore(to: dir + "/examples/acquisitions")
          try FileManager.default.copyItem(
            atPath: Formsctl.packageRoot.appendingPathComponent("examples/feeds").path, toPath: dir + "/examples/feeds")
          try FileManager.default.copyItem(
            atPath: Formsctl.packageRoot.appendingPathComponent("examples/demo-identity").path,
            toPath: dir + "/examples/demo-identity")
          try FileManager.default.copyItem(
            atPath: Formsctl.packageRoot.appendingPathComponent("examples/papers").path,
            toPath: dir + "/examples/papers")
          #expect(try runShellLines(["git init -q ."], in: dir) == [])
          let fromTop = block.first?.hasPrefix("cd ") == true || block.contains { $0.contains("examples/") }
          // A watch and a server run until stopped: still running after 2 s, and stopped by SIGINT
          // cleanly (a server on any free port, so that it never meets another test's).
          let lines = block.map {
            $0.hasPrefix("formsctl watch ")
              ? "timeout 2 " + $0 + "; [ $? -eq 124 ]"
              : $0.replacingOccurrences(of: "formsctl serve", with: Self.interruptedServer)
          }
          let failures = try runShellLines(
            lines, in: fromTop ? dir : dir + "/examples/acquisitions",
            environment: ["HOME": dir, "FORMSCTL_IDENTITY": ""])
          #expect(failures == [], "\(title)")
          ran += 1
        }
      }
    }
    #expect(ran >= 8, "the README's sections with commands")
  }

}
