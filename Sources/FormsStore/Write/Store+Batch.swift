import FormsCore

extension Store {
  /// The ids of the `kind` documents for which every expression of `filters` holds, in id order.
  public func ids(of kind: String, matching filters: [FilterExpression]) throws(StoreError) -> [String] {
    try ids(of: kind, matching: filters, session: nil)
  }

  /// ``ids(of:matching:)`` inside `session`: the sealed values the filters read are recorded
  /// under the lock the session already holds.
  func ids(of kind: String, matching filters: [FilterExpression], session: WriteSession?) throws(StoreError) -> [String]
  {
    let schema = try schema(kind)
    let idPath = FilterExpression.Path(steps: [.member(schema.idField)])
    let found = try listed(kind: kind, query: Query(filters: filters, sort: [(idPath, false)]))
    if let session { try recordAccess(found.read, in: session) } else { try recordAccess(found.read) }
    let (documents, skipped) = (found.documents, found.skipped)
    if let unreadable = skipped.first {
      throw StoreError.refused(.unreadableMatch(path: display(unreadable.path), reason: unreadable.reason))
    }
    return documents.compactMap { $0.value[schema.idField].flatMap(DocumentID.text) }
  }

  /// `set` on every `kind` document `filters` match, as a person's change to each (workflow,
  /// timestamps, validation), all in one journaled operation with one audit record; with
  /// `dryRun`, checks everything and writes nothing. Returns the documents as written. With
  /// `voidingApprovals` false, one change that would make approvals stale refuses them all
  /// (``Refusal/wouldVoidApprovals(_:)``), as for one document.
  public func update(
    kind: String, matching filters: [FilterExpression], assignments: [Assignment], dryRun: Bool = false,
    voidingApprovals: Bool = false
  )
    throws(StoreError) -> [Document]
  {
    let summary = "set \(kind) --where \(whereSummary(filters))"
    return try write("set", summary: summary, dryRun: dryRun, voidingApprovals: voidingApprovals) {
      session throws(StoreError) -> [Document] in
      var written: [Document] = []
      for id in try ids(of: kind, matching: filters, session: session) {
        let stored = try read(kind: kind, id: id)
        var document = stored.value
        let schema = try rules.schema(of: stored.value, path: stored.path)
        try assignments.apply(to: &document, schema: schema)
        written.append(try session.save(document, replacing: stored, kind: kind, source: .person))
      }
      return written
    }
  }

  /// `rm` of every `kind` document `filters` match, following relations as for one (cascade,
  /// nullify, restrict), in one journaled operation; with `dryRun`, plans and writes nothing.
  @discardableResult
  public func delete(kind: String, matching filters: [FilterExpression], dryRun: Bool = false) throws(StoreError)
    -> ChangePlan
  {
    let summary = "rm \(kind) --where \(whereSummary(filters))"
    return try write("rm", summary: summary, dryRun: dryRun) { session throws(StoreError) -> ChangePlan in
      let plan = try planDelete(
        try ids(of: kind, matching: filters, session: session).map { (kind, $0) }, reason: "matches --where")
      if !plan.blockers.isEmpty {
        if dryRun { return plan }
        throw StoreError.refused(
          .restricted(kind: kind, id: nil, referrers: plan.blockers.map { "\($0.kind) \($0.id)" }))
      }
      try stage(plan, in: session)
      return plan
    }
  }

  /// The filters as the lock file and its holder's message show them: an expression naming a
  /// sensitive field is «redacted» whole (it may hold a plain sealed value), as in the audit
  /// record's command.
  func whereSummary(_ filters: [FilterExpression]) -> String {
    redactingSensitive(filters.map(\.description), names: registry.sensitiveFieldNames).joined(separator: " and ")
  }
}
