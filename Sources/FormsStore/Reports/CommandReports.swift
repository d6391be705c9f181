import FormsCore

// What the commands print about the library's values, built here beside those values (paths as
// `display` shows them), so every front end prints the same: JSON for `--format json`, and the
// `TableReport`s of the listing commands. The command line only renders them.

/// A plan's JSON, as `rm`, `mv` and `import --prune` print it.
extension Store.ChangePlan {
  /// `{deleted, written, blocked_by, voids}`: the first three lists of `{kind, id, path, reason}`,
  /// `voids` the signed forms whose signatures the rewrites void.
  public func json(display: (String) -> String) -> JSONValue {
    func entries(_ list: [Entry]) -> JSONValue {
      .array(
        list.map {
          .object(
            JSONObject([
              "kind": .string($0.kind), "id": .string($0.id), "path": .string(display($0.path)),
              "reason": .string($0.reason),
            ]))
        })
    }
    return .object(
      JSONObject([
        "deleted": entries(deletes), "written": entries(rewrites), "blocked_by": entries(blockers),
        "voids": .array(voids.map(\.json)),
      ]))
  }
}

extension Importer.Report {
  /// Every record's action, the prune's plan, dropped fields by name, warnings, the snapshot
  /// taken and the summary.
  public func json(dryRun: Bool, display: (String) -> String) -> JSONValue {
    .object(
      JSONObject([
        "dry_run": .bool(dryRun),
        "records": .array(
          records.map { record in
            .object(
              JSONObject([
                "id": .string(record.id), "action": .string(record.action.description),
                "description": .string(record.description),
              ]))
          }),
        "pruned": pruned.json(display: display),
        "prune_skipped": pruneSkipped.map(JSONValue.string) ?? .null,
        "dropped": .object(
          JSONObject(dropped.map { JSONObject.Member(key: $0.key, value: .number(JSONNumber($0.value))) })),
        "warnings": .array((workflowWarnings + warnings).map(JSONValue.string)),
        "snapshot": snapshot.map(JSONValue.string) ?? .null,
        "pruned_snapshots": .array(prunedSnapshots.map(JSONValue.string)),
        "stale_approvals": .array(staleApprovals.map(\.json)),
        "rejected": .array(rejected.map(\.json)),
        "rejects_file": rejectsFile.map { .string(display($0)) } ?? .null,
        "estimate": .object(
          JSONObject([
            "documents": .number(JSONNumber(documents)), "bytes": .number(JSONNumber(Int(bytes))),
            "needed": .number(JSONNumber(Int(needed))), "free": free.map { .number(JSONNumber(Int($0))) } ?? .null,
          ])),
        "summary": .string(summary),
      ]))
  }
}

extension SnapshotManifest {
  /// What `snapshot show` prints: name, time, reason, label, message, version, scope, size, and
  /// the documents of each kind at each version.
  public var summary: [String] {
    var lines = ["snapshot \(name)", "time      \(time)", "reason    \(reason)"]
    if let label { lines.append("label     \(label)") }
    if let message { lines.append("message   \(message)") }
    lines.append("formsctl  \(formsctlVersion)")
    lines.append("scope     \(scope)")
    lines.append("files     \(files.count), \(files.map(\.size).reduce(0, +)) bytes")
    for (kind, versions) in counts.sorted(by: { $0.key < $1.key }) {
      for (version, count) in versions.sorted(by: { $0.key < $1.key }) {
        lines.append("  \(kind)@\(version): \(count)")
      }
    }
    return lines
  }

  /// `whole store`, or for a partial snapshot `1000 documents (400 did not exist yet)`.
  public var scope: String {
    guard let covers else { return "whole store" }
    return plural(covers.count, "document") + (absent.isEmpty ? "" : " (\(absent.count) did not exist yet)")
  }
}

extension Snapshots {
  /// What `snapshot list` shows: every snapshot, oldest first (one without a readable manifest
  /// shows as such).
  public func listReport() throws(StoreError) -> TableReport {
    let all = try list()
    let summaries = all.map(\.summary)
    return TableReport(
      records: zip(all, summaries).map { info, summary in
        .object(
          JSONObject([
            "name": .string(info.name), "reason": summary.map { .string($0.reason) } ?? .null,
            "time": summary.map { .string($0.time) } ?? .null,
            "message": summary?.message.map(JSONValue.string) ?? .null,
            "files": summary.map { .number(JSONNumber($0.files)) } ?? .null,
            "label": summary?.label.map(JSONValue.string) ?? .null,
            "scope": summary.map { .string($0.scope == "whole store" ? "store" : "documents") } ?? .null,
            "kept": .bool(!keeping(info).isEmpty),
          ]))
      },
      columns: ["id", "label", "reason", "scope", "files", "message"],
      rows: zip(all, summaries).map { info, summary in
        [
          info.name, summary?.label ?? "",
          (summary?.reason ?? "(no manifest)") + (keeping(info).isEmpty ? "" : ", kept"),
          summary?.scope ?? "",
          summary.map { String($0.files) } ?? "", summary?.message ?? "",
        ]
      })
  }
}

extension SchemaRegistry {
  /// What `schema list` shows: each kind, its newest version, every version, its directory and title.
  public var kindsReport: TableReport {
    TableReport(
      records: latestByKind.map { kind, latest in
        .object(
          JSONObject([
            "kind": .string(kind), "title": latest.title.map(JSONValue.string) ?? .null,
            "directory": .string(latest.directory), "latest": .string(latest.version.description),
            "versions": .array(versions(kind).map { .string($0.description) }),
          ]))
      },
      columns: ["kind", "latest", "versions", "directory", "title"],
      rows: latestByKind.map { kind, latest in
        [
          kind, latest.version.description, versions(kind).map(\.description).joined(separator: ", "),
          "data/" + latest.directory, latest.title ?? "",
        ]
      })
  }
}

extension Snapshots.Difference {
  /// `{added, removed, changed: [{path, pointers}]}`.
  public var json: JSONValue {
    .object(
      JSONObject([
        "added": .array(added.map(JSONValue.string)), "removed": .array(removed.map(JSONValue.string)),
        "changed": .array(
          changed.map {
            .object(JSONObject(["path": .string($0.path), "pointers": .array($0.pointers.map(JSONValue.string))]))
          }),
      ]))
  }
}

extension Snapshots.RestoreOutcome {
  /// `{snapshot, dry_run, pre_restore_snapshot, rewritten, recreated, removed, pruned_snapshots}`.
  public func json(dryRun: Bool) -> JSONValue {
    .object(
      JSONObject([
        "snapshot": .string(snapshot.name), "dry_run": .bool(dryRun),
        "pre_restore_snapshot": preRestoreSnapshot.map(JSONValue.string) ?? .null,
        "rewritten": .array(plan.rewritten.map(JSONValue.string)),
        "recreated": .array(plan.recreated.map(JSONValue.string)),
        "removed": .array(plan.removed.map(JSONValue.string)),
        "pruned_snapshots": .array(prunedSnapshots.map(JSONValue.string)),
      ]))
  }
}

extension Store {
  /// What `keys list` shows: the store's recipients (who sensitive values are sealed for) and its
  /// signers (who holds each role of `roles:`), marking this identity's.
  public var recipientsReport: TableReport {
    let identity = keyring.identity
    var records: [JSONValue] = []
    var rows: [[String]] = []
    for recipient in layout.recipients {
      let yours = recipient == identity?.recipient
      records.append(.object(JSONObject(["recipient": .string(recipient.description), "yours": .bool(yours)])))
      rows.append([recipient.description, "recipient", yours ? "yes" : ""])
    }
    for role in layout.roles.keys.sorted() {
      for signer in layout.roles[role] ?? [] {
        let yours = signer == identity?.signer
        let record = JSONObject(["signer": .string(signer.description), "role": .string(role), "yours": .bool(yours)])
        records.append(.object(record))
        rows.append([signer.description, "signer: " + role, yours ? "yes" : ""])
      }
    }
    return TableReport(records: records, columns: ["key", "for", "yours"], rows: rows)
  }
}

extension SchemaRegistry {
  /// Every version of every kind as JSON Schema, by reference (`form@2.0.0`), with the file name
  /// `schema export --out` gives it (`form-2.0.0.schema.json`).
  public func jsonSchemas(draft: JSONSchemaExporter.Draft) -> [(reference: String, file: String, schema: JSONValue)] {
    let exporter = JSONSchemaExporter(draft: draft)
    return kinds.flatMap { kind in
      schemas(of: kind).map { schema in
        (schema.reference, "\(kind)-\(schema.version).schema.json", exporter.export(schema))
      }
    }
  }

  /// The files an export writes, by name: every version's schema, and per kind
  /// `<kind>.schema.json`, which picks the version a document names in `_schema`.
  public func jsonSchemaFiles(draft: JSONSchemaExporter.Draft) -> [(file: String, schema: JSONValue)] {
    let versions = jsonSchemas(draft: draft)
    let exporter = JSONSchemaExporter(draft: draft)
    return versions.map { ($0.file, $0.schema) }
      + kinds.map { kind in
        let mine = schemas(of: kind).map { ($0, "\(kind)-\($0.version).schema.json") }
        return ("\(kind).schema.json", exporter.dispatcher(kind: kind, versions: mine))
      }
  }

  /// Writes `jsonSchemaFiles` into `directory` (made if missing, never through a link below
  /// `boundary`), each file atomically; their paths.
  package func writeJSONSchemas(
    to directory: String, draft: JSONSchemaExporter.Draft, boundary: String
  ) throws(StoreError) -> [String] {
    let directory = FilePath(directory)
    try FileIO.refuseLinks(directory, below: FilePath(boundary))
    try FileIO.makeDirectories(directory)
    let writer = AtomicWriter(boundary: directory)
    return try jsonSchemaFiles(draft: draft).map { (exported) throws(StoreError) -> String in
      let path = directory / exported.file
      try writer.write(JSONWriter.canonical(exported.schema), to: path)
      return path.string
    }
  }

  /// For `schema check`: each file of an export in `directory` (the draft its files name) that is
  /// missing or differs from what the descriptors export now. Nothing when there is no export.
  public func staleJSONSchemas(in directory: String, display: (String) -> String) throws(StoreError) -> [Diagnostic] {
    let directory = FilePath(directory)
    guard FileIO.entry(directory) == .directory else { return [] }
    var draft = JSONSchemaExporter.Draft.draft07
    var out: [Diagnostic] = []
    let files = jsonSchemaFiles(draft: draft)
    // The draft the export was made in, as its first file names it.
    if let first = files.first, FileIO.exists(directory / first.file) {
      let bytes = try FileIO.read(directory / first.file)
      if let uri = (try? JSONParser().parse(bytes))?["$schema"]?.stringValue,
        let named = JSONSchemaExporter.Draft(uri: uri)
      {
        draft = named
      }
    }
    for exported in jsonSchemaFiles(draft: draft) {
      let path = directory / exported.file
      let current = FileIO.exists(path) ? try FileIO.read(path) : nil
      guard current != JSONWriter.canonical(exported.schema) else { continue }
      out.append(
        Diagnostic(
          file: display(path.string), position: current == nil ? nil : SourcePosition(line: 1, column: 1),
          rule: "stale-export",
          message: current == nil
            ? "missing: the descriptors have \(exported.file) but the export does not"
            : "differs from what the descriptors export now",
          remedy: .exportSchemas))
    }
    return out
  }
}

extension Snapshots.Transfer {
  /// `{copied, present, problems: [{snapshot, path, problem}], repaired: [{snapshot, path, problem}],
  /// marked, unmarked, damaged_marks}` (the last three: snapshot names, as `Transfer` says).
  public var json: JSONValue {
    func list(_ problems: [Snapshots.Problem]) -> JSONValue {
      .array(
        problems.map {
          .object(
            JSONObject(["snapshot": .string($0.snapshot), "path": .string($0.path), "problem": .string($0.problem)]))
        })
    }
    return .object(
      JSONObject([
        "copied": .array(copied.map(JSONValue.string)), "present": .array(present.map(JSONValue.string)),
        "problems": list(problems), "repaired": list(repaired),
        "marked": .array(marked.map(JSONValue.string)), "unmarked": .array(unmarked.map(JSONValue.string)),
        "damaged_marks": .array(damagedMarks.map(JSONValue.string)),
      ]))
  }
}
