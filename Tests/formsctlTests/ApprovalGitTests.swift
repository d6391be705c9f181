import FormsTestSupport
import Foundation
import Testing

/// Approvals across two clones of a repository, through git's merge driver: concurrent
/// approvals merge, and a branch that grants itself a role is caught by `validate --against`.
struct ApprovalGitTests {
  /// Four people's identities under `dir`, and their signers.
  struct People {
    var files: [String: String] = [:]
    var signers: [String: String] = [:]
  }

  func people(_ names: [String], in dir: String, repo: GitFixture) throws -> People {
    var people = People()
    for name in names {
      let file = dir + "/" + name + ".id"
      let made = try repo.formsctl(["keygen", "--signer", "--out", file])
      #expect(made.status == 0, "\(made.stderr)")
      people.files[name] = file
      people.signers[name] = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    return people
  }

  func run(_ args: [String], as person: String? = nil, people: People, in store: String, repo: GitFixture) throws
    -> RunResult
  {
    var env = repo.env
    if let person { env["FORMSCTL_IDENTITY"] = people.files[person] }
    return try Formsctl.run(args, in: store, environment: env)
  }

  /// A new SF 26 form in draft; its id.
  func newForm(_ id: String, in store: String, repo: GitFixture, people: People) throws {
    let made = try run(
      [
        "new", "form", "--set", "form_type=SF26", "--set", "id=\(id)", "--set", "acquisition_id=ACQ-2026-001",
        "--set", "form_number=SF 26", "--set", "fields.contract_number=C-1", "--set", "fields.award_date=2026-01-02",
        "--set", "approved_by=K", "--set", "approved_on=2026-01-03",
      ], people: people, in: store, repo: repo)
    #expect(made.status == 0, "\(made.stderr)")
  }

  @Test(.enabled(if: GitCommandTests.git != nil, "git is not installed"))
  func concurrentApprovalsMergeAndARoleGrantedOnABranchIsCaught() throws {
    try withTemporaryDirectory { dir in
      let repo = try GitFixture(dir)
      let people = try people(["pat", "rae", "cory", "mallory"], in: dir, repo: repo)
      let signer = { (name: String) in people.signers[name] ?? "" }
      try writeFile(
        try readFile(repo.store + "/formsctl.yaml")
          + "roles:\n  reviewer: [\(signer("rae"))]\n  contracting_officer: [\(signer("cory"))]\n",
        to: repo.store + "/formsctl.yaml")
      try writeFile(
        try readFile(repo.store + "/schemas/form/2.0.0.yaml")
          + "approvals:\n  chains:\n    - from: in_review\n      to: approved\n      ordered: false\n"
          + "      steps: [{name: review, role: reviewer}, {name: sign, role: contracting_officer}]\n",
        to: repo.store + "/schemas/form/2.0.0.yaml")
      let form = "11111111-2222-4333-8444-555555555555"
      try newForm(form, in: repo.store, repo: repo, people: people)
      #expect(
        try run(["status", "form", form, "in_review"], as: "pat", people: people, in: repo.store, repo: repo).status
          == 0)
      try repo.git("add", "-A")
      try repo.git("commit", "-q", "-m", "submitted")

      // A second clone; each signs one step, concurrently.
      let clone = dir + "/clone"
      try repo.git("clone", "-q", repo.root, clone)
      let cloneStore = clone + "/ops/store"
      #expect(try run(["git", "install"], people: people, in: cloneStore, repo: repo).status == 0)
      #expect(try run(["approve", "form", form], as: "rae", people: people, in: repo.store, repo: repo).status == 0)
      try repo.git("commit", "-qam", "rae approves")
      let cory = try run(["approve", "form", form], as: "cory", people: people, in: cloneStore, repo: repo)
      #expect(cory.status == 0, "\(cory.stderr)")
      try repo.git("-C", clone, "commit", "-qam", "cory approves")
      let merged = try repo.git("-C", clone, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
      #expect(merged.status == 0, "\(merged.stdout)\(merged.stderr)")
      let document = try readFile(cloneStore + "/data/forms/\(form).json")
      #expect(!document.contains("<<<<<<<"), "\(document)")
      #expect(document.components(separatedBy: "\"signature\"").count - 1 == 3, "\(document)")
      #expect(try run(["validate"], people: people, in: cloneStore, repo: repo).status == 0)
      // The merged round is complete: the guarded move is allowed now, and validates.
      let approved = try run(["status", "form", form, "approved"], people: people, in: cloneStore, repo: repo)
      #expect(approved.status == 0, "\(approved.stderr)")
      #expect(try run(["validate"], people: people, in: cloneStore, repo: repo).status == 0)

      // On a branch, Mallory adds herself to the officers and signs a second form.
      let second = "22222222-2222-4333-8444-555555555555"
      try newForm(second, in: repo.store, repo: repo, people: people)
      #expect(
        try run(["status", "form", second, "in_review"], as: "pat", people: people, in: repo.store, repo: repo).status
          == 0)
      try repo.git("add", "-A")
      try repo.git("commit", "-q", "-m", "second submitted")
      try repo.git("checkout", "-q", "-b", "grant")
      try writeFile(
        try readFile(repo.store + "/formsctl.yaml").replacingOccurrences(
          of: "contracting_officer: [\(signer("cory"))]",
          with: "contracting_officer: [\(signer("cory")), \(signer("mallory"))]"),
        to: repo.store + "/formsctl.yaml")
      #expect(try run(["approve", "form", second], as: "rae", people: people, in: repo.store, repo: repo).status == 0)
      #expect(
        try run(["approve", "form", second], as: "mallory", people: people, in: repo.store, repo: repo).status == 0)
      // By the roles as the branch has them, all is well; by main's, Mallory holds no role.
      #expect(try run(["validate"], people: people, in: repo.store, repo: repo).status == 0)
      let against = try run(["validate", "--against", "main"], people: people, in: repo.store, repo: repo)
      #expect(against.status == 1)
      #expect(
        against.stdout.contains("[approval-role]") && against.stdout.contains("(by the roles at main)"),
        "\(against.stdout)")
      #expect(against.stdout.contains("data/forms/\(second).json:"), "\(against.stdout)")
    }
  }
}
