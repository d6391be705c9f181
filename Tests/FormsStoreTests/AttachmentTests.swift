import FormsCore
import FormsTestSupport
import Foundation
import Testing

@testable import FormsStore

/// Attachments: files a document carries, kept beside the data, named in `_attachments` with
/// their SHA-256, size and media type; written, checked, moved, removed and snapshotted with it.
struct AttachmentTests {
  static let pdf = Array("%PDF-1.4\n1 0 obj << >> endobj\n%%EOF\n".utf8)
  static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 40)

  /// The claims store of ``ApprovalTests`` with a receipt (PDF or PNG, at most 1 KB) required in
  /// review and once approved.
  func store(_ dir: String, _ people: ApprovalTests.People = .init()) throws -> Store {
    try writeFile(
      ApprovalTests.descriptor.replacingOccurrences(of: "ON_CHANGE", with: "reopen") + """
        attachments:
          receipt:
            types: [application/pdf, image/png]
            max_size: 1KB
            required_in: [in_review, approved]
          notes:
            types: [text/plain]

        """, to: dir + "/schemas/claim/1.0.0.yaml")
    try writeFile(
      """
      formsctl: 1
      roles:
        reviewer: [\(people.reviewer.signer)]
        officer: [\(people.officer.signer)]

      """, to: dir + "/formsctl.yaml")
    var configuration = Store.Configuration()
    configuration.user = "test"
    let store = try Store.open(at: dir, configuration: configuration)
    #expect(store.registry.diagnostics.isEmpty, "\(store.registry.diagnostics.map(\.compilerStyle))")
    try store.create(kind: "claim", assignments: [try Assignment("id=c1"), try Assignment("amount=19.99")])
    return store
  }

  func refusal(_ body: () throws -> Void) -> Refusal? { ApprovalTests().refusal(body) }

  func validate(_ store: Store) throws -> [String] {
    try ApprovalTests().validate(store).map { "\($0.rule): \($0.message)" }
  }

  func readBytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

  func file(_ dir: String, _ name: String, _ bytes: [UInt8]) throws -> String {
    let path = dir + "/in/" + name
    try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
  }

  @Test func anAttachedFileIsKeptBesideTheDataAndNamedWithItsHash() throws {
    try withTemporaryDirectory { dir in
      let store = try store(dir)
      let saved = try store.attach(kind: "claim", id: "c1", name: "receipt", file: try file(dir, "r.pdf", Self.pdf))
      let value = try #require(saved.value["_attachments"]?["receipt"])
      let record = try #require(AttachmentRecord(value))
      #expect(record == AttachmentRecord(sha256: sha256Hex(Self.pdf), size: Self.pdf.count, type: "application/pdf"))
      #expect(try readBytes(dir + "/attachments/claims/c1/receipt.pdf") == Self.pdf)
      #expect(try store.attachment(kind: "claim", id: "c1", name: "receipt").bytes == Self.pdf)
      #expect(try validate(store).isEmpty)
      // Attaching a PNG replaces the PDF: one file per attachment.
      try store.attach(kind: "claim", id: "c1", name: "receipt", bytes: Self.png, fileName: "scan.png")
      #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/attachments/claims/c1") == ["receipt.png"])
      #expect(try validate(store).isEmpty)
      let history = try String(contentsOfFile: dir + "/.formsctl/history.jsonl", encoding: .utf8)
      #expect(history.contains(#""operation":"attach""#))
      try store.detach(kind: "claim", id: "c1", name: "receipt")
      #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/attachments/claims/c1").isEmpty)
      #expect(try store.read(kind: "claim", id: "c1").value["_attachments"] == nil)
      #expect(try validate(store).isEmpty)
    }
  }

  @Test func aFileTheDescriptorDoesNotAllowIsRefusedAndNothingIsWritten() throws {
    try withTemporaryDirectory { dir in
      let store = try store(dir)
      let before = try readBytes(dir + "/data/claims/c1.json")
      func refused(_ name: String, _ file: String) -> String? {
        refusal { try store.attach(kind: "claim", id: "c1", name: name, file: file) }?.description
      }
      // Larger than max_size.
      let big = try file(dir, "big.pdf", Self.pdf + Array(repeating: 32, count: 1000))
      #expect(refused("receipt", big)?.contains("more than receipt's max_size of 1 KB") == true)
      // A type the attachment does not allow; a name that lies about the content.
      #expect(refused("notes", try file(dir, "r.pdf", Self.pdf))?.contains("notes may be text/plain") == true)
      #expect(refused("receipt", try file(dir, "fake.pdf", Array("hello".utf8)))?.contains("its name says") == true)
      // A symbolic link, a directory, a FIFO.
      try FileManager.default.createSymbolicLink(atPath: dir + "/in/link.pdf", withDestinationPath: dir + "/in/r.pdf")
      #expect(refused("receipt", dir + "/in/link.pdf")?.contains("symbolic link") == true)
      #expect(refused("receipt", dir + "/in")?.contains("directory") == true)
      mkfifo(dir + "/in/fifo.pdf", 0o600)
      #expect(refused("receipt", dir + "/in/fifo.pdf")?.contains("FIFO") == true)
      // Names the kind does not declare, and ids that would leave the store.
      #expect(refused("../receipt", try file(dir, "r.pdf", Self.pdf))?.contains("declares no attachment") == true)
      #expect(refused("recipt", dir + "/in/r.pdf")?.contains("did you mean \"receipt\"") == true)
      #expect(refusal { try store.attach(kind: "claim", id: "../c1", name: "receipt", file: dir + "/in/r.pdf") } != nil)
      #expect(try readBytes(dir + "/data/claims/c1.json") == before)
      #expect(!FileManager.default.fileExists(atPath: dir + "/attachments/claims/c1/receipt.pdf"))
      #expect(try validate(store).isEmpty)
    }
  }

  @Test func onlyAttachAndDetachChangeTheRecords() throws {
    try withTemporaryDirectory { dir in
      let store = try store(dir)
      try store.attach(kind: "claim", id: "c1", name: "receipt", bytes: Self.pdf, fileName: "r.pdf")
      // A set, an edit, a new document or a feed that names a file it did not attach is refused.
      let forged = String(repeating: "0", count: 64)
      // `set` does not address it at all (it is not a field).
      #expect(throws: StoreError.self) {
        try store.update(kind: "claim", id: "c1", assignments: [try Assignment("_attachments.receipt.size=1")])
      }
      var forgedEdit = try store.read(kind: "claim", id: "c1").value
      forgedEdit["_attachments"] = .object(
        JSONObject(["receipt": AttachmentRecord(sha256: forged, size: 5, type: "application/pdf").json]))
      guard
        case .attachmentsByHand? = refusal({
          try store.replace(
            kind: "claim", id: "c1", original: try readBytes(dir + "/data/claims/c1.json"), with: forgedEdit)
        })
      else {
        Issue.record("a forged record was not refused")
        return
      }
      var edited = try store.read(kind: "claim", id: "c1").value
      edited["_attachments"] = nil
      guard
        case .attachmentsByHand? = refusal({
          try store.replace(
            kind: "claim", id: "c1", original: try readBytes(dir + "/data/claims/c1.json"), with: edited)
        })
      else {
        Issue.record("removing the record by hand was not refused")
        return
      }
      var copy = try store.read(kind: "claim", id: "c1").value
      copy["id"] = .string("c2")
      guard case .attachmentsByHand? = refusal({ try store.create(kind: "claim", base: copy) }) else {
        Issue.record("a new document naming a file it has not was not refused")
        return
      }
      #expect(try validate(store).isEmpty)
    }
  }

  @Test func aStateThatRequiresAnAttachmentIsReachedOnlyWithIt() throws {
    try withTemporaryDirectory { dir in
      let people = ApprovalTests.People()
      let store = try store(dir, people)
      do {
        try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
        Issue.record("submitted without its receipt")
      } catch StoreError.invalidDocument(_, let diagnostics) {
        #expect(
          diagnostics.map(\.message) == [
            "the receipt attachment is required in in_review (formsctl attach claim ID receipt FILE)"
          ])
      }
      try store.attach(kind: "claim", id: "c1", name: "receipt", bytes: Self.pdf, fileName: "r.pdf")
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      #expect(throws: StoreError.self) { try store.detach(kind: "claim", id: "c1", name: "receipt") }
      #expect(try store.attachment(kind: "claim", id: "c1", name: "receipt").bytes == Self.pdf)
    }
  }

  @Test func anApprovalSignsTheAttachmentsSoASwappedFileVoidsIt() throws {
    try withTemporaryDirectory { dir in
      let people = ApprovalTests.People()
      let store = try store(dir, people)
      try store.attach(kind: "claim", id: "c1", name: "receipt", bytes: Self.pdf, fileName: "r.pdf")
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      try store.approve(kind: "claim", id: "c1", identity: people.reviewer)
      // Asked first: attaching another file voids the review.
      guard
        case .wouldVoidApprovals? = refusal({
          try store.attach(
            kind: "claim", id: "c1", name: "receipt", bytes: Self.png, fileName: "r.png", voidingApprovals: false)
        })
      else {
        Issue.record("not asked before voiding")
        return
      }
      let saved = try store.attach(
        kind: "claim", id: "c1", name: "receipt", bytes: Self.png, fileName: "r.png", voidingApprovals: true)
      #expect(saved.staleApprovals != nil)
      // A file swapped behind formsctl's back: validate names it at the record.
      try store.attach(kind: "claim", id: "c1", name: "notes", bytes: Array("ok\n".utf8), fileName: "n.txt")
      try Data("forged\n".utf8).write(to: URL(fileURLWithPath: dir + "/attachments/claims/c1/notes.txt"))
      #expect(
        try validate(store).contains { $0.hasPrefix("attachment-file: ") && $0.contains("is not the file attached") })
      #expect(refusal { _ = try store.attachment(kind: "claim", id: "c1", name: "notes") } != nil)
    }
  }

  @Test func validateFindsMissingExtraAndLinkedFiles() throws {
    try withTemporaryDirectory { dir in
      let store = try store(dir)
      try store.attach(kind: "claim", id: "c1", name: "receipt", bytes: Self.pdf, fileName: "r.pdf")
      let folder = dir + "/attachments/claims/c1"
      try FileManager.default.removeItem(atPath: folder + "/receipt.pdf")
      #expect(
        try validate(store) == [
          "attachment-file: attachments/claims/c1/receipt.pdf is missing (attach it again: formsctl attach)"
        ])
      try FileManager.default.createSymbolicLink(atPath: folder + "/receipt.pdf", withDestinationPath: "/etc/passwd")
      #expect(try validate(store).first?.contains("is a symbolic link") == true)
      #expect(refusal { _ = try store.attachment(kind: "claim", id: "c1", name: "receipt") } != nil)
      try FileManager.default.removeItem(atPath: folder + "/receipt.pdf")
      try Data(Self.pdf).write(to: URL(fileURLWithPath: folder + "/receipt.pdf"))
      try Data(Self.pdf).write(to: URL(fileURLWithPath: folder + "/stray.pdf"))
      #expect(try validate(store).first?.contains("stray.pdf is not named in _attachments") == true)
      // The kind's folder a link out of the store: nothing is read through it.
      try FileManager.default.removeItem(atPath: dir + "/attachments/claims")
      try FileManager.default.createDirectory(atPath: dir + "/elsewhere/c1", withIntermediateDirectories: true)
      try FileManager.default.createSymbolicLink(
        atPath: dir + "/attachments/claims", withDestinationPath: dir + "/elsewhere")
      #expect(try validate(store).first?.contains("cannot be checked") == true)
      #expect(throws: StoreError.self) {
        try store.attach(kind: "claim", id: "c1", name: "receipt", bytes: Self.pdf, fileName: "r.pdf")
      }
      #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/elsewhere/c1").isEmpty)
    }
  }

  @Test func rmRemovesAndMvMovesTheFiles() throws {
    try withTemporaryDirectory { dir in
      let store = try store(dir)
      try store.attach(kind: "claim", id: "c1", name: "receipt", bytes: Self.pdf, fileName: "r.pdf")
      try store.move(kind: "claim", from: "c1", to: "c7")
      #expect(try readBytes(dir + "/attachments/claims/c7/receipt.pdf") == Self.pdf)
      #expect(!FileManager.default.fileExists(atPath: dir + "/attachments/claims/c1/receipt.pdf"))
      #expect(try validate(store).isEmpty)
      try store.delete(kind: "claim", id: "c7")
      #expect(!FileManager.default.fileExists(atPath: dir + "/attachments/claims/c7/receipt.pdf"))
      #expect(try validate(store).isEmpty)
    }
  }

  @Test func aSnapshotHoldsTheFilesAndARestoreBringsThemBack() throws {
    try withTemporaryDirectory { dir in
      let store = try store(dir)
      try store.attach(kind: "claim", id: "c1", name: "receipt", bytes: Self.pdf, fileName: "r.pdf")
      let snapshots = Snapshots(layout: store.layout)
      let taken = try snapshots.createManual(message: nil, label: "with-receipt", wait: 1).snapshot
      let manifest = try #require(try taken.loadManifest())
      #expect(manifest.files.contains { $0.path == "attachments/claims/c1/receipt.pdf" && $0.size == Self.pdf.count })
      try store.detach(kind: "claim", id: "c1", name: "receipt")
      _ = try snapshots.restore("with-receipt", wait: 1, command: "snapshot restore with-receipt")
      #expect(try readBytes(dir + "/attachments/claims/c1/receipt.pdf") == Self.pdf)
      #expect(try validate(store).isEmpty)
      #expect(try snapshots.verify([taken]).isEmpty)
    }
  }

  @Test func theDescriptorSaysEachKeyWrongClearly() throws {
    try withTemporaryDirectory { dir in
      try writeFile("formsctl: 1\n", to: dir + "/formsctl.yaml")
      try writeFile(
        """
        kind: note
        version: 1.0.0
        fields:
          id: string
        attachments:
          Scan:
            types: [application/pdf]
          scan:
            types: [application/pfd]
            max_size: 2 parsecs
            required_in: [approved]
            size: 1

        """, to: dir + "/schemas/note/1.0.0.yaml")
      let messages = try SchemaRegistry.load(directory: dir + "/schemas", display: { $0 }).diagnostics.map(\.message)
      #expect(messages.contains { $0.contains("attachment name \"Scan\" must be a lowercase letter") })
      #expect(
        messages.contains { $0.contains("unknown media type \"application/pfd\"; did you mean \"application/pdf\"") })
      #expect(messages.contains { $0.contains("max_size must be a size such as 20MB") })
      #expect(messages.contains { $0.contains("required_in names workflow states") })
      #expect(messages.contains { $0.contains("unknown key \"size\" in attachment scan") })
    }
  }
}

/// The media type of a file, from its content and its name.
struct MediaTypeTests {
  @Test func theContentAndTheNameMustAgree() {
    #expect(MediaType.detect(AttachmentTests.pdf, name: "q.PDF") == .success("application/pdf"))
    #expect(MediaType.detect(AttachmentTests.pdf, name: "q") == .success("application/pdf"))
    #expect(
      MediaType.detect(AttachmentTests.png, name: "q.pdf")
        == .failure(.init(claimed: "application/pdf", found: "image/png")))
    #expect(MediaType.detect(Array("a,b\n".utf8), name: "t.csv") == .success("text/csv"))
    #expect(
      MediaType.detect([0xFF, 0xFE, 0x00], name: "t.txt")
        == .failure(.init(claimed: "text/plain", found: "unrecognised data")))
    #expect(
      MediaType.detect([0x50, 0x4B, 0x03, 0x04, 1], name: "sheet.xlsx")
        == .success("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"))
    #expect(MediaType.detect([0x50, 0x4B, 0x03, 0x04, 1], name: "x") == .success("application/zip"))
    #expect(ByteSize.parse("20MB") == 20_000_000 && ByteSize.parse("1 KiB") == 1024 && ByteSize.parse("1,000") == nil)
    #expect(ByteSize.parse("0") == nil && ByteSize.parse("-5MB") == nil && ByteSize.describe(64 << 20) == "64 MiB")
  }
}

extension AttachmentTests {
  @Test func aDocumentRestoredByNameBringsItsFilesAndOrphansAreReported() throws {
    try withTemporaryDirectory { dir in
      let store = try store(dir)
      try store.attach(kind: "claim", id: "c1", name: "receipt", bytes: Self.pdf, fileName: "r.pdf")
      let snapshots = Snapshots(layout: store.layout)
      _ = try snapshots.createManual(message: nil, label: "one", wait: 1)
      try store.attach(kind: "claim", id: "c1", name: "receipt", bytes: Self.png, fileName: "r.png")
      let restored = try snapshots.restore(
        "one", paths: ["data/claims/c1.json"], wait: 1, command: "snapshot restore one data/claims/c1.json")
      #expect(restored.plan.recreated == ["attachments/claims/c1/receipt.pdf"])
      #expect(restored.plan.removed == ["attachments/claims/c1/receipt.png"])
      #expect(try validate(store).isEmpty)
      // Files of a document that is gone, and a folder no kind keeps: a whole validate names them.
      try FileManager.default.createDirectory(atPath: dir + "/attachments/claims/c9", withIntermediateDirectories: true)
      try Data(Self.pdf).write(to: URL(fileURLWithPath: dir + "/attachments/claims/c9/receipt.pdf"))
      try FileManager.default.createDirectory(atPath: dir + "/attachments/stray", withIntermediateDirectories: true)
      let whole = try StoreValidation.run(store.layout, .init(workingDirectory: dir, environment: [:]), display: { $0 })
      let messages = whole.report?.diagnostics.map(\.message) ?? []
      #expect(messages.contains { $0.hasPrefix("no document claims/c9.json holds these 1 file(s)") })
      #expect(messages.contains { $0.hasPrefix("no kind that declares attachments keeps its documents in stray/") })
      #expect(whole.verdict == .invalid)
    }
  }
}

/// What the hostile pass on attachments found, each held to here.
extension AttachmentTests {
  @Test func aPrunedDocumentsFilesComeBackWithThePreImportSnapshot() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      try fixture.order("PO-1")
      try fixture.order("PO-2")
      try fixture.store.attach(kind: "purchase-order", id: "PO-2", name: "quote", bytes: Self.pdf, fileName: "q.pdf")
      try writeFile(
        #"{"purchase_order_number": "PO-1", "issue_date": "2026-11-01T09:00:00Z", "last_updated": "2026-11-20T09:00:00Z", "items": []}"#
          + "\n", to: dir + "/feed.ndjson")
      let report = try Importer(store: fixture.store).run(
        .init(kind: "purchase-order", feed: dir + "/feed.ndjson", prune: true, maxPrune: .count(1)))
      #expect(!FileManager.default.fileExists(atPath: dir + "/store/attachments/purchase-orders/PO-2/quote.pdf"))
      let snapshot = try #require(report.snapshot)
      _ = try fixture.snapshots().restore(snapshot, wait: 1, command: "snapshot restore")
      #expect(try readBytes(dir + "/store/attachments/purchase-orders/PO-2/quote.pdf") == Self.pdf)
      #expect(try validate(fixture.store).isEmpty)
    }
  }

  @Test func aKindsDirectoryRestoredBringsItsAttachments() throws {
    try withTemporaryDirectory { dir in
      let store = try store(dir)
      try store.attach(kind: "claim", id: "c1", name: "receipt", bytes: Self.pdf, fileName: "r.pdf")
      let snapshots = Snapshots(layout: store.layout)
      _ = try snapshots.createManual(message: nil, label: "one", wait: 1)
      try Data(Self.pdf + [10]).write(to: URL(fileURLWithPath: dir + "/attachments/claims/c1/receipt.pdf"))
      let restored = try snapshots.restore("one", paths: ["data/claims"], wait: 1, command: "snapshot restore")
      #expect(restored.plan.rewritten == ["attachments/claims/c1/receipt.pdf"])
      #expect(try validate(store).isEmpty)
    }
  }

  @Test func noSignatureIsGivenOverAFileThatIsNotTheOneAttached() throws {
    try withTemporaryDirectory { dir in
      let people = ApprovalTests.People()
      let store = try store(dir, people)
      try store.attach(kind: "claim", id: "c1", name: "receipt", bytes: Self.pdf, fileName: "r.pdf")
      let path = dir + "/attachments/claims/c1/receipt.pdf"
      try Data(Self.pdf + Array("what the reviewer sees".utf8)).write(to: URL(fileURLWithPath: path))
      guard
        case .unsignableAttachments? = refusal({
          try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
        })
      else {
        Issue.record("submitted over a swapped file")
        return
      }
      try Data(Self.pdf).write(to: URL(fileURLWithPath: path))
      try store.transition(kind: "claim", id: "c1", to: "in_review", identity: people.preparer)
      try Data(Self.pdf + [10]).write(to: URL(fileURLWithPath: path))
      guard
        case .unsignableAttachments? = refusal({ try store.approve(kind: "claim", id: "c1", identity: people.reviewer) }
        )
      else {
        Issue.record("approved over a swapped file")
        return
      }
    }
  }

  @Test func aFileThatSaysItIsEmptyIsReadToItsEnd() throws {
    try withTemporaryDirectory { dir in
      let store = try store(dir)
      // /proc files report size 0: read to the end, they are what they hold (or refused).
      let saved = try store.attach(kind: "claim", id: "c1", name: "notes", file: "/proc/self/comm")
      let record = try #require(saved.value["_attachments"]?["notes"].flatMap(AttachmentRecord.init))
      #expect(record.size > 0)
      #expect(refusal { try store.attach(kind: "claim", id: "c1", name: "receipt", file: "/proc/self/maps") } != nil)
    }
  }

  @Test func aRecordWhoseTypeTheContentContradictsIsFound() throws {
    try withTemporaryDirectory { dir in
      let store = try store(dir)
      try store.attach(kind: "claim", id: "c1", name: "receipt", bytes: Self.pdf, fileName: "r.pdf")
      // By hand: the record says PNG, the file is renamed, the content is still a PDF.
      let documentPath = dir + "/data/claims/c1.json"
      try writeFile(
        try readFile(documentPath).replacingOccurrences(of: "application/pdf", with: "image/png"), to: documentPath)
      try FileManager.default.moveItem(
        atPath: dir + "/attachments/claims/c1/receipt.pdf", toPath: dir + "/attachments/claims/c1/receipt.png")
      #expect(try validate(store).contains { $0.contains("holds application/pdf, not the image/png its record says") })
      #expect(refusal { _ = try store.attachment(kind: "claim", id: "c1", name: "receipt") } != nil)
    }
  }

  @Test func mvDoesNotAdoptFilesLeftInTheNewIdsFolder() throws {
    try withTemporaryDirectory { dir in
      let store = try store(dir)
      try store.attach(kind: "claim", id: "c1", name: "receipt", bytes: Self.pdf, fileName: "r.pdf")
      try FileManager.default.createDirectory(atPath: dir + "/attachments/claims/c2", withIntermediateDirectories: true)
      try Data(Self.png).write(to: URL(fileURLWithPath: dir + "/attachments/claims/c2/receipt.pdf"))
      #expect(refusal { _ = try store.move(kind: "claim", from: "c1", to: "c2") } != nil)
      #expect(try readBytes(dir + "/attachments/claims/c2/receipt.pdf") == Self.png)
      #expect(try readBytes(dir + "/attachments/claims/c1/receipt.pdf") == Self.pdf)
    }
  }

  @Test func aMaxSizeInBytesMayBeAPlainNumber() throws {
    try withTemporaryDirectory { dir in
      try writeFile("formsctl: 1\n", to: dir + "/formsctl.yaml")
      try writeFile(
        "kind: note\nversion: 1.0.0\nfields:\n  id: string\nattachments:\n  scan: {types: [application/pdf], max_size: 100}\n",
        to: dir + "/schemas/note/1.0.0.yaml")
      let registry = try SchemaRegistry.load(directory: dir + "/schemas", display: { $0 })
      #expect(registry.diagnostics.isEmpty)
      #expect(registry.latest("note")?.attachment("scan")?.maxSize == 100)
    }
  }
}
