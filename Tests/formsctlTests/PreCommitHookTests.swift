import FormsCore
import FormsStore
import FormsTestSupport
import Foundation
import Testing

/// The hooks of `.pre-commit-hooks.yaml` run by the real `pre-commit` (pip install pre-commit),
/// from a repository that names this one's hooks, as a team's repository does.
struct PreCommitHookTests {
  static let preCommit: String? = ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":")
    .map { $0 + "/pre-commit" }.first { FileManager.default.isExecutableFile(atPath: $0) }

  /// A repository holding this checkout's `.pre-commit-hooks.yaml` (pre-commit clones hooks from
  /// a commit), and a project repository whose `.pre-commit-config.yaml` uses them.
  func project(_ dir: String) throws -> GitFixture {
    let hooks = dir + "/hooks"
    try FileManager.default.createDirectory(atPath: hooks, withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      atPath: Formsctl.packageRoot.appendingPathComponent(".pre-commit-hooks.yaml").path,
      toPath: hooks + "/.pre-commit-hooks.yaml")
    let script = "git init -q -b main && git add -A && git commit -q -m hooks && git rev-parse HEAD > ../hooks.rev"
    #expect(try runShell(script, in: hooks, environment: gitIdentity).status == 0)
    let rev = try readFile(dir + "/hooks.rev").trimmingCharacters(in: .whitespacesAndNewlines)
    let repo = try GitFixture(dir)
    try writeFile(
      """
      repos:
        - repo: \(hooks)
          rev: \(rev)
          hooks: [{id: formsctl-validate}, {id: formsctl-fmt}]

      """, to: repo.root + "/.pre-commit-config.yaml")
    try repo.git("add", ".pre-commit-config.yaml")
    try repo.git("commit", "-q", "-m", "hooks")
    return repo
  }

  let gitIdentity = [
    "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "T",
    "GIT_COMMITTER_EMAIL": "t@example.com",
  ]

  /// `pre-commit run` on what is staged; its status and everything it printed.
  func runHooks(_ repo: GitFixture, _ dir: String) throws -> (status: Int32, output: String) {
    let environment = repo.env.merging(["PRE_COMMIT_HOME": dir + "/pre-commit-home"]) { $1 }
    let run = try runShell("pre-commit run >&2", in: repo.root, environment: environment)
    return (run.status, run.stderr)
  }

  @Test(
    .enabled(
      if: preCommit != nil || ProcessInfo.processInfo.environment["CI"] == "true",
      "pre-commit is not installed (pip install pre-commit); skipped outside CI"))
  func aCommitOfJSONInADataFolderOfNoStorePasses() throws {
    try withTemporaryDirectory { dir in
      let repo = try project(dir)
      try writeFile("{\"b\": 1}\n", to: repo.root + "/web/data/config.json")
      try repo.git("add", "web/data/config.json")
      let passed = try runHooks(repo, dir)
      #expect(passed.status == 0, "\(passed.output)")
      // A store document that breaks its schema still fails the commit.
      let order = repo.store + "/data/purchase-orders/PO-000203.json"
      try writeFile(try readFile(order).replacingOccurrences(of: "\"status\": ", with: "\"state\": "), to: order)
      try repo.git("add", "-A")
      let failed = try runHooks(repo, dir)
      #expect(failed.status != 0)
      #expect(failed.output.contains("ops/store/data/purchase-orders/PO-000203.json"), "\(failed.output)")
    }
  }
}
