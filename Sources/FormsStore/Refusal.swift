import FormsCore

/// What the store refuses to do, and why, as values an app can match (`catch
/// StoreError.refused(.alreadyExists(let kind, let id, _))`). Each is a request the store
/// understood and will not carry out as asked; nothing was written. `description` states the fact
/// in a sentence; the command line adds what to type next (formsctl's `ErrorText`).
public enum Refusal: Sendable, Equatable, CustomStringConvertible {
  // MARK: Documents and the write path

  case unknownKind(String, kinds: [String])
  /// An id that cannot be a file name (`DocumentID.problem` says why).
  case badID(String)
  /// A document whose `_schema` is missing or names no descriptor.
  case unknownSchema(path: String)
  case notAnObject(kind: String, found: String)
  /// New input that names another version than the one new documents are created at.
  case schemaMismatch(given: String, current: String)
  /// A document whose `_schema` is of another kind than the one it is written as.
  case wrongSchema(kind: String, reference: String)
  case missingID(kind: String, field: String)
  case noWorkflow(kind: String)

  // MARK: Approvals

  case noApprovals(kind: String)
  /// Approving or rejecting a document that is not in a chain's review state.
  case notInReview(kind: String, id: String, state: String, reviewStates: [String])
  /// A signer `roles:` in formsctl.yaml gives no role a chain asks for.
  case holdsNoRole(signer: String, roles: [String])
  case notSubmitted(kind: String, id: String)
  /// The content changed after its submission (or a change ended the round): it is submitted again first.
  case submitAgain(kind: String, id: String, state: String)
  /// `keys add/remove/reseal` would seal values of documents whose approvals it makes stale
  /// (`kind id (state)` each); refused unless asked to reopen them.
  case resealStalesApprovals(operation: String, documents: [String])
  /// A migration that changes signed content (a version change alone changes none): the forms
  /// whose rounds it would end, named before anything is written.
  case migrationVoidsApprovals(documents: [String])
  case selfApproval(kind: String, id: String)
  /// A person's change of signed content that would end a round (the approvals `stale` names),
  /// made without saying the signatures may go: refused before anything is written.
  case wouldVoidApprovals(StaleApprovals)
  /// A person's move out of a chain's review state while its round is live: the round ends
  /// without a signed rejection.
  case leavesReview(kind: String, id: String, from: String, to: String)
  /// A person's change of a field the completing approval filled in (`fills:`), while the
  /// document is in the state that approval reached.
  case filledByApproval(kind: String, id: String, field: String, state: String)
  case alreadySigned(kind: String, id: String, signer: String)
  /// A document with signed approval records cannot be renamed: each signs the id.
  case signedRename(kind: String, id: String, records: Int)
  /// An attachment the kind does not declare.
  case noSuchAttachment(kind: String, name: String, declared: [String])
  /// A file `attach` does not take: too large, of a type the attachment does not allow, a link...
  case attachmentRefused(file: String, reason: String)
  /// `detach` or `get --attachment` of an attachment the document does not carry.
  case notAttached(kind: String, id: String, name: String)
  /// An attachment file that is not what the document's record says.
  case attachmentAltered(path: String, problem: String)
  /// A change of `_attachments` that does not come with its file (made by hand, a feed, a sync).
  case attachmentsByHand(kind: String, id: String, name: String)
  /// A signature over attachment records whose files are not what the records say.
  case unsignableAttachments(kind: String, id: String, problem: String)
  /// No step the signer may sign now: their roles, and the steps waiting.
  case noStepFor(kind: String, id: String, roles: [String], waiting: [String])
  case unknownStep(step: String, steps: [String])
  /// A move into a chain's review state is a submission, signed with the person's identity.
  case submitNeedsIdentity(kind: String, state: String)
  case submitUnsigned(kind: String, id: String, state: String)
  /// A write that removes, reorders or changes a record already in `_approvals` (at `index`).
  case approvalsRewritten(kind: String, id: String, index: Int)
  /// `new --template NAME` of `kind`: no such template (`available` are the kind's).
  case unknownTemplate(kind: String, name: String, available: [String])
  /// A template's placeholder (`{{NAME}}`) that the change left unfilled, at `pointer`.
  case unfilledPlaceholder(kind: String, template: String, pointer: String, placeholder: String)
  case alreadyExists(kind: String, id: String, path: String)
  case idChanged(kind: String, from: String, to: String)
  /// A person's change of `_schema` (only a migration moves a document between versions).
  case schemaChanged(kind: String, id: String, stored: String)
  /// The file changed between reading it and writing it back (`during`: "the migration", "while it was being edited").
  case changedMeanwhile(path: String, during: String)
  /// A workflow move the descriptor does not allow; `strict` for a feed held to the workflow.
  case transition(kind: String, id: String, field: String, from: String, to: String, allowed: [String], strict: Bool)
  /// A person's change of fields the descriptor's `editable:` does not list.
  case notEditable(kind: String, id: String, fields: [String], editable: [String])
  /// A new document in a workflow state it cannot start in.
  case creationState(kind: String, state: String, allowed: [String])
  /// A delete that `on_delete: restrict` relations block (`id` nil: a delete by query).
  case restricted(kind: String, id: String?, referrers: [String])
  /// Another document, which may refer to this one, does not parse.
  case unparsedReferrer(path: String, position: SourcePosition, message: String, kind: String, id: String)
  /// A document a change by query would read does not parse or cannot be checked.
  case unreadableMatch(path: String, reason: String)
  /// A query that reads sensitive values no identity here opens (it would match nothing).
  case sealedQuery(expression: String, field: String)
  /// A `stats` number path that reaches values sealed for someone else (the identity here opens
  /// others): they would drop out of a sum as if null.
  case sealedForOthers(expression: String, values: Int)
  /// `stats` groupings that make more groups than it counts (two long lists multiply).
  case tooManyGroups(limit: Int, file: String)
  /// A field a document does not have, asked for by path.
  case noSuchField(kind: String, id: String, field: String)
  /// A field whose values are sealed, and no identity here opens them.
  case sealedField(kind: String, id: String, field: String)

  // MARK: Input files: feeds, mappings, editor settings, the journal

  /// One of the three versions git hands a merge that is not a JSON object (`position` nil) or
  /// does not parse (at `position`). `side` is `the base`, `ours` or `theirs`.
  case mergeSide(shown: String, side: String, position: SourcePosition?, message: String)
  /// A feed or mapping file that does not parse, at a position in it.
  case badInputFile(path: String, position: SourcePosition, message: String)
  case recordTooLarge(path: String, line: Int, size: Int, limit: Int)
  /// The editor's settings file is not strict JSON, or not an object (`position` nil).
  case editorSettings(path: String, position: SourcePosition?, message: String)
  /// A journal plan that names files no formsctl journal writes.
  case untrustedJournal(plan: String, names: [String])

  // MARK: Migrations

  case targetVersionWithoutKind
  case unknownVersion(kind: String, version: String, versions: [String])
  case noMigrationPath(message: String, documents: Int, version: String, remedy: Remedy?)
  /// A descriptor a recorded migration used has changed since.
  case descriptorChanged(path: String, migratedAt: String)
  /// A descriptor or the manifest (roles, recipients) changed since this process loaded the
  /// rules it judges writes by: a long-lived door writes nothing until restarted.
  case rulesChanged(path: String)

  // MARK: Editing

  case editorFailed(status: Int32)
  /// The person's text was left as it was (`stillInvalid`: it was refused before and still is).
  case editUnchanged(stillInvalid: Bool)
  case tooManyKeptCopies(directory: String, name: String)
  case keptCopyNeedsIdentity(path: String)
  case keptCopyUnopenable(path: String, reason: String)

  // MARK: Stores and snapshots

  case storeInsideStore(directory: String, outer: String)
  case snapshotWithoutManifest(name: String)
  /// A manifest naming a path no snapshot holds (`partial`: a `covers` entry outside `data/`).
  case snapshotUnsafePath(name: String, path: String, partial: Bool)
  case snapshotFailsVerification(name: String, problems: [String])
  /// A path to restore that the partial snapshot does not cover.
  case notCovered(path: String, snapshot: String, covers: Int, reason: String)
  case restoreNowhere(path: String, snapshot: String)
  /// A whole restore from a snapshot without the store's manifest would remove it.
  case restoreWithoutManifest(snapshot: String, path: String)
  /// A snapshot reference that names none (`newest`: the newest few, for the message).
  case noSuchSnapshot(reference: String, newest: [String])
  /// `latest~N` beyond the snapshots not taken by a restore.
  case notThatManySnapshots(reference: String, available: Int, newest: [String])
  case badSnapshotReference(String)
  case badLabel(String)
  case notADocument(path: String)
  /// `snapshot push`/`pull` copy with rsync, which is not installed.
  case rsyncMissing
  /// A local place for copies of the snapshots that lies inside the store.
  case copyInsideStore(path: String)

  // MARK: Git

  case gitMissing
  case notARepository(directory: String)
  case gitFailed(subcommand: String, stderr: String)
  case unknownRevision(String)
  case badMergePath(String)

  // MARK: Identities and sealing

  case identityMissing(path: String)
  case identityReadableByOthers(path: String, mode: UInt16)
  /// An identity inside a store, where git would commit it (`store`: the store's root).
  case identityInStore(path: String, store: String?)
  case notAnIdentity(path: String)
  case identityExists(path: String)
  case malformedEnvelope(what: String, pointer: String)
  case noRecipients(what: String, pointer: String)
  /// The `«encrypted»` placeholder given as a sensitive value where no sealed value is stored.
  case placeholderValue(what: String, pointer: String)
  case resealNeedsIdentity(operation: String, identityPath: String)
  case lastRecipient
  case tooManyRecipients(limit: Int)
  case ownRecipientRemoved(String)
  case unopenableValue(path: String, pointer: String, message: String)

  public var description: String {
    switch self {
    case .unknownKind(let kind, let kinds):
      return "unknown kind \"\(kind)\"\(didYouMean(kind, among: kinds)) (kinds: \(kinds.joined(separator: ", ")))"
    case .badID(let id): return DocumentID.problem(id)
    case .unknownSchema(let path): return "\(path): unknown or missing _schema"
    case .notAnObject(let kind, let found): return "a \(kind) must be a JSON object, not \(found)"
    case .schemaMismatch(let given, let current):
      return "the input says _schema \(given); new documents are created at \(current)"
    case .wrongSchema(let kind, let reference): return "the document says _schema \(reference); it is not a \(kind)"
    case .missingID(let kind, let field): return "a \(kind) needs its id: set \(field)"
    case .noWorkflow(let kind): return "\(kind) has no workflow"
    case .noApprovals(let kind): return "\(kind) declares no approval chains (approvals: in its descriptor)"
    case .notInReview(let kind, let id, let state, let states):
      return
        "\(kind) \(id) is \(state); approvals are given in \(states.joined(separator: " or ")), after it is submitted"
    case .holdsNoRole(let signer, let roles):
      return "\(signer) holds none of the roles the chain asks for (\(roles.joined(separator: ", "))) in formsctl.yaml"
    case .notSubmitted(let kind, let id):
      return "\(kind) \(id) was never submitted for approval (the move into review is the signed submission)"
    case .submitAgain(let kind, let id, let state):
      return "\(kind) \(id) changed after it was submitted, so that submission no longer counts; its preparer "
        + "submits it again (formsctl status \(kind) \(id) \(state), signed) before anyone approves it"
    case .resealStalesApprovals(let operation, let documents):
      return "\(operation) would seal values again in \(documents.count) signed document(s), and approvals sign the "
        + "envelopes: \(documents.prefix(5).joined(separator: ", "))\(documents.count > 5 ? ", …" : ""); their rounds "
        + "would end (approved ones back to review). Pass --reopen to do it; nothing written"
    case .rulesChanged(let path):
      return "\(path) changed since this process loaded the store's rules (descriptors, roles, chains); it judges "
        + "writes only by the rules on disk, so it writes nothing until it is started again"
    case .migrationVoidsApprovals(let documents):
      return "migrating changes the signed content of \(plural(documents.count, "signed document")): "
        + "\(documents.prefix(5).joined(separator: ", "))\(documents.count > 5 ? ", …" : ""); their signatures would "
        + "no longer count and their rounds would end (approved ones back to review); nothing written"
    case .selfApproval(let kind, let id):
      return "you submitted \(kind) \(id), so you may not approve or reject it (separation of duties)"
    case .wouldVoidApprovals(let stale):
      return "this change voids signatures: \(stale); nothing written"
    case .leavesReview(let kind, let id, let from, let to):
      return "\(kind) \(id) is submitted for approval: moving it \(from) → \(to) ends the round without a signed "
        + "decision (a rejection is signed: formsctl reject); nothing written"
    case .filledByApproval(let kind, let id, let field, let state):
      return "\(field) of \(kind) \(id) was filled in by the approval that made it \(state); it is not changed by hand"
    case .noSuchAttachment(let kind, let name, let declared):
      return declared.isEmpty
        ? "\(kind) declares no attachments (attachments: in its descriptor)"
        : "\(kind) declares no attachment \"\(name)\"\(didYouMean(name, among: declared)) (attachments: "
          + "\(declared.joined(separator: ", ")))"
    case .attachmentRefused(let file, let reason):
      return "\(file) cannot be attached: \(reason); nothing written"
    case .notAttached(let kind, let id, let name):
      return "\(kind) \(id) has no \(name) attachment"
    case .attachmentAltered(let path, let problem):
      return "attachment \(path) is \(problem); formsctl validate lists every such file"
    case .unsignableAttachments(let kind, let id, let problem):
      return "\(kind) \(id) is not signed while its attachments are not the files attached: \(problem); nothing written"
    case .attachmentsByHand(let kind, let id, let name):
      return "_attachments of \(kind) \(id) (\(name)) changes only with formsctl attach and detach, which keep the "
        + "file and its record together; nothing written"
    case .signedRename(let kind, let id, let records):
      return
        "\(kind) \(id) holds \(records) signed approval record(s), and each signs its id; renamed, they would no "
        + "longer verify. Create the document under the new id and submit it for approval again"
    case .alreadySigned(let kind, let id, let signer):
      return "\(signer) has already signed this round of \(kind) \(id); each step needs other people"
    case .noStepFor(let kind, let id, let roles, let waiting):
      return "no step of \(kind) \(id) waits for your roles (\(roles.joined(separator: ", "))); waiting: "
        + (waiting.isEmpty ? "nothing (the chain is complete)" : waiting.joined(separator: ", "))
    case .unknownStep(let step, let steps):
      return "no step \"\(step)\"\(didYouMean(step, among: steps)) (steps: \(steps.joined(separator: ", ")))"
    case .submitNeedsIdentity(let kind, let state):
      return "moving a \(kind) into \(state) submits it for approval, which is signed: no identity to sign with"
    case .approvalsRewritten(let kind, let id, let index):
      return "\(kind) \(id): _approvals only grows, and record \(index) was removed or changed (a signature, a "
        + "submission or the end of a round is never taken back)"
    case .submitUnsigned(let kind, let id, let state):
      return "moving \(kind) \(id) into \(state) submits it for approval and needs a signed submission; "
        + "only `status` (with an identity) signs one"
    case .unknownTemplate(let kind, let name, let available):
      return
        "\(kind) has no template \"\(name)\" (templates: \(available.isEmpty ? "none" : available.joined(separator: ", ")))"
    case .unfilledPlaceholder(let kind, let template, let pointer, let placeholder):
      return "the \(kind) template \(template) leaves \(placeholder) at \(pointer) to be filled; nothing written"
    case .alreadyExists(let kind, let id, let path): return "\(kind) \(id) already exists (\(path))"
    case .idChanged(let kind, let from, let to): return "\(kind) \(from): the id cannot be changed (to \(to))"
    case .schemaChanged(let kind, let id, let stored):
      return "\(kind) \(id) is at \(stored); _schema cannot be changed by hand"
    case .changedMeanwhile(let path, let during): return "\(path) changed \(during); nothing written"
    case .transition(let kind, let id, let field, let from, let to, let allowed, let strict):
      guard !strict else {
        return "\(kind) \(id): \(field) \(from) → \(to) is not a transition the workflow allows "
          + "(this import holds the feed to the workflow)"
      }
      let list = allowed.isEmpty ? "none (\(from) is final)" : allowed.joined(separator: ", ")
      return "\(kind) \(id) is \(from); it cannot move to \(to). Allowed next: \(list)"
    case .notEditable(let kind, let id, let fields, let editable):
      let named = fields.prefix(3).joined(separator: ", ") + (fields.count > 3 ? " and \(fields.count - 3) more" : "")
      return "\(kind) \(id): \(named) \(fields.count == 1 ? "is" : "are") not for people to change; people may "
        + "change \(editable.joined(separator: ", ")) (descriptor `editable:`), the rest comes from the feed"
    case .creationState(let kind, let state, let allowed):
      return "a new \(kind) starts as \(allowed.joined(separator: " or ")), not \(state)"
    case .restricted(let kind, let id, let referrers):
      let refer = "\(referrers.joined(separator: ", ")) refer\(referrers.count == 1 && id != nil ? "s" : "")"
      guard let id else {
        return "cannot delete the matching \(kind) documents: \(refer) to them with on_delete: restrict"
      }
      return "cannot delete \(kind) \(id): \(refer) to it with on_delete: restrict"
    case .unparsedReferrer(let path, let position, let message, let kind, let id):
      return "\(path):\(position.line):\(position.column): \(message); it may refer to \(kind) \(id), "
        + "so nothing is changed until it parses"
    case .unreadableMatch(let path, let reason): return "\(path): \(reason)"
    case .sealedQuery(let expression, let field):
      return "\(expression) reads \(field), a sensitive field whose values are sealed, and no identity here opens "
        + "them; the query would compare envelopes and match nothing"
    case .sealedForOthers(let expression, let values):
      return "\(expression) reaches \(plural(values, "value")) sealed for someone else, which the identity here "
        + "does not open; a sum, average, minimum or maximum without \(values == 1 ? "it" : "them") would be wrong"
    case .tooManyGroups(let limit, let file):
      return "the groupings make more than \(limit) groups (at \(file)); group by fewer or shorter lists, "
        + "or narrow with --where"
    case .noSuchField(let kind, let id, let field): return "\(kind) \(id) has no \(field)"
    case .sealedField(let kind, let id, let field):
      return "\(kind) \(id): \(field) is sealed (a sensitive field), and no identity here opens it; nothing shown"
    case .mergeSide(let shown, let side, let position?, let message):
      return "\(shown) (\(side)):\(position.line):\(position.column): \(message)"
    case .mergeSide(let shown, let side, nil, let message): return "\(shown): \(side) \(message)"
    case .badInputFile(let path, let position, let message):
      return "\(path):\(position.line):\(position.column): \(message)"
    case .recordTooLarge(let path, let line, let size, let limit):
      return "\(path):\(line):1: the record is \(size) bytes, more than the limit of \(limit) bytes (16 MiB) "
        + "for one record"
    case .editorSettings(let path, let position, let message):
      return "\(path)\(position.map { ":\($0.line):\($0.column)" } ?? ""): \(message); nothing written"
    case .untrustedJournal(let plan, let names):
      return "\(plan) names \(names.map { "\"\($0)\"" }.joined(separator: ", ")), which no formsctl journal writes "
        + "(outside the store's files); not recovering. Inspect .formsctl/journal and remove it by hand"
    case .targetVersionWithoutKind: return "a target version needs a kind: versions belong to one kind"
    case .unknownVersion(let kind, let version, let versions):
      return "\(kind) has no version \(version) (versions: \(versions.joined(separator: ", ")))"
    case .noMigrationPath(let message, let documents, let version, _):
      return "\(message) (\(plural(documents, "document")) at \(version))"
    case .descriptorChanged(let path, let time):
      return
        "\(path) changed since the migration of \(time) used it; documents migrated with the old text may not match"
    case .editorFailed(let status): return "the editor exited with status \(status); nothing written"
    case .editUnchanged(let stillInvalid):
      return stillInvalid
        ? "your text is still not valid (its problems are listed at its top); nothing written"
        : "your text was left unchanged; nothing written"
    case .tooManyKeptCopies(let directory, let name):
      return "\(directory) holds 1000 kept copies of \(name); merge or remove them"
    case .keptCopyNeedsIdentity(let path): return "\(path) is sealed; opening it needs an identity"
    case .keptCopyUnopenable(let path, let reason): return "\(path) cannot be opened with this identity (\(reason))"
    case .storeInsideStore(let directory, let outer):
      return "\(directory) is inside the store at \(outer); a store cannot hold another"
    case .snapshotWithoutManifest(let name): return "snapshot \(name) has no readable manifest.json; it cannot be used"
    case .snapshotUnsafePath(let name, let path, let partial):
      return partial
        ? "snapshot \(name) says it covers \(path), but a partial snapshot covers documents (data/...) only; "
          + "its manifest is damaged or forged; not restoring from it"
        : "snapshot \(name): manifest.json names \"\(path)\", which is not a file a snapshot holds "
          + "(data/, schemas/, formsctl.yaml); refusing to use it"
    case .snapshotFailsVerification(let name, let problems):
      return "snapshot \(name) fails verification; not restoring from it: \(problems.joined(separator: "; "))"
    case .notCovered(let path, let snapshot, let covers, let reason):
      return "\(path): snapshot \(snapshot) covers only the \(plural(covers, "document")) its \(reason) changed, "
        + "and this is not among them"
    case .restoreNowhere(let path, let snapshot):
      return "\(path): neither snapshot \(snapshot) nor the live store has it"
    case .restoreWithoutManifest(let snapshot, let path):
      return
        "snapshot \(snapshot) holds no \(path); restoring it whole would remove the store's manifest; not restoring"
    case .noSuchSnapshot(let reference, let newest):
      return "no snapshot \"\(reference)\"" + Self.newest(newest)
    case .notThatManySnapshots(let reference, let available, let newest):
      return "\(reference) goes back further than the \(plural(available, "snapshot")) not taken by a restore"
        + Self.newest(newest)
    case .badSnapshotReference(let reference):
      return "\(reference): write latest~N with N a whole number (latest~1 is the one before latest)"
    case .badLabel(let label): return "label \"\(label)\": use A–Z a–z 0–9 . _ -"
    case .notADocument(let path): return "\(path) is not a document of the store; a partial snapshot holds documents"
    case .rsyncMissing:
      return "rsync is not installed; snapshot push and pull copy with it (apt-get install rsync, as root or with sudo)"
    case .copyInsideStore(let path):
      return "\(path) is inside the store; copies of its snapshots go to a directory outside it (a mounted drive)"
    case .gitMissing: return "git is not installed"
    case .notARepository(let directory): return "\(directory) is not inside a git repository"
    case .gitFailed(let subcommand, let stderr): return "git \(subcommand): \(stderr)"
    case .unknownRevision(let revision):
      return "unknown revision \"\(revision)\" (git knows no such commit, branch or tag)"
    case .badMergePath(let path):
      return "\(path): the document's path must be relative to the top of the work tree, without `..` (git's %P)"
    case .identityMissing(let path): return "the identity \(path) does not exist"
    case .identityReadableByOthers(let path, let mode):
      return "the identity \(path) may be read by others (mode \(String(mode, radix: 8))); "
        + "run `chmod 600 \(path)` (formsctl refuses it, as ssh refuses such a key)"
    case .identityInStore(let path, let store):
      return "\(path) is inside the store\(store.map { " at \($0)" } ?? ""), where git would commit it"
    case .notAnIdentity(let path): return "\(path) is not a formsctl identity (one line \(Identity.keyPrefix)BASE64)"
    case .identityExists(let path):
      return "\(path) already exists; formsctl never overwrites an identity (the values sealed for it would be lost)"
    case .malformedEnvelope(let what, let pointer):
      return "\(what): \(pointer) holds enc:v1: text that is not a well-formed envelope"
    case .placeholderValue(let what, let pointer):
      return "\(what): \(pointer) is «encrypted», the placeholder formsctl shows for a value it could not open, "
        + "not a value; give the value itself (a key holder sets it); nothing written"
    case .noRecipients(let what, let pointer):
      return "\(what): \(pointer) is sensitive, and formsctl.yaml names no recipients to seal it for"
    case .resealNeedsIdentity(let operation, let identityPath):
      return "\(operation) opens every sensitive value to seal it again, so it needs a key holder's identity; "
        + "none at \(identityPath)"
    case .lastRecipient:
      return "a store with sensitive fields keeps at least one recipient (nobody could open its values); "
        + "add another first"
    case .tooManyRecipients(let limit): return "at most \(limit) recipients"
    case .ownRecipientRemoved(let recipient):
      return "your identity's recipient \(recipient) would no longer be one, so you could not open what you seal; "
        + "another key holder removes it"
    case .unopenableValue(let path, let pointer, let message): return "\(path): \(pointer): \(message); nothing written"
    }
  }

  /// `; the newest: A, B (label)`, or ` (there are none)`.
  static func newest(_ names: [String]) -> String {
    names.isEmpty ? " (there are none)" : "; the newest: \(names.joined(separator: ", "))"
  }
}
