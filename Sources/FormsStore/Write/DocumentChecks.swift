import FormsCore

/// Checks of one document against the store around it: id, file name, directory, relations.
enum DocumentChecks {
  /// `exists(kind, id, path)` says whether the document a relation names exists at `path()` (a
  /// set lookup for `validate`, which never makes the path; a stat for writes); a relation to an
  /// invalid id or an unknown kind names none.
  static func crossDocumentFindings(
    _ document: JSONValue, schema: Schema, path: String, layout: StoreLayout, registry: SchemaRegistry,
    display: (String) -> String, exists: (_ kind: String, _ id: String, _ path: () -> String) -> Bool
  ) -> [Finding] {
    // Nearly every document is valid: its file is `directory/id.json` and that is checked on the
    // path's bytes; only a document that fails it has its paths taken apart for a message.
    var findings: [Finding] = []
    let expected = layout.documents(in: schema.directory)
    let id = document[schema.idField].flatMap(DocumentID.text)
    if let id, Self.isFile(path, of: id, in: expected) {
      // Where it belongs, and named by its id (a valid one: the id is checked below otherwise).
      if !DocumentID.isValid(id) {
        findings.append(
          Finding(pointer: JSONPointer.root.appending(schema.idField), rule: "id", message: DocumentID.problem(id)))
      }
    } else {
      let idPointer = JSONPointer.root.appending(schema.idField)
      let name = StoreLayout.id(fromFile: path) ?? FilePath(path).name
      if let id {
        if !DocumentID.isValid(id) {
          findings.append(Finding(pointer: idPointer, rule: "id", message: DocumentID.problem(id)))
        } else if id != name {
          findings.append(
            Finding(
              pointer: idPointer, rule: "file-name",
              message: "the file is named \(name).json but the id is \"\(id)\"; rename the file to \(id).json"))
        }
      }
      let directory = FilePath(path).parent.string
      if directory != expected {
        findings.append(
          Finding(
            pointer: .root, rule: "directory",
            message: "a \(schema.kind) document belongs in \(display(expected))/, not \(display(directory))/"))
      }
    }
    for relation in schema.relations {
      guard let target = document[relation.field].flatMap(DocumentID.text) else { continue }
      let targetDirectory = registry.latestDirectory(relation.kind)
      let targetPath = { layout.path(directory: targetDirectory ?? relation.kind, id: target) }
      if targetDirectory == nil || !DocumentID.isValid(target) || !exists(relation.kind, target, targetPath) {
        findings.append(
          Finding(
            pointer: JSONPointer.root.appending(relation.field), rule: "relation",
            message: "\"\(target)\" names no \(relation.kind) (\(display(targetPath())) does not exist)"))
      }
    }
    return findings
  }

  /// True when `path` is exactly `directory/id.json` (then its parent is `directory` and its
  /// name says `id`, as `FilePath` would take it apart), compared byte for byte.
  static func isFile(_ path: String, of id: String, in directory: String) -> Bool {
    var (path, id, directory, suffix) = (path, id, directory, StoreLayout.documentSuffix)
    return path.withUTF8 { p in
      id.withUTF8 { i in
        directory.withUTF8 { d in
          suffix.withUTF8 { s in
            guard p.count == d.count + 1 + i.count + s.count, !d.isEmpty, !i.contains(UInt8(ascii: "/")) else {
              return false
            }
            let name = d.count + 1
            return UnsafeBufferPointer(rebasing: p[..<d.count]).elementsEqual(d) && p[d.count] == UInt8(ascii: "/")
              && UnsafeBufferPointer(rebasing: p[name..<name + i.count]).elementsEqual(i)
              && UnsafeBufferPointer(rebasing: p[(name + i.count)...]).elementsEqual(s)
          }
        }
      }
    }
  }
}
