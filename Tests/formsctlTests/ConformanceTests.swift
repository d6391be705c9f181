import FormsCore
import FormsStore
import FormsTestSupport
import Foundation
import Synchronization
import Testing

/// Issue 63's proof as a table: every rule of the write path through every door, each on a fresh
/// copy of one store (``Conformance/makeStore(at:people:)``), one verdict per cell, asserted
/// against ``Conformance/expected``; the table checked is docs/conformance.md (re-recorded with
/// `RECORD_SNAPSHOTS=1`). The browser's column is run in process by FormsServerTests
/// (`ServerConformanceTests`), which keeps it in its own golden file; this suite reads it into
/// the table.
struct ConformanceTests {
  typealias Rule = Conformance.Rule
  typealias Door = Conformance.Door

  @Test func everyRuleThroughEveryDoorHasItsVerdict() throws {
    try withTemporaryDirectory { dir in
      let people = Conformance.People()
      try Conformance.makeStore(at: dir + "/base", people: people)
      let identity = dir + "/preparer.id"
      try writeFile(people.preparer.fileText(created: Conformance.builtAt), to: identity)
      try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: identity)
      let cells = Rule.allCases.flatMap { rule in Door.allCases.filter { $0 != .browser }.map { (rule, $0) } }
      let found = Mutex<[Rule: [Door: String]]>([:])
      let failures = Mutex<[String]>([])
      DispatchQueue.concurrentPerform(iterations: cells.count) { index in
        let (rule, door) = cells[index]
        let cell = Cell(root: dir + "/\(rule.rawValue)-\(door.rawValue)", identity: identity)
        do {
          try FileManager.default.copyItem(atPath: dir + "/base", toPath: cell.root)
          let verdict = try cell.verdict(rule, door)
          found.withLock { $0[rule, default: [:]][door] = verdict }
        } catch {
          failures.withLock { $0.append("\(rule) through \(door): \(error)") }
        }
      }
      #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
      var verdicts = found.withLock { $0 }
      for (rule, door) in cells {
        #expect(
          verdicts[rule]?[door] == Conformance.expected[rule]?[door],
          "\(rule.rawValue) through \(door.rawValue): expected \(Conformance.expected[rule]?[door] ?? "?")")
      }
      // The browser's column, as FormsServerTests checked it.
      let column = Conformance.parseColumn(
        try readFile(Formsctl.packageRoot.appendingPathComponent(Conformance.browserColumn).path))
      for rule in Rule.allCases {
        verdicts[rule, default: [:]][.browser] = column[rule]
        #expect(column[rule] == Conformance.expected[rule]?[.browser], "\(rule.rawValue) through the browser")
      }
      let table = Conformance.markdown(verdicts, preface: Self.preface, after: Self.after)
      let url = Formsctl.packageRoot.appendingPathComponent("docs/conformance.md")
      if let expected = try Golden.difference(table, at: url) {
        #expect(table == expected, "docs/conformance.md differs; RECORD_SNAPSHOTS=1 re-records")
      }
    }
  }

  static let preface = """
    # What each door does with each rule

    Every change reaches the store through one write path (docs/design.md §12, §14): a rule lives
    there, never in a command or a door, so each door below gives the verdict its row says. This
    page is the table `ConformanceTests` (Tests/formsctlTests) checks: it runs every rule through
    every door on a fresh copy of one store (a claim kind with a workflow, `editable:`, an
    immutable field, an approval chain of two steps, an `updated` stamp and a template), asserts
    each verdict, and compares the table with this file (`RECORD_SNAPSHOTS=1` re-records it, as
    the golden files are). The browser's column is run by `ServerConformanceTests`
    (Tests/FormsServerTests) against the server's application in process.

    Verdicts: `refused (N)` — nothing written, exit code N (the browser: the HTTP status; the
    library: the code its error maps to); `applied`; `applied, warned` — written, and the warning
    printed; `refused unless asked` — refused naming the signatures, and written, the round ended,
    when the caller asks to void them (`--void-approvals`, the browser's "Save and void",
    `voidingApprovals:`); `voids, says so` — written, the round ended, and the signatures named;
    `voids nothing` — written, every signature still counts; `stamped` — the `updated` field set
    to the time of the write; `not carried, says so` — the door drops the member and says so,
    writing the rest; `—` — the door cannot express the change (see the note).

    """

  static let after = """

    Not in the table: `formsctl sync --pull` (its rows enter through the same write path as a
    feed's records, `ChangeSource.feed`; the test would need a PostgreSQL server per run, and
    SyncTests covers the pull), `mv`, `rm`, `approve` and `reject` (ApprovalSeamTests,
    ApprovalCommandTests) and the language server, which writes nothing.
    """
}

/// One cell's store and the means to try a door on it.
struct Cell {
  let root: String
  /// The preparer's identity file (a submission needs one).
  let identity: String

  typealias Rule = Conformance.Rule
  typealias Door = Conformance.Door

  /// True when `text` says one of the `|`-separated phrases of `reason`.
  static func says(_ text: String, _ reason: String) -> Bool {
    reason.split(separator: "|").contains { text.contains($0.lowercased()) }
  }

  /// What a rule's change is refused with, as the door says it (lower case; `|` between phrases).
  static let reasons: [Rule: String] = [
    .workflow: "cannot move to|not a transition", .editable: "not for people to change", .immutable: "immutable",
    .signedContent: "signatures", .shownHash: "changed",
    .approvalsGrow: "_approvals only grows|unknown field \"_approvals\"",
    .placeholder: "to be filled",
  ]

  func path(_ id: String) -> String { root + "/data/claims/\(id).json" }
  func text(_ id: String) throws -> String { try readFile(path(id)) }
  func value(_ id: String) throws -> JSONValue { try JSONParser().parse(Array(try text(id).utf8)) }

  /// The stored `id` as a person's edit would change it: `change` applied to its value.
  func edited(_ id: String, _ change: (inout JSONValue) -> Void) throws -> JSONValue {
    var value = try value(id)
    change(&value)
    return value
  }

  /// Each rule's change, as a document: which claim, and the version the door proposes.
  func proposal(_ rule: Rule) throws -> (id: String, value: JSONValue)? {
    switch rule {
    case .workflow: return ("c1", try edited("c1") { $0["status"] = .string("rejected") })
    case .editable: return ("c1", try edited("c1") { $0["office"] = .string("HQ") })
    case .immutable: return ("c1", try edited("c1") { $0["code"] = .string("B-1") })
    case .signedContent: return ("c2", try edited("c2") { $0["amount"] = .number(JSONNumber("12.00")!) })
    case .stamps: return ("c1", try edited("c1") { $0["note"] = .string("checked") })
    case .approvalsGrow:
      return (
        "c2", try edited("c2") { $0["_approvals"] = .array(Array(($0["_approvals"]?.arrayValue ?? []).prefix(1))) }
      )
    case .versionOnly, .shownHash, .placeholder: return nil
    }
  }

  func verdict(_ rule: Rule, _ door: Door) throws -> String {
    switch door {
    case .library: return try library(rule)
    case .set: return try set(rule)
    case .edit: return try edit(rule)
    case .status: return try status(rule)
    case .importJSON, .importCSV: return try feed(rule, csv: door == .importCSV)
    case .migrate: return try migrate(rule)
    case .assistant: return try assistant(rule)
    case .browser: return "(run by ServerConformanceTests)"
    }
  }

  // MARK: Judging what a door did

  /// A run of a command that should write `id`: refused (its exit code, and whether it said why),
  /// or applied (and whether it warned).
  func judge(_ run: RunResult, _ rule: Rule, id: String, before: String, extra: String = "") throws -> String {
    let after = try text(id)
    let said = (run.stderr + run.stdout + extra).lowercased()
    switch (run.status, after == before) {
    case (0, false):
      return said.contains("warning") ? "applied, warned" : "applied"
    case (0, true):
      return "nothing written (0)"
    case (let code, true):
      guard let reason = Self.reasons[rule], !Self.says(said, reason) else { return "refused (\(code))" }
      return "refused (\(code)) for another reason: \(run.stderr.split(separator: "\n").first ?? "")"
    case (let code, false):
      return "wrote and failed (\(code))"
    }
  }

  /// The verdict of a change of signed content: refused naming the signatures without asking,
  /// and applied with the round ended when asked.
  func askedVerdict(refused: String, asked: () throws -> Void) throws -> String {
    guard refused == "refused (65)" else { return "without asking: " + refused }
    let before = try value("c2")
    try asked()
    let after = try value("c2")
    let records = before["_approvals"]?.arrayValue?.count ?? 0
    let ended = (after["_approvals"]?.arrayValue ?? []).dropFirst(records).contains {
      $0["action"] == .string("reopen")
    }
    return after != before && ended ? "refused unless asked" : "refused, and asking did not end the round"
  }

  /// Whether a write stamped `changed`: the write's time, a feed's own stamp, or left as it was.
  func stampVerdict(_ id: String, feed: String? = nil) throws -> String {
    let changed = try value(id)["changed"]?.stringValue
    if let feed, changed == feed { return "the feed's stamp" }
    if changed == Conformance.builtAt { return "not stamped" }
    guard let changed, let instant = Instant(changed), instant.rfc3339 > Conformance.builtAt else {
      return "stamped \(changed ?? "nothing")"
    }
    return "stamped"
  }

  // MARK: The library

  func library(_ rule: Rule) throws -> String {
    var configuration = Store.Configuration()
    configuration.user = "conformance"
    let store = try Store.open(at: root, configuration: configuration)
    func attempt(_ id: String, _ body: () throws -> Void) throws -> String {
      let before = try text(id)
      do {
        try body()
      } catch let error as StoreError {
        guard try text(id) == before else { return "wrote and failed" }
        let code = error.kind == .badInput ? 65 : -1
        var said = error.description
        if case .invalidDocument(_, let diagnostics) = error { said += diagnostics.map(\.message).joined() }
        let reason = Self.reasons[rule].map { Self.says(said.lowercased(), $0) } ?? true
        return reason ? "refused (\(code))" : "refused (\(code)) for another reason: \(error)"
      }
      return try text(id) == before ? "nothing written" : "applied"
    }
    switch rule {
    case .workflow:
      return try attempt("c1") { try store.transition(kind: "claim", id: "c1", to: "rejected") }
    case .editable, .immutable:
      let field = rule == .editable ? "office=HQ" : "code=B-1"
      return try attempt("c1") { try store.update(kind: "claim", id: "c1", assignments: [try Assignment(field)]) }
    case .signedContent:
      let change = [try Assignment("amount=12.00")]
      let refused = try attempt("c2") { try store.update(kind: "claim", id: "c2", assignments: change) }
      return try askedVerdict(refused: refused) {
        try store.update(kind: "claim", id: "c2", assignments: change, voidingApprovals: true)
      }
    case .shownHash:
      let shown = try store.read(kind: "claim", id: "c1").contentHash
      try store.update(kind: "claim", id: "c1", assignments: [try Assignment("note=meanwhile")])
      return try attempt("c1") {
        try store.update(kind: "claim", id: "c1", assignments: [try Assignment("note=mine")], shown: shown)
      }
    case .stamps:
      try store.update(kind: "claim", id: "c1", assignments: [try Assignment("note=checked")])
      return try stampVerdict("c1")
    case .approvalsGrow:
      let (id, value) = try proposal(rule)!
      let original = Array(try text(id).utf8)
      return try attempt(id) { try store.replace(kind: "claim", id: id, original: original, with: value) }
    case .placeholder:
      do {
        _ = try store.create(kind: "claim", template: "standard", assignments: [try Assignment("id=c3")])
      } catch let error as StoreError {
        guard !FileManager.default.fileExists(atPath: path("c3")) else { return "wrote and failed" }
        return error.description.contains("to be filled") ? "refused (65)" : "refused for another reason: \(error)"
      }
      return "applied"
    case .versionOnly:
      return "—"
    }
  }

  // MARK: The command line

  func formsctl(_ args: [String], environment: [String: String] = [:]) throws -> RunResult {
    var environment = environment
    environment["FORMSCTL_IDENTITY"] = environment["FORMSCTL_IDENTITY"] ?? root + "-no-identity"
    return try Formsctl.run(args, in: root, environment: environment)
  }

  func set(_ rule: Rule) throws -> String {
    let assignment: (id: String, text: String)
    switch rule {
    case .workflow: assignment = ("c1", "status=rejected")
    case .editable: assignment = ("c1", "office=HQ")
    case .immutable: assignment = ("c1", "code=B-1")
    case .signedContent: assignment = ("c2", "amount=12.00")
    case .stamps:
      _ = try formsctl(["set", "claim", "c1", "note=checked"])
      return try stampVerdict("c1")
    case .approvalsGrow: assignment = ("c2", "_approvals-")
    case .versionOnly, .shownHash, .placeholder: return "—"
    }
    let before = try text(assignment.id)
    let run = try formsctl(["set", "claim", assignment.id, assignment.text])
    let verdict = try judge(run, rule, id: assignment.id, before: before)
    guard rule == .signedContent else { return verdict }
    return try askedVerdict(refused: verdict) {
      let asked = try formsctl(["set", "claim", "c2", "amount=12.00", "--void-approvals"])
      guard asked.status == 0 else { throw FixtureError("set --void-approvals: \(asked.transcript)") }
    }
  }

  /// `formsctl edit` with an editor that writes `value` (logging what it was shown), after
  /// running `meanwhile` (a shell line) the first time it is opened.
  func edit(_ rule: Rule) throws -> String {
    var meanwhile = ""
    let id: String
    let value: JSONValue
    switch rule {
    case .shownHash:
      id = "c1"
      value = try edited("c1") { $0["note"] = .string("mine") }
      meanwhile = "[ -e \(root)-editor.log ] || (cd \(root) && \(Formsctl.binary.path) set claim c1 note=meanwhile)\n"
    case .versionOnly, .placeholder: return "—"
    default:
      guard let proposal = try proposal(rule) else { return "—" }
      (id, value) = proposal
    }
    let target = root + "-edited.json"
    try writeFile(JSONWriter.canonicalString(value), to: target)
    let script = root + "-editor.sh"
    try writeFile(
      "#!/bin/sh\n\(meanwhile)cat \"$1\" >> \(root)-editor.log\ncp \(target) \"$1\"\n", to: script)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script)
    let environment = ["EDITOR": script, "VISUAL": script]
    let before = try text(id)
    let run = try formsctl(["edit", "claim", id], environment: environment)
    let log = (try? readFile(root + "-editor.log")) ?? ""
    if rule == .stamps {
      guard run.status == 0 else { return "failed: \(run.transcript)" }
      return try stampVerdict("c1")
    }
    // The change made meanwhile is the version the edit must not overwrite.
    let changedMeanwhile = try self.value(id)["note"] == .string("meanwhile")
    let meanwhileVersion = rule == .shownHash && changedMeanwhile ? try text(id) : before
    let verdict = try judge(run, rule, id: id, before: meanwhileVersion, extra: log)
    guard rule == .signedContent else { return verdict }
    return try askedVerdict(refused: verdict) {
      let asked = try formsctl(["edit", "claim", "c2", "--void-approvals"], environment: environment)
      guard asked.status == 0 else { throw FixtureError("edit --void-approvals: \(asked.transcript)") }
    }
  }

  func status(_ rule: Rule) throws -> String {
    switch rule {
    case .workflow:
      let before = try text("c1")
      return try judge(try formsctl(["status", "claim", "c1", "rejected"]), rule, id: "c1", before: before)
    case .stamps:
      let run = try formsctl(["status", "claim", "c1", "in_review"], environment: ["FORMSCTL_IDENTITY": identity])
      guard run.status == 0 else { return "failed: \(run.transcript)" }
      return try stampVerdict("c1")
    default:
      return "—"
    }
  }

  /// `formsctl import` of the rule's version as a feed record (a newer `updated` stamp, so it
  /// replaces the stored one), as JSON or as a spreadsheet of the columns it changes.
  func feed(_ rule: Rule, csv: Bool) throws -> String {
    let stamp = "2026-06-01T00:00:00Z"
    guard let proposal = try proposal(rule) else { return "—" }
    let id = proposal.id
    var value = proposal.value
    value["changed"] = .string(stamp)
    let file: String
    if csv {
      guard rule != .approvalsGrow else { return "—" }
      let stored = try self.value(id)
      let changed = stored.changedPointers(to: value).map { $0.tokens.joined(separator: ".") }
      let columns = ["id"] + changed.filter { $0 != "id" }
      let cells = columns.map { column -> String in
        switch value[column] {
        case .string(let text)?: return text
        case .number(let number)?: return number.text
        default: return ""
        }
      }
      file = root + "-feed.csv"
      try writeFile(columns.joined(separator: ",") + "\n" + cells.joined(separator: ",") + "\n", to: file)
    } else {
      file = root + "-feed.json"
      try writeFile(JSONWriter.canonicalString(.array([value])), to: file)
    }
    let before = try text(id)
    let run = try formsctl(["import", "claim", file, "--no-snapshot"])
    switch rule {
    case .stamps:
      guard run.status == 0 else { return "failed: \(run.transcript)" }
      return try stampVerdict(id, feed: stamp)
    case .workflow:
      let verdict = try judge(run, rule, id: id, before: before)
      // The same record held to the workflow: refused, on a copy of the store as it was.
      let strict = Cell(root: root + "-strict", identity: identity)
      try FileManager.default.copyItem(atPath: root + "/../base", toPath: strict.root)
      let held = try strict.formsctl(["import", "claim", file, "--no-snapshot", "--strict-workflow"])
      let strictVerdict = try strict.judge(held, rule, id: id, before: before)
      return strictVerdict == "refused (65)" ? verdict : verdict + "; --strict-workflow: " + strictVerdict
    case .approvalsGrow:
      let kept = try JSONParser().parse(Array(before.utf8))["_approvals"] == (try self.value(id)["_approvals"])
      guard run.status == 0, kept else { return try judge(run, rule, id: id, before: before) }
      return (run.stdout + run.stderr).contains("_approvals") ? "not carried, says so" : "not carried, silently"
    case .signedContent:
      guard run.status == 0, try text(id) != before else { return try judge(run, rule, id: id, before: before) }
      let said = (run.stdout + run.stderr)
      let ended = (try self.value(id)["_approvals"]?.arrayValue ?? []).contains { $0["action"] == .string("reopen") }
      guard ended else { return "applied, the round still live" }
      return said.contains("c2") && said.lowercased().contains("stale") ? "voids, says so" : "voids silently"
    default:
      return try judge(run, rule, id: id, before: before)
    }
  }

  /// `formsctl migrate` to a version 1.1.0 whose `changes:` make the rule's change.
  func migrate(_ rule: Rule) throws -> String {
    let changes: String
    let id: String
    switch rule {
    case .workflow: (id, changes) = ("c1", "  - map: {field: status, values: {draft: rejected}, keep_unmapped: true}\n")
    case .editable: (id, changes) = ("c1", "  - jq: 'if .id == \"c1\" then .office = \"HQ\" else . end'\n")
    case .immutable: (id, changes) = ("c1", "  - map: {field: code, values: {A-1: B-1}, keep_unmapped: true}\n")
    case .signedContent: (id, changes) = ("c2", "  - add: {field: office, value: HQ}\n")
    case .versionOnly: (id, changes) = ("c2", "")
    case .stamps: (id, changes) = ("c1", "  - add: {field: note, value: migrated}\n")
    case .approvalsGrow: (id, changes) = ("c2", "  - jq: 'if ._approvals then ._approvals |= .[0:1] else . end'\n")
    case .shownHash, .placeholder: return "—"
    }
    let descriptor =
      Conformance.descriptor.replacingOccurrences(
        of: "version: 1.0.0\n", with: "version: 1.1.0\nfrom: 1.0.0\n") + (changes.isEmpty ? "" : "changes:\n" + changes)
    try writeFile(descriptor, to: root + "/schemas/claim/1.1.0.yaml")
    let before = try text(id)
    let run = try formsctl(["migrate", "--no-snapshot"])
    switch rule {
    case .stamps:
      guard run.status == 0 else { return "failed: \(run.transcript)" }
      return try stampVerdict("c1")
    case .versionOnly:
      guard run.status == 0 else { return "failed: \(run.transcript)" }
      let (old, new) = (try JSONParser().parse(Array(before.utf8)), try value("c2"))
      guard new["_schema"] == .string("claim@1.1.0") else { return "not migrated" }
      guard new["_approvals"] == old["_approvals"], new["status"] == old["status"] else { return "voids" }
      let validate = try formsctl(["validate"])
      return validate.status == 0 ? "voids nothing" : "voids (validate: \(validate.stdout))"
    case .signedContent:
      let verdict = try judge(run, rule, id: id, before: before)
      return try askedVerdict(refused: verdict) {
        let asked = try formsctl(["migrate", "--no-snapshot", "--void-approvals"])
        guard asked.status == 0 else { throw FixtureError("migrate --void-approvals: \(asked.transcript)") }
      }
    default:
      return try judge(run, rule, id: id, before: before)
    }
  }

  // MARK: The assistant

  /// One `tools/call` of `formsctl mcp` (a session of its own): its answer.
  func mcpCall(_ call: String) throws -> JSONValue? {
    let (_, answers) = try AssistantClientTests.mcp(
      AssistantClientTests.initialize + [#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":\#(call)}"#],
      in: root)
    return answers.first { $0["id"] == .number(JSONNumber(2)) }
  }

  /// The assistant's dry run of a change, a change made meanwhile by `set`, then its apply
  /// carrying the `expected_hash` the dry run returned.
  func assistantShownHash() throws -> String {
    let arguments = #""kind":"claim","id":"c1","set":{"note":"mine"}"#
    let dryRun = try mcpCall(#"{"name":"update","arguments":{\#(arguments)}}"#)
    guard let hash = dryRun?["result"]?["structuredContent"]?["expected_hash"]?.stringValue else {
      return "— (the dry run returns no expected_hash)"
    }
    let meanwhile = try formsctl(["set", "claim", "c1", "note=meanwhile"])
    guard meanwhile.status == 0 else { throw FixtureError("set: \(meanwhile.transcript)") }
    let before = try text("c1")
    let answer = try mcpCall(
      #"{"name":"update","arguments":{\#(arguments),"apply":true,"expected_hash":"\#(hash)"}}"#)
    let error = answer?["result"]?["isError"] == .bool(true)
    let said = (answer?["result"]?["structuredContent"]?["error"]?.stringValue ?? "").lowercased()
    switch (error, try text("c1") == before) {
    case (true, true):
      return Self.says(said, Self.reasons[.shownHash]!) ? "refused" : "refused for another reason: \(said)"
    case (false, false): return "applied"
    default: return "nothing written"
    }
  }

  /// `formsctl mcp` asked to make the rule's change with `apply: true`: refused when its answer
  /// is an error and the file is as it was.
  func assistant(_ rule: Rule) throws -> String {
    let call: String
    let id: String
    switch rule {
    case .workflow:
      id = "c1"
      call = #"{"name":"transition","arguments":{"kind":"claim","id":"c1","to":"rejected","apply":true}}"#
    case .editable, .immutable, .signedContent, .stamps:
      let set: [Rule: (String, String)] = [
        .editable: ("c1", #"{"office":"HQ"}"#), .immutable: ("c1", #"{"code":"B-1"}"#),
        .signedContent: ("c2", #"{"amount":12.00}"#), .stamps: ("c1", #"{"note":"checked"}"#),
      ]
      id = set[rule]!.0
      call = #"{"name":"update","arguments":{"kind":"claim","id":"\#(id)","set":\#(set[rule]!.1),"apply":true}}"#
    case .approvalsGrow:
      id = "c2"
      let first = JSONWriter.compact(.array(Array((try value("c2")["_approvals"]?.arrayValue ?? []).prefix(1))))
      call = #"{"name":"update","arguments":{"kind":"claim","id":"c2","set":{"_approvals":\#(first)},"apply":true}}"#
    case .shownHash:
      return try assistantShownHash()
    case .versionOnly, .placeholder:
      return "—"
    }
    let before = try text(id)
    let (run, answers) = try AssistantClientTests.mcp(
      AssistantClientTests.initialize + [#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":\#(call)}"#],
      in: root)
    guard let answer = answers.first(where: { $0["id"] == .number(JSONNumber(2)) }) else {
      return "no answer: \(run.transcript)"
    }
    if rule == .stamps { return try stampVerdict("c1") }
    let error = answer["result"]?["isError"] == .bool(true) || answer["error"] != nil
    let structured = answer["result"]?["structuredContent"]
    let said = [
      structured?["error"]?.stringValue, answer["error"]?["message"]?.stringValue,
      structured?["diagnostics"].map(JSONWriter.compact),
    ].compactMap { $0 }.joined(separator: " ").lowercased()
    switch (error, try text(id) == before) {
    case (true, true):
      guard let reason = Self.reasons[rule], !Self.says(said, reason) else { return "refused" }
      return "refused for another reason: \(said.prefix(300))"
    case (false, false): return "applied"
    case (false, true): return "nothing written"
    case (true, false): return "wrote and failed"
    }
  }
}
