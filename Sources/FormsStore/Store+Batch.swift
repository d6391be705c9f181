import FormsCore

extension Store {
  /// The ids of the `kind` documents for which every expression of `filters` holds, in id order.
  public func ids(of kind: String, matching filters: [Expression]) throws(StoreError) -> [String] {
    let schema = try schema(kind)
    let idPath = Expression.Path(steps: [.member(schema.idField)])
    let (documents, skipped) = try list(kind: kind, query: Query(filters: filters, sort: [(idPath, false)]))
    if let unreadable = skipped.first {
      throw StoreError.refused(.unreadableMatch(path: display(unreadable.path), reason: unreadable.reason))
    }
    return documents.compactMap { $0.value[schema.idField].flatMap(DocumentID.text) }
  }

  /// `set` on every `kind` document `filters` match, as a person's change to each (workflow,
  /// timestamps, validation), all in one journaled operation with one audit record; with
  /// `dryRun`, checks everything and writes nothing. Returns the documents as written.
  public func update(kind: String, matching filters: [Expression], assignments: [Assignment], dryRun: Bool = false)
    throws(StoreError) -> [Document]
  {
    let summary = "set \(kind) --where \(filters.map(\.description).joined(separator: " and "))"
    return try write("set", summary: summary, dryRun: dryRun) { session throws(StoreError) -> [Document] in
      var written: [Document] = []
      for id in try ids(of: kind, matching: filters) {
        let stored = try read(kind: kind, id: id)
        var document = stored.value
        let schema = try schema(of: stored.value, path: stored.path)
        try assignments.apply(to: &document, schema: schema)
        written.append(try session.save(document, replacing: stored, kind: kind, source: .person))
      }
      return written
    }
  }

  /// `rm` of every `kind` document `filters` match, following relations as for one (cascade,
  /// nullify, restrict), in one journaled operation; with `dryRun`, plans and writes nothing.
  @discardableResult
  public func delete(kind: String, matching filters: [Expression], dryRun: Bool = false) throws(StoreError)
    -> ChangePlan
  {
    let summary = "rm \(kind) --where \(filters.map(\.description).joined(separator: " and "))"
    return try write("rm", summary: summary, dryRun: dryRun) { session throws(StoreError) -> ChangePlan in
      let plan = try planDelete(try ids(of: kind, matching: filters).map { (kind, $0) }, reason: "matches --where")
      if !plan.blockers.isEmpty {
        if dryRun { return plan }
        throw StoreError.refused(
          .restricted(kind: kind, id: nil, referrers: plan.blockers.map { "\($0.kind) \($0.id)" }))
      }
      try stage(plan, in: session)
      return plan
    }
  }
}
