import FormsCore
import FormsTestSupport
import Foundation
import Testing

/// `formsctl stats --workflow` on a store whose audit log does not see its documents created (a
/// migrated or imported store, a log started late): their times come from git history.
struct StatsWorkflowGitTests {
  static let gitFound = ["/usr/bin/git", "/usr/local/bin/git"].contains {
    FileManager.default.isExecutableFile(atPath: $0)
  }

  /// Commits everything in `store` with author date `date`.
  static func commit(_ store: String, at date: String) throws {
    let failures = try runShellLines(
      [
        "git add -A",
        "GIT_AUTHOR_DATE=\(date) GIT_COMMITTER_DATE=2030-01-01T00:00:00Z git -c user.name=T -c user.email=t@example.com commit -q -m step # exit 0",
      ], in: store)
    #expect(failures == [], "\(failures)")
  }

  /// Sets the status of acquisition `id` by hand, as an editor or a script would (no audit record).
  static func setStatus(_ store: String, _ id: String, from: String, to: String) throws {
    let path = store + "/data/acquisitions/\(id).json"
    let text = try readFile(path)
    #expect(text.contains("\"status\": \"\(from)\""))
    try writeFile(text.replacingOccurrences(of: "\"status\": \"\(from)\"", with: "\"status\": \"\(to)\""), to: path)
  }

  /// Two acquisitions made, then the audit log dropped (as a migrated store has none), then
  /// moved by hand over commits: planning for 2 days, solicitation for 1, then cancelled.
  static func migratedStore(_ dir: String) throws -> (String, [String: String]) {
    let env = try makeStore(dir)
    let store = dir + "/store"
    for id in ["ACQ-2026-001", "ACQ-2026-002"] {
      let made = try Formsctl.run(
        ["new", "acquisition", "--set", "id=\(id)", "--set", "title=T", "--set", "agency=GSA"], in: store,
        environment: env)
      #expect(made.status == 0, "\(made.transcript)")
    }
    try FileManager.default.removeItem(atPath: store + "/.formsctl/history.jsonl")
    #expect(try runShellLines(["git init -q . # exit 0"], in: store) == [])
    try commit(store, at: "2026-11-01T00:00:00Z")
    try setStatus(store, "ACQ-2026-001", from: "planning", to: "solicitation")
    try commit(store, at: "2026-11-03T00:00:00Z")
    try setStatus(store, "ACQ-2026-001", from: "solicitation", to: "cancelled")
    try commit(store, at: "2026-11-04T00:00:00Z")
    return (store, env)
  }

  static func states(_ result: RunResult) throws -> [String: JSONValue] {
    var states: [String: JSONValue] = [:]
    for record in try JSONParser().parse(Array(result.stdout.utf8)).arrayValue ?? [] {
      if case .string(let state)? = record["state"] { states[state] = record }
    }
    return states
  }

  @Test(.enabled(if: gitFound)) func timesComeFromGitWhenTheLogHasNone() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try Self.migratedStore(dir)
      let before = try Formsctl.run(
        ["stats", "acquisition", "--workflow", "--format", "json"], in: store, environment: env)
      #expect(before.status == 0 && before.stderr.isEmpty, "\(before.transcript)")
      let states = try Self.states(before)
      // Author times, not the committer's (2030): planning 2 days, solicitation 1.
      #expect(states["planning"]?["entered"] == .number(JSONNumber(2)), "\(before.stdout)")
      #expect(states["planning"]?["median_seconds"] == .number(JSONNumber(172800)), "\(before.stdout)")
      #expect(states["planning"]?["now"] == .number(JSONNumber(1)))
      #expect(states["solicitation"]?["median_seconds"] == .number(JSONNumber(86400)))
      #expect(states["cancelled"]?["now"] == .number(JSONNumber(1)))
      let table = try Formsctl.run(["stats", "acquisition", "--workflow"], in: store, environment: env)
      #expect(
        table.stdout.contains(
          "completion: 1 of 2 acquisition documents created in the audit log or git history (2 documents from git)"),
        "\(table.stdout)")
    }
  }

  /// A log started late: a document it sees moved, but not created, keeps its git times before the
  /// log's first record of it, and the log's after.
  @Test(.enabled(if: gitFound)) func aLogStartedLateIsSeededBeforeItsFirstRecord() throws {
    try withTemporaryDirectory { dir in
      var (store, env) = try Self.migratedStore(dir)
      env["FORMSCTL_NOW"] = "2026-11-06T00:00:00Z"
      #expect(
        try Formsctl.run(["status", "acquisition", "ACQ-2026-002", "solicitation"], in: store, environment: env).status
          == 0)
      // The commit of that change comes later, with the same state: not counted twice.
      try Self.commit(store, at: "2026-11-07T00:00:00Z")
      let result = try Formsctl.run(
        ["stats", "acquisition", "--workflow", "--format", "json"], in: store, environment: env)
      let states = try Self.states(result)
      #expect(states["solicitation"]?["entered"] == .number(JSONNumber(2)), "\(result.stdout)")
      #expect(states["solicitation"]?["now"] == .number(JSONNumber(1)), "\(result.stdout)")
      // ACQ-2026-002 stayed in planning from the first commit (11-01) to the logged move (11-06): 5 days.
      #expect(states["planning"]?["p90_seconds"] == .number(JSONNumber(432000)), "\(result.stdout)")
    }
  }

  @Test func outsideAGitRepositoryTheLogAloneWithANote() throws {
    try withTemporaryDirectory { dir in
      let env = try makeStore(dir)
      let store = dir + "/store"
      #expect(
        try Formsctl.run(
          ["new", "acquisition", "--set", "id=ACQ-2026-001", "--set", "title=T", "--set", "agency=GSA"], in: store,
          environment: env
        ).status == 0)
      // While the log sees every document created, git is not asked and nothing is said.
      let logged = try Formsctl.run(
        ["stats", "acquisition", "--workflow", "--format", "csv"], in: store, environment: env)
      #expect(logged.status == 0 && logged.stderr.isEmpty, "\(logged.transcript)")
      try FileManager.default.removeItem(atPath: store + "/.formsctl/history.jsonl")
      let result = try Formsctl.run(
        ["stats", "acquisition", "--workflow", "--format", "csv"], in: store, environment: env)
      #expect(result.status == 0, "\(result.transcript)")
      #expect(
        result.stderr
          == "formsctl: warning: 1 acquisition document the audit log does not see created: the store is not in a git "
          + "repository, so their times before the log are not counted\n", "\(result.stderr)")
      #expect(
        result.stdout.contains("\nplanning,0,,,0,false\n") || result.stdout.contains("planning,0"), "\(result.stdout)")
      // Without git on PATH: the same, said so.
      let noGit = try Formsctl.run(
        ["stats", "acquisition", "--workflow", "--format", "csv"], in: store,
        environment: env.merging(["PATH": "/nonexistent"]) { $1 })
      #expect(noGit.status == 0 && noGit.stderr.contains("git is missing"), "\(noGit.transcript)")
    }
  }

  /// NOW is what the files say: a rebased commit (its author date before the document's
  /// creation) and a committed hand edit after the log saw the document created count in the
  /// state the file is in; no stay is negative.
  @Test(.enabled(if: gitFound)) func nowIsWhatTheFilesSayAndNoStayIsNegative() throws {
    try withTemporaryDirectory { dir in
      var (store, env) = try Self.migratedStore(dir)
      try Self.setStatus(store, "ACQ-2026-002", from: "planning", to: "solicitation")
      try Self.commit(store, at: "2026-10-01T00:00:00Z")
      env["FORMSCTL_NOW"] = "2026-11-10T00:00:00Z"
      #expect(
        try Formsctl.run(
          ["new", "acquisition", "--set", "id=ACQ-2026-003", "--set", "title=T", "--set", "agency=GSA"], in: store,
          environment: env
        ).status == 0)
      try Self.setStatus(store, "ACQ-2026-003", from: "planning", to: "solicitation")
      try Self.commit(store, at: "2026-11-11T00:00:00Z")
      let result = try Formsctl.run(
        ["stats", "acquisition", "--workflow", "--format", "json"], in: store, environment: env)
      #expect(result.status == 0, "\(result.transcript)")
      let states = try Self.states(result)
      #expect(states["solicitation"]?["now"] == .number(JSONNumber(2)), "\(result.stdout)")
      #expect(states["planning"]?["now"] == .number(JSONNumber(0)), "\(result.stdout)")
      #expect(states["cancelled"]?["now"] == .number(JSONNumber(1)), "\(result.stdout)")
      for (state, record) in states {
        for key in ["median_seconds", "p90_seconds"] {
          if case .number(let seconds)? = record[key] {
            #expect(!seconds.text.hasPrefix("-"), "\(state) \(key): \(result.stdout)")
          }
        }
      }
    }
  }

  /// A change both logged and committed, amended into an earlier commit (which keeps the earlier
  /// author date), is counted once: the commit's move is matched against the log's.
  @Test(.enabled(if: gitFound)) func anAmendedCommitOfALoggedChangeCountsOnce() throws {
    try withTemporaryDirectory { dir in
      var (store, env) = try Self.migratedStore(dir)
      env["FORMSCTL_NOW"] = "2026-11-06T00:00:00Z"
      #expect(
        try Formsctl.run(["status", "acquisition", "ACQ-2026-002", "solicitation"], in: store, environment: env).status
          == 0)
      let failures = try runShellLines(
        ["git add -A && git -c user.name=T -c user.email=t@example.com commit -q --amend --no-edit # exit 0"],
        in: store)
      #expect(failures == [], "\(failures)")
      let result = try Formsctl.run(
        ["stats", "acquisition", "--workflow", "--format", "json"], in: store, environment: env)
      let states = try Self.states(result)
      #expect(states["solicitation"]?["entered"] == .number(JSONNumber(2)), "\(result.stdout)")
    }
  }

  /// A version that does not parse (conflict markers committed) between two of one state is no
  /// new entry into it; it is said.
  @Test(.enabled(if: gitFound)) func aVersionThatDoesNotParseIsNoNewEntry() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try Self.migratedStore(dir)
      let path = store + "/data/acquisitions/ACQ-2026-002.json"
      let text = try readFile(path)
      try writeFile("<<<<<<< ours\n" + text, to: path)
      try Self.commit(store, at: "2026-11-05T00:00:00Z")
      try writeFile(text, to: path)
      try Self.commit(store, at: "2026-11-06T00:00:00Z")
      let result = try Formsctl.run(
        ["stats", "acquisition", "--workflow", "--format", "json"], in: store, environment: env)
      let states = try Self.states(result)
      #expect(states["planning"]?["entered"] == .number(JSONNumber(2)), "\(result.stdout)")
      #expect(result.stderr.contains("do not parse"), "\(result.stderr)")
    }
  }

  /// A shallow clone lacks the early commits: said in one line. A repository's own settings
  /// (log encoding, signatures, colour) do not change the answer.
  @Test(.enabled(if: gitFound)) func aShallowCloneIsSaidAndRepositorySettingsDoNotMatter() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try Self.migratedStore(dir)
      func run(_ directory: String) throws -> RunResult {
        try Formsctl.run(["stats", "acquisition", "--workflow", "--format", "json"], in: directory, environment: env)
      }
      let plain = try run(store)
      #expect(plain.status == 0 && plain.stderr.isEmpty, "\(plain.transcript)")
      let configured = try runShellLines(
        [
          "git config i18n.logOutputEncoding UTF-16 && git config log.showSignature true && git config color.ui always "
            + "&& git config core.quotePath true && git config log.showRoot false && git config diff.renames copies "
            + "&& git config log.follow true # exit 0"
        ], in: store)
      #expect(configured == [], "\(configured)")
      let hostile = try run(store)
      #expect(hostile.stdout == plain.stdout && hostile.stderr.isEmpty, "\(hostile.transcript)")
      let cloned = try runShellLines(["git clone -q --depth 1 file://\(store) ../clone # exit 0"], in: store)
      #expect(cloned == [], "\(cloned)")
      let shallow = try run(dir + "/clone")
      #expect(shallow.status == 0, "\(shallow.transcript)")
      #expect(shallow.stderr.contains("shallow clone"), "\(shallow.stderr)")
      #expect(shallow.stderr.split(separator: "\n").count == 1, "\(shallow.stderr)")
    }
  }
}
