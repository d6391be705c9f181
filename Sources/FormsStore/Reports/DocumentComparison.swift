import FormsCore

extension Store {
  /// The document `reference` names: `ID` (or a unique prefix) as it is now, or `ID@SNAPSHOT` as
  /// a snapshot holds it (the snapshot by id, prefix, label, `latest` or `latest~N`). Sealed
  /// values are opened when the identity can.
  public func document(kind: String, reference: String) throws(StoreError) -> Document {
    let parts = reference.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
    let id = try expand(kind: kind, id: parts[0])
    guard parts.count == 2 else { return try read(kind: kind, id: id) }
    let snapshot = try Snapshots(layout: layout).find(parts[1])
    let relative = layout.relative(try path(kind: kind, id: id))
    let path = snapshot.directory / relative
    guard FileIO.entry(path) == .file else {
      throw StoreError.notFound(kind: kind, id: id, path: "\(relative) in snapshot \(snapshot.name)")
    }
    let bytes = try FileIO.read(path, followLinks: false)
    let value = try Self.parsed(bytes, shown: "\(relative) in snapshot \(snapshot.name)")
    return try openedDocument(value, path: path.string, bytes: bytes)
  }

  /// Where two documents differ, by JSON Pointer, as a report: records `{pointer, left, right}`
  /// (a side where the value is absent has no member), and a table POINTER LEFT RIGHT. Values
  /// are shown as `list` shows them: sealed ones opened for a key holder, else the placeholder
  /// (``recordAccess(_:)``). Every opened value of both sides is recorded first, not only those
  /// shown: an equal pair has no row, and that missing row tells the value as surely as a row.
  public func comparison(kind: String, _ left: Document, _ right: Document) throws(StoreError) -> TableReport {
    let a = shown(left)
    let b = shown(right)
    let pointers = a.changedPointers(to: b)
    try recordAccess([left, right].compactMap { access($0, kind: kind) })
    var records: [JSONValue] = []
    var rows: [[String]] = []
    for pointer in pointers {
      var record = JSONObject(["pointer": .string(pointer.description)])
      record["left"] = a[pointer: pointer]
      record["right"] = b[pointer: pointer]
      records.append(.object(record))
      let cell: (JSONValue?) -> String = { $0.map(JSONWriter.compact) ?? "(absent)" }
      rows.append([pointer.description, cell(a[pointer: pointer]), cell(b[pointer: pointer])])
    }
    return TableReport(records: records, columns: ["pointer", "left", "right"], rows: rows)
  }
}
