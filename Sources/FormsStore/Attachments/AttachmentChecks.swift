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
                  + "the record says \(record.size) bytes, \(record.sha256.prefix(12))… (attach it again to accept it)"))
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
