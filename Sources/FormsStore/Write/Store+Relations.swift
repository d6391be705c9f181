import FormsCore

extension Store {
  /// What `rm` or `mv` (or `import --prune`) does: files deleted, documents rewritten, and what
  /// blocks it.
  public struct ChangePlan: Sendable {
    public struct Entry: Sendable, Equatable {
      public let kind: String
      public let id: String
      public let path: String
      /// Why: `delete`, `cascade: its acquisition_id is acquisition A`, `nullify acquisition_id`...
      public let reason: String
    }

    public var deletes: [Entry] = []
    public var rewrites: [Entry] = []
    /// Documents a `restrict` relation protects the target with.
    public var blockers: [Entry] = []
    /// The signed forms whose signatures the rewrites void (a rewritten reference is signed
    /// content): refused unless asked; a dry run lists them.
    public var voids: [StaleApprovals] = []
    /// The stored documents the plan deletes, and those it rewrites with their new value, by path.
    var deleted: [String: Document] = [:]
    var rewritten: [String: (stored: Document, value: JSONValue)] = [:]
  }

  /// The documents of every kind whose relations point at `kind` `id`, with the relation used.
  /// `cache` holds each kind's documents once read.
  func dependants(of kind: String, id: String, cache: inout [String: [Document]])
    throws(StoreError) -> [(kind: String, relation: Schema.Relation, document: Document)]
  {
    var found: [(kind: String, relation: Schema.Relation, document: Document)] = []
    for other in registry.kinds {
      let versions = registry.schemas[other] ?? [:]
      guard versions.values.contains(where: { $0.relations.contains { $0.kind == kind } }) else { continue }
      if cache[other] == nil {
        // Every document is read: one that cannot be read or parsed (a merge conflict) might name
        // the target, so it stops the change before anything is written.
        var documents: [Document] = []
        for path in try layout.documentFiles(in: try schema(other).directory) {
          let bytes = try FileIO.read(FilePath(path))
          do {
            documents.append(Document(path: path, value: try JSONParser().parse(bytes), bytes: bytes))
          } catch {
            throw StoreError.refused(
              .unparsedReferrer(
                path: display(path), position: error.location, message: error.message, kind: kind, id: id))
          }
        }
        cache[other] = documents
      }
      for document in cache[other] ?? [] {
        guard
          let schema = document.value["_schema"]?.stringValue.flatMap({ registry.schema(reference: $0) })
            ?? registry.latest(other)
        else { continue }
        for relation in schema.relations where relation.kind == kind {
          if document.value[relation.field].flatMap(DocumentID.text) == id { found.append((other, relation, document)) }
        }
      }
    }
    return found
  }

  /// Plans deleting `roots` together (each listed with `reason`): cascades recursively,
  /// nullifies, collects `restrict` blockers.
  func planDelete(_ roots: [(kind: String, id: String)], reason: String = "delete") throws(StoreError) -> ChangePlan {
    var plan = ChangePlan()
    var cache: [String: [Document]] = [:]
    var queue: [(kind: String, id: String, document: Document, reason: String)] = []
    for root in roots { queue.append((root.kind, root.id, try read(kind: root.kind, id: root.id), reason)) }
    var nullified: [String: (kind: String, id: String, reason: String)] = [:]
    while !queue.isEmpty {
      let next = queue.removeFirst()
      guard plan.deleted[next.document.path] == nil else { continue }
      plan.deleted[next.document.path] = next.document
      plan.deletes.append(.init(kind: next.kind, id: next.id, path: next.document.path, reason: next.reason))
      for dependant in try dependants(of: next.kind, id: next.id, cache: &cache) {
        let document = dependant.document
        let dependantSchema = try rules.schema(of: document.value, path: document.path)
        let dependantID =
          document.value[dependantSchema.idField].flatMap(DocumentID.text)
          ?? StoreLayout.id(fromFile: document.path) ?? ""
        switch dependant.relation.onDelete {
        case .cascade:
          queue.append(
            (
              dependant.kind, dependantID, document,
              "cascade: its \(dependant.relation.field) is \(next.kind) \(next.id)"
            ))
        case .restrict:
          plan.blockers.append(
            .init(
              kind: dependant.kind, id: dependantID, path: document.path,
              reason: "its \(dependant.relation.field) is \(next.kind) \(next.id) (on_delete: restrict)"))
        case .nullify:
          var value = plan.rewritten[document.path]?.value ?? document.value
          let field = dependantSchema.root.fields[dependant.relation.field]
          value[dependant.relation.field] = field?.optional == false && field?.nullable == true ? .null : nil
          plan.rewritten[document.path] = (document, value)
          nullified[document.path] = (dependant.kind, dependantID, "nullify \(dependant.relation.field)")
        }
      }
    }
    for (path, change) in nullified.sorted(by: { $0.key < $1.key }) where plan.deleted[path] == nil {
      plan.rewrites.append(.init(kind: change.kind, id: change.id, path: path, reason: change.reason))
    }
    return plan
  }

  /// Stages a delete plan: nullified references rewritten (validated, stamped), then the deletions.
  func stage(_ plan: ChangePlan, in session: WriteSession) throws(StoreError) {
    // Only a large cascade is worth a progress line.
    let total = plan.rewrites.count + plan.deletes.count
    let staging = total > 1000 ? ProgressCounter("staging", total: total, progress) : nil
    for entry in plan.rewrites {
      guard let change = plan.rewritten[entry.path] else { continue }
      try session.save(change.value, replacing: change.stored, kind: entry.kind, source: .store)
      staging?.add(1)
    }
    for entry in plan.deletes {
      guard let stored = plan.deleted[entry.path] else { continue }
      try session.remove(stored, kind: entry.kind)
      staging?.add(1)
    }
  }

  /// Plans `rm` without changing anything (what `delete(kind:id:dryRun: true)` reports).
  public func planDelete(kind: String, id: String) throws(StoreError) -> ChangePlan {
    try delete(kind: kind, id: id, dryRun: true)
  }

  /// Deletes a document and follows its relations, all in one journaled step; with `dryRun`,
  /// checks and reports the same plan (blockers included) and writes nothing. With `expecting`
  /// (a plan shown to someone), the deletion is refused, nothing written, unless the plan made
  /// under the lock is that one: a document that came to depend on it meanwhile is never
  /// cascaded unseen (``Refusal/changedMeanwhile(path:during:)``). A nullified reference in a
  /// signed form voids its signatures: refused unless `voidingApprovals` (a dry run lists them
  /// in the plan's `voids`).
  @discardableResult
  public func delete(
    kind: String, id: String, dryRun: Bool = false, expecting: ChangePlan? = nil, voidingApprovals: Bool = false
  ) throws(StoreError) -> ChangePlan {
    try delete(
      kind: kind, id: id, dryRun: dryRun, operation: "rm", user: nil, expecting: expecting,
      voidingApprovals: voidingApprovals)
  }

  /// `delete` recorded as `operation` by `user` (a deletion `sync` brings from the database).
  @discardableResult
  public func delete(
    kind: String, id: String, dryRun: Bool = false, operation: String, user: String?, expecting: ChangePlan? = nil,
    voidingApprovals: Bool = false
  ) throws(StoreError) -> ChangePlan {
    try write(
      operation, summary: "\(operation) \(kind) \(id)", dryRun: dryRun, user: user,
      voidingApprovals: voidingApprovals || dryRun
    ) { session throws(StoreError) -> ChangePlan in
      var plan = try planDelete([(kind, id)])
      try Self.check(plan, expecting: expecting, path: path(kind: kind, id: id))
      if !plan.blockers.isEmpty {
        if dryRun { return plan }
        throw StoreError.refused(
          .restricted(kind: kind, id: id, referrers: plan.blockers.map { "\($0.kind) \($0.id)" }))
      }
      try stage(plan, in: session)
      plan.voids = session.staleApprovals
      return plan
    }
  }

  /// Refuses `plan` when it is not `expected` (when given): what was shown is not what would be done.
  static func check(_ plan: ChangePlan, expecting expected: ChangePlan?, path: String) throws(StoreError) {
    guard let expected else { return }
    guard plan.deletes == expected.deletes, plan.rewrites == expected.rewrites, plan.blockers == expected.blockers
    else {
      throw StoreError.refused(.changedMeanwhile(path: path, during: "since its plan was shown"))
    }
  }

  /// Plans `mv` without changing anything.
  public func planMove(kind: String, from oldID: String, to newID: String) throws(StoreError) -> ChangePlan {
    try move(kind: kind, from: oldID, to: newID, dryRun: true)
  }

  /// Renames a document and rewrites every reference to it, in one journaled step.
  /// With `expecting`, refused unless the plan made under the lock is that one (as
  /// ``delete(kind:id:dryRun:expecting:voidingApprovals:)``). A rewritten reference in a signed
  /// form voids its signatures: refused unless `voidingApprovals` (a dry run lists them).
  @discardableResult
  public func move(
    kind: String, from oldID: String, to newID: String, dryRun: Bool = false, expecting: ChangePlan? = nil,
    voidingApprovals: Bool = false
  ) throws(StoreError) -> ChangePlan {
    try write(
      "mv", summary: "mv \(kind) \(oldID) \(newID)", dryRun: dryRun, voidingApprovals: voidingApprovals || dryRun
    ) { session throws(StoreError) -> ChangePlan in
      let stored = try read(kind: kind, id: oldID)
      var document = stored.value
      if case .array(let records)? = document["_approvals"], !records.isEmpty {
        throw StoreError.refused(.signedRename(kind: kind, id: oldID, records: records.count))
      }
      document[try rules.schema(of: stored.value, path: stored.path).idField] = .string(newID)
      var plan = ChangePlan()
      let renamed = try session.save(document, replacing: stored, kind: kind, source: .store)
      try session.moveAttachments(of: try rules.schema(of: stored.value, path: stored.path), from: oldID, to: newID)
      plan.rewrites.append(.init(kind: kind, id: newID, path: renamed.path, reason: "renamed from \(oldID)"))
      plan.deletes.append(.init(kind: kind, id: oldID, path: stored.path, reason: "renamed to \(newID)"))
      var cache: [String: [Document]] = [:]
      var changed: [String: (kind: String, stored: Document, value: JSONValue, fields: [String])] = [:]
      for dependant in try dependants(of: kind, id: oldID, cache: &cache) {
        var entry =
          changed[dependant.document.path] ?? (dependant.kind, dependant.document, dependant.document.value, [])
        entry.value[dependant.relation.field] = .string(newID)
        entry.fields.append(dependant.relation.field)
        changed[dependant.document.path] = entry
      }
      for (path, change) in changed.sorted(by: { $0.key < $1.key }) {
        let saved = try session.save(change.value, replacing: change.stored, kind: change.kind, source: .store)
        let id = try rules.schema(of: saved.value, path: path).idField
        plan.rewrites.append(
          .init(
            kind: change.kind, id: saved.value[id].flatMap(DocumentID.text) ?? "", path: path,
            reason: "\(change.fields.joined(separator: ", ")) → \(newID)"))
      }
      try Self.check(plan, expecting: expecting, path: stored.path)
      plan.voids = session.staleApprovals
      return plan
    }
  }
}
