import FormsCore
import FormsStore
import FormsTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import FormsServer

/// The browser's column of docs/conformance.md: each rule of the write path tried through the
/// server's application (in process), each on a fresh copy of the conformance store, asserted
/// against ``Conformance/expected``, and kept in a golden file that `ConformanceTests`
/// (formsctlTests) reads into the table (`RECORD_SNAPSHOTS=1` re-records it).
struct ServerConformanceTests {
  typealias Rule = Conformance.Rule

  /// True when `text` says one of the `|`-separated phrases of `reason`.
  static func says(_ text: String, _ reason: String) -> Bool {
    reason.split(separator: "|").contains { text.contains($0.lowercased()) }
  }

  /// What each rule's change is refused with, as the page says it (lower case; `|` between phrases).
  static let reasons: [Rule: String] = [
    .workflow: "cannot move to|not a transition", .editable: "not for people to change", .immutable: "immutable",
    .signedContent: "signatures", .shownHash: "changed", .placeholder: "to be filled",
  ]

  @Test func everyRuleThroughTheBrowserHasItsVerdict() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let people = Conformance.People()
      try Conformance.makeStore(at: dir + "/base", people: people)
      var verdicts: [Rule: String] = [:]
      for rule in Rule.allCases {
        let fixture = try ServerFixture(dir + "/" + rule.rawValue, copying: dir + "/base")
        verdicts[rule] = try await verdict(rule, fixture)
        #expect(verdicts[rule] == Conformance.expected[rule]?[.browser], "\(rule.rawValue) through the browser")
      }
      let column = Conformance.column(verdicts)
      let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(Conformance.browserColumn)
      if let expected = try Golden.difference(column, at: url) {
        #expect(column == expected, "\(Conformance.browserColumn) differs; RECORD_SNAPSHOTS=1 re-records")
      }
    }
  }

  func text(_ fixture: ServerFixture, _ id: String) throws -> String {
    try readFile(fixture.root + "/data/claims/\(id).json")
  }

  /// A refusal: the status, when nothing was written and the page says why.
  func judge(_ response: TestResponse, _ rule: Rule, _ fixture: ServerFixture, id: String, before: String) throws
    -> String
  {
    let written = try text(fixture, id) != before
    let code = response.status.code
    switch (code < 400, written) {
    case (true, true): return "applied"
    case (true, false): return "nothing written (\(code))"
    case (false, true): return "wrote and failed (\(code))"
    case (false, false):
      guard let reason = Self.reasons[rule], !Self.says(response.text.lowercased(), reason) else {
        return "refused (\(code))"
      }
      let message = response.text.components(separatedBy: "Not saved: ").dropFirst().first?.prefix(200)
      return "refused (\(code)) for another reason: \(message ?? response.text.suffix(300))"
    }
  }

  func verdict(_ rule: Rule, _ fixture: ServerFixture) async throws -> String {
    let store = fixture.store
    let hash = { (id: String) throws -> String in try store.read(kind: "claim", id: id).contentHash }
    nonisolated(unsafe) var verdict = ""
    switch rule {
    case .workflow:
      let (before, shown) = (try text(fixture, "c1"), try hash("c1"))
      try await fixture.test { client in
        let moved = try await fixture.post(client, "/k/claim/c1/status", [("_hash", shown), ("state", "rejected")])
        verdict = try judge(moved, rule, fixture, id: "c1", before: before)
      }
    case .editable, .immutable, .stamps:
      let field = [Rule.editable: ("/office", "HQ"), .immutable: ("/code", "B-1"), .stamps: ("/note", "checked")][rule]!
      let (before, shown) = (try text(fixture, "c1"), try hash("c1"))
      try await fixture.test { client in
        let saved = try await fixture.post(
          client, "/k/claim/c1/edit", [("_hash", shown), field, ("_action", "save")])
        verdict = try judge(saved, rule, fixture, id: "c1", before: before)
      }
      if rule == .stamps {
        let changed = try fixture.value("claim", "c1")["changed"]?.stringValue
        verdict =
          verdict != "applied"
          ? verdict
          : changed.flatMap(Instant.init).map { $0.rfc3339 > Conformance.builtAt } == true
            ? "stamped" : "not stamped (\(changed ?? "nothing"))"
      }
    case .signedContent:
      let (before, shown) = (try text(fixture, "c2"), try hash("c2"))
      let records = try fixture.value("claim", "c2")["_approvals"]?.arrayValue?.count ?? 0
      try await fixture.test { client in
        let change = [("_hash", shown), ("/amount", "12.00")]
        let refused = try await fixture.post(client, "/k/claim/c2/edit", change + [("_action", "save")])
        verdict = try judge(refused, rule, fixture, id: "c2", before: before)
        guard verdict == "refused (422)", refused.text.contains("name=\"_void\"") else {
          verdict = "without asking: " + verdict
          return
        }
        let asked = try await fixture.post(client, "/k/claim/c2/edit", change + [("_void", "1"), ("_action", "save")])
        let after = try fixture.value("claim", "c2")
        let ended = (after["_approvals"]?.arrayValue ?? []).dropFirst(records).contains {
          $0["action"] == .string("reopen")
        }
        verdict =
          asked.status == .seeOther && ended ? "refused unless asked" : "refused, and asking did not end the round"
      }
    case .shownHash:
      let shown = try hash("c1")
      try store.update(kind: "claim", id: "c1", assignments: [try Assignment("note=meanwhile")])
      let before = try text(fixture, "c1")
      try await fixture.test { client in
        let saved = try await fixture.post(
          client, "/k/claim/c1/edit", [("_hash", shown), ("/note", "mine"), ("_action", "save")])
        verdict = try judge(saved, rule, fixture, id: "c1", before: before)
      }
    case .placeholder:
      try await fixture.test { client in
        let made = try await fixture.post(
          client, "/k/claim/new",
          [("_template", "standard"), ("/id", "c3"), ("/code", ""), ("/amount", "1.00"), ("_action", "save")])
        let written = FileManager.default.fileExists(atPath: fixture.root + "/data/claims/c3.json")
        let reason = made.text.lowercased().contains("to be filled")
        verdict =
          written
          ? "applied"
          : made.status.code >= 400 && reason
            ? "refused (\(made.status.code))" : "refused (\(made.status.code)) for another reason"
      }
    case .versionOnly, .approvalsGrow:
      verdict = "—"
    }
    return verdict
  }
}
