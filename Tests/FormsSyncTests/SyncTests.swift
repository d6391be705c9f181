import FormsCore
import FormsStore
import FormsSync
import FormsTestSupport
import Foundation
import Testing

/// `formsctl sync` against a real PostgreSQL, each test its own server on its own port and
/// cluster, so they run side by side (skipped with a message only outside CI when PostgreSQL is
/// not installed).
@Suite(PostgresServer.enabled)
struct SyncTests {
  static let descriptor = """
    kind: claim
    version: 1.0.0
    directory: claims
    timestamps:
      updated: changed
    fields:
      id: string
      amount: {type: decimal, min: 0, scale: 2}
      note: {type: string, optional: true}
      payee: {type: string, optional: true, sensitive: true}
      changed: {type: datetime, optional: true}
      status: {type: enum, values: [draft, submitted, paid], default: draft}
    workflow:
      field: status
      transitions:
        draft: [submitted]
        submitted: [paid]

    """

  static let alice = Identity.generate()

  /// A store of claims c1..c3 (amounts 10.50, 20.00, 30.25), sealed for Alice.
  func store(_ dir: String) throws -> Store {
    try writeFile("formsctl: 1\nencryption:\n  recipients: [\(Self.alice.recipient)]\n", to: dir + "/formsctl.yaml")
    try writeFile(Self.descriptor, to: dir + "/schemas/claim/1.0.0.yaml")
    let store = try opened(dir)
    for (id, amount) in [("c1", "10.50"), ("c2", "20.00"), ("c3", "30.25")] {
      try store.create(
        kind: "claim", assignments: [try Assignment("id=\(id)"), try Assignment("amount=\(amount)")])
    }
    return store
  }

  /// The store at `dir`, opened with Alice's identity (its clock `ahead` seconds ahead).
  func opened(_ dir: String, ahead: TimeInterval = 0) throws -> Store {
    var configuration = Store.Configuration()
    configuration.user = "tester"
    configuration.now = { Date().addingTimeInterval(ahead) }
    let opened = try Store.open(at: dir, configuration: configuration)
    let store = Store(
      layout: opened.layout, registry: opened.registry, configuration: configuration,
      keyring: Keyring(recipients: [Self.alice.recipient], identity: Self.alice))
    #expect(store.registry.diagnostics.isEmpty, "\(store.registry.diagnostics.map(\.compilerStyle))")
    return store
  }

  func withServer(_ body: (PostgresServer, String) throws -> Void) throws {
    let server = try PostgresServer()
    defer { server.stop() }
    try withTemporaryDirectory { dir in try body(server, dir) }
  }

  func sync(_ store: Store, _ server: PostgresServer, schema: String = "formsctl") throws -> Sync {
    try Sync(store: store, url: try DatabaseURL(server.url), schema: schema)
  }

  func file(_ dir: String, _ id: String) throws -> String { try readFile(dir + "/data/claims/\(id).json") }

  @Test func bothWaysMergesConflictsAndASecondRunChangesNothing() throws {
    try withServer { server, dir in
      let store = try store(dir)
      try store.update(kind: "claim", id: "c1", assignments: [try Assignment("payee=Quinn Secretname")])
      let syncer = try sync(store, server)
      #expect(try syncer.initialize() == ["claim_v1_0_0"])
      // First run: every document is pushed; the database holds the sealed envelope only.
      let first = try syncer.run()
      #expect(first.map(\.action) == ["pushed", "pushed", "pushed"], "\(first)")
      #expect(!(try server.psql("SELECT document::text FROM formsctl.claim")).contains("Secretname"))
      #expect(try server.psql("SELECT canonical FROM formsctl.claim WHERE id = 'c2'") == (try file(dir, "c2")) + "\n")
      // The typed view: exact decimals, enums as text.
      #expect(try server.psql("SELECT sum(amount), min(status) FROM formsctl.claim_v1_0_0") == "60.75|draft\n")
      #expect(!(try server.psql("SELECT * FROM formsctl.claim_v1_0_0 LIMIT 0")).contains("payee"))
      // A second run changes nothing on either side.
      let revisions = try server.psql("SELECT string_agg(id || revision, ',' ORDER BY id) FROM formsctl.claim")
      let history = try readFile(dir + "/.formsctl/history.jsonl")
      #expect(try syncer.run() == [])
      #expect(try server.psql("SELECT string_agg(id || revision, ',' ORDER BY id) FROM formsctl.claim") == revisions)
      #expect(try readFile(dir + "/.formsctl/history.jsonl") == history)

      // An SQL writer changes c2; formsctl changes c3: each goes the other way.
      try server.psql(
        "UPDATE formsctl.claim SET document = jsonb_set(document, '{note}', '\"from SQL\"') WHERE id = 'c2'")
      try store.update(kind: "claim", id: "c3", assignments: [try Assignment("note=from here")])
      let second = try syncer.run()
      #expect(second.map(\.action) == ["pulled", "pushed"], "\(second)")
      #expect(try file(dir, "c2").contains("\"note\": \"from SQL\""))
      #expect(try server.psql("SELECT document->>'note' FROM formsctl.claim WHERE id = 'c3'") == "from here\n")
      let log = try AuditLog.query(store.layout, AuditLog.Query(kind: "claim", id: "c2")).records
      #expect(log.first?.operation == "sync" && log.first?.user == "formsctl", "\(log.map(\.json))")
      #expect(try syncer.run() == [])

      // Both change c1, in different fields: merged on both sides.
      try server.psql("UPDATE formsctl.claim SET document = jsonb_set(document, '{note}', '\"there\"') WHERE id = 'c1'")
      try store.update(kind: "claim", id: "c1", assignments: [try Assignment("amount=11.00")])
      #expect(try syncer.run().map(\.action) == ["merged"])
      #expect(try file(dir, "c1").contains("\"note\": \"there\"") && (try file(dir, "c1")).contains("11.00"))
      #expect(try server.psql("SELECT document->>'amount' FROM formsctl.claim WHERE id = 'c1'") == "11.00\n")
      #expect(try syncer.run() == [])

      // Both change the same field: a conflict with both values; resolved with the database's.
      try server.psql("UPDATE formsctl.claim SET document = jsonb_set(document, '{note}', '\"B\"') WHERE id = 'c3'")
      try store.update(kind: "claim", id: "c3", assignments: [try Assignment("note=A")])
      let conflict = try syncer.run()
      #expect(
        conflict.map(\.action) == ["conflict"] && conflict[0].detail == #"/note: here "A", there "B""#, "\(conflict)")
      #expect(try Sync.status(store).rows.first { $0[1] == "c3" }?[2] == "conflict")
      let listed = try store.list(
        kind: "claim", query: Store.Query(filters: [try ExpressionParser.parse(#"_sync == "conflict""#)]))
      #expect(listed.documents.map(\.id) == ["c3"])
      #expect(try syncer.run().map(\.action) == ["waiting"])
      #expect(try syncer.resolve(kind: "claim", id: "c3", .theirs).action == "resolved")
      #expect(try file(dir, "c3").contains("\"note\": \"B\""))
      #expect(try syncer.run() == [])
    }
  }

  /// Two copies of a store (a clone: the same descriptors, its own files and sync records) meet
  /// through one database: each one's changes reach the other, a document changed in both merges,
  /// and both end with the same files and nothing left to do. The clones' clocks differ by an
  /// hour: a change keeps the time it was made in the clone that made it.
  @Test func twoClonesSyncThroughOneDatabase() throws {
    try withServer { server, dir in
      let a = try store(dir + "/a")
      try writeFile(
        "formsctl: 1\nencryption:\n  recipients: [\(Self.alice.recipient)]\n", to: dir + "/b/formsctl.yaml")
      try writeFile(Self.descriptor, to: dir + "/b/schemas/claim/1.0.0.yaml")
      let b = try opened(dir + "/b", ahead: 3600)
      _ = try sync(a, server).initialize()
      #expect(try sync(a, server).run().map(\.action) == ["pushed", "pushed", "pushed"])
      #expect(try sync(b, server).run().map(\.action) == ["pulled", "pulled", "pulled"])
      for id in ["c1", "c2", "c3"] { #expect(try file(dir + "/a", id) == (try file(dir + "/b", id))) }
      try a.update(kind: "claim", id: "c1", assignments: [try Assignment("note=from a")])
      try b.update(kind: "claim", id: "c1", assignments: [try Assignment("amount=99.00")])
      try b.update(kind: "claim", id: "c2", assignments: [try Assignment("note=from b")])
      #expect(try sync(a, server).run().map(\.action) == ["pushed"])
      #expect(try sync(b, server).run().map(\.action) == ["merged", "pushed"])
      #expect(try sync(a, server).run().map(\.action) == ["pulled", "pulled"])
      for id in ["c1", "c2", "c3"] { #expect(try file(dir + "/a", id) == (try file(dir + "/b", id)), "\(id)") }
      #expect(
        try file(dir + "/a", "c1").contains("\"note\": \"from a\"") && (try file(dir + "/a", "c1")).contains("99.00"))
      #expect(try sync(a, server).run() == [])
      #expect(try sync(b, server).run() == [])
    }
  }

  /// A migration here is pushed like any change; a row a writer on the database still writes at
  /// the old version is migrated on its way in (alone, and as the other side of a merge), and
  /// its row gets the migrated document.
  @Test func aMigrationIsPushedAndRowsWrittenAtTheOldVersionAreMigratedOnTheWayIn() throws {
    try withServer { server, dir in
      _ = try store(dir)
      _ = try sync(try opened(dir), server).initialize()
      #expect(try sync(try opened(dir), server).run().count == 3)
      try writeFile(
        Self.descriptor.replacingOccurrences(of: "version: 1.0.0", with: "version: 1.1.0\nfrom: 1.0.0")
          .replacingOccurrences(of: "  note:", with: "  remark:")
          + "changes:\n  - rename: {from: note, to: remark, if_present: true}\n", to: dir + "/schemas/claim/1.1.0.yaml")
      let store = try opened(dir)
      try store.update(kind: "claim", id: "c1", assignments: [try Assignment("note=first")])
      #expect(try Migrator(store: store).run(Migrator.Request(snapshot: false)).migrated == 3)
      let syncer = try sync(store, server)
      _ = try syncer.initialize()
      #expect(try syncer.run().map(\.action) == ["pushed", "pushed", "pushed"])
      #expect(try server.psql("SELECT string_agg(DISTINCT schema_version, ',') FROM formsctl.claim") == "1.1.0\n")
      #expect(try server.psql("SELECT document->>'remark' FROM formsctl.claim WHERE id = 'c1'") == "first\n")
      // A writer that still writes 1.0.0: c2 alone, c1 while it changes here too.
      for (id, note) in [("c2", "old writer"), ("c1", "old and here")] {
        try server.psql(
          """
          UPDATE formsctl.claim SET schema_version = '1.0.0', document = (document - 'remark')
          || jsonb_build_object('_schema', 'claim@1.0.0', 'note', '\(note)') WHERE id = '\(id)'
          """)
      }
      try store.update(kind: "claim", id: "c1", assignments: [try Assignment("amount=12.00")])
      let run = try syncer.run()
      #expect(run.map(\.action) == ["merged", "pulled"], "\(run)")
      for (id, remark) in [("c1", "old and here"), ("c2", "old writer")] {
        let text = try file(dir, id)
        #expect(text.contains("\"_schema\": \"claim@1.1.0\"") && text.contains("\"remark\": \"\(remark)\""), "\(text)")
        #expect(!text.contains("\"note\""), "\(text)")
        #expect(
          try server.psql(
            "SELECT schema_version || ' ' || (document->>'remark') FROM formsctl.claim WHERE id = '\(id)'")
            == "1.1.0 \(remark)\n")
      }
      #expect(try file(dir, "c1").contains("12.00"))
      #expect(try syncer.run() == [])
    }
  }

  @Test func invalidRowsAreRejectedAndDeletionsFollowTheBound() throws {
    try withServer { server, dir in
      let store = try store(dir)
      let syncer = try sync(store, server)
      _ = try syncer.initialize()
      _ = try syncer.run()
      // An invalid amount: rejected with its reason, nothing written here, still rejected next time.
      let before = try file(dir, "c2")
      try server.psql("UPDATE formsctl.claim SET document = jsonb_set(document, '{amount}', '-5') WHERE id = 'c2'")
      let rejected = try syncer.run()
      #expect(rejected.map(\.action) == ["rejected"] && rejected[0].detail.contains("amount"), "\(rejected)")
      #expect(try file(dir, "c2") == before)
      #expect(try syncer.run().map(\.action) == ["waiting"])
      #expect(try Sync.status(store).rows.first { $0[1] == "c2" }?[2] == "rejected")
      // Fixed in the database: pulled.
      try server.psql("UPDATE formsctl.claim SET document = jsonb_set(document, '{amount}', '5.00') WHERE id = 'c2'")
      #expect(try syncer.run().map(\.action) == ["pulled"])
      // One row deleted there: deleted here through the write path.
      try server.psql("DELETE FROM formsctl.claim WHERE id = 'c1'")
      #expect(try syncer.run().map(\.action) == ["deleted-here"])
      #expect(!FileManager.default.fileExists(atPath: dir + "/data/claims/c1.json"))
      // A document deleted here is deleted there.
      _ = try store.delete(kind: "claim", id: "c3")
      #expect(try syncer.run(.push).map(\.action) == ["deleted-there"])
      #expect(try server.psql("SELECT string_agg(id, ',') FROM formsctl.claim") == "c2\n")
      // The last one deleted there: all of the kind, beyond the bound, refused whole (65).
      try server.psql("DELETE FROM formsctl.claim")
      let bounded = #expect(throws: SyncError.self) { try syncer.run() }
      #expect(
        bounded
          == .deletionBeyondBound(
            kind: "claim", removing: 1, of: 1, inDatabase: false,
            reason: try #require(
              PruneBound.standard.refusal(removing: 1, of: 1, feedRecords: 0, explicit: false))))
      #expect(FileManager.default.fileExists(atPath: dir + "/data/claims/c2.json"))
      #expect(try syncer.run(maxDelete: .count(1)).map(\.action) == ["deleted-here"])
    }
  }

  /// A manifest and two kinds: payers, and claims that name one (`on_delete` as given).
  func writePayersAndClaims(_ dir: String, onDelete: String) throws {
    try writeFile("formsctl: 1\n", to: dir + "/formsctl.yaml")
    try writeFile(
      "kind: payer\nversion: 1.0.0\ndirectory: payers\nfields:\n  id: string\n", to: dir + "/schemas/payer/1.0.0.yaml")
    try writeFile(
      """
      kind: claim
      version: 1.0.0
      directory: claims
      fields:
        id: string
        payer: string
      relations:
        - {field: payer, kind: payer, on_delete: \(onDelete)}

      """, to: dir + "/schemas/claim/1.0.0.yaml")
  }

  @Test func aDeletionTheRelationsRestrictIsRejectedAndReported() throws {
    try withServer { server, dir in
      try writePayersAndClaims(dir, onDelete: "restrict")
      let store = try Store.open(at: dir)
      try store.create(kind: "payer", assignments: [try Assignment("id=p1")])
      try store.create(kind: "payer", assignments: [try Assignment("id=p2")])
      try store.create(kind: "claim", assignments: [try Assignment("id=c1"), try Assignment("payer=p1")])
      let syncer = try sync(store, server)
      #expect(try syncer.initialize() == ["claim_v1_0_0", "payer_v1_0_0"])
      _ = try syncer.run()
      // p1 deleted in the database: a claim here still names it, so the store refuses; reported, kept.
      try server.psql("DELETE FROM formsctl.payer WHERE id = 'p1'")
      let entries = try syncer.run()
      #expect(entries.map(\.action) == ["rejected"] && entries[0].detail.contains("claim c1"), "\(entries)")
      #expect(FileManager.default.fileExists(atPath: dir + "/data/payers/p1.json"))
      #expect(try Sync.status(store).rows.first { $0[1] == "p1" }?[2] == "rejected")
      #expect(try syncer.run().map(\.action) == ["waiting"])
    }
  }

  @Test func aDatabaseRestartIsTryAgainAndTheNextRunConverges() throws {
    try withServer { server, dir in
      let store = try store(dir)
      let syncer = try sync(store, server)
      _ = try syncer.initialize()
      _ = try syncer.run()
      try store.update(kind: "claim", id: "c1", assignments: [try Assignment("note=while it was down")])
      server.pause()
      let down = #expect(throws: SyncError.self) { _ = try syncer.run() }
      #expect(down?.kind == .tryAgain && down?.description.contains("cannot reach the database") == true)
      #expect(try Sync.status(store).rows.first { $0[1] == "c1" }?[2] == "local-changed")
      try server.resume()
      #expect(try syncer.run().map(\.action) == ["pushed"])
      #expect(try server.psql("SELECT document->>'note' FROM formsctl.claim WHERE id = 'c1'") == "while it was down\n")
      #expect(try syncer.run() == [])
    }
  }

  /// A server that takes TCP connections only over TLS: `sslmode=require` and `verify-full`
  /// with the server's certificate as root sync; no TLS, or a root that does not verify the
  /// server, is refused (65) in one line and nothing is written. A server without TLS refuses
  /// `require` the same way.
  @Test func tlsIsUsedWhenTheURLAsksForItAndACertificateThatDoesNotVerifyIsRefused() throws {
    let server = try PostgresServer(tls: true)
    defer { server.stop() }
    try withTemporaryDirectory { dir in
      let store = try store(dir + "/store")
      func syncer(_ query: String) throws -> Sync {
        try Sync(store: store, url: try DatabaseURL(server.url(query: query)))
      }
      let plain = #expect(throws: SyncError.self) { _ = try syncer("sslmode=disable").initialize() }
      #expect(
        plain?.kind == .badInput && plain?.description.contains("no encryption") == true,
        "\(String(describing: plain))")
      try PostgresServer.makeCertificate(at: dir + "/other", subject: "127.0.0.1")
      let stranger = #expect(throws: SyncError.self) {
        _ = try syncer("sslmode=verify-full&sslrootcert=\(dir)/other.crt").initialize()
      }
      #expect(
        stranger?.kind == .badInput && stranger?.description.contains("TLS handshake") == true
          && stranger?.description.contains("\n") == false, "\(String(describing: stranger))")
      _ = try syncer("sslmode=require").initialize()
      #expect(try syncer("sslmode=require").run().count == 3)
      try store.update(kind: "claim", id: "c1", assignments: [try Assignment("note=verified")])
      #expect(try syncer("sslmode=verify-full&sslrootcert=\(server.certificate)").run().map(\.action) == ["pushed"])
      #expect(try server.psql("SELECT document->>'note' FROM formsctl.claim WHERE id = 'c1'") == "verified\n")
    }
    try withServer { server, dir in
      let store = try store(dir)
      let refused = #expect(throws: SyncError.self) {
        _ = try Sync(store: store, url: try DatabaseURL(server.url(query: "sslmode=require"))).initialize()
      }
      #expect(refused == .tlsUnsupported(server: "127.0.0.1:\(server.port)", mode: "require"))
    }
  }

  @Test func badInputsAreOneLineErrorsWithTheirExitCodes() throws {
    try withServer { server, dir in
      let store = try store(dir)
      let url = { (text: String) in try DatabaseURL(text) }
      #expect(throws: SyncError.self) { _ = try url("mysql://x@localhost/db") }
      #expect(SyncError.noDatabase.kind == .usage)
      // No schema yet: refused (65).
      let missing = #expect(throws: SyncError.self) { _ = try sync(store, server).run() }
      #expect(missing == .notInitialized(database: "postgres", schema: "formsctl"), "\(String(describing: missing))")
      #expect(missing?.kind == .badInput)
      // A wrong password (65) and a server nobody listens on (75).
      let wrong = try Sync(store: store, url: try url(server.url.replacingOccurrences(of: "secret", with: "nope")))
      let refused = #expect(throws: SyncError.self) { _ = try wrong.initialize() }
      #expect(
        refused?.kind == .badInput && refused?.description.contains("password") == true,
        "\(String(describing: refused))")
      let nobody = try Sync(
        store: store, url: try url("postgresql://formsctl:secret@127.0.0.1:1/postgres?sslmode=disable"))
      let unreachable = #expect(throws: SyncError.self) { _ = try nobody.run() }
      #expect(unreachable?.kind == .tryAgain, "\(String(describing: unreachable))")
      // A table changed by hand: refused before anything is synced.
      let syncer = try sync(store, server)
      _ = try syncer.initialize()
      try server.psql("ALTER TABLE formsctl.claim DROP COLUMN canonical")
      let changed = #expect(throws: SyncError.self) { _ = try syncer.run() }
      #expect(
        changed?.description.contains("changed by hand: column canonical is missing") == true,
        "\(String(describing: changed))")
      #expect(try server.psql("SELECT count(*) FROM formsctl.claim") == "0\n")
    }
  }
}
