import FormsCore
import FormsStore
import Foundation

/// The conformance table of issue 63 (`docs/conformance.md`): every rule of the write path tried
/// through every door on a fresh store, one verdict per cell. The store, the rules and the doors
/// live here so that the suites that run the doors (formsctlTests runs the built binaries;
/// FormsServerTests runs the browser's application in process) try the same thing.
public enum Conformance {
  /// A rule of the write path: one row of the table.
  public enum Rule: String, CaseIterable, Sendable {
    case workflow, editable, immutable, signedContent, versionOnly, shownHash, stamps, approvalsGrow, placeholder

    /// The row's title in the table.
    public var title: String {
      switch self {
      case .workflow: "workflow: a move it does not list (draft → rejected)"
      case .editable: "`editable:`: a change of a field outside it (`office`)"
      case .immutable: "`immutable: true`: a change of the field (`code`)"
      case .signedContent: "signed content: a change of a claim in review, not asking to void"
      case .versionOnly: "signed content: a change of the schema version alone"
      case .shownHash: "shown hash: a write of a version that changed since it was shown"
      case .stamps: "stamps: what a write sets in `timestamps: {updated: changed}`"
      case .approvalsGrow: "approvals only grow: a version without an `_approvals` record"
      case .placeholder: "templates: a new claim with a placeholder left unfilled"
      }
    }
  }

  /// A way a change reaches the store: one column of the table.
  public enum Door: String, CaseIterable, Sendable {
    case library, set, edit, status, importJSON, importCSV, migrate, browser, assistant

    public var title: String {
      switch self {
      case .library: "library"
      case .set: "`set`"
      case .edit: "`edit`"
      case .status: "`status`"
      case .importJSON: "`import` JSON"
      case .importCSV: "`import` CSV"
      case .migrate: "`migrate`"
      case .browser: "browser (`serve`)"
      case .assistant: "assistant (`mcp`)"
      }
    }
  }

  /// What each door must do with each rule (docs/design.md §12–§14, the decisions it cites). A
  /// cell that a door cannot express is "—", with a note saying why.
  public static let expected: [Rule: [Door: String]] = [
    .workflow: [
      .library: "refused (65)", .set: "refused (65)", .edit: "refused (65)", .status: "refused (65)",
      .importJSON: "applied, warned", .importCSV: "applied, warned", .migrate: "applied",
      .browser: "refused (422)", .assistant: "refused",
    ],
    .editable: [
      .library: "refused (65)", .set: "refused (65)", .edit: "refused (65)", .status: "—",
      .importJSON: "applied", .importCSV: "applied", .migrate: "applied", .browser: "refused (422)",
      .assistant: "refused",
    ],
    .immutable: [
      .library: "refused (65)", .set: "refused (65)", .edit: "refused (65)", .status: "—",
      .importJSON: "applied", .importCSV: "applied", .migrate: "applied", .browser: "refused (422)",
      .assistant: "refused",
    ],
    .signedContent: [
      .library: "refused unless asked", .set: "refused unless asked", .edit: "refused unless asked", .status: "—",
      .importJSON: "voids, says so", .importCSV: "voids, says so", .migrate: "refused unless asked",
      .browser: "refused unless asked", .assistant: "refused",
    ],
    .versionOnly: [
      .library: "—", .set: "—", .edit: "—", .status: "—", .importJSON: "—", .importCSV: "—",
      .migrate: "voids nothing", .browser: "—", .assistant: "—",
    ],
    .shownHash: [
      .library: "refused (65)", .set: "—", .edit: "refused (65)", .status: "—", .importJSON: "—", .importCSV: "—",
      .migrate: "—", .browser: "refused (409)", .assistant: "refused",
    ],
    .stamps: [
      .library: "stamped", .set: "stamped", .edit: "stamped", .status: "stamped", .importJSON: "the feed's stamp",
      .importCSV: "the feed's stamp", .migrate: "not stamped", .browser: "stamped", .assistant: "stamped",
    ],
    .approvalsGrow: [
      .library: "refused (65)", .set: "refused (65)", .edit: "refused (65)", .status: "—",
      .importJSON: "not carried, says so", .importCSV: "—", .migrate: "refused (65)", .browser: "—",
      .assistant: "refused",
    ],
    .placeholder: [
      .library: "refused (65)", .set: "—", .edit: "—", .status: "—", .importJSON: "—", .importCSV: "—",
      .migrate: "—", .browser: "refused (422)", .assistant: "—",
    ],
  ]

  /// Why a cell reads as it does, for the notes under the table: the cells that say "—", and
  /// the verdicts a reader would not guess.
  public static let notes: [(cells: [(Rule, Door)], text: String)] = [
    (
      [(.editable, .status), (.immutable, .status), (.signedContent, .status), (.approvalsGrow, .status)],
      "`status` changes the workflow field only (a move out of review without a signed rejection is refused on "
        + "its own: `leavesReview`)."
    ),
    (
      [
        (.versionOnly, .library), (.versionOnly, .set), (.versionOnly, .edit), (.versionOnly, .status),
        (.versionOnly, .importJSON), (.versionOnly, .importCSV), (.versionOnly, .browser),
        (.versionOnly, .assistant),
      ],
      "Only a migration changes a document's schema version; a person's change of `_schema` is refused."
    ),
    (
      [(.shownHash, .set), (.shownHash, .status), (.shownHash, .migrate)],
      "These commands read the stored version and write under one lock: nothing was shown to a person first."
    ),
    (
      [(.shownHash, .importJSON), (.shownHash, .importCSV)],
      "A feed carries no hash: a record replaces the stored version only where its `updated` stamp is newer "
        + "(docs/design.md §9)."
    ),
    (
      [(.shownHash, .assistant)],
      "The dry run of `update` returns `expected_hash`; the apply that passes it back is refused when the "
        + "document changed since (decision 0160)."
    ),
    (
      [(.approvalsGrow, .set), (.approvalsGrow, .assistant)],
      "`_approvals` is not a field a person's assignment can name: refused as an unknown field (only `approve`, "
        + "`reject` and a submission add to it)."
    ),
    (
      [(.approvalsGrow, .importJSON)],
      "A feed record's `_approvals` is not a field: it is dropped and counted with the unknown fields, the stored "
        + "records are kept, and the rest of the record is applied."
    ),
    (
      [(.approvalsGrow, .migrate)],
      "A step that drops or rewrites a record (a `jq` step) fails the run, even with `--void-approvals`."
    ),
    (
      [(.approvalsGrow, .importCSV), (.approvalsGrow, .browser)],
      "The door cannot express the change: a spreadsheet's columns and the browser's form hold fields, never "
        + "`_approvals`."
    ),
    (
      [
        (.placeholder, .set), (.placeholder, .edit), (.placeholder, .status), (.placeholder, .importJSON),
        (.placeholder, .importCSV), (.placeholder, .migrate), (.placeholder, .assistant),
      ],
      "The door makes no document from a template (`formsctl new --template` refuses it as the library does)."
    ),
    (
      [(.workflow, .importJSON), (.workflow, .importCSV)],
      "A feed is the source of truth for the states it sends (docs/design.md §12); with `--strict-workflow` the "
        + "same record is refused (65), and the test checks that too."
    ),
    (
      [(.workflow, .migrate), (.editable, .migrate), (.immutable, .migrate)],
      "A migration's steps are the descriptor author's, not a person's change: `Schema.editable` says migrations "
        + "are not limited by it, and the workflow and immutable fields are judged for people only."
    ),
    (
      [(.editable, .importJSON), (.editable, .importCSV), (.immutable, .importJSON), (.immutable, .importCSV)],
      "`editable:` limits people, not feeds (`Schema.editable`); immutable fields are enforced for people "
        + "(`ChangeSource.person`) and reported by `validate --against REV`."
    ),
    (
      [(.signedContent, .assistant), (.workflow, .assistant), (.editable, .assistant), (.immutable, .assistant)],
      "The assistant is answered with an error (`isError`), and has no way to ask to void signatures "
        + "(docs/design.md §14: signatures are people's)."
    ),
    (
      [(.signedContent, .importJSON), (.signedContent, .importCSV)],
      "A feed's change of signed content ends the round, and the import's report names the signatures it voided."
    ),
    (
      [(.signedContent, .migrate)],
      "Refused naming the forms unless `--void-approvals`; the next row is a migration of the version alone."
    ),
    (
      [(.stamps, .migrate)],
      "A migration step touches only what it names (docs/design.md §10)."
    ),
    (
      [(.stamps, .importJSON), (.stamps, .importCSV)],
      "A feed's own `updated` stamp is kept (it decides later merges, docs/design.md §9)."
    ),
  ]

  // MARK: The store every cell starts from

  /// The kind every cell writes: a claim with a workflow, `editable:`, an immutable field, an
  /// approval chain of two steps and an `updated` stamp.
  public static let descriptor = """
    kind: claim
    version: 1.0.0
    directory: claims
    timestamps:
      updated: changed
    editable: [code, amount, note, status]
    fields:
      id: string
      code: {type: string, immutable: true}
      amount: {type: decimal, min: 0, scale: 2}
      note: {type: string, optional: true}
      office: {type: string, optional: true}
      changed: {type: datetime, optional: true}
      status: {type: enum, values: [draft, in_review, approved, rejected], default: draft}
    workflow:
      field: status
      transitions:
        draft: [in_review]
        in_review: [approved, rejected]
        rejected: [draft]
        approved: [draft]
    approvals:
      free: [note]
      on_change: refuse
      chains:
        - from: in_review
          to: approved
          reject_to: rejected
          steps:
            - {name: review, role: reviewer}
            - {name: sign, role: officer}

    """

  /// The time every document of the starting store was stamped with.
  public static let builtAt = "2026-01-01T00:00:00Z"

  /// The people of the starting store's chain.
  public struct People: Sendable {
    public let preparer = Identity.generate()
    public let reviewer = Identity.generate()
    public let officer = Identity.generate()

    public init() {}
  }

  /// Makes the starting store at `dir`: claim `c1` in draft, claim `c2` in review (submitted by
  /// the preparer, its first step signed by the reviewer), and a template `standard` whose
  /// `code` is the placeholder `{{CODE}}`. Every stamp is ``builtAt``.
  public static func makeStore(at dir: String, people: People = People()) throws {
    try writeFile(
      """
      formsctl: 1
      roles:
        reviewer: [\(people.reviewer.signer)]
        officer: [\(people.officer.signer)]

      """, to: dir + "/formsctl.yaml")
    try writeFile(descriptor, to: dir + "/schemas/claim/1.0.0.yaml")
    try writeFile(
      "{\n  \"amount\": 0.00,\n  \"code\": \"{{CODE}}\"\n}\n", to: dir + "/templates/claim/standard.json")
    var configuration = Store.Configuration()
    configuration.user = "conformance"
    configuration.now = { Date(timeIntervalSince1970: 1_767_225_600) }
    let store = try Store.open(at: dir, configuration: configuration)
    guard store.registry.diagnostics.isEmpty else {
      throw FixtureError("the descriptor has errors: \(store.registry.diagnostics.map(\.compilerStyle))")
    }
    for (id, code) in [("c1", "A-1"), ("c2", "A-2")] {
      try store.create(
        kind: "claim",
        assignments: [try Assignment("id=\(id)"), try Assignment("code=\(code)"), try Assignment("amount=10.00")])
    }
    try store.transition(kind: "claim", id: "c2", to: "in_review", identity: people.preparer)
    try store.approve(kind: "claim", id: "c2", identity: people.reviewer)
  }

  // MARK: The table

  /// The table as docs/conformance.md shows it: `verdicts` (rule → door → verdict) for `doors`,
  /// the notes numbered by first appearance, and `preface` above.
  public static func markdown(_ verdicts: [Rule: [Door: String]], preface: String, after: String) -> String {
    var numbers: [Int: Int] = [:]
    var ordered: [String] = []
    func mark(_ rule: Rule, _ door: Door) -> String {
      guard let index = notes.firstIndex(where: { $0.cells.contains { $0 == rule && $1 == door } }) else { return "" }
      if numbers[index] == nil {
        ordered.append(notes[index].text)
        numbers[index] = ordered.count
      }
      return " [\(numbers[index]!)]"
    }
    var lines = [
      "| rule | " + Door.allCases.map(\.title).joined(separator: " | ") + " |",
      "| --- |" + String(repeating: " --- |", count: Door.allCases.count),
    ]
    for rule in Rule.allCases {
      let cells = Door.allCases.map { door in (verdicts[rule]?[door] ?? "(not run)") + mark(rule, door) }
      lines.append("| \(rule.title) | " + cells.joined(separator: " | ") + " |")
    }
    let noteLines = ordered.enumerated().map { "\($0.offset + 1). \($0.element)" }
    return preface + "\n" + lines.joined(separator: "\n") + "\n\nNotes:\n\n" + noteLines.joined(separator: "\n")
      + "\n" + after
  }

  /// The browser's column, one `rule: verdict` line per rule (what FormsServerTests checks and
  /// formsctlTests reads into the table).
  public static func column(_ verdicts: [Rule: String]) -> String {
    Rule.allCases.map { "\($0.rawValue): \(verdicts[$0] ?? "(not run)")\n" }.joined()
  }

  /// The column ``column(_:)`` wrote, read back.
  public static func parseColumn(_ text: String) -> [Rule: String] {
    var verdicts: [Rule: String] = [:]
    for line in text.split(separator: "\n") {
      guard let colon = line.firstIndex(of: ":"), let rule = Rule(rawValue: String(line[..<colon])) else { continue }
      verdicts[rule] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    return verdicts
  }

  /// Where the browser's column is kept, from the repository's root.
  public static let browserColumn = "Tests/formsctlTests/Snapshots/conformance-browser.txt"
}
