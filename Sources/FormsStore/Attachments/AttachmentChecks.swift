import FormsCore

/// `validate`'s check of a document's attachment files against its `_attachments` records: each
/// recorded file present, a regular file, of the recorded size and SHA-256; no file in the
/// document's folder that no record names; no folder on the way a link.
enum AttachmentChecks {
  static func findings(_ document: JSONValue, schema: Schema, layout: StoreLayout) -> [Finding] {
    guard !schema.attachments.isEmpty, let id = document[schema.idField].flatMap(DocumentID.text),
      DocumentID.isValid(id)
    else { return [] }
    let base = JSONPointer.root.appending("_attachments")
    let anchor = document["_attachments"] == nil ? JSONPointer.root : base
    func finding(_ pointer: JSONPointer, _ message: String) -> Finding {
      Finding(pointer: pointer, rule: "attachment-file", message: message)
    }
    let folder: FilePath
    let entries: [String: FileIO.Entry]
    do {
      folder = try layout.checkedAttachmentFolder(directory: schema.directory, id: id)
      entries = Dictionary(try FileIO.entries(of: folder).map { ($0.name, $0.kind) }) { first, _ in first }
    } catch {
      return [finding(anchor, "its attachments cannot be checked: \(error.description)")]
    }
    let shown = { (name: String) in layout.relative((folder / name).string) }
    var findings: [Finding] = []
    var expected = Set<String>()
    for member in document["_attachments"]?.objectValue?.members ?? [] {
      guard let declared = schema.attachment(member.key), let record = AttachmentRecord(member.value) else { continue }
      let name = declared.fileName(type: record.type)
      expected.insert(name)
      let pointer = base.appending(member.key)
      switch entries[name] {
      case nil:
        findings.append(finding(pointer, "\(shown(name)) is missing (attach it again: formsctl attach)"))
      case .file?:
        do {
          let bytes = try FileIO.read(folder / name, limit: Schema.Attachment.largestSize, followLinks: false)
          if bytes.count != record.size || sha256Hex(bytes) != record.sha256 {
            findings.append(
              finding(
                pointer,
                "\(shown(name)) is not the file attached: \(bytes.count) bytes, SHA-256 \(sha256Hex(bytes).prefix(12))…, "
                  + "the record says \(record.size) bytes, \(record.sha256.prefix(12))… (attach it again to accept it)")
            )
          } else if case .failure(let mismatch) = MediaType.detect(bytes, name: name),
            mismatch.claimed == record.type
          {
            findings.append(
              finding(pointer, "\(shown(name)) holds \(mismatch.found), not the \(record.type) its record says"))
          }
        } catch {
          findings.append(finding(pointer, "\(shown(name)) cannot be read: \(error.description)"))
        }
      case let found?:
        findings.append(
          finding(pointer, "\(shown(name)) is \(found == .symlink ? "a symbolic link" : "not a regular file")"))
      }
    }
    for name in entries.keys.sorted() where !expected.contains(name) {
      findings.append(
        finding(anchor, "\(shown(name)) is not named in _attachments (attach it with formsctl attach, or remove it)"))
    }
    return findings
  }
}

extension AttachmentChecks {
  /// The attachment folders of documents that do not exist (`attachments/<directory>/<id>/`
  /// holding files with no `data/<directory>/<id>.json`), and anything under `attachments/` that
  /// is no kind's folder: one diagnostic each, for a whole-store `validate`.
  static func orphans(layout: StoreLayout, registry: SchemaRegistry, display: (String) -> String) throws(StoreError)
    -> [Diagnostic]
  {
    guard try layout.hasAttachments else { return [] }
    let directories = Set(
      registry.schemas.values.flatMap { $0.values.filter { !$0.attachments.isEmpty }.map(\.directory) })
    var found: [Diagnostic] = []
    func orphan(_ path: FilePath, _ message: String) {
      found.append(
        Diagnostic(file: display(path.string), position: nil, rule: "attachment-file", message: message))
    }
    for (directory, kind) in try FileIO.entries(of: layout.attachmentsPath) {
      let folder = layout.attachmentsPath / directory
      guard kind == .directory, directories.contains(directory) else {
        orphan(folder, "no kind that declares attachments keeps its documents in \(directory)/")
        continue
      }
      for (id, entry) in try FileIO.entries(of: folder) {
        let files = entry == .directory ? try FileIO.entries(of: folder / id) : [("", entry)]
        guard !files.isEmpty, !FileIO.exists(FilePath(layout.path(directory: directory, id: id))) else { continue }
        orphan(
          folder / id,
          entry == .directory
            ? "no document \(directory)/\(id).json holds these \(files.count) file(s); remove them, or restore the document"
            : "not a document's folder (attachments live in attachments/\(directory)/<id>/)")
      }
    }
    return found
  }
}
