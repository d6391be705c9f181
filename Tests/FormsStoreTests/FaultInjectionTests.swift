import FormsCore
import FormsTestSupport
import Foundation
import Testing

@testable import FormsStore

/// I/O errors the system returns (docs/design.md §8), the way SQLite's `ioerr` tests find them: every
/// journaled operation runs once to count the system calls it makes on the store, then once for
/// every N with the Nth call failing, transiently (that call only) and persistently (from it on).
/// After each run, `recover` runs without faults, and the store must be whole: no journal or
/// temporary file left, every document valid, every snapshot verifying, and the documents and the
/// audit log either exactly as before the operation or exactly as after it (the change wholly
/// applied or wholly absent, with its audit record iff applied); an operation that reported
/// success must have applied. No failure may be reported as a bug (exit 70).
struct FaultInjectionTests {
  static let alice = Identity.generate()
  static let bob = Identity.generate()

  struct Scenario: Sendable, CustomTestStringConvertible {
    let name: String
    /// Builds the store the operation starts from (once; each run works on a copy).
    var prepare: @Sendable (StoreFixture) throws -> Void = { _ in }
    /// The operation, through the library.
    let run: @Sendable (StoreFixture) throws -> Void
    /// True when the operation is already committed before it runs (`recover` of a committed
    /// journal): it must end applied whatever fails.
    var mustApply = false
    /// Snapshots are part of what the operation changes (`snapshot create`).
    var snapshotsAreTheChange = false
    /// The run after the faulty one settles with `recover --abandon` (finishing the abandoning).
    var abandon = false
    var testDescription: String { name }
  }

  static let draftForms = try! ExpressionParser.parse(#"status == "draft""#)

  /// Who submits, reviews and signs the claim of the approval scenarios.
  static let people = ApprovalTests.People()

  /// A claim kind with an approval chain, the people's roles, and claim c1 submitted and reviewed.
  @Sendable static func reviewedClaim(_ fixture: StoreFixture) throws {
    let manifest = try readFile(fixture.root + "/formsctl.yaml")
    try writeFile(
      manifest + "roles:\n  reviewer: [\(people.reviewer.signer)]\n  officer: [\(people.officer.signer)]\n",
      to: fixture.root + "/formsctl.yaml")
    try writeFile(
      ApprovalTests.descriptor.replacingOccurrences(of: "ON_CHANGE", with: "refuse"),
      to: fixture.root + "/schemas/claim/1.0.0.yaml")
    try fixture.reload()
    try fixture.store.create(kind: "claim", assignments: [try Assignment("id=c1"), try Assignment("amount=19.99")])
    try fixture.store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
    try fixture.store.approve(kind: "claim", id: "c1", identity: people.reviewer)
  }

  /// Order PO-1 with a quote attached.
  @Sendable static func orderWithQuote(_ fixture: StoreFixture) throws {
    try fixture.order("PO-1")
    try fixture.store.attach(
      kind: "purchase-order", id: "PO-1", name: "quote", bytes: AttachmentTests.pdf, fileName: "quote.pdf")
  }

  static let scenarios: [Scenario] = [
    Scenario(
      name: "get (access record)",
      prepare: { fixture in
        fixture.reopen(keyring: Keyring(recipients: [alice.recipient], identity: alice))
        try fixture.store.create(
          kind: "acquisition",
          base: fixture.json(#"{"id": "ACQ-2026-002", "title": "T", "agency": "GSA", "contracting_officer": "J. A."}"#))
      },
      run: { fixture in
        fixture.reopen(keyring: Keyring(recipients: [alice.recipient], identity: alice))
        let read = try fixture.store.read(kind: "acquisition", id: "ACQ-2026-002")
        try fixture.store.recordAccess([fixture.store.access(read, kind: "acquisition")].compactMap { $0 })
      }),
    Scenario(
      name: "approve", prepare: reviewedClaim,
      run: { fixture in try fixture.store.approve(kind: "claim", id: "c1", identity: people.officer) }),
    Scenario(
      name: "migrate voiding approvals",
      prepare: { fixture in
        try reviewedClaim(fixture)
        try fixture.store.approve(kind: "claim", id: "c1", identity: people.officer)
        let descriptor =
          try readFile(fixture.root + "/schemas/claim/1.0.0.yaml")
          .replacingOccurrences(of: "version: 1.0.0\n", with: "version: 2.0.0\nfrom: 1.0.0\n")
          .replacingOccurrences(of: "  amount:", with: "  total:")
          + "changes:\n  - rename: {from: amount, to: total}\n"
        try writeFile(descriptor, to: fixture.root + "/schemas/claim/2.0.0.yaml")
        try fixture.reload()
      },
      run: { fixture in
        _ = try Migrator(store: fixture.store).run(.init(snapshot: false, voidingApprovals: true))
      }),
    Scenario(
      name: "reject", prepare: reviewedClaim,
      run: { fixture in try fixture.store.reject(kind: "claim", id: "c1", identity: people.officer) }),
    Scenario(
      name: "attach (replacing a file of another type)",
      prepare: { fixture in
        try orderWithQuote(fixture)
        try fixture.store.attach(
          kind: "purchase-order", id: "PO-1", name: "receipt", bytes: AttachmentTests.png, fileName: "scan.png")
      },
      run: { fixture in
        try fixture.store.attach(
          kind: "purchase-order", id: "PO-1", name: "receipt", bytes: AttachmentTests.pdf, fileName: "r.pdf")
      }),
    Scenario(
      name: "detach", prepare: orderWithQuote,
      run: { fixture in try fixture.store.detach(kind: "purchase-order", id: "PO-1", name: "quote") }),
    Scenario(
      name: "mv with attachments", prepare: orderWithQuote,
      run: { fixture in _ = try fixture.store.move(kind: "purchase-order", from: "PO-1", to: "PO-9") }),
    Scenario(
      name: "rm with attachments", prepare: orderWithQuote,
      run: { fixture in _ = try fixture.store.delete(kind: "purchase-order", id: "PO-1") }),
    Scenario(
      name: "set", prepare: { try $0.form() },
      run: { fixture in
        try fixture.store.update(kind: "acquisition", id: "ACQ-2026-001", assignments: [try Assignment("title=Desks")])
      }),
    Scenario(
      name: "new",
      run: { fixture in
        try fixture.store.create(
          kind: "form", assignments: [try Assignment("form_type=SF30"), try Assignment("acquisition_id=ACQ-2026-001")])
      }),
    Scenario(
      name: "mv", prepare: { try twoFormsAndAnOrder($0) },
      run: { fixture in
        _ = try fixture.store.move(kind: "acquisition", from: "ACQ-2026-001", to: "ACQ-2026-009")
      }),
    Scenario(
      name: "rm with cascade", prepare: { try twoFormsAndAnOrder($0) },
      run: { fixture in
        _ = try fixture.store.delete(kind: "acquisition", id: "ACQ-2026-001")
      }),
    Scenario(
      name: "set --where", prepare: { try twoFormsAndAnOrder($0) },
      run: { fixture in
        _ = try fixture.store.update(
          kind: "form", matching: [draftForms], assignments: [try Assignment("form_number=SF 30-A")])
      }),
    Scenario(
      name: "rm --where", prepare: { try twoFormsAndAnOrder($0) },
      run: { fixture in
        _ = try fixture.store.delete(kind: "form", matching: [draftForms])
      }),
    Scenario(
      name: "import",
      prepare: { fixture in
        try fixture.order("PO-1")
        try writeFile(
          """
          {"purchase_order_number": "PO-1", "status": "received", "issue_date": "2026-11-01T09:00:00Z", "last_updated": "2026-11-20T09:00:00Z", "items": [{"product_item_id": 1, "quantity": 7, "last_updated": "2026-11-20T09:00:00Z"}]}
          {"purchase_order_number": "PO-2", "issue_date": "2026-11-02T09:00:00Z", "last_updated": "2026-11-20T09:00:00Z", "items": []}

          """, to: fixture.root + "/feed.ndjson")
      },
      run: { fixture in
        _ = try Importer(store: fixture.store).run(.init(kind: "purchase-order", feed: fixture.root + "/feed.ndjson"))
      }),
    Scenario(
      name: "migrate",
      prepare: { fixture in
        let legacy =
          URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
          .deletingLastPathComponent().path + "/examples/legacy/data"
        try fixture.acquisition("ACQ-2026-005")
        for file in ["purchase-orders/PO-000201.json", "forms/0adc90c4-92fd-5ab8-8b08-ceb26b213e40.json"] {
          try FileManager.default.createDirectory(
            atPath: FilePath(fixture.root + "/data/" + file).parent.string, withIntermediateDirectories: true)
          try FileManager.default.copyItem(atPath: legacy + "/" + file, toPath: fixture.root + "/data/" + file)
        }
      },
      run: { fixture in _ = try Migrator(store: fixture.store).run(.init()) }),
    Scenario(
      name: "snapshot create",
      prepare: { try snapshotThenChange($0) },
      run: { fixture in _ = try fixture.snapshots().create(reason: "manual", label: "again") },
      snapshotsAreTheChange: true),
    Scenario(
      name: "snapshot create --keep",
      prepare: { try snapshotThenChange($0) },
      run: { fixture in _ = try fixture.snapshots().create(reason: "manual", label: "kept", keep: true) },
      snapshotsAreTheChange: true),
    Scenario(
      name: "snapshot keep",
      prepare: { try snapshotThenChange($0) },
      run: { fixture in _ = try fixture.snapshots().setKept("latest", true, wait: 1) },
      snapshotsAreTheChange: true),
    Scenario(
      name: "snapshot keep --off",
      prepare: { fixture in
        try snapshotThenChange(fixture)
        _ = try fixture.snapshots().setKept("latest", true, wait: 1)
      },
      run: { fixture in _ = try fixture.snapshots().setKept("latest", false, wait: 1) },
      snapshotsAreTheChange: true),
    Scenario(
      name: "snapshot restore",
      prepare: { fixture in
        try snapshotThenChange(fixture)
        try fixture.order("PO-7")
      },
      run: { fixture in _ = try fixture.snapshots().restore("latest", wait: 1, command: "snapshot restore latest") }),
    Scenario(
      name: "snapshot pull",
      prepare: { fixture in
        // A copy of two snapshots outside the store, which keeps only the first. (Each snapshot
        // arrives whole or not at all; one pull of several may stop between two.)
        try snapshotThenChange(fixture)
        _ = try fixture.snapshots().create(reason: "manual", label: "second")
        try FileManager.default.createDirectory(atPath: pullSource(fixture), withIntermediateDirectories: true)
        _ = try fixture.snapshots().push(to: try Snapshots.Place(pullSource(fixture)), wait: 1)
        try Snapshots.removeTree(try fixture.snapshots().list()[1].directory)
      },
      run: { fixture in
        let pulled = try fixture.snapshots().pull(from: try Snapshots.Place(pullSource(fixture)), wait: 1)
        #expect(pulled.problems.isEmpty && pulled.copied.count == 1)
      },
      snapshotsAreTheChange: true),
    Scenario(
      name: "keys reseal",
      prepare: { fixture in
        fixture.reopen(keyring: Keyring(recipients: [alice.recipient, bob.recipient], identity: alice))
        for id in ["ACQ-2026-002", "ACQ-2026-003"] {
          try fixture.store.create(
            kind: "acquisition",
            base: fixture.json(#"{"id": "\#(id)", "title": "T", "agency": "GSA", "contracting_officer": "J. Alvarez"}"#)
          )
        }
      },
      run: { fixture in
        _ = try fixture.store.reseal("keys remove") { _ in [alice.recipient] }
      }),
    Scenario(
      name: "snapshot prune --sensitive",
      prepare: { fixture in
        // A snapshot holding a value in plain text, then the reseal that sealed it, then a snapshot without.
        fixture.reopen(keyring: Keyring(recipients: [alice.recipient], identity: alice))
        try fixture.store.create(
          kind: "acquisition",
          base: fixture.json(#"{"id": "ACQ-2026-002", "title": "T", "agency": "GSA", "contracting_officer": "J. A."}"#))
        let path = fixture.root + "/data/acquisitions/ACQ-2026-002.json"
        try writeFile(
          try readFile(path).replacingOccurrences(
            of: #""enc:v1:[^"]*""#, with: #""J. A.""#, options: .regularExpression),
          to: path)
        _ = try fixture.snapshots().create(reason: "manual", label: "plain")
        _ = try fixture.store.reseal("keys reseal") { _ in [alice.recipient] }
        fixture.advance(60)
        _ = try fixture.snapshots().create(reason: "manual", label: "sealed")
      },
      run: { fixture in
        _ = try fixture.snapshots().deleteExposed(registry: fixture.store.registry, dryRun: false, wait: 1)
      },
      snapshotsAreTheChange: true),
    Scenario(
      name: "recover", prepare: { try interruptedCascade($0) },
      run: { fixture in _ = try Store.recover(fixture.store.layout, wait: 1) },
      mustApply: true),
    Scenario(
      name: "recover --abandon", prepare: { try interruptedCascade($0) },
      run: { fixture in _ = try Store.recover(fixture.store.layout, wait: 1, abandon: true, now: fixture.store.now) },
      mustApply: true, abandon: true),
  ]

  /// Where the "snapshot pull" scenario's copies are: beside the stores, in the test's temporary
  /// directory (outside every store, and removed with it).
  static func pullSource(_ fixture: StoreFixture) -> String {
    (fixture.root as NSString).deletingLastPathComponent + "/pull-source"
  }

  /// A snapshot, then a change to the acquisition, a minute earlier than the operation.
  static func snapshotThenChange(_ fixture: StoreFixture) throws {
    try fixture.form()
    _ = try fixture.snapshots().create(reason: "manual")
    try fixture.store.update(kind: "acquisition", id: "ACQ-2026-001", assignments: [try Assignment("title=Desks")])
    fixture.advance(60)
  }

  /// A cascade committed and then stopped by its first rename: a journal for `recover`.
  static func interruptedCascade(_ fixture: StoreFixture) throws {
    try twoFormsAndAnOrder(fixture)
    let armed = FaultInjection.arm(FilePath(fixture.root), fault: .init(call: .rename, nth: 1, persistent: true))
    defer { armed.disarm() }
    let error = storeError { _ = try fixture.store.delete(kind: "acquisition", id: "ACQ-2026-001") }
    guard case .unfinished? = error else { throw StoreError.internalError("expected unfinished, got \(error as Any)") }
  }

  static func twoFormsAndAnOrder(_ fixture: StoreFixture) throws {
    try fixture.form()
    try fixture.form()
    try fixture.order("PO-1", acquisition: "ACQ-2026-001")
  }

  /// What an operation changes: every file of the store outside `.formsctl/` but the feed, the
  /// audit log, and (for `snapshot create`) how many snapshots there are. Sealed values are shown
  /// by whether Bob can open them (a reseal makes new envelopes every time).
  static func state(_ fixture: StoreFixture, snapshots: Bool) throws -> [String: String] {
    var out: [String: String] = [:]
    let root = fixture.root
    for path in try FileIO.files(under: FilePath(root), suffix: "") where !path.hasSuffix("/feed.ndjson") {
      // Attachments may be binary: those are compared by their hash.
      let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
      out[String(path.dropFirst(root.count))] =
        String(data: bytes, encoding: .utf8).map(sealedValuesNamed) ?? "binary, sha256 \(sha256Hex(Array(bytes)))"
    }
    // The feed's path names the copy, and a migration records how long it took.
    out["history"] = try readFile(AuditLog.path(fixture.store.layout)).replacingOccurrences(of: root, with: "STORE")
      .replacingOccurrences(of: #""duration_ms":[0-9]+"#, with: #""duration_ms":0"#, options: .regularExpression)
    if snapshots {
      out["snapshots"] = "\(try fixture.snapshots().list().count)"
      out["kept"] = try fixture.snapshots().list().filter(\.marked).map(\.name).joined(separator: " ")
    }
    return out
  }

  /// Every document of the store is valid.
  static func expectValid(_ fixture: StoreFixture, _ run: String) throws {
    let validator = StoreValidator(layout: fixture.store.layout, registry: fixture.store.registry) { $0 }
    let report = try validator.validate(try validator.allFiles())
    #expect(report.invalid == 0 && report.unreadable == 0, "\(run): \(report.diagnostics.map(\.compilerStyle))")
  }

  /// What differs between two states, for a message.
  static func difference(_ a: [String: String], _ b: [String: String]) -> String {
    Set(a.keys).union(b.keys).sorted().filter { a[$0] != b[$0] }.map { key in
      "\(key): \(a[key]?.suffix(300) ?? "missing") ≠ \(b[key]?.suffix(300) ?? "missing")"
    }.joined(separator: "; ")
  }

  static func sealedValuesNamed(_ text: String) -> String {
    guard text.contains("enc:v1:") else { return text }
    let pattern = try! NSRegularExpression(pattern: "enc:v1:[A-Za-z0-9+/=]+")
    var result = text
    for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).reversed() {
      let range = Range(match.range, in: text)!
      let opens = (try? Envelope.open(String(text[range]), with: bob)) != nil
      result.replaceSubrange(Range(match.range, in: result)!, with: opens ? "sealed-for-bob" : "sealed-not-for-bob")
    }
    return result
  }

  /// Files a finished or rolled-back operation must not leave: the journal's, staged copies,
  /// temporaries, write probes, unfinished snapshots.
  static func leftovers(_ root: String) throws -> [String] {
    var found: [String] = []
    let enumerator = FileManager.default.enumerator(atPath: root)
    while let relative = enumerator?.nextObject() as? String {
      let name = FilePath(relative).name
      if relative.hasPrefix(".formsctl/journal/") || name.hasSuffix(".formsctl-journal")
        || AtomicWriter.isTemporaryName(name) || name.hasPrefix(Journal.probePrefix) || name.hasPrefix(".creating-")
        || name.hasPrefix(".deleting-") || name.hasPrefix(".pulling-")
      {
        found.append(relative)
      }
    }
    return found
  }

  @Test(arguments: scenarios)
  func everyFailedCallLeavesTheStoreWhole(_ scenario: Scenario) throws {
    try withTemporaryDirectory { dir in
      let pristine = try StoreFixture(dir + "/pristine")
      try pristine.acquisition()
      try scenario.prepare(pristine)
      let before = try Self.state(pristine, snapshots: scenario.snapshotsAreTheChange)
      try Self.expectValid(pristine, "\(scenario.name), before")

      // The reference run counts the calls and gives the state after.
      let reference = try pristine.copy(to: dir + "/reference")
      let counter = FaultInjection.arm(FilePath(reference.root))
      try scenario.run(reference)
      counter.disarm()
      let calls = counter.trace.count
      let after = try Self.state(reference, snapshots: scenario.snapshotsAreTheChange)
      #expect(after != before, "\(scenario.name) changes the store")
      try Self.expectValid(reference, "\(scenario.name), after")
      #expect(calls > 0)

      var outcomes: [String: Int] = [:]
      let errnos = [EIO, ENOSPC, EACCES]
      for nth in 1...calls {
        for persistent in [false, true] {
          let run =
            "\(scenario.name), call \(nth) of \(calls) (\(counter.trace[nth - 1].call) "
            + "\(counter.trace[nth - 1].path.string.dropFirst(reference.root.count))) failing \(persistent ? "from then on" : "once")"
          let fixture = try pristine.copy(to: dir + "/run")
          defer { try? FileManager.default.removeItem(atPath: dir + "/run") }
          let armed = FaultInjection.arm(
            FilePath(fixture.root), fault: .init(nth: nth, persistent: persistent, errno: errnos[nth % errnos.count]))
          let failure = storeError { try scenario.run(fixture) }
          armed.disarm()
          if let failure {
            #expect(failure.kind != .internalError, "\(run): \(failure)")
          }
          // Recovery, without faults, must always succeed and leave nothing behind.
          let settled = storeError {
            _ = try Store.recover(fixture.store.layout, wait: 1, abandon: scenario.abandon, now: fixture.store.now)
          }
          if let error = settled {
            Issue.record("\(run): recover failed: \(error)")
            continue
          }
          let left = try Self.leftovers(fixture.root)
          #expect(left.isEmpty, "\(run): left \(left)")
          let state = try Self.state(fixture, snapshots: scenario.snapshotsAreTheChange)
          let applied = state == after
          #expect(
            applied || (state == before && !scenario.mustApply),
            "\(run): neither wholly applied nor wholly absent: \(Self.difference(state, after))")
          #expect(failure != nil || applied, "\(run): reported success, but the change is not there")
          // The state holds every file validation reads (not `.formsctl/`): one byte for byte the
          // one before or after is as valid as it, checked once above; any other is already a
          // failure, validated for the message. Snapshots live in `.formsctl/`: each run verifies them.
          if state != before && state != after { try Self.expectValid(fixture, run) }
          let snapshots = fixture.snapshots()
          #expect(try snapshots.verify(snapshots.list()).isEmpty, "\(run): a snapshot does not verify")
          let outcome = failure == nil ? "succeeded" : applied ? "failed, finished by recover" : "rolled back"
          outcomes[outcome, default: 0] += 1
        }
      }
      print(
        "fault injection: \(scenario.name): \(calls) calls, \(2 * calls) runs: "
          + outcomes.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))
    }
  }

  @Test func aCountedCallFailsOnceOrFromThenOnAndOnlyInsideItsScope() throws {
    try withTemporaryDirectory { dir in
      try writeFile("x", to: dir + "/inside/a")
      try writeFile("x", to: dir + "/outside/a")
      let armed = FaultInjection.arm(
        FilePath(dir + "/inside"), fault: .init(call: .read, nth: 2, persistent: false, errno: EIO))
      defer { armed.disarm() }
      _ = try FileIO.read(FilePath(dir + "/inside/a"))
      #expect(throws: StoreError.io(dir + "/inside/a", operation: "read", errno: Errno(EIO))) {
        try FileIO.read(FilePath(dir + "/inside/a"))
      }
      _ = try FileIO.read(FilePath(dir + "/inside/a"))
      _ = try FileIO.read(FilePath(dir + "/outside/a"))
      #expect(armed.failed == 1)
      #expect(armed.trace.map(\.call) == [.open, .read, .open, .read, .open, .read])
    }
  }
}

extension StoreFixture {
  /// A copy of this fixture's store at `root`, opened with the same schemas, clock and ids.
  /// `cp -a`: hard links between snapshots stay links, as in the store, and a copy costs less
  /// than FileManager's.
  func copy(to root: String) throws -> StoreFixture {
    let cp = Process()
    cp.executableURL = URL(fileURLWithPath: "/bin/cp")
    cp.arguments = ["-a", "--", self.root, root]
    try cp.run()
    cp.waitUntilExit()
    guard cp.terminationStatus == 0 else { throw StoreError.internalError("cp -a \(self.root) \(root) failed") }
    return try StoreFixture(copyOf: self, at: root)
  }

  /// The store's snapshots, on the fixture's clock.
  func snapshots() -> Snapshots {
    var snapshots = Snapshots(layout: store.layout)
    snapshots.now = store.now
    return snapshots
  }
}
