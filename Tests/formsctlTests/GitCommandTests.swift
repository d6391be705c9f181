import FormsTestSupport
import Foundation
import Testing

/// A git repository holding a store in a subdirectory (`ops/store`), as data repositories (and
/// this one, with `examples/acquisitions`) do; formsctl on PATH for the merge driver.
struct GitFixture {
  let root: String
  let store: String
  let env: [String: String]

  init(_ dir: String, store path: String = "ops/store") throws {
    root = dir + "/repo"
    store = root + "/" + path
    let binDirectory = Formsctl.binary.deletingLastPathComponent().path
    env = [
      "PATH": binDirectory + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
      "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "T",
      "GIT_COMMITTER_EMAIL": "t@example.com",
      "FORMSCTL_NOW": "2026-11-22T08:00:00Z", "HOME": dir,
    ]
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    try git("init", "-q", "-b", "main")
    try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
    #expect(try Formsctl.run(["init", "."], in: store, environment: env).status == 0)
    try letPeopleEditOrders(store)
    let feed = Formsctl.packageRoot.appendingPathComponent("examples/acquisitions/data").path
    for kind in ["acquisitions", "purchase-orders"] {
      try FileManager.default.copyItem(atPath: feed + "/" + kind, toPath: store + "/data/" + kind)
    }
    #expect(try Formsctl.run(["git", "install"], in: store, environment: env).status == 0)
    try git("add", "-A")
    try git("commit", "-q", "-m", "start")
  }

  @discardableResult
  func git(_ args: String...) throws -> RunResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["git"] + args
    process.currentDirectoryURL = URL(fileURLWithPath: root)
    process.environment = ProcessInfo.processInfo.environment.merging(env) { $1 }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return RunResult(status: process.terminationStatus, stdout: stdout, stderr: stderr)
  }

  func formsctl(_ args: [String]) throws -> RunResult { try Formsctl.run(args, in: store, environment: env) }

  var order: String { store + "/data/purchase-orders/PO-000203.json" }
}

struct GitCommandTests {
  static let git = ["/usr/bin/git", "/usr/local/bin/git"].first { FileManager.default.isExecutableFile(atPath: $0) }

  @Test(.enabled(if: git != nil, "git is not installed"))
  func branchesEditingDifferentPartsMergeCleanly() throws {
    try withTemporaryDirectory { dir in
      let repo = try GitFixture(dir)
      try repo.git("checkout", "-q", "-b", "theirs")
      #expect(
        try repo.formsctl(["set", "purchase-order", "PO-000203", "delivery_note=Dock C", "items[0].quantity=99"]).status
          == 0)
      try repo.git("commit", "-q", "-am", "theirs")
      try repo.git("checkout", "-q", "main")
      #expect(
        try repo.formsctl(["set", "purchase-order", "PO-000203", "status=closed", "items[2].quantity=77"]).status == 0)
      try repo.git("commit", "-q", "-am", "ours")
      let merge = try repo.git("merge", "-q", "--no-edit", "theirs")
      #expect(merge.status == 0, "\(merge.stdout)\(merge.stderr)")
      let text = try readFile(repo.order)
      #expect(text.contains("\"delivery_note\": \"Dock C\"") && text.contains("\"status\": \"closed\""))
      #expect(text.contains("\"quantity\": 99") && text.contains("\"quantity\": 77"))
      #expect(try repo.formsctl(["fmt", "--check"]).status == 0)
      #expect(try repo.formsctl(["validate"]).status == 0)
    }
  }

  @Test(.enabled(if: git != nil, "git is not installed"))
  func theSameFieldConflictsOnlyThere() throws {
    try withTemporaryDirectory { dir in
      let repo = try GitFixture(dir)
      try repo.git("checkout", "-q", "-b", "theirs")
      #expect(
        try repo.formsctl(["set", "purchase-order", "PO-000203", "delivery_note=Theirs", "items[0].quantity=99"]).status
          == 0)
      try repo.git("commit", "-q", "-am", "theirs")
      try repo.git("checkout", "-q", "main")
      #expect(try repo.formsctl(["set", "purchase-order", "PO-000203", "delivery_note=Ours"]).status == 0)
      try repo.git("commit", "-q", "-am", "ours")
      let merge = try repo.git("merge", "--no-edit", "theirs")
      #expect(merge.status == 1, "git marks the file conflicted")
      let lines = try readFile(repo.order).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      let start = try #require(lines.firstIndex(of: "<<<<<<< ours"))
      #expect(
        Array(lines[start...(start + 4)]) == [
          "<<<<<<< ours", "  \"delivery_note\": \"Ours\",", "=======", "  \"delivery_note\": \"Theirs\",",
          ">>>>>>> theirs",
        ])
      #expect(lines.filter { $0.hasPrefix("<<<<<<<") }.count == 1, "only that member conflicts")
      #expect(lines.contains("      \"quantity\": 99,"), "their other change is merged")
      let validate = try repo.formsctl(["validate"])
      #expect(
        validate.stdout.contains(
          "data/purchase-orders/PO-000203.json:\(start + 1):1: error: unresolved merge conflict (markers at lines \(start + 1), \(start + 3), \(start + 5))"
        ))
    }
  }

  /// Two people's `set`s at different times, on different fields of one order, each with its own
  /// audit line: git merges them cleanly, the later stamp wins, both audit lines stay.
  @Test(.enabled(if: git != nil, "git is not installed"))
  func setsAtDifferentTimesAndTheirAuditLinesMergeCleanly() throws {
    try withTemporaryDirectory { dir in
      let repo = try GitFixture(dir)
      try repo.git("checkout", "-q", "-b", "theirs")
      #expect(
        try Formsctl.run(
          ["set", "purchase-order", "PO-000203", "items[1].quantity=5"], in: repo.store,
          environment: repo.env.merging(["FORMSCTL_NOW": "2026-11-23T10:00:00Z"]) { $1 }
        ).status == 0)
      try repo.git("add", "-A")
      try repo.git("commit", "-q", "-m", "theirs")
      try repo.git("checkout", "-q", "main")
      #expect(
        try Formsctl.run(
          ["set", "purchase-order", "PO-000203", "items[0].quantity=4", "delivery_note=Gate 2"], in: repo.store,
          environment: repo.env.merging(["FORMSCTL_NOW": "2026-11-23T09:00:00Z"]) { $1 }
        ).status == 0)
      try repo.git("add", "-A")
      try repo.git("commit", "-q", "-m", "ours")
      let merge = try repo.git("merge", "-q", "--no-edit", "theirs")
      #expect(merge.status == 0, "\(merge.stdout)\(merge.stderr)")
      let order = try JSONSerialization.jsonObject(with: Data(try readFile(repo.order).utf8)) as? [String: Any]
      let items = order?["items"] as? [[String: Any]]
      #expect(order?["last_updated"] as? String == "2026-11-23T10:00:00Z", "the later stamp")
      #expect(
        items?[0]["quantity"] as? Int == 4 && items?[1]["quantity"] as? Int == 5
          && order?["delivery_note"] as? String == "Gate 2")
      #expect(
        items?[0]["last_updated"] as? String == "2026-11-23T09:00:00Z"
          && items?[1]["last_updated"] as? String == "2026-11-23T10:00:00Z")
      let log = try repo.formsctl(["log", "purchase-order", "PO-000203", "--format", "ndjson"])
      #expect(log.stdout.split(separator: "\n").count == 2, "both branches' audit lines: \(log)")
      #expect(try repo.formsctl(["validate"]).status == 0)
      #expect(try repo.formsctl(["fmt", "--check", "data"]).status == 0)
    }
  }

  /// One branch deletes a member, the other changes it: a conflict whose either side parses.
  @Test(.enabled(if: git != nil, "git is not installed"))
  func deleteAgainstModifyLeavesEitherSideValid() throws {
    try withTemporaryDirectory { dir in
      let repo = try GitFixture(dir)
      try repo.git("checkout", "-q", "-b", "theirs")
      #expect(try repo.formsctl(["set", "purchase-order", "PO-000203", "delivery_note=Dock C"]).status == 0)
      try repo.git("commit", "-q", "-am", "theirs")
      try repo.git("checkout", "-q", "main")
      let lines = try readFile(repo.order).split(separator: "\n", omittingEmptySubsequences: false).filter {
        !$0.contains("\"delivery_note\"")
      }
      try writeFile(lines.joined(separator: "\n"), to: repo.order)
      try repo.git("commit", "-q", "-am", "ours")
      let merge = try repo.git("merge", "-q", "--no-edit", "theirs")
      #expect(merge.status != 0, "a conflict")
      let text = try readFile(repo.order)
      for side in ["ours", "theirs"] {
        var kept: [Substring] = []
        var state = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
          if line.hasPrefix("<<<<<<< ") {
            state = "ours"
          } else if line == "=======" {
            state = "theirs"
          } else if line.hasPrefix(">>>>>>> ") {
            state = ""
          } else if state == "" || state == side {
            kept.append(line)
          }
        }
        let value = try? JSONSerialization.jsonObject(with: Data(kept.joined(separator: "\n").utf8)) as? [String: Any]
        #expect(value != nil, "keeping \(side) parses:\n\(text)")
        #expect((value?["delivery_note"] as? String) == (side == "ours" ? nil : "Dock C"))
      }
    }
  }

  /// The hooks of `.pre-commit-hooks.yaml` run as pre-commit runs them: from the top of the
  /// repository, `entry` followed by the staged files its `files` pattern matches.
  @Test(.enabled(if: git != nil, "git is not installed"))
  func preCommitHooksWorkFromTheRepositoryRoot() throws {
    try withTemporaryDirectory { dir in
      let repo = try GitFixture(dir)
      #expect(try Formsctl.run(["init", "second"], in: repo.root, environment: repo.env).status == 0)
      try FileManager.default.createDirectory(
        atPath: repo.root + "/second/data/acquisitions", withIntermediateDirectories: true)
      try FileManager.default.copyItem(
        atPath: repo.store + "/data/acquisitions/ACQ-2026-001.json",
        toPath: repo.root + "/second/data/acquisitions/ACQ-2026-001.json")
      try writeFile("{\"not\":  \"canonical\"}\n", to: repo.root + "/package.json")
      try writeFile("{\"b\": 1, \"a\": 2}\n", to: repo.root + "/tools/data/fixture.json")
      let staged = [
        "ops/store/data/purchase-orders/PO-000203.json", "second/data/acquisitions/ACQ-2026-001.json", "package.json",
        "tools/data/fixture.json",
      ]
      let hooks = try readFile(Formsctl.packageRoot.appendingPathComponent(".pre-commit-hooks.yaml").path)
        .components(separatedBy: "\n- id: ").dropFirst()
      #expect(hooks.count == 2)
      for hook in hooks {
        func value(_ key: String) -> String {
          hook.split(separator: "\n").first { $0.hasPrefix("  \(key): ") }.map { String($0.dropFirst(key.count + 4)) }
            ?? ""
        }
        let pattern = try NSRegularExpression(pattern: value("files"))
        let files = staged.filter { pattern.firstMatch(in: $0, range: NSRange($0.startIndex..., in: $0)) != nil }
        let entry = value("entry").split(separator: " ").map(String.init)
        let result = try Formsctl.run(Array(entry.dropFirst()) + files, in: repo.root, environment: repo.env)
        #expect(result.status == 0, "\(hook): \(result)")
      }
      // A document that breaks its schema fails the validate hook, named from the repository root.
      try writeFile(
        try readFile(repo.order).replacingOccurrences(of: "\"status\": ", with: "\"state\": "), to: repo.order)
      let broken = try Formsctl.run(
        ["validate", "--format", "github", staged[0], staged[1]], in: repo.root, environment: repo.env)
      #expect(broken.status == 1)
      #expect(
        broken.stdout.contains("::error file=ops/store/data/purchase-orders/PO-000203.json,line="), "\(broken.stdout)")
      #expect(broken.stdout.contains("second: checked 1 document of 1 kind: 1 valid, 0 invalid"))
    }
  }

  @Test(.enabled(if: git != nil, "git is not installed"))
  func changedSinceAndAgainst() throws {
    try withTemporaryDirectory { dir in
      let repo = try GitFixture(dir)
      #expect(
        try repo.formsctl([
          "new", "form", "--set", "form_type=SF26", "--set", "id=11111111-2222-4333-8444-555555555555",
          "--set", "acquisition_id=ACQ-2026-001", "--set", "form_number=SF 26", "--set", "fields.contract_number=C-1",
          "--set", "fields.award_date=2026-01-02", "--set", "approved_by=K", "--set", "approved_on=2026-01-03",
        ]).status == 0)
      for state in ["in_review", "approved"] {
        #expect(try repo.formsctl(["status", "form", "11111111-2222-4333-8444-555555555555", state]).status == 0)
      }
      try repo.git("add", "-A")
      try repo.git("commit", "-q", "-m", "approved form")
      // A changed acquisition: its forms and purchase orders refer to it, so they are checked too.
      #expect(try repo.formsctl(["set", "acquisition", "ACQ-2026-001", "title=Renamed"]).status == 0)
      let changed = try repo.formsctl(["validate", "--changed-since", "HEAD"])
      #expect(
        changed.stdout
          == "checked 3 documents of 3 kinds: 3 valid, 0 invalid (1 changed since HEAD, 2 referring to changed or deleted ones)\n",
        "\(changed.stdout)")
      try writeFile(
        try readFile(repo.store + "/data/forms/11111111-2222-4333-8444-555555555555.json").replacingOccurrences(
          of: "\"C-1\"", with: "\"C-2\""),
        to: repo.store + "/data/forms/11111111-2222-4333-8444-555555555555.json")
      let against = try repo.formsctl(["validate", "--against", "HEAD"])
      #expect(against.status == 1)
      #expect(
        against.stdout.contains(
          "error: fields: changed from {\"award_date\":\"2026-01-02\",\"contract_number\":\"C-1\"} to {\"award_date\":\"2026-01-02\",\"contract_number\":\"C-2\"}, but it is immutable once the document was `status == \"approved\"` (compared with HEAD) [immutable]"
        ), "\(against.stdout)")
      // A state changed in the file along no transition of the workflow.
      try writeFile(
        try readFile(repo.store + "/data/forms/11111111-2222-4333-8444-555555555555.json").replacingOccurrences(
          of: "\"approved\"", with: "\"draft\""),
        to: repo.store + "/data/forms/11111111-2222-4333-8444-555555555555.json")
      let transition = try repo.formsctl(["validate", "--against", "HEAD"])
      #expect(transition.status == 1)
      #expect(
        transition.stdout.contains(
          ": error: status: changed from approved to draft, which the workflow does not allow; approved is final (compared with HEAD) [workflow]"
        ), "\(transition.stdout)")
      let unknown = try repo.formsctl(["validate", "--changed-since", "no-such-branch"])
      #expect(
        unknown
          == RunResult(
            status: 65, stdout: "",
            stderr: "formsctl: error: unknown revision \"no-such-branch\" (git knows no such commit, branch or tag)\n"))
    }
  }

  @Test(.enabled(if: git != nil, "git is not installed"))
  func installIsIdempotentAndUninstalls() throws {
    try withTemporaryDirectory { dir in
      let repo = try GitFixture(dir)
      #expect(try repo.formsctl(["git", "install"]).stdout == "already installed\n")
      #expect(
        try readFile(repo.root + "/.gitattributes")
          == "ops/store/data/**/*.json merge=formsctl\nops/store/.formsctl/history.jsonl merge=union\n")
      #expect(try repo.git("config", "merge.formsctl.driver").stdout == "formsctl merge-file %O %A %B %P\n")
      let removed = try repo.formsctl(["git", "install", "--uninstall"])
      #expect(
        removed.stdout
          == "removed the line `ops/store/data/**/*.json merge=formsctl` from .gitattributes\n"
          + "removed the line `ops/store/.formsctl/history.jsonl merge=union` from .gitattributes\n"
          + "removed the merge.formsctl driver from .git/config\n"
      )
      #expect(
        !FileManager.default.fileExists(atPath: repo.root + "/.gitattributes"), "a .gitattributes left empty is deleted"
      )
      try FileManager.default.createDirectory(atPath: dir + "/plain", withIntermediateDirectories: true)
      #expect(try Formsctl.run(["init", "."], in: dir + "/plain").status == 0)
      let outside = try Formsctl.run(
        ["git", "install"], in: dir + "/plain", environment: ["GIT_CEILING_DIRECTORIES": dir])
      #expect(outside.status == 65)
      #expect(outside.stderr.hasSuffix("is not inside a git repository\n"))
    }
  }

  /// git splits an attributes line at whitespace: a store in a directory with a space gets a
  /// quoted pattern, and the driver runs there.
  @Test(.enabled(if: git != nil, "git is not installed"))
  func installQuotesAStorePathWithASpace() throws {
    try withTemporaryDirectory { dir in
      let repo = try GitFixture(dir, store: "ops/my forms")
      #expect(
        try readFile(repo.root + "/.gitattributes")
          == "\"ops/my forms/data/**/*.json\" merge=formsctl\n\"ops/my forms/.formsctl/history.jsonl\" merge=union\n")
      let attribute = try repo.git("check-attr", "merge", "--", "ops/my forms/data/purchase-orders/PO-000203.json")
      #expect(attribute.stdout.hasSuffix(": merge: formsctl\n"), "\(attribute)")
      try repo.git("checkout", "-q", "-b", "theirs")
      #expect(try repo.formsctl(["set", "acquisition", "ACQ-2026-001", "title=Theirs"]).status == 0)
      try repo.git("commit", "-q", "-am", "theirs")
      try repo.git("checkout", "-q", "main")
      #expect(try repo.formsctl(["set", "acquisition", "ACQ-2026-001", "agency=NASA"]).status == 0)
      try repo.git("commit", "-q", "-am", "ours")
      let merge = try repo.git("merge", "-q", "--no-edit", "theirs")
      #expect(merge.status == 0, "\(merge)")
      let merged = try readFile(repo.store + "/data/acquisitions/ACQ-2026-001.json")
      #expect(merged.contains("Theirs") && merged.contains("NASA"))
    }
  }

  @Test func mergeFileRefusesWhatItCannotMergeWithASchema() throws {
    try withTemporaryDirectory { dir in
      #expect(try Formsctl.run(["init", "ops/store"], in: dir).status == 0)
      try writeFile("{\"_schema\": \"form@2.0.0\", \"id\": \"a\"}", to: dir + "/a.json")
      try writeFile("{\"_schema\": \"form@1.0.0\", \"id\": \"a\"}", to: dir + "/b.json")
      try writeFile("[1, 2]", to: dir + "/c.json")
      try writeFile("{\"_schema\": \"form@2.0.0\",\n  \"id\": }", to: dir + "/broken.json")
      try writeFile("", to: dir + "/base.json")
      let outside = try Formsctl.run(["merge-file", "base.json", "a.json", "a.json", "notes/x.json"], in: dir)
      #expect(
        outside
          == RunResult(
            status: 1, stdout: "",
            stderr:
              "formsctl: error: notes/x.json is inside no formsctl store (no formsctl.yaml above it); not merging it without its schema: resolve it by hand\n"
          ))
      for path in ["/etc/x.json", "ops/store/../../x.json"] {
        let bad = try Formsctl.run(["merge-file", "base.json", "a.json", "a.json", path], in: dir)
        #expect(
          bad.status == 65 && bad.stderr.contains("must be relative to the top of the work tree, without `..`"),
          "\(bad)")
      }
      let versions = try Formsctl.run(
        ["merge-file", "base.json", "a.json", "b.json", "ops/store/data/forms/a.json"], in: dir)
      #expect(versions.status == 1)
      #expect(
        versions.stderr
          == "formsctl: error: ops/store/data/forms/a.json: the sides are at different schema versions (form@2.0.0 and form@1.0.0); ours is kept with _schema in conflict. Migrate one branch, then merge again\n"
      )
      let kept = try readFile(dir + "/a.json")
      #expect(
        kept
          == "{\n<<<<<<< ours\n  \"_schema\": \"form@2.0.0\",\n=======\n  \"_schema\": \"form@1.0.0\",\n>>>>>>> theirs\n  \"id\": \"a\"\n}\n"
      )
      let list = try Formsctl.run(["merge-file", "base.json", "b.json", "c.json"], in: dir)
      #expect(
        list == RunResult(status: 65, stdout: "", stderr: "formsctl: error: b.json: theirs is not a JSON object\n"))
      let before = try readFile(dir + "/broken.json")
      let broken = try Formsctl.run(
        ["merge-file", "base.json", "broken.json", "b.json", "ops/store/data/forms/a.json"], in: dir)
      #expect(
        broken
          == RunResult(
            status: 65, stdout: "",
            stderr: "formsctl: error: ops/store/data/forms/a.json (ours):2:9: unexpected '}'; expected a value\n"))
      #expect(try readFile(dir + "/broken.json") == before, "ours untouched")
    }
  }
}
