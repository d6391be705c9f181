import FormsCore

extension Store {
  /// A column of `list`: its name (a header, a key of the records) and the path it reads.
  public typealias Column = (name: String, path: FilterExpression.Path)

  /// What `list` shows: the documents `query` finds, with sealed values opened where the
  /// identity can (else the placeholder), as records and as a table of `columns` (nil: the
  /// kind's default columns, and records that are whole documents).
  public struct Listing: Sendable {
    public var documents: [Document]
    /// Files that could not be read or parsed (a merge conflict), with why; not listed.
    public var skipped: [Skipped]
    /// An interrupted operation awaiting `recover`, when there is one: what is listed may be half-changed.
    public var pending: String?
    public var report: TableReport
  }

  /// What `list` shows of `query`. The sealed values its filters and sort keys read and those it
  /// shows are recorded first, in one access record.
  public func listing(kind: String, query: Query, columns requested: [Column]? = nil) throws(StoreError) -> Listing {
    let found = try listed(kind: kind, query: query)
    let (documents, report) = try listingReport(kind: kind, found.documents, columns: requested, read: found.read)
    return Listing(
      documents: documents, skipped: found.skipped, pending: try Journal(layout: layout).pending(), report: report)
  }

  /// `documents` of `kind` as `list` shows them (sealed values opened where the identity can):
  /// the shown documents, and the report of `columns` (nil: the kind's default columns, and
  /// records that are whole documents). The opened values shown are recorded first
  /// (``recordAccess(_:)``).
  public func listingReport(kind: String, _ documents: [Document], columns requested: [Column]?) throws(StoreError)
    -> (documents: [Document], report: TableReport)
  {
    try listingReport(kind: kind, documents, columns: requested, read: [])
  }

  /// ``listingReport(kind:_:columns:)``, recording `read` (what the query read to find them) with
  /// what is shown.
  func listingReport(kind: String, _ documents: [Document], columns requested: [Column]?, read: [AccessEntry])
    throws(StoreError) -> (documents: [Document], report: TableReport)
  {
    let schema = try schema(kind)
    let columns = requested ?? Self.defaultColumns(schema)
    // Records are whole documents without columns asked for: all of each is shown.
    try recordAccess(
      Self.merged(
        read
          + documents.compactMap { document in
            access(
              document, kind: kind,
              shown: requested.map { $0.flatMap { $0.path.located(in: document.value).map(\.pointer) } } ?? [.root])
          }))
    let documents = documents.map { Document(path: $0.path, value: shown($0), bytes: $0.bytes) }
    // Columns of computed members (`_awaiting`, `_sync`) read them as `--where` and `--sort` do.
    let values = try computing(requested ?? [], into: documents, kind: kind)
    let report = TableReport(
      records: values.map { requested == nil ? $0 : Self.project($0, columns) },
      columns: columns.map(\.name),
      rows: values.map { value in
        columns.map { column in column.path.values(in: value).map(TableReport.cell).joined(separator: "; ") }
      })
    return (documents, report)
  }

  /// The values of `documents` with the computed members `columns` read added, each computed
  /// from the file as stored (what `list --where` evaluates).
  func computing(_ columns: [Column], into documents: [Document], kind: String) throws(StoreError) -> [JSONValue] {
    let computed = Self.computedMembers(columns.map(\.path))
    guard !computed.isEmpty else { return documents.map(\.value) }
    let sync = computed.contains("_sync") ? try SyncState.latest(layout)?.records(kind: kind) ?? [:] : nil
    var values: [JSONValue] = []
    for document in documents {
      var value = document.value
      // Listed documents parsed when they were read; one that no longer parses is shown without.
      if let stored = try? JSONParser().parse(document.bytes) {
        try compute(
          computed, into: &value, stored: stored, kind: kind, path: document.path, bytes: document.bytes, sync: sync)
      }
      values.append(value)
    }
    return values
  }

  /// The descriptor's `columns:`; without them the id, the workflow field, then scalar fields up
  /// to five, then the updated timestamp.
  public static func defaultColumns(_ schema: Schema) -> [Column] {
    if !schema.columns.isEmpty { return schema.columns.map { ($0.description, $0) } }
    var names = [schema.idField]
    if let workflow = schema.workflow { names.append(workflow.field) }
    for name in schema.root.fieldOrder
    where names.count < 5 && !names.contains(name) && name != schema.timestamps.created {
      let kind = schema.root.fields[name]?.type.kind
      if kind != .list && kind != .object && kind != .map && kind != .oneOf && name != schema.timestamps.updated {
        names.append(name)
      }
    }
    if let updated = schema.timestamps.updated { names.append(updated) }
    return names.map { ($0, FilterExpression.Path(steps: [.member($0)])) }
  }

  /// The document narrowed to `columns`: each name holds its path's value (an array when the
  /// path reads several, null when none).
  static func project(_ document: JSONValue, _ columns: [Column]) -> JSONValue {
    var object = JSONObject()
    for column in columns {
      let values = column.path.values(in: document)
      object[column.name] = values.count == 1 ? values[0] : (values.isEmpty ? .null : .array(values))
    }
    return .object(object)
  }
}
