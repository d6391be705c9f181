import FormsCore

extension Store {
  /// What `keys add`, `keys remove` and `keys reseal` changed.
  public struct ResealReport: Sendable {
    public var recipients: [Recipient]
    /// Documents rewritten, and sensitive values sealed afresh in them.
    public var documents = 0
    public var values = 0
    /// Signed documents whose approvals the new envelopes make stale (approvals sign the
    /// envelopes): their rounds end, and those in a state a chain guards go back to review.
    public var staleApprovals: [StaleApprovals] = []
  }

  /// Seals every sensitive value of the store for the recipients `change` makes of the current
  /// ones, in one journaled operation with one audit record, and writes them to `formsctl.yaml`:
  /// values sealed for other recipients are opened and sealed again, values in plain text are
  /// sealed, the rest keep their envelope. The manifest is read, and `change` runs, under the lock.
  /// Needs an identity that opens every value and stays a recipient; refuses an empty list.
  ///
  /// Each document goes through the write path (`ChangeSource.sealing`). Approvals sign the
  /// envelopes, so a new envelope in a signed document makes its approvals stale: unless
  /// `reopen` says so, such a reseal is refused naming the documents (a dry run lists them in
  /// the report); with it, their rounds end and approved ones go back to review, each listed.
  public func reseal(
    _ operation: String, dryRun: Bool = false, reopen: Bool = false,
    recipients change: ([Recipient]) throws(StoreError) -> [Recipient]
  )
    throws(StoreError) -> ResealReport
  {
    guard let identity = keyring.identity else {
      throw StoreError.refused(.resealNeedsIdentity(operation: operation, identityPath: keyring.identityPath))
    }
    return try write(operation, summary: operation, dryRun: dryRun) { session throws(StoreError) -> ResealReport in
      let current = try StoreLayout(root: layout.root).recipients
      let recipients = try change(current)
      guard !recipients.isEmpty else {
        throw StoreError.refused(.lastRecipient)
      }
      guard recipients.count <= Keyring.maxRecipients else {
        throw StoreError.refused(.tooManyRecipients(limit: Keyring.maxRecipients))
      }
      guard recipients.contains(identity.recipient) else {
        throw StoreError.refused(.ownRecipientRemoved(identity.recipient.description))
      }
      let ring = Keyring(recipients: recipients, identity: identity, identityPath: keyring.identityPath)
      let directories = Set(
        registry.schemas.values.flatMap(\.values).filter(\.hasSensitiveFields).map(\.directory))
      var files: [String] = []
      for directory in directories.sorted() { files += try layout.documentFiles(in: directory) }
      let registry = self.registry
      let display = self.display
      let outcomes = parallelMap(
        files, chunkSize: 16, progress: ProgressCounter("sealing", total: files.count, progress)
      ) {
        path -> Result<(prepared: WriteSession.Prepared, values: Int)?, StoreError> in
        do throws(StoreError) {
          let bytes = try FileIO.read(FilePath(path), followLinks: false)
          guard let stored = try? JSONParser().parse(bytes), let reference = stored["_schema"]?.stringValue,
            let schema = registry.schema(reference: reference), schema.hasSensitiveFields
          else { return .success(nil) }
          let opened = ring.open(stored, schema: schema)
          if let problem = opened.broken.first
            ?? (opened.sealed.isEmpty
              ? nil
              : Finding(
                pointer: opened.sealed[0], rule: "sensitive",
                message: "your identity is not among the recipients this value is sealed for"))
          {
            throw StoreError.refused(
              .unopenableValue(path: display(path), pointer: problem.pointer.path, message: problem.message))
          }
          let sealed = try ring.seal(
            opened.value, schema: schema, previous: stored, what: "\(schema.kind) \(FilePath(path).name)")
          guard sealed != stored else { return .success(nil) }
          let values = stored.changedPointers(to: sealed).count
          let prepared = try session.prepare(
            sealed, replacing: Document(path: path, value: stored, bytes: bytes), kind: schema.kind, source: .sealing)
          return .success((prepared, values))
        } catch {
          return .failure(error)
        }
      }
      var report = ResealReport(recipients: recipients)
      var prepared: [WriteSession.Prepared] = []
      for outcome in outcomes {
        guard let change = try outcome.get() else { continue }
        prepared.append(change.prepared)
        report.documents += 1
        report.values += change.values
        if let stale = change.prepared.staleApprovals { report.staleApprovals.append(stale) }
      }
      // Said before anything is written: which signed documents the new envelopes would reopen.
      if !report.staleApprovals.isEmpty, !reopen, !dryRun {
        throw StoreError.refused(
          .resealStalesApprovals(
            operation: operation,
            documents: report.staleApprovals.map { "\($0.kind) \($0.id) (\($0.state ?? "no state"))" }))
      }
      for version in prepared { try session.stage(version) }
      if recipients != current {
        let manifest = StoreLayout.manifestPath(root: layout.root)
        let text = String(decoding: try FileIO.read(manifest), as: UTF8.self)
        try session.stage(
          Array(StoreLayout.manifest(text, recipients: recipients).utf8), to: manifest.string, entry: nil)
        session.operation.recordsWithoutDocuments = true
      }
      session.details["recipients"] = .number(JSONNumber(recipients.count))
      return report
    }
  }
}

extension StoreLayout {
  /// The manifest's text with its `encryption:` block (if any) replaced by one listing
  /// `recipients`; every other line, comments included, stays as it was.
  public static func manifest(_ text: String, recipients: [Recipient]) -> String {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if lines.last == "" { lines.removeLast() }
    if let start = lines.firstIndex(where: { $0.hasPrefix("encryption:") }) {
      var end = start + 1
      while end < lines.count, lines[end].isEmpty || lines[end].hasPrefix(" ") || lines[end].hasPrefix("\t") {
        end += 1
      }
      lines.removeSubrange(start..<end)
    }
    let block = ["encryption:", "  recipients:"] + recipients.map { "    - \($0)" }
    return (lines + block).joined(separator: "\n") + "\n"
  }
}
