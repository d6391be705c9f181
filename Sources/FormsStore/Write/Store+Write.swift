import FormsCore

extension Store {
  /// Creates a document from `base` (a JSON object, or empty) and `assignments`; fills `_schema`,
  /// the id (a UUID when the id field is a uuid), timestamps and defaults; checks the state it
  /// starts in; validates under the lock; refuses an id that exists. With `dryRun`, every check
  /// and nothing written (the document that would be written is returned).
  @discardableResult
  public func create(
    kind: String, base: JSONValue = .object(JSONObject()), assignments: [Assignment] = [], dryRun: Bool = false
  ) throws(StoreError) -> Document {
    let schema = try schema(kind)
    guard case .object(var object) = base else {
      throw StoreError.refused(.notAnObject(kind: kind, found: base.typeName))
    }
    if let given = object["_schema"]?.stringValue, given != schema.reference {
      throw StoreError.refused(.schemaMismatch(given: given, current: schema.reference))
    }
    object["_schema"] = .string(schema.reference)
    var document = JSONValue.object(object)
    try assignments.apply(to: &document, schema: schema)
    if document[schema.idField] == nil {
      guard schema.root.fields[schema.idField]?.type.kind == .uuid else {
        throw StoreError.refused(.missingID(kind: kind, field: schema.idField))
      }
      document[schema.idField] = .string(configuration.makeUUID())
    }
    let id = document[schema.idField].flatMap(DocumentID.text) ?? ""
    return try write("new", summary: "new \(kind) \(id)", dryRun: dryRun) { session throws(StoreError) in
      try session.save(document, replacing: nil, kind: kind, source: .person)
    }
  }

  /// Changes fields of a stored document as a person would: workflow, timestamps, validation.
  @discardableResult
  ///
  /// With `voidingApprovals` false, a change that would make approvals stale (end a submitted
  /// round; see ``StaleApprovals``) is refused before anything is written
  /// (``Refusal/wouldVoidApprovals(_:)``): the person is told first, and says so to go on.
  /// With `dryRun`, every check and nothing written.
  /// With `shown` (the ``Document/contentHash`` of the version a person or an assistant was
  /// shown), refused unless the stored document is still that version.
  public func update(
    kind: String, id: String, assignments: [Assignment], voidingApprovals: Bool = false, dryRun: Bool = false,
    shown: String? = nil
  ) throws(StoreError) -> Document {
    try modify(
      kind: kind, id: id, operation: "set", shown: shown, dryRun: dryRun, voidingApprovals: voidingApprovals
    ) {
      (document, schema) throws(StoreError) in
      try assignments.apply(to: &document, schema: schema)
    }
  }

  /// Moves the workflow field to `state` when the descriptor allows it. A move into the review
  /// state of an approval chain is a submission: `identity` signs it and names the preparer.
  @discardableResult
  ///
  /// With `voidingApprovals` false, a move out of a chain's review state while its round is live
  /// (it ends the round without a signed rejection) is refused (``Refusal/leavesReview(kind:id:from:to:)``).
  /// With `dryRun`, every check and nothing written.
  public func transition(
    kind: String, id: String, to state: String, identity: Identity? = nil, voidingApprovals: Bool = false,
    dryRun: Bool = false, shown: String? = nil
  ) throws(StoreError) -> Document {
    try modify(
      kind: kind, id: id, operation: "status", shown: shown, dryRun: dryRun, voidingApprovals: voidingApprovals
    ) {
      (document, schema) throws(StoreError) in
      guard let workflow = schema.workflow else { throw StoreError.refused(.noWorkflow(kind: kind)) }
      if let record = try submission(document, into: state, schema: schema, kind: kind, id: id, identity: identity) {
        document["_approvals"] = .array((document["_approvals"]?.arrayValue ?? []) + [record.json])
      }
      document[workflow.field] = .string(state)
    }
  }

  /// Replaces a stored document with `edited` (from `edit`, or a form), if the file still holds
  /// `original`. With `voidingApprovals` false, a change that would make approvals stale is
  /// refused first (``Refusal/wouldVoidApprovals(_:)``), as `update(kind:id:assignments:voidingApprovals:)` does.
  @discardableResult
  public func replace(
    kind: String, id: String, original: [UInt8], with edited: JSONValue, voidingApprovals: Bool = false
  ) throws(StoreError) -> Document {
    try modify(kind: kind, id: id, operation: "edit", expecting: original, voidingApprovals: voidingApprovals) {
      (document, _) throws(StoreError) in
      document = edited
    }
  }

  /// Reads the stored document under the lock, applies `change`, and saves it as a person's change.
  /// `original` (the bytes edited) or `shown` (the ``Document/contentHash`` of what a person or
  /// an assistant was shown) refuses the change when the stored document is no longer that one.
  func modify(
    kind: String, id: String, operation: String, expecting original: [UInt8]? = nil, shown: String? = nil,
    dryRun: Bool = false, voidingApprovals: Bool = false, details: (() -> JSONObject)? = nil,
    _ change: (inout JSONValue, Schema) throws(StoreError) -> Void
  ) throws(StoreError) -> Document {
    try write(operation, summary: "\(operation) \(kind) \(id)", dryRun: dryRun, voidingApprovals: voidingApprovals) {
      session throws(StoreError) in
      let stored = try read(kind: kind, id: id)
      if let original, original != stored.bytes {
        throw StoreError.refused(.changedMeanwhile(path: display(stored.path), during: "while it was being edited"))
      }
      if let shown, shown != stored.contentHash {
        throw StoreError.refused(.changedMeanwhile(path: display(stored.path), during: "since it was shown"))
      }
      var document = stored.value
      try change(&document, try rules.schema(of: stored.value, path: stored.path))
      if let details { session.details = details() }
      return try session.save(document, replacing: stored, kind: kind, source: .person)
    }
  }
}

extension [Assignment] {
  /// Applies each assignment in turn, as `set a=1 b=2` does (each `[+]` of a list the same new element).
  func apply(to document: inout JSONValue, schema: Schema) throws(StoreError) {
    do {
      var appended: [String: Int] = [:]
      for assignment in self {
        try assignment.resolvingAppends(in: document, appended: &appended).apply(to: &document, schema: schema)
      }
    } catch {
      throw .assignment(error)
    }
  }
}
