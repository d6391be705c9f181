import FormsCore

extension Store {
  /// Creates a document from `base` (a JSON object, or empty) and `assignments`; fills `_schema`,
  /// defaults, the id (a UUID when the id field is a uuid) and the timestamps; validates; refuses
  /// an id that exists. Returns the path and the document written.
  public func create(kind: String, base: JSONValue = .object(JSONObject()), assignments: [Assignment] = [])
    throws(StoreError) -> Document
  {
    let schema = try schema(kind)
    guard case .object(var object) = base else { throw StoreError.badRequest("the input must be a JSON object, not \(base.typeName)") }
    if let given = object["_schema"]?.stringValue, given != schema.reference {
      throw StoreError.badRequest("the input says _schema \(given); new documents are created at \(schema.reference)")
    }
    object["_schema"] = .string(schema.reference)
    var document = JSONValue.object(object)
    for assignment in assignments { try assignment.apply(to: &document, schema: schema) }
    Store.fillDefaults(&document, type: schema.root)
    if document[schema.idField] == nil {
      guard schema.root.fields[schema.idField]?.type.kind == .uuid else {
        throw StoreError.badRequest("a \(kind) needs its id: pass --set \(schema.idField)=...")
      }
      document[schema.idField] = .string(makeUUID())
    }
    for field in [schema.timestamps.created, schema.timestamps.updated].compactMap({ $0 }) where document[field] == nil {
      document[field] = timestamp(for: field, in: schema)
    }
    guard let id = document[schema.idField].flatMap(DocumentID.text) else {
      throw StoreError.badRequest("the id field \(schema.idField) must be a string")
    }
    let path = try self.path(kind: kind, id: id)
    let bytes = try checkedBytes(document, schema: schema, path: path)
    return try withWriteLock("new \(kind)") { () throws(StoreError) -> Document in
      if FileIO.exists(path) { throw StoreError.badRequest("\(kind) \(id) already exists (\(display(path)))") }
      try writeDocument(bytes, to: path)
      return Document(path: path, value: document, bytes: bytes)
    }
  }

  /// Changes fields of a stored document, updates its `updated` timestamp, validates, writes.
  public func update(kind: String, id: String, assignments: [Assignment]) throws(StoreError) -> Document {
    try modify(kind: kind, id: id, command: "set") { (document, schema) throws(StoreError) in
      for assignment in assignments { try assignment.apply(to: &document, schema: schema) }
    }
  }

  /// Moves the workflow field to `state` when the descriptor allows it.
  public func transition(kind: String, id: String, to state: String) throws(StoreError) -> Document {
    try modify(kind: kind, id: id, command: "status") { (document, schema) throws(StoreError) in
      guard let workflow = schema.workflow else { throw StoreError.badRequest("\(kind) has no workflow") }
      let current = document[workflow.field]?.stringValue
        ?? schema.root.fields[workflow.field]?.defaultValue?.stringValue ?? ""
      let allowed = workflow.transitions[current] ?? []
      guard allowed.contains(state) else {
        let next = allowed.isEmpty ? "none (\(current) is final)" : allowed.joined(separator: ", ")
        throw StoreError.badRequest("\(kind) \(id) is \(current); it cannot move to \(state). Allowed next: \(next)")
      }
      document[workflow.field] = .string(state)
    }
  }

  /// Replaces a stored document with `edited` (from `edit`), if the file still holds `original`.
  public func replace(kind: String, id: String, original: [UInt8], with edited: JSONValue) throws(StoreError) -> Document {
    try modify(kind: kind, id: id, command: "edit", expecting: original) { (document, _) throws(StoreError) in
      document = edited
    }
  }

  func modify(
    kind: String, id: String, command: String, expecting original: [UInt8]? = nil,
    _ change: (inout JSONValue, Schema) throws(StoreError) -> Void
  ) throws(StoreError) -> Document {
    try withWriteLock("\(command) \(kind) \(id)") { () throws(StoreError) -> Document in
      let stored = try read(kind: kind, id: id)
      if let original, original != stored.bytes {
        throw StoreError.badRequest("\(display(stored.path)) changed while it was being edited; not overwriting it")
      }
      let schema = try schema(of: stored.value, path: stored.path)
      var document = stored.value
      try change(&document, schema)
      if document == stored.value { return stored }
      let current = try self.schema(kind)
      if let updated = current.timestamps.updated, schema.reference == current.reference {
        document[updated] = timestamp(for: updated, in: current)
      }
      let bytes = try checkedBytes(document, schema: schema, path: stored.path)
      try writeDocument(bytes, to: stored.path)
      return Document(path: stored.path, value: document, bytes: bytes)
    }
  }

  /// Fills missing defaulted fields, in this object and in the objects it holds.
  static func fillDefaults(_ value: inout JSONValue, type: SchemaType) {
    guard case .object(var object) = value, type.kind == .object else { return }
    for name in type.fieldOrder {
      guard let field = type.fields[name] else { continue }
      if object[name] == nil, let defaultValue = field.defaultValue { object[name] = defaultValue }
      if var child = object[name], field.type.kind == .object {
        fillDefaults(&child, type: field.type)
        object[name] = child
      }
    }
    value = .object(object)
  }
}
