import FormsCore
import Foundation

/// `formsctl migrate`: moves documents between schema versions, all or nothing (docs/design.md §10).
public struct Migrator: Sendable {
  public let store: Store
  /// Runs `jq` steps; by default the `jq` program.
  public var runJQ: JQRunner = JQProgram.run
  /// Called now and then with (documents done, documents in all) while transforming.

  public init(store: Store) { self.store = store }

  /// How many documents of a kind are at each version.
  public struct KindStatus: Sendable {
    public let kind: String
    public let target: SemanticVersion
    /// (version, documents, steps behind the target; nil when no path leads there).
    public let versions: [(version: SemanticVersion, documents: Int, behind: Int?)]
    /// Files that do not parse or name no known version of this kind.
    public let unreadable: [String]
  }

  /// The documents of `kind`, with their version (nil when unreadable).
  func scan(_ kind: String) throws(StoreError) -> [(path: String, version: SemanticVersion?)] {
    let files = try store.layout.documentFiles(in: try store.schema(kind).directory)
    // A file that cannot be read is an error; one that does not parse has no version.
    return try parallelMap(files, chunkSize: 64) { path -> Result<(String, SemanticVersion?), StoreError> in
      Result { () throws(StoreError) in
        let bytes = try FileIO.read(FilePath(path))
        let reference = (try? JSONParser().parse(bytes))?["_schema"]?.stringValue
        guard let reference, reference.hasPrefix(kind + "@") else { return (path, nil) }
        return (path, SemanticVersion(String(reference.dropFirst(kind.count + 1))))
      }
    }.map { result throws(StoreError) in try result.get() }
  }

  /// Per kind: documents at each version, the target, and how far behind each group is.
  public func status(kinds: [String]? = nil) throws(StoreError) -> [KindStatus] {
    var out: [KindStatus] = []
    for kind in kinds ?? store.registry.kinds {
      let versions = store.registry.schemas[kind] ?? [:]
      let target = try store.schema(kind).version
      var counts: [SemanticVersion: Int] = [:]
      var unreadable: [String] = []
      for document in try scan(kind) {
        if let version = document.version, versions[version] != nil {
          counts[version, default: 0] += 1
        } else {
          unreadable.append(document.path)
        }
      }
      out.append(
        KindStatus(
          kind: kind, target: target,
          versions: counts.sorted { $0.key < $1.key }.map { version, count in
            (version, count, (try? MigrationPlanner.plan(versions, from: version, to: target))?.count)
          }, unreadable: unreadable))
    }
    return out
  }

  /// What `migrate` is asked to do.
  public struct Request: Sendable {
    public var kind: String?
    public var to: SemanticVersion?
    public var dryRun = false
    public var skipInvalid = false
    public var snapshot = true
    /// Migrate documents whose signed content the steps change, ending their rounds (a
    /// `reopen` record; approved ones back to review); without it such a migration is refused.
    public var voidingApprovals = false
    public init(
      kind: String? = nil, to: SemanticVersion? = nil, dryRun: Bool = false, skipInvalid: Bool = false,
      snapshot: Bool = true, voidingApprovals: Bool = false
    ) {
      self.voidingApprovals = voidingApprovals
      self.kind = kind
      self.to = to
      self.dryRun = dryRun
      self.skipInvalid = skipInvalid
      self.snapshot = snapshot
    }
  }

  /// The chain for one group of documents.
  public struct Group: Sendable {
    public let kind: String
    public let from: SemanticVersion
    public let to: SemanticVersion
    public let steps: [MigrationPlanner.Step]
    public let paths: [String]
  }

  /// The groups to migrate: for each kind, each version present that is not the target.
  public func plan(_ request: Request) throws(StoreError) -> [Group] {
    if request.to != nil && request.kind == nil {
      throw StoreError.refused(.targetVersionWithoutKind)
    }
    var groups: [Group] = []
    for kind in request.kind.map({ [$0] }) ?? store.registry.kinds {
      let versions = store.registry.schemas[kind] ?? [:]
      let latest = try store.schema(kind).version
      let target = request.to ?? latest
      guard versions[target] != nil else {
        throw StoreError.refused(
          .unknownVersion(
            kind: kind, version: target.description, versions: store.registry.versions(kind).map(\.description)))
      }
      var byVersion: [SemanticVersion: [String]] = [:]
      for document in try scan(kind) where document.version != target {
        if let version = document.version { byVersion[version, default: []].append(document.path) }
      }
      for (version, paths) in byVersion.sorted(by: { $0.key < $1.key }) {
        do throws(MigrationError) {
          let steps = try MigrationPlanner.plan(versions, from: version, to: target)
          groups.append(Group(kind: kind, from: version, to: target, steps: steps, paths: paths.sorted()))
        } catch {
          throw StoreError.refused(
            .noMigrationPath(
              message: error.message, documents: paths.count, version: version.description, remedy: error.remedy))
        }
      }
    }
    return groups
  }

  /// `document` (stored form: a database row, a record), written for an older version of `kind`
  /// than `target` (the kind's latest when nil), brought there by the descriptors' chain as
  /// `migrate` brings a file, not validated (the write path it goes to does that). Nil when it is
  /// at `target` or newer, or names no version of the kind: then it is judged as it is. Throws
  /// `migrationFailed` (one diagnostic, at `shown`) when no chain leads there or a step fails.
  public func brought(_ document: JSONValue, kind: String, to target: SemanticVersion? = nil, shown: String)
    throws(StoreError) -> JSONValue?
  {
    let latest = try store.schema(kind).version
    let target = target ?? latest
    guard let source = store.registry.schema(of: document), source.kind == kind, source.version < target,
      let id = document[source.idField].flatMap(DocumentID.text)
    else { return nil }
    let failure = { (message: String, remedy: Remedy?) in
      StoreError.migrationFailed(
        documents: 1,
        [
          Diagnostic(
            file: shown, position: nil, rule: "migrate",
            message: "at \(source.reference), older than \(kind)@\(target): \(message)", remedy: remedy)
        ])
    }
    let steps: [MigrationPlanner.Step]
    do throws(MigrationError) {
      steps = try MigrationPlanner.plan(store.registry.schemas[kind] ?? [:], from: source.version, to: target)
    } catch {
      throw failure(error.message, error.remedy)
    }
    let group = Group(kind: kind, from: source.version, to: target, steps: steps, paths: [])
    let path = try store.path(kind: kind, id: id)
    switch transform(JSONWriter.canonical(document), at: path, group, validate: false) {
    case .migrated(_, let after, _, _, _): return after
    case .failed(let step, let message, let remedy): throw failure("\(step): \(message)", remedy)
    case .invalidBefore, .invalidAfter: throw failure("not valid", nil)
    }
  }

  /// The outcome for one document.
  enum Transformed {
    case migrated(before: JSONValue, after: JSONValue, bytes: [UInt8], changedSteps: [Int], voids: StaleApprovals?)
    case invalidBefore([Finding])
    case failed(step: String, message: String, remedy: Remedy? = nil)
    case invalidAfter([Finding])
  }

  /// Runs the group's chain on one document and (unless told otherwise) validates it before, at
  /// its own version, and after, against the target.
  func transform(_ path: String, _ group: Group, validate: Bool = true) -> Transformed {
    let bytes: [UInt8]
    do throws(StoreError) {
      bytes = try FileIO.read(FilePath(path))
    } catch {
      return .failed(step: "read", message: error.description)
    }
    return transform(bytes, at: path, group, validate: validate)
  }

  /// `transform` of a document's stored bytes that are not (yet) its file at `path`.
  func transform(_ bytes: [UInt8], at path: String, _ group: Group, validate: Bool) -> Transformed {
    guard let before = try? JSONParser().parse(bytes),
      let source = store.registry.schema(reference: "\(group.kind)@\(group.from)"),
      let target = store.registry.schema(reference: "\(group.kind)@\(group.to)")
    else { return .failed(step: "read", message: "does not parse", remedy: .validate) }
    // Sensitive values: migrated as plain values when the identity opens them, carried as they
    // are when it does not (a step may move them, not rewrite them), sealed again at the end;
    // `before` and `after` stay in their sealed form, so no diff shows a secret.
    let opened = store.keyring.open(before, schema: source)
    if let broken = opened.broken.first {
      return .failed(step: "read", message: "\(broken.pointer.path): \(broken.message)")
    }
    let findings =
      validate ? Validator(schema: source).validate(opened.value).aboutSensitive(in: opened.value, schema: source) : []
    if !findings.isEmpty { return .invalidBefore(findings) }
    var document = opened.value
    var changedSteps: [Int] = []
    for (index, step) in group.steps.enumerated() {
      let input = document
      for (number, change) in step.changes.enumerated() {
        do throws(MigrationError) {
          try change.apply(to: &document, runJQ: runJQ)
        } catch {
          return .failed(
            step: "\(step.description), change \(number + 1) (\(change.description))", message: error.message)
        }
      }
      document["_schema"] = .string("\(group.kind)@\(step.to)")
      if document != input { changedSteps.append(index) }
    }
    // `_approvals` only grows, whoever writes (a `jq` step included): a step never takes back a
    // signature, a submission or the record that ended a round.
    let signed = before["_approvals"]?.arrayValue ?? []
    let kept = document["_approvals"]?.arrayValue ?? []
    if let index = signed.indices.first(where: { $0 >= kept.count || signed[$0] != kept[$0] }) {
      let id = before[source.idField].flatMap(DocumentID.text) ?? FilePath(path).name
      return .failed(
        step: "approvals", message: Refusal.approvalsRewritten(kind: group.kind, id: id, index: index).description)
    }
    // The migrated document against its schema and against the store it lands in (relations,
    // id and file name, directory): a migration never commits what `validate` would then refuse.
    // The set of documents does not change, so each relation is judged by the file it names.
    let after =
      validate
      ? Validator(schema: target).validate(document).aboutSensitive(in: document, schema: target)
        + DocumentChecks.crossDocumentFindings(
          document, schema: target, path: path, layout: store.layout, registry: store.registry,
          display: store.display
        ) { _, _, path in FileIO.exists(FilePath(path())) }
      : []
    if !after.isEmpty { return .invalidAfter(after) }
    var sealed: JSONValue
    do throws(StoreError) {
      if source.hasSensitiveFields || target.hasSensitiveFields,
        let stray = Self.sealedOutsideSensitive(document, schema: target)
      {
        return .failed(
          step: "seal",
          message: "\(stray.path) holds a sealed value but is not sensitive in \(target.reference), "
            + "and the identity in use cannot open it", remedy: .useIdentity)
      }
      sealed = try store.keyring.seal(
        document, schema: target, previous: before, what: "\(target.kind) \(FilePath(path).name)")
    } catch {
      return .failed(step: "seal", message: error.description)
    }
    // Nothing reaches a state a chain guards without a complete chain, a migration included (a
    // step that maps states): the document is judged as `validate` judges it.
    if validate, let approvals = target.approvals, let state = target.workflowState(of: sealed),
      approvals.guarding(state) != nil, source.workflowState(of: before) != state,
      let id = sealed[target.idField].flatMap(DocumentID.text)
    {
      let findings = ApprovalReview(
        sealed, schema: target, kind: target.kind, id: id, roles: store.layout.roles,
        references: store.registry.references(target.kind)
      )
      .findings.filter { $0.rule == "approval-chain" }
      if !findings.isEmpty { return .invalidAfter(findings) }
    }
    // Signed content the steps change ends the rounds it breaks, as any change does (the write
    // path's own step); a change of version alone changes none. The run refuses unless asked.
    var voids: StaleApprovals?
    if target.approvals != nil, let id = sealed[target.idField].flatMap(DocumentID.text) {
      do throws(StoreError) {
        voids = try store.rules.settleApprovals(
          &document, sealed: &sealed, stored: Store.Document(path: path, value: before, bytes: bytes), schema: target,
          id: id, path: path, reopen: true, time: Instant(store.now()).rfc3339)
      } catch {
        return .failed(step: "approvals", message: error.description)
      }
    }
    return .migrated(
      before: before, after: sealed, bytes: JSONWriter.canonical(sealed), changedSteps: changedSteps, voids: voids)
  }

  /// The first place outside the sensitive fields of `schema` that holds an envelope (a step moved
  /// a value it could not open to where it would not be sealed or understood).
  static func sealedOutsideSensitive(_ document: JSONValue, schema: Schema) -> JSONPointer? {
    let locations = schema.hasSensitiveFields ? schema.root.sensitiveLocations(in: document) : []
    func find(_ value: JSONValue, _ pointer: JSONPointer) -> JSONPointer? {
      if locations.contains(pointer) { return nil }
      switch value {
      case .string: return SealedText.isSealed(value) ? pointer : nil
      case .array(let elements):
        for (index, element) in elements.enumerated() {
          if let found = find(element, pointer.appending(index: index)) { return found }
        }
      case .object(let object):
        for member in object.members {
          if let found = find(member.value, pointer.appending(member.key)) { return found }
        }
      default: break
      }
      return nil
    }
    return find(document, .root)
  }
}

/// Runs jq filters with the `jq` program (one process per document: fine for the escape hatch).
/// The document goes through a pipe; jq sees no environment but `PATH` (a filter reading `$ENV`
/// must not copy secrets into documents) and is killed after `timeout` seconds per document
/// (the store lock is held meanwhile).
public enum JQProgram {
  /// The runner `migrate` and `import` use: 30 s per document.
  public static let run: JQRunner = runner(timeout: 30)

  public static func runner(timeout: Double) -> JQRunner {
    { (filter: String, document: JSONValue) throws(MigrationError) -> JSONValue in
      let environment = ProcessInfo.processInfo.environment["PATH"].map { ["PATH": $0] } ?? [:]
      // Wrapped in [...] so a filter that emits no value or several is caught, not misread.
      guard
        let result = Subprocess.run(
          ["jq", "-c", "[" + filter + "]"], input: JSONWriter.canonical(document),
          environment: environment, timeout: timeout), result.status != 127
      else {
        throw MigrationError("the jq program is not installed (needed by a jq step); install jq, or rewrite the step")
      }
      if result.timedOut {
        throw MigrationError(
          "jq ran longer than \(Int(timeout)) s on one document and was stopped; simplify the filter")
      }
      guard result.status == 0 else { throw MigrationError("jq failed: \(result.stderr)") }
      guard let values = try? JSONParser().parse(Array(result.stdout.prefix { $0 != 0x0A })),
        case .array(let results) = values
      else {
        throw MigrationError("jq printed something that is not JSON")
      }
      guard results.count == 1 else {
        throw MigrationError("the jq filter produced \(results.count) values; it must produce exactly one object")
      }
      // jq prints numbers its own way (245122.0 as 245122): what it left alone keeps its text.
      return results[0].keepingNumberText(of: document)
    }
  }
}
