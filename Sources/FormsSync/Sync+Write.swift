import FormsCore
import FormsStore
import Foundation
import PostgresNIO

/// Rows entering the store: each through the one write path, as a feed for the workflow and as a
/// person for the rest.
extension Sync {
  /// A document written through the write path: the file's bytes, what was applied with a
  /// warning, and the approvals it made stale.
  struct Written: Sendable {
    var bytes: [UInt8]
    var warnings: [String] = []
    var staleApprovals: [StaleApprovals] = []
  }

  /// `texts` written as documents of `kind` through the write path in one operation (`sync`, by
  /// `user`): each one's outcome, or why the store refused it (then it is not written).
  ///
  /// A row is a feed's record for the workflow (a move the workflow does not list is applied
  /// with a warning, refused with `strictWorkflow`), and a person's edit for the rest: the
  /// fields `editable:` leaves out and immutable fields are refused, and whatever changed is
  /// stamped (docs/design.md §12). Its document must have the row's id.
  /// With `dryRun`, each is judged as it would be and nothing is written.
  func write(_ kind: String, _ texts: [(id: String, text: String)], user: String, dryRun: Bool = false)
    throws(StoreError) -> [String: Result<Written, StoreError>]
  {
    let source = ChangeSource.feed(strictWorkflow: strictWorkflow)
    return try store.write(
      "sync", summary: texts.count == 1 ? "sync \(kind) \(texts[0].id)" : "sync \(kind) (\(texts.count))",
      dryRun: dryRun, user: user
    ) {
      session throws(StoreError) -> [String: Result<Written, StoreError>] in
      var out: [String: Result<Written, StoreError>] = [:]
      for (id, text) in texts {
        do throws(StoreError) {
          let shown = "the database's \(kind) \(Self.escaped(id))"
          let path = try store.path(kind: kind, id: id)
          let stored = FileIO.entry(FilePath(path)) == .missing ? nil : try store.read(kind: kind, id: id)
          var value = try brought(
            try Store.parsed(Array(text.utf8), shown: shown), kind: kind, id: id, to: stored?.value)
          if let schema = store.registry.schema(of: value) {
            try checkRow(value, id: id, stored: stored?.value, schema: schema, shown: shown, path: path)
            if let stored {
              TimestampStamper(time: Instant(session.now).rfc3339, mode: .refreshUnlessGiven)
                .stamp(&value, before: stored.value, type: schema.root)
            }
          }
          let before = session.staleApprovals.count
          let prepared = try session.prepare(value, replacing: stored, kind: kind, source: source)
          try session.stage(prepared)
          out[id] = .success(
            Written(
              bytes: prepared.bytes, warnings: prepared.warnings,
              staleApprovals: Array(session.staleApprovals.dropFirst(before))))
        } catch  where error.kind == .badInput {
          out[id] = .failure(error)
        }
      }
      return out
    }
  }

  /// Refuses a row whose document has another id than the row (it would be taken under the
  /// document's, and the row deleted by the next run), and an edit of fields people may not
  /// edit: those `editable:` leaves out, and immutable ones.
  func checkRow(_ value: JSONValue, id: String, stored: JSONValue?, schema: Schema, shown: String, path: String)
    throws(StoreError)
  {
    func refuse(_ pointer: JSONPointer, _ rule: String, _ message: String) -> StoreError {
      .invalidDocument(
        shown, [Diagnostic(file: store.display(path), position: nil, pointer: pointer, rule: rule, message: message)])
    }
    let named = value[schema.idField]
    guard named.flatMap(DocumentID.text) == id else {
      let says = named.map { JSONWriter.compact($0) } ?? "no id"
      throw refuse(
        JSONPointer.root.appending(schema.idField), "sync",
        "the row's id is \(Self.escaped(id)), but its document says \(Self.escaped(says)); a row is taken only under its own id"
      )
    }
    guard let stored else { return }
    let refused = ChangeRules.notEditable(old: stored, new: value, schema: schema)
    if !refused.isEmpty, let editable = schema.editable {
      throw StoreError.refused(
        .notEditable(kind: schema.kind, id: id, fields: refused.map(\.path), editable: editable.map(\.description)))
    }
    let immutable = ChangeRules.findings(old: stored, new: value, schema: schema).filter { $0.rule == "immutable" }
    if let first = immutable.first {
      throw refuse(first.pointer, first.rule, first.message)
    }
  }

  /// A document of the database's (a row, or the text last agreed), written for an older
  /// version of `kind` than `ours` is at (the kind's latest when there is no `ours`), migrated
  /// there as `migrate` would: a writer on the database that still writes the old version never
  /// takes a document back to it.
  func brought(_ value: JSONValue, kind: String, id: String, to ours: JSONValue?) throws(StoreError) -> JSONValue {
    let target = ours.flatMap { store.registry.schema(of: $0)?.version }
    return try Migrator(store: store).brought(
      value, kind: kind, to: target, shown: "the database's \(kind) \(Self.escaped(id))")
      ?? value
  }
}
