import FormsCore
import FormsTestSupport
import Foundation
import Testing

@testable import FormsStore

/// `migrate` in-process: planned, all or nothing, audited, and the store valid after.
struct MigratorTests {
  static func store(_ dir: String, count: Int = 4) throws -> Store {
    try itemStore(dir, count: count)
    var configuration = Store.Configuration()
    configuration.user = "Ada Lovelace <ada@example.com>"
    configuration.now = { Date(timeIntervalSince1970: 1_795_000_000) }
    return try Store.open(at: dir, configuration: configuration)
  }

  static func contents(_ store: Store) throws -> [String: String] {
    var out: [String: String] = [:]
    for path in try store.layout.documentFiles(in: "items") { out[FilePath(path).name] = try readFile(path) }
    return out
  }

  @Test func aDryRunPlansAndWritesNothingThenTheRunMigratesEveryDocument() throws {
    try withTemporaryDirectory { dir in
      let store = try Self.store(dir)
      let migrator = Migrator(store: store)
      #expect(try migrator.status().map { $0.versions.map(\.behind) } == [[1]])
      let before = try Self.contents(store)
      let dry = try migrator.run(.init(dryRun: true))
      #expect(
        dry.groups.map { "\($0.group.kind) \($0.group.from) → \($0.group.to): \($0.changedPerStep)" } == [
          "item 1.0.0 → 2.0.0: [4]"
        ])
      #expect(try Self.contents(store) == before, "a dry run writes nothing")

      let report = try migrator.run(.init(snapshot: true))
      #expect(report.migrated == 4)
      #expect(report.snapshot != nil)
      let item = try store.read(kind: "item", id: "i3").value
      #expect(item["_schema"] == .string("item@2.0.0"))
      #expect(item["quantity"] == .number(JSONNumber(3)))
      #expect(item["qty"] == nil)
      #expect(item["unit"] == .string("EA"))
      #expect(try migrator.status().map { $0.versions.map(\.behind) } == [[0]])
      let validator = StoreValidator(layout: store.layout, registry: store.registry, display: { $0 })
      #expect(try validator.validate(validator.allFiles()).invalid == 0)
      let history = try AuditLog.read(store.layout).records.map(\.value)
      #expect(history.count == 1)
      #expect(history.first?["operation"] == .string("migrate"))
      #expect(history.first?["user"] == .string("Ada Lovelace <ada@example.com>"))
    }
  }

  @Test func oneInvalidDocumentWritesNothingUnlessSkipped() throws {
    try withTemporaryDirectory { dir in
      let store = try Self.store(dir)
      try writeFile(
        #"{"_schema": "item@1.0.0", "id": "i2", "note": "n", "qty": "two"}"#, to: dir + "/data/items/i2.json")
      let before = try Self.contents(store)
      let error = storeError { _ = try Migrator(store: store).run(.init(snapshot: false)) }
      guard case .migrationFailed(let documents, let diagnostics)? = error else {
        Issue.record("\(String(describing: error))")
        return
      }
      #expect(documents == 1)
      #expect(diagnostics.map(\.file).allSatisfy { $0.hasSuffix("data/items/i2.json") })
      #expect(try Self.contents(store) == before, "all or nothing")
      #expect(try AuditLog.read(store.layout).records.isEmpty)

      let skipping = try Migrator(store: store).run(.init(skipInvalid: true, snapshot: false))
      #expect(skipping.migrated == 3)
      #expect(skipping.skipped.map { FilePath($0).name } == ["i2.json"])
      #expect(try store.read(kind: "item", id: "i2").value["_schema"] == .string("item@1.0.0"))
    }
  }

  @Test func aTargetThatDoesNotExistIsRefusedByName() throws {
    try withTemporaryDirectory { dir in
      let store = try Self.store(dir, count: 1)
      let error = storeError { _ = try Migrator(store: store).run(.init(kind: "item", to: SemanticVersion("3.0.0"))) }
      #expect(error?.kind == .badInput)
      #expect(error?.description == "item has no version 3.0.0 (versions: 1.0.0, 2.0.0)")
    }
  }
}
