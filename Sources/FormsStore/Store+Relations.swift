import FormsCore

extension Store {
  /// What `rm` or `mv` will do: files deleted, documents rewritten, and what blocks it.
  public struct ChangePlan: Sendable {
    public struct Entry: Sendable, Equatable {
      public let kind: String
      public let id: String
      public let path: String
      /// Why: `delete`, `cascade from form F`, `nullify acquisition_id`...
      public let reason: String
    }

    public var deletes: [Entry] = []
    public var rewrites: [Entry] = []
    /// Documents a `restrict` relation protects the target with.
    public var blockers: [Entry] = []
    var steps: [Journal.Step] = []
  }

  /// The documents of every kind whose relations point at `kind`, with the relation used.
  func dependants(of kind: String, id: String, cache: inout [String: [(path: String, value: JSONValue)]])
    throws(StoreError) -> [(kind: String, relation: Schema.Relation, path: String, value: JSONValue)]
  {
    var found: [(kind: String, relation: Schema.Relation, path: String, value: JSONValue)] = []
    for other in registry.kinds {
      let versions = registry.schemas[other] ?? [:]
      guard versions.values.contains(where: { $0.relations.contains { $0.kind == kind } }) else { continue }
      if cache[other] == nil {
        let directory = layout.dataDirectory + "/" + (try schema(other)).directory
        cache[other] = FileIO.files(under: directory, suffix: ".json").compactMap { path in
          (try? FileIO.read(path)).flatMap { try? JSONParser().parse($0) }.map { (path, $0) }
        }
      }
      for (path, value) in cache[other] ?? [] {
        let schema = value["_schema"]?.stringValue.flatMap { registry.schema(reference: $0) } ?? registry.latest(other)!
        for relation in schema.relations where relation.kind == kind {
          if value[relation.field].flatMap(DocumentID.text) == id { found.append((other, relation, path, value)) }
        }
      }
    }
    return found
  }

  /// Plans `rm`: cascades recursively, nullifies, and collects `restrict` blockers.
  public func planDelete(kind: String, id: String) throws(StoreError) -> ChangePlan {
    let target = try read(kind: kind, id: id)
    var plan = ChangePlan()
    var cache: [String: [(path: String, value: JSONValue)]] = [:]
    var queue: [(kind: String, id: String, path: String, reason: String)] = [(kind, id, target.path, "delete")]
    var deleted = Set<String>()
    var nullified: [String: (kind: String, id: String, value: JSONValue, reason: String)] = [:]
    while !queue.isEmpty {
      let next = queue.removeFirst()
      guard deleted.insert(next.path).inserted else { continue }
      plan.deletes.append(.init(kind: next.kind, id: next.id, path: next.path, reason: next.reason))
      for dependant in try dependants(of: next.kind, id: next.id, cache: &cache) {
        let dependantSchema = try schema(of: dependant.value, path: dependant.path)
        let dependantID = dependant.value[dependantSchema.idField].flatMap(DocumentID.text) ?? fileName(dependant.path)
        switch dependant.relation.onDelete {
        case .cascade:
          queue.append((dependant.kind, dependantID, dependant.path, "cascade: its \(dependant.relation.field) is \(next.kind) \(next.id)"))
        case .restrict:
          plan.blockers.append(.init(kind: dependant.kind, id: dependantID, path: dependant.path,
            reason: "its \(dependant.relation.field) is \(next.kind) \(next.id) (on_delete: restrict)"))
        case .nullify:
          var value = nullified[dependant.path]?.value ?? dependant.value
          let field = dependantSchema.root.fields[dependant.relation.field]
          value[dependant.relation.field] = field?.optional == false && field?.nullable == true ? .null : nil
          nullified[dependant.path] = (dependant.kind, dependantID, value, "nullify \(dependant.relation.field)")
        }
      }
    }
    for (path, change) in nullified.sorted(by: { $0.key < $1.key }) where !deleted.contains(path) {
      let bytes = try rewrite(change.value, at: path)
      plan.rewrites.append(.init(kind: change.kind, id: change.id, path: path, reason: change.reason))
      plan.steps.append(.write(path: path, bytes: bytes))
    }
    plan.steps += plan.deletes.map { .delete(path: $0.path) }
    return plan
  }

  /// Deletes a document and follows its relations, all in one journaled step.
  @discardableResult
  public func delete(kind: String, id: String) throws(StoreError) -> ChangePlan {
    try withWriteLock("rm \(kind) \(id)") { () throws(StoreError) -> ChangePlan in
      let plan = try planDelete(kind: kind, id: id)
      guard plan.blockers.isEmpty else {
        let names = plan.blockers.map { "\($0.kind) \($0.id)" }.joined(separator: ", ")
        throw StoreError.badRequest("cannot delete \(kind) \(id): \(names) refer\(plan.blockers.count == 1 ? "s" : "") to it with on_delete: restrict")
      }
      try Journal(layout: layout).apply(plan.steps, operation: "rm \(kind) \(id)")
      return plan
    }
  }

  /// Plans `mv`: the document under its new id, and every reference to it rewritten.
  public func planMove(kind: String, from oldID: String, to newID: String) throws(StoreError) -> ChangePlan {
    let stored = try read(kind: kind, id: oldID)
    let newPath = try path(kind: kind, id: newID)
    if FileIO.exists(newPath) { throw StoreError.badRequest("\(kind) \(newID) already exists (\(display(newPath)))") }
    let schema = try schema(of: stored.value, path: stored.path)
    var document = stored.value
    document[schema.idField] = .string(newID)
    var plan = ChangePlan()
    plan.steps.append(.write(path: newPath, bytes: try rewrite(document, at: newPath)))
    plan.steps.append(.delete(path: stored.path))
    plan.rewrites.append(.init(kind: kind, id: newID, path: newPath, reason: "renamed from \(oldID)"))
    plan.deletes.append(.init(kind: kind, id: oldID, path: stored.path, reason: "renamed to \(newID)"))
    var cache: [String: [(path: String, value: JSONValue)]] = [:]
    var changed: [String: (kind: String, id: String, value: JSONValue, fields: [String])] = [:]
    for dependant in try dependants(of: kind, id: oldID, cache: &cache) {
      var entry = changed[dependant.path] ?? (dependant.kind, "", dependant.value, [])
      entry.value[dependant.relation.field] = .string(newID)
      entry.fields.append(dependant.relation.field)
      let dependantSchema = try self.schema(of: dependant.value, path: dependant.path)
      entry.id = dependant.value[dependantSchema.idField].flatMap(DocumentID.text) ?? ""
      changed[dependant.path] = entry
    }
    for (path, change) in changed.sorted(by: { $0.key < $1.key }) {
      plan.steps.append(.write(path: path, bytes: try rewrite(change.value, at: path, created: [newPath])))
      plan.rewrites.append(.init(kind: change.kind, id: change.id, path: path, reason: "\(change.fields.joined(separator: ", ")) → \(newID)"))
    }
    return plan
  }

  /// Renames a document and rewrites every reference to it, in one journaled step.
  @discardableResult
  public func move(kind: String, from oldID: String, to newID: String) throws(StoreError) -> ChangePlan {
    try withWriteLock("mv \(kind) \(oldID) \(newID)") { () throws(StoreError) -> ChangePlan in
      let plan = try planMove(kind: kind, from: oldID, to: newID)
      try Journal(layout: layout).apply(plan.steps, operation: "mv \(kind) \(oldID) \(newID)")
      return plan
    }
  }

  /// The canonical bytes of a changed document with its `updated` timestamp refreshed, validated.
  /// Relations to documents deleted in the same step are not errors (they are being cleared).
  func rewrite(_ document: JSONValue, at path: String, created: Set<String> = []) throws(StoreError) -> [UInt8] {
    let schema = try schema(of: document, path: path)
    var document = document
    if let updated = schema.timestamps.updated { document[updated] = timestamp(for: updated, in: schema) }
    return try checkedBytes(document, schema: schema, path: path, created: created)
  }
}
