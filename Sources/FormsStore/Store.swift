import FormsCore
import Foundation
import Synchronization

/// An open store: the Swift API behind every `formsctl` command that reads or writes documents.
///
/// ```swift
/// let store = try Store.open(at: "/path/to/store")
/// let assignments = try ["id=ACQ-2026-001", "title=Office chairs", "agency=GSA"].map { try Assignment($0) }
/// let created = try store.create(kind: "acquisition", assignments: assignments)
/// let acquisition = try store.read(kind: "acquisition", id: "ACQ-2026-001")
/// try store.update(kind: "acquisition", id: "ACQ-2026-001", assignments: [try Assignment("title=Desks")])
/// ```
/// Reads take no lock (writes are atomic renames, so a reader never sees half a file). Every write,
/// from these methods or from `write(_:summary:_:)`, goes through one pipeline (`WriteSession`):
/// the store lock, a refusal while an interrupted operation awaits `recover`, the workflow,
/// timestamps, defaults, validation against the store under the lock, one journaled commit, and
/// one record in the audit log `.formsctl/history.jsonl`.
public final class Store: Sendable {
  /// Where a store's queries learn which files changed since they last looked (decision 0120).
  public enum IndexWatching: Sendable {
    /// Never: every query checks every file.
    case none
    /// The store's watcher (`formsctl watch --serve-index`) over its socket, when one runs.
    case daemon
    /// A watcher of this process's own, started at the first query (a long-lived process).
    case process(IndexWatcher.Options)
  }

  /// How a store behaves beyond what its files say; set before it is opened, fixed after.
  public struct Configuration: Sendable {
    /// The current time; injected so tests are reproducible.
    public var now: @Sendable () -> Date = { Date() }
    /// New UUIDs; injected so tests are reproducible.
    public var makeUUID: @Sendable () -> String = { UUID().uuidString.lowercased() }
    /// Seconds a writer waits for the lock.
    public var lockWait: Double = 10
    /// Queries read the index (`.formsctl/index/`) and only the files it cannot vouch for; false
    /// reads every file (`--no-index`).
    public var useIndex = true
    /// A file changed this close to when the index's stats were taken is read again, whatever
    /// its stat says (git's racily-clean rule): covers timestamps coarser than the clock.
    public var indexRacyWindow: Duration = .seconds(2)
    /// Where queries learn which files changed, to `stat` only those (decision 0120).
    public var indexWatching: IndexWatching = .daemon
    /// How long a query waits for the store's watcher to answer before it checks every file.
    public var indexWatcherWait: Duration = .seconds(1)
    /// Hears how far long work is (validation, migration, import, large cascades); nil: silent.
    public var progress: ProgressHandler?
    /// How paths appear in messages.
    public var display: @Sendable (String) -> String = { $0 }
    /// Who the audit log names for this store's writes (nil: git's `user.name <user.email>` for
    /// the store's repository, else `$USER`, else the uid, looked up at the first write).
    public var user: String?
    /// The command line as typed, without the program (`["set", "form", "3f2c", "note=a b"]`):
    /// the audit log records it, sensitive values redacted; nil: the operation's summary.
    public var arguments: [String]?
    /// The store is opened to write (a command that changes documents): when `user` is nil, the
    /// lookup of the audit log's user (a `git config` process) starts as the store opens, on a
    /// thread of its own, and runs while the descriptors are compiled; otherwise it starts at the
    /// first write.
    public var opensToWrite = false

    public init() {}
  }

  public let layout: StoreLayout
  public let registry: SchemaRegistry
  public let configuration: Configuration
  /// Seals sensitive values on write and opens them for a key holder on read (`Store.open`
  /// loads the identity named by FORMSCTL_IDENTITY; by default none, so they stay sealed).
  public let keyring: Keyring
  /// The audit log's user when the configuration names none, found at the first write (or as
  /// the store opens, `Configuration.opensToWrite`).
  let foundUser: Memo<String>
  /// What a document must satisfy to be written: the value every write session owns.
  let rules: DocumentRules
  /// What `stat` said of the files the rules come from (the manifest, the schemas directory, each
  /// kind's folder and descriptor) when they were loaded: a write checks them under the lock.
  let rulesStamps: [(path: String, stamp: FileStamp?)]
  /// Where queries learn which files changed (``Configuration/indexWatching``); nil: nowhere.
  let indexSource: (any IndexChangeSource)?
  /// How the last query of each kind used the index.
  package let indexRoutes = Mutex<[String: IndexRoute]>([:])

  /// A store over `registry`; `keyring` nil seals for the manifest's recipients and opens nothing.
  package convenience init(
    layout: StoreLayout, registry: SchemaRegistry, configuration: Configuration = Configuration(),
    keyring: Keyring? = nil
  ) {
    self.init(layout: layout, registry: registry, configuration: configuration, keyring: keyring, foundUser: Memo())
  }

  init(
    layout: StoreLayout, registry: SchemaRegistry, configuration: Configuration, keyring: Keyring?,
    foundUser: Memo<String>
  ) {
    self.layout = layout
    self.registry = registry
    self.configuration = configuration
    self.keyring = keyring ?? Keyring(recipients: layout.recipients, identity: nil)
    self.foundUser = foundUser
    rules = DocumentRules(
      layout: layout, registry: registry, keyring: self.keyring, display: configuration.display)
    rulesStamps =
      [(StoreLayout.manifestPath(root: layout.root).string, layout.manifestStamp)]
      + (registry.stamps.isEmpty
        ? SchemaRegistry.stampFiles(directory: layout.schemasDirectory, files: registry.files) : registry.stamps)
    indexSource =
      switch configuration.useIndex ? configuration.indexWatching : .none {
      case .none: nil
      case .daemon: SocketIndexSource(layout: layout, timeout: configuration.indexWatcherWait)
      case .process(let options): ProcessIndexSource(layout: layout, registry: registry, options: options)
      }
  }

  /// Opens the store at `root`; refuses one whose descriptors have errors.
  public static func open(at root: String, configuration: Configuration = Configuration()) throws(StoreError) -> Store {
    try open(StoreLayout(root: root), configuration: configuration)
  }

  /// Opens a located store; refuses one whose descriptors have errors.
  public static func open(_ layout: StoreLayout, configuration: Configuration = Configuration()) throws(StoreError)
    -> Store
  {
    let foundUser = Memo<String>()
    if configuration.opensToWrite { lookUpAuditUser(into: foundUser, root: layout.root, configuration: configuration) }
    let registry = try SchemaRegistry.load(directory: layout.schemasDirectory, display: configuration.display)
    if !registry.diagnostics.isEmpty {
      throw StoreError.invalidDocument("the schema descriptors", registry.diagnostics)
    }
    let keyring = try Keyring.load(layout, registry: registry, environment: ProcessInfo.processInfo.environment)
    return Store(
      layout: layout, registry: registry, configuration: configuration, keyring: keyring, foundUser: foundUser)
  }

  /// The configuration's clock.
  public var now: @Sendable () -> Date { configuration.now }
  /// How the configuration shows a path in messages.
  public var display: @Sendable (String) -> String { configuration.display }
  /// The configuration's progress handler.
  public var progress: ProgressHandler? { configuration.progress }

  /// The command line the audit log records, sensitive values redacted.
  var commandLine: String? {
    configuration.arguments.map { auditCommandLine($0, redacting: registry.sensitiveFieldNames) }
  }

  /// The newest schema of `kind`, or an error naming the kinds there are.
  public func schema(_ kind: String) throws(StoreError) -> Schema { try rules.schema(kind) }

  /// Where the document `id` of `kind` lives (the id is checked first, which keeps paths in the store).
  public func path(kind: String, id: String) throws(StoreError) -> String { try rules.path(kind: kind, id: id) }

  /// A document and its file's bytes.
  public struct Document: Sendable {
    public let path: String
    public let value: JSONValue
    public let bytes: [UInt8]
    /// The sensitive values sealed in the file that `value` holds opened (their plain text is
    /// what an access record names when it is shown).
    public let opened: [JSONPointer]
    /// The approvals the write that returned this document made stale, if it did (nil for a read).
    public var staleApprovals: StaleApprovals?

    public init(path: String, value: JSONValue, bytes: [UInt8], opened: [JSONPointer] = []) {
      self.path = path
      self.value = value
      self.bytes = bytes
      self.opened = opened
    }

    /// The id its file name gives.
    public var id: String { StoreLayout.id(fromFile: path) ?? FilePath(path).name }
  }

  /// Reads one document, with its sensitive values opened when the identity can (an envelope
  /// that is broken or was tampered with is refused, naming its place in the file).
  public func read(kind: String, id: String) throws(StoreError) -> Document {
    let stored = try readStored(kind: kind, id: id)
    return try openedDocument(stored.value, path: stored.path, bytes: stored.bytes)
  }

  /// One document as stored, its sealed values left sealed (nothing is opened, so no access is recorded).
  package func readStored(kind: String, id: String) throws(StoreError) -> Document {
    let path = try path(kind: kind, id: id)
    // The kind's directory as listing finds it: a link there (a hostile checkout) is not followed
    // to read one document through it either (opening the file does not follow its own name only).
    let directory = FilePath(path).parent
    if case let entry = FileIO.entry(directory), entry != .directory && entry != .missing {
      throw StoreError.wrongFileType(
        display(directory.string), found: FileIO.describe(directory), expected: "a directory")
    }
    let bytes: [UInt8]
    do {
      bytes = try FileIO.read(FilePath(path), followLinks: false)
    } catch {
      if case .fileNotFound = error { throw StoreError.notFound(kind: kind, id: id, path: display(path)) }
      if case .wrongFileType(_, let found, let expected) = error {
        throw StoreError.wrongFileType(display(path), found: found, expected: expected)
      }
      throw error
    }
    return Document(path: path, value: try Self.parsed(bytes, shown: display(path), remedy: .validate), bytes: bytes)
  }

  /// A stored file's JSON, or ``StoreError/unreadableDocument(_:_:)`` placing the parse error in
  /// the file `shown` (every read of a stored document, template or snapshot copy says it so).
  package static func parsed(_ bytes: [UInt8], shown: String, remedy: Remedy? = nil) throws(StoreError) -> JSONValue {
    do {
      return try JSONParser().parse(bytes)
    } catch {
      throw StoreError.unreadableDocument(
        shown,
        [Diagnostic(file: shown, position: error.location, rule: "parse", message: error.message, remedy: remedy)])
    }
  }

  /// A read document as reading commands print it: values still sealed read «encrypted».
  public func shown(_ document: Document) -> JSONValue {
    guard let schema = registry.schema(of: document.value) else { return document.value }
    return keyring.shown(document.value, schema: schema)
  }

  /// `value` (read from `path`) with its sensitive values opened; broken envelopes are refused.
  func opened(_ value: JSONValue, path: String, bytes: [UInt8]) throws(StoreError) -> JSONValue {
    try openedDocument(value, path: path, bytes: bytes).value
  }

  /// The document read from `path`, its sensitive values opened; broken envelopes are refused.
  func openedDocument(_ value: JSONValue, path: String, bytes: [UInt8]) throws(StoreError) -> Document {
    guard let schema = registry.schema(of: value), schema.hasSensitiveFields else {
      return Document(path: path, value: value, bytes: bytes)
    }
    let opened = keyring.open(value, schema: schema)
    guard opened.broken.isEmpty else {
      throw StoreError.invalidDocument(display(path), Diagnostic.placed(opened.broken, in: bytes, file: display(path)))
    }
    return Document(path: path, value: opened.value, bytes: bytes, opened: opened.opened)
  }

  /// Runs `body` holding the store lock, after checking no interrupted operation waits.
  package func withWriteLock<T>(_ command: String, _ body: () throws(StoreError) -> T) throws(StoreError) -> T {
    try layout.withWriteLock(command, wait: configuration.lockWait, body)
  }

  /// Every finding for a document about to be written to `path`: schema, id, file name, relations
  /// (each checked with one stat). Values still sealed are not checked (their type is the
  /// envelope's), and findings about a sensitive value do not quote it.
  public func findings(for document: JSONValue, schema: Schema, path: String) -> [Finding] {
    rules.findings(for: document, schema: schema, path: path, exists: { FileIO.exists(FilePath($0)) })
  }
}

extension Store.Document {
  /// The SHA-256 of the file's bytes, in hex: what a form rendered from this document carries,
  /// so that a save over a file changed since is refused rather than lost.
  public var contentHash: String { sha256Hex(bytes) }
}
