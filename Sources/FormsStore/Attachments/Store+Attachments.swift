import FormsCore

extension Store {
  /// Attaches the file at `file` (outside the store or in it, but not a symbolic link, and a
  /// regular file) to the document `id` as its attachment `name`; see
  /// ``attach(kind:id:name:bytes:fileName:voidingApprovals:)``.
  @discardableResult
  public func attach(kind: String, id: String, name: String, file: String, voidingApprovals: Bool = false)
    throws(StoreError) -> Document
  {
    let declared = try declaredAttachment(kind: kind, name: name)
    let path = FilePath(file)
    let bytes: [UInt8]
    do {
      bytes = try FileIO.read(path, limit: declared.maxSize, followLinks: false, toEnd: true)
    } catch {
      switch error {
      case .fileTooLarge(_, let size, _):
        throw StoreError.refused(
          .attachmentRefused(
            file: file, reason: "\(size) bytes, more than \(name)'s max_size of \(ByteSize.describe(declared.maxSize))")
        )
      case .wrongFileType(_, let found, _):
        throw StoreError.refused(.attachmentRefused(file: file, reason: "\(found), not a regular file"))
      default: throw error
      }
    }
    return try attach(
      kind: kind, id: id, name: name, bytes: bytes, fileName: path.name, voidingApprovals: voidingApprovals)
  }

  /// Attaches `bytes`, the content of a file called `fileName`, to the document `id` as its
  /// attachment `name` (declared by the kind's `attachments:`), replacing the one it had: the
  /// file is kept at `attachments/<directory>/<id>/<name>.<extension>` and named in the
  /// document's `_attachments` with its SHA-256, size and media type, in one journaled write
  /// with the document (its `updated` stamp, validation, the audit record). The media type is
  /// told from the content and the name (`MediaType.detect(_:name:)` (FormsCore)); a file larger than the
  /// attachment's `max_size`, of a type it does not allow, or whose content is not what its name
  /// says is refused. An approval signs the attachments' hashes with the content, so attaching
  /// another file voids signatures: with `voidingApprovals` false that is refused first.
  @discardableResult
  public func attach(
    kind: String, id: String, name: String, bytes: [UInt8], fileName: String, voidingApprovals: Bool = false
  ) throws(StoreError) -> Document {
    try write("attach", summary: "attach \(kind) \(id) \(name)", voidingApprovals: voidingApprovals) {
      session throws(StoreError) in
      let stored = try read(kind: kind, id: id)
      let schema = try rules.schema(of: stored.value, path: stored.path)
      let declared = try declaredAttachment(kind: kind, name: name, schema: schema)
      guard bytes.count <= declared.maxSize else {
        throw StoreError.refused(
          .attachmentRefused(
            file: fileName,
            reason: "\(bytes.count) bytes, more than \(name)'s max_size of \(ByteSize.describe(declared.maxSize))"))
      }
      let type: String
      switch MediaType.detect(bytes, name: fileName) {
      case .success(let found): type = found
      case .failure(let mismatch):
        let said = mismatch.claimed.map { "its name says \($0), but it holds \(mismatch.found)" }
        throw StoreError.refused(
          .attachmentRefused(file: fileName, reason: said ?? "\(mismatch.found), no media type formsctl knows"))
      }
      guard declared.types.contains(type) else {
        throw StoreError.refused(
          .attachmentRefused(
            file: fileName, reason: "\(type); \(name) may be \(declared.types.joined(separator: ", "))"))
      }
      let record = AttachmentRecord(sha256: sha256Hex(bytes), size: bytes.count, type: type)
      let folder = try attachmentFolder(schema: schema, id: id)
      var document = stored.value
      var attached = document["_attachments"]?.objectValue ?? JSONObject()
      // The file of a type it had before goes: one file per attachment.
      for (entry, _) in try FileIO.entries(of: folder) where Self.isFile(entry, of: name) {
        if entry != declared.fileName(type: type) { try session.delete((folder / entry).string, entry: nil) }
      }
      try session.stageAttachment(bytes, to: (folder / declared.fileName(type: type)).string, record: record)
      attached[name] = record.json
      document["_attachments"] = .object(attached)
      let saved = try session.save(document, replacing: stored, kind: kind, source: .person)
      return saved
    }
  }

  /// Removes the attachment `name` from the document `id`: its file and its `_attachments`
  /// record, in one journaled write (refused while the document's state requires it).
  @discardableResult
  public func detach(kind: String, id: String, name: String, voidingApprovals: Bool = false) throws(StoreError)
    -> Document
  {
    try write("detach", summary: "detach \(kind) \(id) \(name)", voidingApprovals: voidingApprovals) {
      session throws(StoreError) in
      let stored = try read(kind: kind, id: id)
      let schema = try rules.schema(of: stored.value, path: stored.path)
      _ = try declaredAttachment(kind: kind, name: name, schema: schema)
      guard var attached = stored.value["_attachments"]?.objectValue, attached[name] != nil else {
        throw StoreError.refused(.notAttached(kind: kind, id: id, name: name))
      }
      let folder = try attachmentFolder(schema: schema, id: id)
      for (entry, _) in try FileIO.entries(of: folder) where Self.isFile(entry, of: name) {
        try session.delete((folder / entry).string, entry: nil)
      }
      attached[name] = nil
      var document = stored.value
      document["_attachments"] = attached.members.isEmpty ? nil : .object(attached)
      let saved = try session.save(document, replacing: stored, kind: kind, source: .person)
      return saved
    }
  }

  /// The content of the attachment `name` of the document `id`, checked against the record the
  /// document keeps: a file that is missing, a link, or not the size and SHA-256 recorded is refused.
  public func attachment(kind: String, id: String, name: String) throws(StoreError) -> (
    bytes: [UInt8], record: AttachmentRecord
  ) {
    let stored = try readStored(kind: kind, id: id)
    let schema = try rules.schema(of: stored.value, path: stored.path)
    let declared = try declaredAttachment(kind: kind, name: name, schema: schema)
    guard let value = stored.value["_attachments"]?[name] else {
      throw StoreError.refused(.notAttached(kind: kind, id: id, name: name))
    }
    guard let record = AttachmentRecord(value) else {
      throw StoreError.refused(
        .attachmentAltered(path: display(stored.path), problem: "its _attachments record of \(name) is malformed"))
    }
    let path = try attachmentFolder(schema: schema, id: id) / declared.fileName(type: record.type)
    let bytes: [UInt8]
    do {
      bytes = try FileIO.read(path, limit: Schema.Attachment.largestSize, followLinks: false)
    } catch {
      switch error {
      case .fileNotFound:
        throw StoreError.refused(.attachmentAltered(path: display(path.string), problem: "missing"))
      case .wrongFileType(_, let found, _):
        throw StoreError.refused(
          .attachmentAltered(path: display(path.string), problem: "\(found), not a regular file"))
      default: throw error
      }
    }
    if bytes.count != record.size || sha256Hex(bytes) != record.sha256 {
      throw StoreError.refused(
        .attachmentAltered(
          path: display(path.string),
          problem: "not the file attached (\(bytes.count) bytes; the record says "
            + "\(record.size) and a different SHA-256)"))
    }
    if case .failure(let mismatch) = MediaType.detect(bytes, name: path.name), mismatch.claimed == record.type {
      throw StoreError.refused(
        .attachmentAltered(path: display(path.string), problem: "\(mismatch.found), not the \(record.type) recorded"))
    }
    return (bytes, record)
  }

  /// The declaration of attachment `name` of `kind` (of `schema`, else the newest version).
  func declaredAttachment(kind: String, name: String, schema: Schema? = nil) throws(StoreError) -> Schema.Attachment {
    let found: Schema
    if let schema { found = schema } else { found = try rules.schema(kind) }
    guard let declared = found.attachment(name) else {
      throw StoreError.refused(.noSuchAttachment(kind: kind, name: name, declared: found.attachments.map(\.name)))
    }
    return declared
  }

  /// The folder of the document's attachments, refused when a link is on the way (a checkout may
  /// plant one): what formsctl reads, lists and removes there stays in the store.
  func attachmentFolder(schema: Schema, id: String) throws(StoreError) -> FilePath {
    try layout.checkedAttachmentFolder(directory: schema.directory, id: id)
  }

  /// True when `entry`, a name in an attachment folder, is a file of the attachment `name`
  /// (`name` or `name.<extension>`).
  static func isFile(_ entry: String, of name: String) -> Bool {
    entry == name || (entry.hasPrefix(name + ".") && !entry.dropFirst(name.count + 1).contains("."))
  }
}

extension StoreLayout {
  /// ``attachmentFolder(directory:id:)``, refused when `attachments/`, its kind folder or the
  /// document's folder is anything but a directory or absent.
  package func checkedAttachmentFolder(directory: String, id: String) throws(StoreError) -> FilePath {
    guard DocumentID.isValid(id) else { throw StoreError.refused(.badID(id)) }
    let folder = attachmentFolder(directory: directory, id: id)
    for step in [attachmentsPath, attachmentsPath / directory, folder] {
      let found = FileIO.entry(step)
      if found != .directory && found != .missing {
        throw StoreError.wrongFileType(relative(step.string), found: FileIO.describe(step), expected: "a directory")
      }
    }
    return folder
  }
}

extension WriteSession {
  /// Stages the file of an attachment: `bytes` at `path`, which the document staged next names with
  /// `record` (the pipeline refuses an `_attachments` change without the file staged with it).
  func stageAttachment(_ bytes: [UInt8], to path: String, record: AttachmentRecord) throws(StoreError) {
    try stage(bytes, to: path, entry: nil)
    noteAttachment(record, at: path)
  }

  /// Refuses an `_attachments` change that does not come with its files: each record added or
  /// changed must name a file this session staged with that record, each one removed a file it
  /// deleted. Only `attach` and `detach` do that, so the records always describe the files.
  func checkAttachments(_ document: JSONValue, stored: Store.Document?, schema: Schema, kind: String, id: String)
    throws(StoreError)
  {
    let before = stored?.value["_attachments"]
    let after = document["_attachments"]
    guard before != after else { return }
    let folder = layout.attachmentFolder(directory: schema.directory, id: id)
    for member in after?.objectValue?.members ?? [] where before?[member.key] != member.value {
      guard let record = AttachmentRecord(member.value), let declared = schema.attachment(member.key),
        stagedAttachment(at: (folder / declared.fileName(type: record.type)).string) == record
      else { throw StoreError.refused(.attachmentsByHand(kind: kind, id: id, name: member.key)) }
    }
    for member in before?.objectValue?.members ?? [] where after?[member.key] == nil {
      guard let record = AttachmentRecord(member.value), let declared = schema.attachment(member.key),
        willDelete((folder / declared.fileName(type: record.type)).string)
      else { throw StoreError.refused(.attachmentsByHand(kind: kind, id: id, name: member.key)) }
    }
  }

  /// Refuses a signature (a submission, an approval, a rejection) over `_attachments` records whose
  /// files are not what they say: a signature covers the hashes, so the files signed must be the
  /// files people see.
  func verifyAttachmentsBeforeSigning(
    _ document: JSONValue, stored: Store.Document?, schema: Schema, kind: String, id: String
  ) throws(StoreError) {
    guard !schema.attachments.isEmpty, document["_attachments"] != nil,
      (document["_approvals"]?.arrayValue?.count ?? 0) > (stored?.value["_approvals"]?.arrayValue?.count ?? 0)
    else { return }
    if let problem = AttachmentChecks.findings(document, schema: schema, layout: layout).first {
      throw StoreError.refused(.unsignableAttachments(kind: kind, id: id, problem: problem.message))
    }
  }

  /// Stages the deletion of every file in the attachment folder of a document being removed.
  func removeAttachments(of schema: Schema, id: String) throws(StoreError) {
    let folder = try layout.checkedAttachmentFolder(directory: schema.directory, id: id)
    for (entry, kind) in try FileIO.entries(of: folder) where kind != .directory {
      try delete((folder / entry).string, entry: nil)
    }
  }

  /// Stages moving every file of a document's attachment folder to the folder of its new id.
  func moveAttachments(of schema: Schema, from oldID: String, to newID: String) throws(StoreError) {
    let from = try layout.checkedAttachmentFolder(directory: schema.directory, id: oldID)
    let to = try layout.checkedAttachmentFolder(directory: schema.directory, id: newID)
    if let stray = try FileIO.entries(of: to).first {
      throw StoreError.refused(
        .attachmentRefused(
          file: layout.relative((to / stray.name).string),
          reason: "the folder of \(newID) already holds files no document names; move or remove them first"))
    }
    for (entry, kind) in try FileIO.entries(of: from) where kind != .directory {
      let bytes = try FileIO.read(from / entry, limit: Schema.Attachment.largestSize, followLinks: false)
      try stage(bytes, to: (to / entry).string, entry: nil)
      try delete((from / entry).string, entry: nil)
    }
  }
}
