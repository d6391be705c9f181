import FormsCore

/// A document that waits for a signer's approval (`formsctl inbox`).
public struct InboxItem: Sendable, Equatable {
  public let kind: String
  public let id: String
  /// The review state the document is in.
  public let state: String
  /// The step the signer may sign now, and the role they sign it in.
  public let step: String
  public let role: String
  /// Who submitted it, and when (RFC 3339): it has waited since then.
  public let submittedBy: String
  public let since: String
  public let path: String

  /// `{kind, id, state, step, role, submitted_by, since, path}`.
  public func json(display: (String) -> String) -> JSONValue {
    .object(
      JSONObject([
        "kind": .string(kind), "id": .string(id), "state": .string(state), "step": .string(step),
        "role": .string(role), "submitted_by": .string(submittedBy), "since": .string(since),
        "path": .string(display(path)),
      ]))
  }
}

extension Store {
  /// What `inbox` found: the documents waiting for the signer, oldest submission first, the
  /// files of the kinds with approval chains that could not be read (named, not judged), and the
  /// documents whose round waits for the signer's step but which `approve` refuses (a record
  /// that no longer counts, a chain changed since, a rule the approval would break), with why.
  public struct Inbox: Sendable {
    public var items: [InboxItem]
    public var skipped: [Skipped]
    public var blocked: [(item: InboxItem, reason: StoreError)]
    /// The roles the signer holds in the manifest (none: nothing can wait for them).
    public var roles: [String]
    /// How each submitter (a signer's key) is named to people: the name `roles:` gives, else the
    /// key's first 12 characters (``StoreLayout/signerName(_:)``).
    public var submitters: [String: String] = [:]
  }

  /// Every document, of every kind whose descriptor declares approval chains, that waits for
  /// `signer` now: in a chain's review state, its round submitted and live (not rejected, the
  /// content still what was submitted), with a step the signer may sign next in a role the
  /// manifest gives them; not their own submission, and not a round they already signed (as
  /// ``approve(kind:id:step:comment:identity:shown:)`` would refuse those). Each one found is then
  /// approved as a dry run, every check of the write path and nothing written: one `approve`
  /// refuses is ``Inbox/blocked``, not listed. Oldest submission first, then by kind and id.
  /// Reads the files as stored: no sealed value is opened, none recorded. Refused, as `approve`
  /// is, while an interrupted operation awaits `recover` (what is on disk may be half-changed).
  public func inbox(for identity: Identity) throws(StoreError) -> Inbox {
    try Journal(layout: layout).requireNone()
    let signer = identity.signer
    let held = layout.roles.filter { $0.value.contains(signer) }.map(\.key).sorted()
    var found: [InboxItem] = []
    var skipped: [Skipped] = []
    for kind in registry.kinds {
      guard try schema(kind).approvals != nil else { continue }
      let listing = try listed(kind: kind, query: Query())
      skipped += listing.skipped
      guard !held.isEmpty else { continue }
      for document in listing.documents {
        if let item = waiting(document, kind: kind, signer: signer, held: held) { found.append(item) }
      }
    }
    found.sort { ($0.since, $0.kind, $0.id) < ($1.since, $1.kind, $1.id) }
    var inbox = Inbox(items: [], skipped: skipped, blocked: [], roles: held)
    for item in found {
      do throws(StoreError) {
        _ = try sign(
          .approve, kind: item.kind, id: item.id, step: item.step, comment: nil, identity: identity, dryRun: true)
        inbox.items.append(item)
      } catch  where error.kind == .badInput {
        // Changed since it was listed (signed, moved, removed by another writer meanwhile): judged
        // again as it is now, and left out when it no longer waits (or can no longer be read).
        if let now = storeDocument(kind: item.kind, id: item.id),
          waiting(now, kind: item.kind, signer: signer, held: held) != nil
        {
          inbox.blocked.append((item, error))
        }
      }
    }
    for item in inbox.items { inbox.submitters[item.submittedBy] = layout.signerName(item.submittedBy) }
    return inbox
  }

  /// The document `id` of `kind` as it is now; nil when it cannot be read.
  private func storeDocument(kind: String, id: String) -> Document? {
    do throws(StoreError) { return try read(kind: kind, id: id) } catch { return nil }
  }

  /// The step of `document` that waits for `signer`, if one does.
  func waiting(_ document: Document, kind: String, signer: Signer, held: [String]) -> InboxItem? {
    // What the approvals signed: the file as stored, sealed values as envelopes.
    let stored = DocumentRules.asStored(document)
    guard let schema = registry.schema(of: stored), let state = schema.workflowState(of: stored),
      let chain = schema.approvals?.reviewing(state)
    else { return nil }
    let id = stored[schema.idField].flatMap(DocumentID.text) ?? document.id
    let review = ApprovalReview(
      stored, schema: schema, kind: kind, id: id, roles: layout.roles, references: registry.references(kind))
    guard let round = review.rounds[chain.to], round.isLive, let preparer = round.preparer,
      preparer != signer.description, !round.signed.values.contains(where: { $0.contains(signer.description) }),
      let step = round.missing.map(\.step).first(where: {
        held.contains($0.role) && round.nextStep(for: $0.role)?.name == $0.name
      })
    else { return nil }
    let submission = (stored["_approvals"]?.arrayValue ?? []).compactMap(ApprovalRecord.init).last {
      $0.action == .submit && $0.chain == chain.to && $0.signature == round.submission
    }
    return InboxItem(
      kind: kind, id: id, state: state, step: step.name, role: step.role, submittedBy: preparer,
      since: submission?.time ?? "", path: document.path)
  }
}

extension Store.Inbox {
  /// The table `formsctl inbox` prints (and its JSON records): kind, id, state, step, role, who
  /// submitted it and since when.
  public func report(display: (String) -> String) -> TableReport {
    var notes: [String] = []
    if roles.isEmpty {
      notes.append("you hold no role in formsctl.yaml (roles:), so nothing waits for your signature")
    } else if items.isEmpty {
      notes.append("nothing waits for your signature (roles: \(roles.joined(separator: ", ")))")
    }
    return TableReport(
      records: items.map { $0.json(display: display) },
      columns: ["KIND", "ID", "STATE", "STEP", "ROLE", "SUBMITTED BY", "SINCE"],
      rows: items.map {
        [
          $0.kind, $0.id, $0.state, $0.step, $0.role, submitters[$0.submittedBy] ?? Self.short($0.submittedBy),
          $0.since,
        ]
      },
      notes: notes)
  }

  /// A signer's key as tables show it: its first 12 characters after the scheme (`ed25519:`).
  static func short(_ signer: String) -> String {
    guard let colon = signer.firstIndex(of: ":") else { return String(signer.prefix(12)) }
    return String(signer[signer.index(after: colon)...].prefix(12))
  }
}
