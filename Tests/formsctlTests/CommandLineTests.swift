import FormsCore
import FormsTestSupport
import Foundation
import Testing

/// What a newcomer types, typos included, against the example store: each message pinned.
struct CommandLineTests {
  static let clock = ["FORMSCTL_NOW": "2026-11-20T10:00:00Z"]

  /// The example store in `dir/store`; runs formsctl there.
  struct Example {
    let root: String

    init(_ dir: String) throws {
      root = dir + "/store"
      try copyExampleStore(to: root)
    }

    func run(_ arguments: [String]) throws -> RunResult {
      try Formsctl.run(arguments, in: root, environment: CommandLineTests.clock)
    }
  }

  @Test(arguments: [
    (["--where", #"stauts == "in_review""#], #"--where #1: unknown field "stauts"; did you mean "status"?"#),
    (
      ["--where", "status == in_review"],
      #"--where #1: in_review is not a field; to compare with the text, quote it: status == "in_review""#
    ),
    (["--sort", "-stauts"], #"--sort -stauts: unknown field "stauts"; did you mean "status"?"#),
    (["--fields", "id,stauts"], #"--fields stauts: unknown field "stauts"; did you mean "status"?"#),
    (
      ["--where", #"fields.efective_date exists"#],
      #"--where #1: unknown field "fields.efective_date"; did you mean "fields.effective_date"?"#
    ),
  ])
  func queriesRefuseTypos(_ options: [String], _ message: String) throws {
    try withTemporaryDirectory { dir in
      let result = try Example(dir).run(["list", "form"] + options)
      #expect(result == RunResult(status: 64, stdout: "", stderr: "formsctl: error: \(message)\n"))
    }
  }

  @Test(arguments: [
    (#".status == "open""#, "unexpected '.'; a path starts with the field's name (write status, not .status)"),
    (#"status == "open" && currency == "USD""#, "unexpected '&&'; write 'and'"),
    (#"!(status == "open")"#, "unexpected '!'; write 'not' (or '!=' to compare)"),
    ("items.quantity > 5", "items is a list; write items[].quantity (any element) or items[0].quantity"),
  ])
  func habitsFromOtherLanguagesGetAHint(_ expression: String, _ message: String) throws {
    try withTemporaryDirectory { dir in
      let result = try Example(dir).run(["list", "purchase-order", "--where", expression])
      #expect(result.status == 64)
      #expect(result.stderr.contains(message), "\(result.stderr)")
    }
  }

  /// Every --format is answered, when wrong, with the values it takes.
  @Test(arguments: [
    (["list", "form"], "'table', 'json', 'ndjson', 'csv' or 'paths'"), (["log"], "'text', 'json' or 'ndjson'"),
    (["validate"], "'text', 'json' or 'github'"), (["snapshot", "diff", "x"], "'table', 'json' or 'text'"),
    (["new", "form"], "'id', 'path' or 'json'"), (["watch"], "'table', 'json' or 'ndjson'"),
    (["rm", "form", "x"], "'text' and 'json'"), (["schema", "list"], "'table', 'json', 'ndjson' or 'csv'"),
  ])
  func aWrongFormatNamesTheRightOnes(_ arguments: [String], _ values: String) throws {
    try withTemporaryDirectory { dir in
      let env = try makeStore(dir)
      let result = try Formsctl.run(arguments + ["--format", "xml"], in: dir + "/store", environment: env)
      #expect(result.status == 64)
      #expect(result.stderr.contains("Please provide one of \(values)"), "\(arguments): \(result.stderr)")
    }
  }

  @Test func validPathsOfAnyVersionAndMetadataAreAccepted() throws {
    try withTemporaryDirectory { dir in
      let store = try Example(dir)
      let result = try store.run([
        "list", "purchase-order", "--where", "items[].quantity >= 20", "--fields", "purchase_order_number,_schema",
        "--sort", "-last_updated", "--format", "csv",
      ])
      #expect(result.status == 0, "\(result.stderr)")
      #expect(result.stdout.hasPrefix("purchase_order_number,_schema\n"))
    }
  }

  @Test func newPrintsTheIdAndShortIdsWork() throws {
    try withTemporaryDirectory { dir in
      let store = try Example(dir)
      let created = try store.run(["new", "form", "--set", "form_type=SF30", "--set", "acquisition_id=ACQ-2026-001"])
      #expect(created.status == 0, "\(created.stderr)")
      let id = created.stdout.trimmingCharacters(in: .newlines)
      #expect(id.count == 36)
      #expect(created.stderr == "created form \(id) (data/forms/\(id).json)\n")
      let got = try store.run(["get", "form", String(id.prefix(8))])
      #expect(got.status == 0 && got.stdout.contains(id), "\(got.stderr)")
      #expect(
        try store.run(["new", "form", "--set", "form_type=SF30", "--format", "path"]).stdout.hasPrefix("data/forms/"))
    }
  }

  @Test func anAmbiguousShortIdListsTheCandidates() throws {
    try withTemporaryDirectory { dir in
      let store = try Example(dir)
      let result = try store.run(["get", "acquisition", "ACQ-2026"])
      #expect(
        result
          == RunResult(
            status: 64, stdout: "",
            stderr: "formsctl: error: \"ACQ-2026\" starts 5 acquisition ids: "
              + "ACQ-2026-001, ACQ-2026-002, ACQ-2026-003, ACQ-2026-004, ACQ-2026-005; type more of it\n"))
      #expect(try store.run(["get", "acquisition", "ACQ"]).status == 66, "under 4 characters is not a prefix")
    }
  }

  @Test func listElementsAreAppendedWithTheirTimestamps() throws {
    try withTemporaryDirectory { dir in
      let store = try Example(dir)
      let appended = try store.run([
        "set", "purchase-order", "PO-000201", "items[3].product_item_id=200", "items[3].quantity=5", "--format", "json",
      ])
      #expect(appended.status == 0, "\(appended.stderr)")
      #expect(
        appended.stdout.contains(
          #"{\#n      "last_updated": "2026-11-20T10:00:00Z",\#n      "product_item_id": 200,\#n      "quantity": 5\#n    }"#
        ),
        "\(appended.stdout)")
      let past = try store.run(["set", "purchase-order", "PO-000201", "items[99].quantity=1"])
      #expect(
        past
          == RunResult(
            status: 64, stdout: "",
            stderr:
              "formsctl: error: items[99].quantity: index 99 is past the end: the list has 4 elements (index 4 appends one)\n"
          ))
    }
  }

  @Test func aDocumentNotYetWrittenIsNamedAsSuch() throws {
    try withTemporaryDirectory { dir in
      let result = try Example(dir).run([
        "new", "purchase-order", "--set", "purchase_order_number=PO-9", "--set", "issue_date=2026-11-20T10:00:00Z",
        "--set", "items[0].product_item_id=0", "--set", "items[0].quantity=1",
      ])
      #expect(result.status == 65)
      #expect(
        result.stderr.hasPrefix("data/purchase-orders/PO-9.json (new, not written): error: items[0].product_item_id: "),
        "\(result.stderr)")
    }
  }

  @Test func snapshotsAreNamedByLabelPrefixOrLatestN() throws {
    try withTemporaryDirectory { dir in
      let store = try Example(dir)
      for (time, label) in [
        ("2026-11-20T10:00:00Z", "q3"), ("2026-11-21T10:00:00Z", "q4"), ("2026-11-22T10:00:00Z", "q4"),
      ] {
        #expect(
          try Formsctl.run(
            ["snapshot", "create", "--label", label], in: store.root, environment: ["FORMSCTL_NOW": time]
          ).status == 0)
      }
      let byLabel = try store.run(["snapshot", "show", "q4"])
      #expect(byLabel.stdout.hasPrefix("snapshot 2026-11-22T10-00-00Z-q4\n"))
      #expect(
        byLabel.stderr
          == "formsctl: warning: 2 snapshots carry the label \"q4\"; using the newest, 2026-11-22T10-00-00Z-q4\n")
      #expect(try store.run(["snapshot", "show", "latest~2"]).stdout.hasPrefix("snapshot 2026-11-20T10-00-00Z-q3\n"))
      #expect(try store.run(["snapshot", "show", "2026-11-21"]).stdout.hasPrefix("snapshot 2026-11-21T10-00-00Z-q4\n"))
      let ambiguous = try store.run(["snapshot", "show", "2026-11"])
      #expect(ambiguous.status == 64)
      #expect(ambiguous.stderr.contains("\"2026-11\" starts 3 snapshot ids"))
      let beyond = try store.run(["snapshot", "show", "latest~3"])
      #expect(beyond.status == 65)
      #expect(
        beyond.stderr.hasPrefix(
          "formsctl: error: latest~3 goes back further than the 3 snapshots not taken by a restore; the newest: "))
      // A restore's own safety copy does not become `latest`: restoring twice restores twice.
      _ = try store.run(["rm", "acquisition", "ACQ-2026-005"])
      let first = try store.run(["snapshot", "restore", "latest", "data/acquisitions/ACQ-2026-005.json"])
      #expect(
        first.stdout.contains(
          "the state before is snapshot 2026-11-20T10-00-00Z; to undo: formsctl snapshot restore 2026-11-20T10-00-00Z"),
        "\(first)")
      _ = try store.run(["rm", "acquisition", "ACQ-2026-005"])
      let second = try store.run(["snapshot", "restore", "latest", "data/acquisitions/ACQ-2026-005.json"])
      #expect(second.stdout.contains("recreate data/acquisitions/ACQ-2026-005.json"), "\(second)")
    }
  }

  /// `command` run on a pseudo-terminal (script(1)), as a person at a terminal runs it: its output.
  static func onTerminal(_ command: String, in directory: String) throws -> String? {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { return nil }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
    process.arguments = ["-qc", command, "/dev/null"]
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return text
  }

  @Test func longWorkShowsOneProgressLinePerPhaseOnATerminalOnly() throws {
    try withTemporaryDirectory { dir in
      try itemStore(dir, count: 3000)
      guard let text = try Self.onTerminal("\(Formsctl.binary.path) migrate --no-snapshot", in: dir) else {
        print("skipped: script(1) is not installed")
        return
      }
      #expect(text.contains("migrate: checking [") && text.contains("3000/3000"), "\(text.suffix(300))")
      #expect(text.contains("migrate: staging ["))
      #expect(text.contains("\r\u{1B}[Kitem 1.0.0 → 2.0.0: 3000 documents"), "the line is cleared before the result")
      let validate = try Self.onTerminal("\(Formsctl.binary.path) validate", in: dir) ?? ""
      #expect(validate.contains("validate: checking ["))
      #expect(!(try Self.onTerminal("\(Formsctl.binary.path) validate -q", in: dir) ?? "").contains("checking"))
      let piped = try Formsctl.run(["snapshot", "create"], in: dir)
      #expect(piped.status == 0 && !piped.stderr.contains("\u{1B}"), "no progress when stderr is not a terminal")
    }
  }

  @Test func setIsOfferedOnlyPathsItAccepts() throws {
    try withTemporaryDirectory { dir in
      let store = try Example(dir)
      let offered = try store.run([
        "---completion", "set", "--", "positional@2", "3", "5", "set", "purchase-order", "PO-000201", "items",
      ]).stdout.split(separator: "\n").map(String.init)
      #expect(offered.contains("items[+].quantity=") && offered.contains("items[0].quantity="), "\(offered)")
      #expect(!offered.contains { $0.contains("[]") }, "\(offered)")
      // Every one parses as the assignment `set` takes.
      for path in offered {
        #expect(throws: Never.self, "\(path)") { _ = try Assignment(path + "1") }
      }
      // Without a document to read, a list's elements are offered as a new one only.
      let unknown = try store.run([
        "---completion", "set", "--", "positional@2", "3", "5", "set", "purchase-order", "PO-NONE", "items",
      ]).stdout
      #expect(unknown.contains("items[+].quantity=") && !unknown.contains("items[0]"), "\(unknown)")
    }
  }

  @Test func shellCompletionOffersKindsIdsAndPathsFromTheStore() throws {
    try withTemporaryDirectory { dir in
      let store = try Example(dir)
      #expect(
        try store.run(["---completion", "get", "--", "positional@0", "1", "2", "get", "fo"]).stdout
          == "forecast\nform\n")
      #expect(
        try store.run(["---completion", "get", "--", "positional@1", "2", "4", "get", "form", "0adc"]).stdout
          == "0adc90c4-92fd-5ab8-8b08-ceb26b213e40\n")
      let paths = try store.run([
        "---completion", "list", "--", "--sort", "3", "6", "list", "purchase-order", "--sort", "-items",
      ]).stdout
      #expect(paths.split(separator: "\n").contains("-items[].quantity"), "\(paths)")
      #expect(
        try store.run([
          "---completion", "set", "--", "positional@2", "3", "3", "set", "purchase-order", "PO-000201", "del",
        ]).stdout
          == "delivery_note=\n")
      // The states the document may move to next, and snapshots by label.
      #expect(
        try store.run([
          "---completion", "status", "--", "positional@2", "3", "0", "status", "acquisition", "ACQ-2026-001", "",
        ]).stdout == "evaluation\ncancelled\n", "the example ACQ-2026-001 is in solicitation")
      #expect(try store.run(["snapshot", "create", "--label", "before-audit"]).status == 0)
      let snapshots = try store.run([
        "---completion", "snapshot", "restore", "--", "positional@0", "2", "0", "snapshot", "restore", "",
      ]).stdout
      #expect(snapshots.hasPrefix("latest\nbefore-audit\n"), "\(snapshots)")
      let script = try store.run(["--generate-completion-script", "bash"])
      #expect(script.status == 0 && script.stdout.contains("---completion get -- positional@1"))
      #expect(script.stdout.contains("'ndjson'$'\\n''csv'$'\\n''paths'"), "--format values are completed")
      // In bash, `PATH=` is completed without the space after it (and without escaping the `=`).
      try Data(script.stdout.utf8).write(to: URL(fileURLWithPath: dir + "/formsctl.bash"))
      let bash = try runShell(
        #"""
        exec bash -c '. ../formsctl.bash
        exec 3>&2; compopt() { echo "compopt $*" >&3; }
        offer() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
          COMPREPLY=(); _formsctl formsctl "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}"; printf "[%s]\n" "${COMPREPLY[@]}" >&2; }
        offer formsctl set purchase-order PO-000201 del
        offer formsctl get purchase-order PO-00020'
        """#, in: store.root)
      #expect(
        bash.stderr.hasPrefix("compopt -o nospace +o filenames\n[delivery_note=]\n[PO-000201]\n"), "\(bash.stderr)")
      #expect(
        bash.stderr.components(separatedBy: "compopt").count == 2, "ids are completed with the space: \(bash.stderr)")
    }
  }

  @Test func aKindsOrderIsListsDefault() throws {
    try withTemporaryDirectory { dir in
      let store = try Example(dir)
      _ = try store.run(["set", "purchase-order", "PO-000203", "delivery_note=Moved"])
      let listed = try store.run(["list", "purchase-order", "--format", "paths"]).stdout.split(separator: "\n")
      #expect(
        listed.first == "data/purchase-orders/PO-000203.json", "order: -last_updated puts the newest first: \(listed)")
      let sorted = try store.run(["list", "purchase-order", "--sort", "purchase_order_number", "--format", "paths"])
        .stdout
      #expect(sorted.hasPrefix("data/purchase-orders/PO-000201.json\n"), "--sort overrides it")
    }
  }

  @Test(arguments: [
    (
      ["set", "form", "--where", "stauts == \"draft\"", "form_number=X"], 64,
      #"formsctl: error: --where #1: unknown field "stauts"; did you mean "status"?"#
    ),
    (
      ["set", "form", "--where", " ", "form_number=X"], 64,
      "formsctl: error: an empty --where would match every document; pass --all to mean that"
    ),
    (
      ["rm", "form"], 64,
      "formsctl: error: name a document's id, or select documents with --where EXPR (--all for every one)"
    ),
    (
      ["rm", "form", "--all", "--where", "id exists"], 64,
      "formsctl: error: --all selects every document; drop it to use --where"
    ),
  ])
  func batchChangesRefuseWhatIsUnclear(_ arguments: [String], _ status: Int32, _ message: String) throws {
    try withTemporaryDirectory { dir in
      let result = try Example(dir).run(arguments)
      #expect(result.status == status)
      #expect(result.stderr.hasPrefix(message + "\n"), "\(result.stderr)")
    }
  }

  @Test func batchChangesListWhatTheyTouch() throws {
    try withTemporaryDirectory { dir in
      let store = try Example(dir)
      let dry = try store.run([
        "set", "purchase-order", "--where", #"status == "open""#, "delivery_note=Dock A", "--dry-run",
      ])
      #expect(dry.status == 0)
      #expect(dry.stdout.hasPrefix("would set data/purchase-orders/"), "\(dry.stdout)")
      #expect(dry.stderr.hasSuffix("; dry run: nothing written\n"))
      let rm = try store.run(["rm", "form", "--where", #"status == "rejected""#])
      #expect(rm.status == 0)
      #expect(rm.stdout.split(separator: "\n").count == 5, "\(rm.stdout)")
      #expect(try store.run(["list", "form", "--where", #"status == "rejected""#, "--format", "paths"]).stdout.isEmpty)
    }
  }
}
