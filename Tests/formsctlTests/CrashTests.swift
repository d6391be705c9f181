import FormsCore
import FormsTestSupport
import Foundation
import Testing

@testable import FormsStore

/// Every journaled operation, killed with SIGKILL at random moments: after `recover` the data
/// directory is wholly as before or wholly as after (never a mix), `validate` is clean, nothing
/// of the journal is left, and the history holds the operation's record exactly when it happened.
///
/// Kills land uniformly over a window that starts at 1.25 times a run's length (the median of three
/// runs), so some land before the lock, some while staging, some after the commit record, and some
/// after the end. A run under test can be slower than the measured ones (a loaded machine, a sync
/// that has more to flush), so once a quarter of the trials have passed without one of the two
/// outcomes the window grows (no run finished) or shrinks (every run finished) by a quarter per trial.
/// A random kill must have caught the journal open. Its window can be a few milliseconds at the end
/// of a run that starts with a safety copy of the store, narrower than how much a run's start varies,
/// so when no random kill caught it, up to as many again are aimed by watching: each such run is
/// killed as soon as its plan is seen in the journal's directory. Then two kills on purpose, paused
/// by `FORMSCTL_DEBUG_PAUSE` on each side of the commit record, must be rolled back and finished by
/// `recover`, so both outcomes happen for every operation.
/// `FORMSCTL_CRASH_TRIALS=N` sets the random kills per operation (default 34: 204 in all).
@Suite(.serialized)
struct CrashTests {
  struct Scenario: Sendable, CustomTestStringConvertible {
    let name: String
    let arguments: [String]
    /// Builds the store the operation runs on, at the path given.
    let build: @Sendable (String) throws -> Void
    var testDescription: String { name }
  }

  static let clock = ["FORMSCTL_NOW": "2026-11-20T10:00:00Z"]
  static let trials = ProcessInfo.processInfo.environment["FORMSCTL_CRASH_TRIALS"].flatMap(Int.init) ?? 34
  static let examples = Formsctl.packageRoot.appendingPathComponent("examples").path

  static func run(_ arguments: [String], in directory: String) throws {
    let result = try Formsctl.run(arguments, in: directory, environment: clock)
    guard result.status == 0 else {
      throw CocoaError(.fileWriteUnknown, userInfo: ["run": "\(arguments): \(result.stderr)"])
    }
  }

  static func copy(_ from: String, to: String) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/cp")
    process.arguments = ["-a", from, to]
    try process.run()
    process.waitUntilExit()
  }

  static func exampleStore(_ path: String) throws { try copyExampleStore(to: path) }

  static let scenarios: [Scenario] = [
    Scenario(
      name: "set", arguments: ["set", "acquisition", "ACQ-2026-001", "title=Renamed by the crash test"],
      build: exampleStore),
    Scenario(name: "rm with cascade", arguments: ["rm", "acquisition", "ACQ-2026-001"], build: exampleStore),
    Scenario(name: "mv", arguments: ["mv", "acquisition", "ACQ-2026-001", "ACQ-2026-099"], build: exampleStore),
    Scenario(name: "snapshot restore", arguments: ["snapshot", "restore", "latest"]) { path in
      try exampleStore(path)
      try run(["snapshot", "create", "--label", "base"], in: path)
      try run(["set", "acquisition", "ACQ-2026-002", "title=Changed since"], in: path)
      try run(
        ["new", "acquisition", "--set", "id=ACQ-2026-010", "--set", "title=New since", "--set", "agency=GSA"], in: path)
      for file in try FileManager.default.contentsOfDirectory(atPath: path + "/data/scenarios").prefix(2) {
        try FileManager.default.removeItem(atPath: path + "/data/scenarios/" + file)
      }
    },
    Scenario(
      name: "attach",
      arguments: ["attach", "purchase-order", "PO-000201", "quote", examples + "/papers/quote-PO-000201.pdf"],
      build: exampleStore),
    Scenario(name: "rm with attachments", arguments: ["rm", "purchase-order", "PO-000201"]) { path in
      try exampleStore(path)
      try run(["attach", "purchase-order", "PO-000201", "quote", examples + "/papers/quote-PO-000201.pdf"], in: path)
    },
    Scenario(name: "migrate", arguments: ["migrate"]) { path in try itemStore(path, count: 400) },
    Scenario(
      name: "import",
      arguments: [
        "import", "purchase-order", examples + "/feeds/purchase-orders.json", "--map",
        examples + "/feeds/purchase-orders.map.yaml",
      ], build: exampleStore),
  ]

  /// What a kill left, in the order of the moments it can land in.
  enum Outcome: Int, Comparable {
    /// Before the journal existed (the lock not yet taken, or only staged files): nothing to recover.
    case untouched
    /// The journal was open, its commit record not yet written: `recover` rolled it back.
    case rolledBack
    /// After the commit record: `recover` finished the operation.
    case finishedByRecover
    /// After the operation ended.
    case completed

    static func < (a: Outcome, b: Outcome) -> Bool { a.rawValue < b.rawValue }
  }

  /// The data and attachments directories: file path → bytes.
  static func tree(_ root: String) throws -> [String: [UInt8]] {
    var out: [String: [UInt8]] = [:]
    for top in ["data", "attachments"] {
      for path in try FileIO.files(under: FilePath(root + "/" + top), suffix: "") {
        out[String(path.dropFirst(root.count))] = try? FileIO.read(FilePath(path))
      }
    }
    return out
  }

  /// Every file under the data and attachments directories whose name starts with `.` (staged or
  /// temporary files).
  static func hiddenFiles(_ root: String) -> [String] {
    ["data", "attachments"].flatMap { top in
      (FileManager.default.subpaths(atPath: root + "/" + top) ?? []).filter { FilePath($0).name.hasPrefix(".") }
    }
  }

  /// Every document of the store at `root` is valid.
  static func expectValid(_ root: String, _ what: String) throws {
    let layout = try StoreLayout(root: root)
    let registry = try SchemaRegistry.load(directory: layout.schemasDirectory, display: { $0 })
    let validator = StoreValidator(layout: layout, registry: registry, display: { $0 })
    let report = try validator.validate(try validator.allFiles())
    #expect(report.diagnostics.isEmpty, "\(what): \(report.diagnostics.prefix(3).map(\.compilerStyle))")
  }

  @Test(arguments: scenarios)
  func killedAtRandomMomentsRecoversToBeforeOrAfter(_ scenario: Scenario) throws {
    try withTemporaryDirectory { dir in
      let pristine = dir + "/pristine"
      try scenario.build(pristine)
      let before = try Self.tree(pristine)
      let recordsBefore = try AuditLog.read(try StoreLayout(root: pristine)).records.count
      // Three runs to the end: the state after, and how long a run takes.
      var durations: [TimeInterval] = []
      for k in 0..<3 {
        try Self.copy(pristine, to: dir + "/reference\(k)")
        let started = Date()
        try Self.run(scenario.arguments, in: dir + "/reference\(k)")
        durations.append(Date().timeIntervalSince(started))
      }
      let duration = durations.sorted()[1]
      let after = try Self.tree(dir + "/reference0")
      try Self.expectValid(pristine, "\(scenario.name), before")
      try Self.expectValid(dir + "/reference0", "\(scenario.name), after")
      #expect(after != before)
      #expect(try Self.tree(dir + "/reference1") == after, "the operation is deterministic under FORMSCTL_NOW")
      var rng = SeededGenerator(state: UInt64(scenario.name.utf8.reduce(7) { $0 &* 31 &+ UInt64($1) }))
      var kills: [Outcome] = []
      var trial = 0
      /// How a trial's kill is timed.
      enum Moment {
        /// After this many seconds.
        case after(TimeInterval)
        /// As soon as the journal's plan is seen (polled every 50 µs), or when the run has ended.
        case onceThePlanIsSeen
        /// Once the run has paused at this point (`FORMSCTL_DEBUG_PAUSE`).
        case pausedAt(String)
      }
      func killed(_ moment: Moment) throws -> Outcome {
        defer { trial += 1 }
        let store = dir + "/trial\(trial)"
        try Self.copy(pristine, to: store)
        let process: Process
        switch moment {
        case .pausedAt(let point):
          process = try startPaused(scenario.arguments, at: point, in: store, environment: Self.clock)
        case .after(let seconds):
          (process, _) = try startFormsctl(scenario.arguments, in: store, environment: Self.clock)
          usleep(UInt32(seconds * 1_000_000))
        case .onceThePlanIsSeen:
          let plan = try Journal(layout: StoreLayout(root: store)).planPath.string
          (process, _) = try startFormsctl(scenario.arguments, in: store, environment: Self.clock)
          while process.isRunning && access(plan, F_OK) != 0 { usleep(50) }
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let layout = try StoreLayout(root: store)
        let recovered = try Store.recover(layout, wait: 5)
        let state = try Self.tree(store)
        let finished = state == after
        #expect(finished || state == before, "\(scenario.name), trial \(trial): neither the state before nor after")
        let outcome: Outcome
        if !finished {
          outcome = recovered?.hasPrefix("rolled back the interrupted") == true ? .rolledBack : .untouched
        } else {
          outcome = recovered?.hasPrefix("finished the interrupted") == true ? .finishedByRecover : .completed
        }
        #expect(Self.hiddenFiles(store).isEmpty, "\(scenario.name), trial \(trial): \(Self.hiddenFiles(store))")
        #expect(try Journal(layout: layout).pending() == nil)
        let records = try AuditLog.read(layout).records.count
        #expect(
          records == recordsBefore + (finished ? 1 : 0), "\(scenario.name), trial \(trial): \(records) history records")
        // The data byte for byte as before or after is as valid as it (checked once, above; no
        // scenario changes the descriptors); any other state is already a failure, validated for
        // the message.
        if !finished && state != before { try Self.expectValid(store, "\(scenario.name), trial \(trial)") }
        try FileManager.default.removeItem(atPath: store)
        kills.append(outcome)
        return outcome
      }
      func count(_ outcome: Outcome) -> Int { kills.filter { $0 == outcome }.count }

      // Random kills over the window.
      var window = duration * 1.25
      for k in 0..<Self.trials {
        if k >= Self.trials / 4 {
          if count(.finishedByRecover) + count(.completed) == 0 { window *= 1.25 }
          if count(.untouched) + count(.rolledBack) == 0 { window *= 0.8 }
        }
        _ = try killed(.after(Double(rng.next() % 1_000_000) / 1_000_000 * window))
      }
      // Then, if no random kill caught the journal open, kills aimed at it by watching for the plan.
      let random = kills.count
      func journalOpen() -> Int { count(.rolledBack) + count(.finishedByRecover) }
      for _ in 0..<Self.trials where journalOpen() == 0 { _ = try killed(.onceThePlanIsSeen) }
      let caught = journalOpen()
      let tally =
        "\(kills.count) kills (\(kills.count - random) aimed), \(count(.untouched)) before any journal, "
        + "\(caught) with it open (\(count(.rolledBack)) rolled back, \(count(.finishedByRecover)) finished by recover), "
        + "\(count(.completed)) completed before the kill (run \(Int(duration * 1000)) ms, window \(Int(window * 1000)) ms)"
      // And each side of the commit record, on purpose: staged (rolled back) and committed (finished).
      let staged = try killed(.pausedAt("after-stage"))
      let committed = try killed(.pausedAt("after-commit"))
      print(
        "crash test \(scenario.name): \(tally); paused after staging: \(staged), after the commit record: \(committed)")
      #expect(caught > 0, "\(scenario.name): no kill landed while the journal was open")
      #expect(staged == .rolledBack, "\(scenario.name)")
      #expect(committed == .finishedByRecover, "\(scenario.name)")
    }
  }
}
