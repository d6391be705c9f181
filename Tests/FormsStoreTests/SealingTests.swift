import FormsCore
import FormsTestSupport
import Foundation
import Testing

@testable import FormsStore

/// Envelopes and the keyring, in-process: what is sealed opens only for its recipients, a changed
/// byte is caught, unchanged values keep their envelope, and without an identity values pass
/// through the write path untouched.
struct SealingTests {
  let alice = Identity.generate()
  let bob = Identity.generate()
  let eve = Identity.generate()

  @Test func anEnvelopeOpensForEachRecipientAndNobodyElse() throws {
    let text = try Envelope.seal(Data(#""J. Alvarez""#.utf8), to: [alice.recipient, bob.recipient])
    #expect(text.hasPrefix("enc:v1:") && !text.contains("Alvarez"))
    #expect(try Envelope.open(text, with: alice) == Data(#""J. Alvarez""#.utf8))
    #expect(try Envelope.open(text, with: bob) == Data(#""J. Alvarez""#.utf8))
    #expect(throws: Envelope.Failure.notARecipient) { try Envelope.open(text, with: eve) }
    #expect(
      try Envelope.seal(Data("1".utf8), to: [alice.recipient]) != Envelope.seal(Data("1".utf8), to: [alice.recipient]),
      "a fresh key each time")
  }

  @Test(arguments: [10, 40, 60, 120])
  func aChangedByteDoesNotAuthenticate(_ index: Int) throws {
    let text = try Envelope.seal(Data(#"{"name":"J. Alvarez"}"#.utf8), to: [alice.recipient])
    var bytes = Data(base64Encoded: String(text.dropFirst(7)))!
    bytes[index % bytes.count] ^= 0x01
    let tampered = "enc:v1:" + bytes.base64EncodedString()
    #expect(throws: (any Error).self) { try Envelope.open(tampered, with: alice) }
    #expect(throws: Envelope.Failure.malformed) { try Envelope.open("enc:v1:AAAA", with: alice) }
  }

  @Test func recipientsAndIdentitiesRoundTripAndBadTextIsRefused() throws {
    #expect(Recipient(alice.recipient.description) == alice.recipient)
    #expect(Recipient("x25519:short") == nil && Recipient("age1abc") == nil)
    let parsed = try Identity(fileText: alice.fileText(created: "2026-11-22T00:00:00Z"), path: "id")
    #expect(parsed.recipient == alice.recipient)
    #expect(throws: StoreError.self) { try Identity(fileText: "# nothing here\n", path: "id") }
  }

  @Test func anIdentityOthersMayReadOrInsideTheStoreIsRefused() throws {
    try withTemporaryDirectory { dir in
      let path = dir + "/identity"
      try alice.write(to: path, created: "2026-11-22T00:00:00Z")
      #expect(try Keyring.readIdentity(path, store: nil).recipient == alice.recipient)
      chmod(path, 0o644)
      let open = #expect(throws: StoreError.self) { try Keyring.readIdentity(path, store: nil) }
      #expect(open?.description.contains("chmod 600") == true)
      #expect(throws: StoreError.self) { try alice.write(to: path, created: "") }
      let fixture = try StoreFixture(dir + "/store")
      let inside = #expect(throws: StoreError.self) { try alice.write(to: fixture.root + "/identity", created: "") }
      #expect(inside?.description.contains("inside the store") == true)
      // Nor through a link that leads into it (the link outside, its target a store's directory).
      try FileManager.default.createSymbolicLink(atPath: dir + "/link", withDestinationPath: fixture.root + "/data")
      let linked = #expect(throws: StoreError.self) { try alice.write(to: dir + "/link/forms/k.json", created: "") }
      #expect(linked?.description.contains("inside the store") == true)
      #expect(!FileManager.default.fileExists(atPath: fixture.root + "/data/forms/k.json"))
    }
  }

  /// A store with acquisition 1.1.0 (contracting_officer is sensitive), sealed for Alice and Bob.
  func sealedStore(_ dir: String, identity: Identity?) throws -> StoreFixture {
    let fixture = try StoreFixture(dir + "/store")
    fixture.reopen(keyring: Keyring(recipients: [alice.recipient, bob.recipient], identity: identity))
    return fixture
  }

  @Test func theWritePathSealsAndKeepsUnchangedEnvelopes() throws {
    try withTemporaryDirectory { dir in
      let fixture = try sealedStore(dir, identity: alice)
      try fixture.store.create(
        kind: "acquisition",
        base: fixture.json(
          #"{"id": "ACQ-2026-001", "title": "Chairs", "agency": "GSA", "contracting_officer": "J. Alvarez"}"#))
      let first = String(decoding: try fixture.bytes("acquisition", "ACQ-2026-001"), as: UTF8.self)
      #expect(!first.contains("Alvarez") && first.contains("\"contracting_officer\": \"enc:v1:"))
      #expect(try fixture.read("acquisition", "ACQ-2026-001")["contracting_officer"] == .string("J. Alvarez"))
      try fixture.store.update(kind: "acquisition", id: "ACQ-2026-001", assignments: [try Assignment("title=Desks")])
      let second = String(decoding: try fixture.bytes("acquisition", "ACQ-2026-001"), as: UTF8.self)
      #expect(second.contains("Desks"))
      let envelope = { (text: String) in text.split(separator: "\n").first { $0.contains("contracting_officer") } }
      #expect(envelope(first) == envelope(second), "an unchanged value keeps its envelope")
      // Without an identity: the rest of the document can change; the envelope stays as it is.
      fixture.reopen(keyring: Keyring(recipients: [alice.recipient, bob.recipient], identity: nil))
      #expect(SealedText.isSealed(try fixture.read("acquisition", "ACQ-2026-001")["contracting_officer"]!))
      try fixture.store.update(kind: "acquisition", id: "ACQ-2026-001", assignments: [try Assignment("title=Tables")])
      #expect(
        envelope(String(decoding: try fixture.bytes("acquisition", "ACQ-2026-001"), as: UTF8.self)) == envelope(first))
      #expect(!(try FileIO.read(FilePath(fixture.root + "/.formsctl/history.jsonl"))).contains(Array("Alvarez".utf8)))
    }
  }

  @Test func readsOfOpenedValuesAreRecordedAsAccess() throws {
    try withTemporaryDirectory { dir in
      let fixture = try sealedStore(dir, identity: alice)
      try fixture.store.create(
        kind: "acquisition",
        base: fixture.json(
          #"{"id": "ACQ-2026-001", "title": "Chairs", "agency": "GSA", "contracting_officer": "J. Alvarez"}"#))
      let store = fixture.store
      func accesses() throws -> [JSONValue] {
        try AuditLog.query(store.layout, AuditLog.Query(kind: "acquisition", access: true)).records.map(\.json)
      }
      // Reading alone records nothing; showing does, before it shows.
      let read = try store.read(kind: "acquisition", id: "ACQ-2026-001")
      #expect(read.opened == [JSONPointer("/contracting_officer")])
      #expect(try accesses().isEmpty)
      #expect(store.access(read, kind: "acquisition", shown: [try #require(JSONPointer("/title"))]) == nil)
      try store.recordAccess([try #require(store.access(read, kind: "acquisition"))])
      // list: whole documents record every opened value; columns only theirs.
      _ = try store.listing(kind: "acquisition", query: Store.Query())
      let title = try #require(FilterExpression.Path("title"))
      _ = try store.listing(kind: "acquisition", query: Store.Query(), columns: [("title", title)])
      let records = try accesses()
      #expect(records.count == 2, "\(records)")
      let entry = try #require(records.first?["access"]?.arrayValue?.first)
      #expect(entry["id"] == .string("ACQ-2026-001") && entry["pointers"] == .array([.string("/contracting_officer")]))
      #expect(records.first?["operation"] == .string("access") && records.first?["documents"] == nil)
      // Access records are not changes: the plain log leaves them out, and holds no plain text.
      let changes = try AuditLog.query(store.layout, AuditLog.Query(kind: "acquisition")).records
      #expect(changes.count == 1 && changes[0].operation == "new")
      #expect(!(try FileIO.read(FilePath(fixture.root + "/.formsctl/history.jsonl"))).contains(Array("Alvarez".utf8)))
      // A diff records every opened value it compared, shown or not: equal values are an answer too.
      let report = try store.comparison(kind: "acquisition", read, read)
      #expect(try report.records.isEmpty && accesses().count == 3)
      // Without an identity nothing opens, and nothing is recorded.
      fixture.reopen(keyring: Keyring(recipients: [alice.recipient, bob.recipient], identity: nil))
      _ = try fixture.store.listing(kind: "acquisition", query: Store.Query())
      #expect(try accesses().count == 3)
    }
  }

  @Test func findingsAboutASensitiveValueDoNotQuoteIt() throws {
    try withTemporaryDirectory { dir in
      let fixture = try sealedStore(dir, identity: alice)
      let error = #expect(throws: StoreError.self) {
        try fixture.store.create(
          kind: "acquisition",
          base: fixture.json(
            #"{"id": "ACQ-2026-001", "title": "Chairs", "agency": "GSA", "contracting_officer": 7}"#))
      }
      guard case .invalidDocument(_, let diagnostics)? = error else {
        Issue.record("\(String(describing: error))")
        return
      }
      #expect(
        diagnostics.map(\.rule) == ["type"] && diagnostics[0].message.contains("sensitive value"), "\(diagnostics)")
    }
  }

  @Test func aTamperedEnvelopeIsRefusedWithItsPlace() throws {
    try withTemporaryDirectory { dir in
      let fixture = try sealedStore(dir, identity: alice)
      try fixture.store.create(
        kind: "acquisition",
        base: fixture.json(
          #"{"id": "ACQ-2026-001", "title": "Chairs", "agency": "GSA", "contracting_officer": "J. Alvarez"}"#))
      let path = fixture.root + "/data/acquisitions/ACQ-2026-001.json"
      let text = String(decoding: try FileIO.read(FilePath(path)), as: UTF8.self)
      let tampered = text.replacingOccurrences(of: "enc:v1:A", with: "enc:v1:B")
      try tampered.write(toFile: path, atomically: true, encoding: .utf8)
      let error = #expect(throws: StoreError.self) { try fixture.store.read(kind: "acquisition", id: "ACQ-2026-001") }
      guard case .invalidDocument(_, let diagnostics)? = error else {
        Issue.record("\(String(describing: error))")
        return
      }
      #expect(diagnostics.first?.rule == "sensitive" && diagnostics.first?.position?.line == 4, "\(diagnostics)")
      #expect(throws: StoreError.self) {
        try fixture.store.update(kind: "acquisition", id: "ACQ-2026-001", assignments: [try Assignment("title=X")])
      }
      #expect(String(decoding: try FileIO.read(FilePath(path)), as: UTF8.self) == tampered, "nothing written")
    }
  }

  @Test func resealForNewRecipientsAndRefusals() throws {
    try withTemporaryDirectory { dir in
      let fixture = try sealedStore(dir, identity: alice)
      try fixture.store.create(
        kind: "acquisition",
        base: fixture.json(
          #"{"id": "ACQ-2026-001", "title": "Chairs", "agency": "GSA", "contracting_officer": "J. Alvarez"}"#))
      let report = try fixture.store.reseal("keys remove") { _ in [alice.recipient] }
      #expect(report.documents == 1 && report.values == 1)
      let sealed = try fixture.store.read(kind: "acquisition", id: "ACQ-2026-001")
      let envelope = try JSONParser().parse(sealed.bytes)["contracting_officer"]!.stringValue!
      #expect(throws: Envelope.Failure.notARecipient) { try Envelope.open(envelope, with: bob) }
      #expect(try Envelope.open(envelope, with: alice) == Data(#""J. Alvarez""#.utf8))
      #expect(
        try String(contentsOfFile: fixture.root + "/formsctl.yaml", encoding: .utf8).contains(
          "    - \(alice.recipient)"))
      #expect(throws: StoreError.self) { try fixture.store.reseal("keys remove") { _ in [] } }
      #expect(throws: StoreError.self) { try fixture.store.reseal("keys remove") { _ in [bob.recipient] } }
      fixture.reopen(keyring: Keyring(recipients: [alice.recipient], identity: eve))
      #expect(throws: StoreError.self) { try fixture.store.reseal("keys add") { $0 + [eve.recipient] } }
    }
  }

  @Test func theManifestKeepsItsOtherLines() {
    let text =
      "formsctl: 1\nschemas: ../schemas   # shared\nencryption:\n  recipients:\n    - x\n\nsnapshots:\n  keep_within: 7d\n"
    let out = StoreLayout.manifest(text, recipients: [alice.recipient])
    #expect(
      out
        == "formsctl: 1\nschemas: ../schemas   # shared\nsnapshots:\n  keep_within: 7d\nencryption:\n  recipients:\n    - \(alice.recipient)\n"
    )
  }

  @Test func commandLinesLoseSensitiveValues() {
    let words = [
      "set", "acquisition", "ACQ-1", "contracting_officer=J. Alvarez", "--set=contracting_officer=X", "--where",
      "contracting_officer == \"J\"", "title=T",
    ]
    #expect(
      redactingSensitive(words, names: ["contracting_officer"]) == [
        "set", "acquisition", "ACQ-1", "contracting_officer=«redacted»",
        "--set=contracting_officer=«redacted»", "--where", "«redacted»", "title=T",
      ])
  }
}
