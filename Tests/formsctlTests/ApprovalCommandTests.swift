import FormsCore
import FormsTestSupport
import Foundation
import Testing

/// Approvals at the command line: a change of submitted content names the approvals it
/// makes stale and ends the round, and `_awaiting` reads the same in `--fields` and `--sort` as
/// in `--where`.
struct ApprovalCommandTests {
  /// A store whose SF 1449 forms need a review and a signature; Pat, Rae and Cory's identity files.
  func store(_ dir: String) throws -> (store: String, files: [String: String], form: String) {
    let environment = testEnvironment()
    #expect(try Formsctl.run(["init", "store"], in: dir, environment: environment).status == 0)
    let store = dir + "/store"
    var files: [String: String] = [:]
    var signers: [String: String] = [:]
    for name in ["pat", "rae", "cory"] {
      files[name] = dir + "/" + name + ".id"
      let made = try Formsctl.run(["keygen", "--signer", "--out", files[name]!], in: dir, environment: environment)
      signers[name] = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    try writeFile(
      try readFile(store + "/formsctl.yaml")
        + "roles:\n  reviewer: [\(signers["rae"]!)]\n  contracting_officer: [\(signers["cory"]!)]\n",
      to: store + "/formsctl.yaml")
    try writeFile(
      try readFile(store + "/schemas/form/2.0.0.yaml")
        + "approvals:\n  chains:\n    - {from: in_review, to: approved, steps: [{name: review, role: reviewer}, "
        + "{name: sign, role: contracting_officer}]}\n",
      to: store + "/schemas/form/2.0.0.yaml")
    let form = "11111111-2222-4333-8444-555555555555"
    for args in [
      ["new", "acquisition", "--set", "id=ACQ-2026-001", "--set", "title=Chairs", "--set", "agency=GSA"],
      [
        "new", "form", "--set", "form_type=SF26", "--set", "id=\(form)", "--set", "acquisition_id=ACQ-2026-001",
        "--set", "form_number=SF 26", "--set", "fields.contract_number=C-1", "--set", "fields.award_date=2026-01-02",
        "--set", "approved_by=K", "--set", "approved_on=2026-01-03",
      ],
    ] {
      let made = try Formsctl.run(args, in: store, environment: environment)
      #expect(made.status == 0, "\(made.stderr)")
    }
    return (store, files, form)
  }

  func run(_ args: [String], as file: String? = nil, in store: String) throws -> RunResult {
    var environment = testEnvironment()
    environment["FORMSCTL_IDENTITY"] = file
    return try Formsctl.run(args, in: store, environment: environment)
  }

  @Test func theInboxListsWhatWaitsForTheIdentityInUse() throws {
    try withTemporaryDirectory { dir in
      let (store, files, form) = try store(dir)
      #expect(try run(["status", "form", form, "in_review"], as: files["pat"], in: store).status == 0)
      let rae = try run(["inbox", "--format", "json"], as: files["rae"], in: store)
      #expect(rae.status == 0, "\(rae.stderr)")
      let items = try JSONParser().parse(Array(rae.stdout.utf8)).arrayValue ?? []
      #expect(items.count == 1 && items.first?["id"] == .string(form) && items.first?["step"] == .string("review"))
      #expect(items.first?["path"] == .string("data/forms/\(form).json"))
      // Cory signs after Rae; Pat submitted it and holds no role.
      #expect(try run(["inbox", "--format", "json"], as: files["cory"], in: store).stdout == "[]\n")
      let pat = try run(["inbox"], as: files["pat"], in: store)
      #expect(pat.status == 0 && pat.stdout.contains("you hold no role"), "\(pat.stdout)")
      #expect(try run(["approve", "form", form], as: files["rae"], in: store).status == 0)
      let cory = try run(["inbox"], as: files["cory"], in: store)
      #expect(cory.stdout.contains(form) && cory.stdout.contains("sign"), "\(cory.stdout)")
      // No identity: refused by name, as approve is.
      let none = try run(["inbox"], as: dir + "/nobody.id", in: store)
      #expect(none.status == 65, "\(none.status) \(none.stderr)")
      #expect(none.stderr.contains("nobody.id") && none.stderr.contains("does not exist"), "\(none.stderr)")
      // A file that cannot be read is named, and the exit status says the inbox may be short.
      try writeFile("{", to: store + "/data/forms/broken.json")
      let short = try run(["inbox"], as: files["cory"], in: store)
      #expect(short.status == 1 && short.stderr.contains("broken.json"), "\(short.status) \(short.stderr)")
    }
  }

  @Test func aChangeInReviewNamesTheStaleSubmissionAndTheReviewerCannotApproveIt() throws {
    try withTemporaryDirectory { dir in
      let (store, files, form) = try store(dir)
      #expect(try run(["status", "form", form, "in_review"], as: files["pat"], in: store).status == 0)
      // A change of the submitted content says what it would void, and writes nothing...
      let file = store + "/data/forms/\(form).json"
      let before = try readFile(file)
      let told = try run(["set", "form", form, "fields.contract_number=C-2"], in: store)
      #expect(told.status == 65, "\(told.stderr)")
      #expect(told.stderr.contains("this change voids signatures: form \(form): 1 signed record"), "\(told.stderr)")
      #expect(told.stderr.contains("Pass --void-approvals to write it anyway"), "\(told.stderr)")
      #expect(try readFile(file) == before)
      // ... until asked: written, and the stale submission named on stderr.
      let changed = try run(["set", "form", form, "fields.contract_number=C-2", "--void-approvals"], in: store)
      #expect(changed.status == 0, "\(changed.stderr)")
      #expect(changed.stderr.contains("approvals made stale: form \(form): 1 signed record no longer counts"))
      let approve = try run(["approve", "form", form], as: files["rae"], in: store)
      #expect(approve.status == 65 && approve.stderr.contains("changed after it was submitted"), "\(approve.stderr)")
      #expect(try run(["validate"], in: store).status == 0)
      // Submitted again by Pat, the chain completes, and validate agrees.
      #expect(try run(["status", "form", form, "in_review"], as: files["pat"], in: store).status == 0)
      #expect(try run(["approve", "form", form], as: files["rae"], in: store).status == 0)
      #expect(try run(["approve", "form", form], as: files["cory"], in: store).status == 0)
      #expect(try run(["get", "form", form, "--field", "status"], in: store).stdout == "approved\n")
      #expect(try run(["validate"], in: store).status == 0)
    }
  }

  @Test func awaitingReadsTheSameInFieldsSortAndWhere() throws {
    try withTemporaryDirectory { dir in
      let (store, files, form) = try store(dir)
      #expect(try run(["status", "form", form, "in_review"], as: files["pat"], in: store).status == 0)
      let query = ["list", "form", "--where", #"_awaiting[] == "reviewer""#, "--fields", "id,_awaiting"]
      let json = try run(query + ["--format", "json"], in: store)
      #expect(json.status == 0, "\(json.stderr)")
      #expect(json.stdout.contains(#""_awaiting": ["#) && json.stdout.contains(#""reviewer""#), "\(json.stdout)")
      #expect(!json.stdout.contains("null"), "\(json.stdout)")
      let ndjson = try run(query + ["--format", "ndjson"], in: store)
      #expect(ndjson.stdout.contains(#""_awaiting":["reviewer"]"#), "\(ndjson.stdout)")
      let csv = try run(query + ["--format", "csv"], in: store)
      #expect(csv.stdout.contains(#"\#(form),"[""reviewer""]""#), "\(csv.stdout)")
      let table = try run(query, in: store)
      #expect(table.stdout.contains("reviewer"), "\(table.stdout)")
      // Sorted by it, the value shown is the one sorted on.
      let sorted = try run(
        ["list", "form", "--sort", "-_awaiting", "--fields", "id,_awaiting", "--format", "ndjson"], in: store)
      #expect(sorted.status == 0 && sorted.stdout.contains(#""_awaiting":["reviewer"]"#), "\(sorted.stdout)")
    }
  }
}

/// Approvals where they meet `mv` and `migrate` at the command line (issue 63): a rename that
/// rewrites a submitted form's reference is refused, naming it, unless asked; a migration of the
/// version alone leaves every signature and the inbox as they were.
struct ApprovalSeamCommandTests {
  let base = ApprovalCommandTests()

  @Test func aRenameOfAReferencedDocumentAsksBeforeItVoidsASubmission() throws {
    try withTemporaryDirectory { dir in
      let (store, files, form) = try base.store(dir)
      #expect(try base.run(["status", "form", form, "in_review"], as: files["pat"], in: store).status == 0)
      let before = try readFile(store + "/data/forms/\(form).json")
      let dry = try base.run(["mv", "acquisition", "ACQ-2026-001", "ACQ-2026-101", "--dry-run"], in: store)
      #expect(dry.status == 0, "\(dry.stderr)")
      #expect(dry.stdout.contains("would void signatures: form \(form)"), "\(dry.stdout)")
      let refused = try base.run(["mv", "acquisition", "ACQ-2026-001", "ACQ-2026-101"], in: store)
      #expect(refused.status == 65)
      #expect(refused.stderr.contains("voids signatures: form \(form)") && refused.stderr.contains("--void-approvals"))
      #expect(try readFile(store + "/data/forms/\(form).json") == before)
      #expect(FileManager.default.fileExists(atPath: store + "/data/acquisitions/ACQ-2026-001.json"))
      let asked = try base.run(
        ["mv", "acquisition", "ACQ-2026-001", "ACQ-2026-101", "--void-approvals"], in: store)
      #expect(asked.status == 0, "\(asked.stderr)")
      #expect(asked.stdout.contains("voided signatures: form \(form)"), "\(asked.stdout)")
    }
  }

  @Test func aMigrationOfTheVersionAloneKeepsTheRoundAndTheInbox() throws {
    try withTemporaryDirectory { dir in
      let (store, files, form) = try base.store(dir)
      #expect(try base.run(["status", "form", form, "in_review"], as: files["pat"], in: store).status == 0)
      #expect(try base.run(["approve", "form", form], as: files["rae"], in: store).status == 0)
      // The same descriptor as a minor version of its own: no `changes:` (nothing but `_schema` moves).
      let current = try readFile(store + "/schemas/form/2.0.0.yaml")
      let descriptor =
        try #require(current.components(separatedBy: "from: 1.0.0\nchanges:").first)
        .replacingOccurrences(of: "version: 2.0.0\n", with: "version: 2.1.0\n") + "from: 2.0.0\n"
        + "approvals:\n" + (current.components(separatedBy: "approvals:\n").last ?? "")
      try writeFile(descriptor, to: store + "/schemas/form/2.1.0.yaml")
      let migrated = try base.run(["migrate", "--no-snapshot"], in: store)
      #expect(migrated.status == 0, "\(migrated.stderr)")
      #expect(!migrated.stderr.contains("stale"), "\(migrated.stderr)")
      #expect(try readFile(store + "/data/forms/\(form).json").contains("form@2.1.0"))
      let validated = try base.run(["validate"], in: store)
      #expect(validated.status == 0, "\(validated.stdout)\(validated.stderr)")
      let inbox = try base.run(["inbox", "--format", "json"], as: files["cory"], in: store)
      #expect(inbox.stdout.contains(form), "\(inbox.stdout)\(inbox.stderr)")
      #expect(try base.run(["approve", "form", form], as: files["cory"], in: store).status == 0)
      #expect(try base.run(["validate"], in: store).status == 0)
    }
  }
}
