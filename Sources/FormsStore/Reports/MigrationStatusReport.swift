import FormsCore

extension Migrator {
  /// What `migrate status` shows: per kind, its documents at each version, the target, and how
  /// far behind each version is; then, when anything is behind, what a migration would cost.
  public func statusReport() throws(StoreError) -> TableReport {
    let statuses = try status()
    var rows: [[String]] = []
    for status in statuses {
      let target = status.target.description
      if status.versions.isEmpty { rows.append([status.kind, "-", "0", target, "no documents"]) }
      for entry in status.versions {
        let state =
          entry.behind.map { $0 == 0 ? "current" : plural($0, "step") + " behind" } ?? "no path to the target"
        rows.append([status.kind, entry.version.description, String(entry.documents), target, state])
      }
      if !status.unreadable.isEmpty {
        rows.append([status.kind, "?", String(status.unreadable.count), target, "unreadable"])
      }
    }
    let estimate = try estimate()
    let migrated = try lastMigrations()
    let last = migrated.values.max()
    // A descriptor changed since a migration used it: `migrate` (and its dry run) refuses.
    let changed = try changedDescriptors()
    let kindOf = Dictionary(
      store.registry.files.map { (store.layout.relative($0.value), String($0.key.prefix { $0 != "@" })) },
      uniquingKeysWith: { a, _ in a })
    var notes = [last.map { "last migration: \($0)" } ?? "no migration recorded in the audit log"]
    notes += changed.map { descriptor in
      "refused: " + Refusal.descriptorChanged(path: descriptor.path, migratedAt: descriptor.migratedAt).description
        + "; migrate refuses until `formsctl migrate repair` records it"
    }
    notes +=
      estimate.documents == 0
      ? []
      : [
        "migrate would rewrite \(plural(estimate.documents, "document")) (\(Storage.format(estimate.bytes))): "
          + "needs about \(Storage.format(estimate.needed)) free, "
          + "\(estimate.free.map(Storage.format) ?? "unknown") free here; about \(estimate.seconds) s"
      ]
    return TableReport(
      records: statuses.map { status in
        .object(
          JSONObject([
            "kind": .string(status.kind), "target": .string(status.target.description),
            "versions": .array(
              status.versions.map {
                .object(
                  JSONObject([
                    "version": .string($0.version.description), "documents": .number(JSONNumber($0.documents)),
                    "behind": $0.behind.map { .number(JSONNumber($0)) } ?? .null,
                  ]))
              }),
            "unreadable": .array(status.unreadable.map { .string(store.display($0)) }),
            "last_migrated": migrated[status.kind].map(JSONValue.string) ?? .null,
            "changed_descriptors": .array(
              changed.filter { kindOf[$0.path] == status.kind }.map { descriptor in
                .object(
                  JSONObject([
                    "path": .string(descriptor.path), "migrated_at": .string(descriptor.migratedAt),
                    "message": .string(
                      Refusal.descriptorChanged(path: descriptor.path, migratedAt: descriptor.migratedAt).description),
                  ]))
              }),
          ]))
      }, columns: ["kind", "version", "documents", "target", "state"], rows: rows, notes: notes,
      remedies: statuses.contains { !$0.unreadable.isEmpty } ? [.validate] : [])
  }

  /// When each kind was last migrated: the time of the newest `migrate` record in the audit log
  /// that names one of its documents.
  func lastMigrations() throws(StoreError) -> [String: String] {
    var out: [String: String] = [:]
    for record in try AuditLog.query(store.layout, AuditLog.Query()).records where record.operation == "migrate" {
      guard let time = record.time else { continue }
      for document in record.documents ?? [] where out[document.kind] == nil { out[document.kind] = time }
    }
    return out
  }
}
