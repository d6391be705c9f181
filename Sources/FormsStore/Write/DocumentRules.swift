import FormsCore

/// What a document must satisfy to be written, as a value the write session owns
/// (docs/design.md §12): the store's descriptors (schema, workflow, stamps, defaults, approvals,
/// relations), where each kind's files live, the keyring that seals sensitive values, and how
/// paths show in messages. The pipeline (`WriteSession+Pipeline`) reads these rules and the
/// session's own staged files; it never calls back into the store that made them.
struct DocumentRules: Sendable {
  let layout: StoreLayout
  let registry: SchemaRegistry
  let keyring: Keyring
  let display: @Sendable (String) -> String

  /// The rules of a session that stages files, not documents (restoring a snapshot while a
  /// descriptor is broken): no kinds, so the pipeline refuses any document by its kind.
  static func none(_ layout: StoreLayout) -> DocumentRules {
    DocumentRules(
      layout: layout, registry: SchemaRegistry(schemas: [:], diagnostics: [], files: [:]),
      keyring: Keyring(recipients: layout.recipients, identity: nil), display: { $0 })
  }

  /// The newest schema of `kind`, or an error naming the kinds there are.
  func schema(_ kind: String) throws(StoreError) -> Schema {
    guard let schema = registry.latest(kind) else {
      throw StoreError.refused(.unknownKind(kind, kinds: registry.kinds))
    }
    return schema
  }

  /// The schema a stored document names.
  func schema(of document: JSONValue, path: String) throws(StoreError) -> Schema {
    guard let schema = registry.schema(of: document) else {
      throw StoreError.refused(.unknownSchema(path: display(path)))
    }
    return schema
  }

  /// Where the document `id` of `kind` lives (the id is checked first, which keeps paths in the store).
  func path(kind: String, id: String) throws(StoreError) -> String {
    guard DocumentID.isValid(id) else { throw StoreError.refused(.badID(id)) }
    return layout.path(directory: try schema(kind).directory, id: id)
  }

  /// Every finding for a document about to be written to `path`: schema, id, file name, relations.
  /// Relations are checked with one `exists` call each (a stat, or what a write session leaves),
  /// so a write never scans the store. Values still sealed are not checked (their type is the
  /// envelope's), and findings about a sensitive value do not quote it.
  func findings(for document: JSONValue, schema: Schema, path: String, exists: (String) -> Bool) -> [Finding] {
    Validator(schema: schema).validate(document).aboutSensitive(in: document, schema: schema)
      + DocumentChecks.crossDocumentFindings(
        document, schema: schema, path: path, layout: layout, registry: registry, display: display
      ) { _, _, path in exists(path()) }
  }

  /// `document` as it will be written, after checking it: its sensitive values sealed (keeping
  /// the envelopes of `stored` whose values did not change); invalid documents are refused with
  /// diagnostics. The pipeline then settles its approvals (`settleApprovals`).
  func checkedSealed(
    _ document: JSONValue, schema: Schema, path: String, stored: Store.Document?, exists: (String) -> Bool
  ) throws(StoreError) -> JSONValue {
    let findings = findings(for: document, schema: schema, path: path, exists: exists)
    let id = document[schema.idField].flatMap(DocumentID.text) ?? ""
    guard findings.isEmpty else {
      throw StoreError.invalidDocument(
        "the \(schema.kind) \(id)", diagnostics(findings, document: document, path: path))
    }
    guard schema.hasSensitiveFields else { return document }
    return try keyring.seal(
      document, schema: schema, previous: stored.map(Self.asStored), what: "\(schema.kind) \(id)")
  }

  /// The approvals step, after validation and sealing (so it judges the content as the file will
  /// hold it, envelopes included). When the write changes signed content, each chain's round
  /// that was submitted and not rejected ends (a `reopen` record in both forms of the document),
  /// and a document in a state a chain guards goes back to the chain's review state when the
  /// descriptor says `on_change: reopen` (or `reopen` asks, as a reseal does); with
  /// `on_change: refuse` the check below refuses the change. Then the approvals are judged as
  /// `validate` judges them, and any finding refuses the write.
  func settleApprovals(
    _ document: inout JSONValue, sealed: inout JSONValue, stored: Store.Document?, schema: Schema, id: String,
    path: String, reopen forced: Bool, time: String
  ) throws(StoreError) -> StaleApprovals? {
    guard let approvals = schema.approvals else { return nil }
    var stale: StaleApprovals?
    if let stored {
      // The stored file as it is on disk (envelopes), what its approvals signed.
      let before = schema.hasSensitiveFields ? Self.asStored(stored) : stored.value
      let old = review(before, schema: schema, id: id)
      let content = ApprovalContent.hash(sealed, schema: schema)
      let from = schema.workflowState(of: before)
      let guarded = from.flatMap { state in
        schema.workflowState(of: document) == state ? approvals.guarding(state) : nil
      }
      let refused = guarded != nil && approvals.onChange == .refuse && !forced
      if old.content != content, !refused {
        var records = 0
        var ended: [JSONValue] = []
        for chain in approvals.chains {
          guard let round = old.rounds[chain.to], round.preparer != nil, !round.rejected else { continue }
          records += 1 + round.signed.values.reduce(0) { $0 + $1.count }
          ended.append(ApprovalRecord.Reopen(chain: chain.to, time: time, content: content).json)
        }
        if !ended.isEmpty {
          document["_approvals"] = .array((document["_approvals"]?.arrayValue ?? []) + ended)
          sealed["_approvals"] = document["_approvals"]
        }
        var reopenedTo: String?
        if let guarded, let workflow = schema.workflow {
          document[workflow.field] = .string(guarded.from)
          sealed[workflow.field] = .string(guarded.from)
          reopenedTo = guarded.from
        }
        if !ended.isEmpty || reopenedTo != nil {
          stale = StaleApprovals(kind: schema.kind, id: id, state: from, records: records, reopenedTo: reopenedTo)
        }
      }
    }
    let findings = review(sealed, schema: schema, id: id).findings
    if !findings.isEmpty {
      throw StoreError.invalidDocument(
        "the \(schema.kind) \(id)", diagnostics(findings, document: document, path: path))
    }
    return stale
  }

  /// The approvals of `document` (as stored) judged by the store's roles.
  func review(_ document: JSONValue, schema: Schema, id: String) -> ApprovalReview {
    ApprovalReview(
      document, schema: schema, kind: schema.kind, id: id, roles: layout.roles,
      references: registry.references(schema.kind))
  }

  /// Findings placed in the canonical text of `document`, as `path` would hold it; a document
  /// not yet written has no file to point into, so its findings name the path it would have and
  /// the pointer only.
  func diagnostics(_ findings: [Finding], document: JSONValue, path: String) -> [Diagnostic] {
    let written = FileIO.exists(FilePath(path))
    let file = written ? display(path) : display(path) + " (new, not written)"
    let schema = registry.schema(of: document)
    let locations = schema.map { $0.hasSensitiveFields ? $0.root.sensitiveLocations(in: document) : [] } ?? []
    return Diagnostic.placed(
      findings.map { $0.withholdingValue(under: locations) }, in: written ? JSONWriter.canonical(document) : nil,
      file: file)
  }

  /// A stored document as its file holds it, sealed values as envelopes: its bytes were read and
  /// parsed when it was read, so they parse again (its opened value stands in if they did not).
  static func asStored(_ stored: Store.Document) -> JSONValue {
    do { return try JSONParser().parse(stored.bytes) } catch { return stored.value }
  }
}
