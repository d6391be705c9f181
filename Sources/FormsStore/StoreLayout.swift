import FormsCore
import FormsYAML

/// Where a store's parts are on disk, read from its `formsctl.yaml` manifest (docs/design.md §3).
public struct StoreLayout: Sendable, Equatable {
  /// The manifest's file name, which marks a store.
  public static let manifestName = "formsctl.yaml"

  /// The store's root directory (absolute).
  public let root: String
  /// The schema descriptors' directory (absolute; may be outside the store).
  public let schemasDirectory: String
  /// The documents' directory (absolute).
  public let dataDirectory: String
  /// The snapshot retention policy.
  public let retention: RetentionPolicy
  /// Who sensitive values are sealed for (`encryption: recipients:`).
  public let recipients: [Recipient]
  /// Who holds each role that approval chains name (`roles:`), by role.
  public let roles: [String: [Signer]]
  /// The names `roles:` gives beside signers' keys (`Cory Diaz <ed25519:...>`): what a completing
  /// signature fills in as who approved (`approvals: fills:`).
  public let signerNames: [Signer: String]
  /// What `stat` said of the manifest when it was read (see `Store.checkRulesUnchanged`).
  package let manifestStamp: FileStamp?

  /// ``root`` as a path.
  package var rootPath: FilePath { FilePath(root) }
  /// ``schemasDirectory`` as a path.
  package var schemasPath: FilePath { FilePath(schemasDirectory) }
  /// ``dataDirectory`` as a path.
  package var dataPath: FilePath { FilePath(dataDirectory) }

  /// `.formsctl/`, the tool's own state. Its parts are named below, the one place they are spelled
  /// (docs/design.md §13).
  public var stateDirectory: String { state.string }
  var state: FilePath { rootPath / ".formsctl" }
  /// `.formsctl/journal/`: the plan and commit record of a multi-file operation.
  var journalDirectory: FilePath { state / "journal" }
  /// `.formsctl/snapshots/`.
  var snapshotsDirectory: FilePath { state / "snapshots" }
  /// `.formsctl/lock`: the one-writer lock.
  var lockPath: FilePath { state / "lock" }
  /// `.formsctl/history.jsonl`: the audit log.
  var historyPath: FilePath { state / "history.jsonl" }
  /// `.formsctl/index/`: the query index, one file per kind.
  var indexDirectory: FilePath { state / "index" }
  /// The index watcher's own directory (`.formsctl/watcher/`, mode 0700): its socket and cookies.
  var watcherDirectory: FilePath { state / "watcher" }
  /// `.formsctl/sync/`: per database, the sync records.
  var syncDirectory: FilePath { state / "sync" }
  /// `.formsctl/sync/lock`: one sync at a time.
  var syncLockPath: FilePath { syncDirectory / "lock" }
  /// `.formsctl/edit/`: texts `edit` keeps when a save is refused.
  var editDirectory: FilePath { state / "edit" }

  /// `attachments/`: the files documents carry, beside the data, one folder per document
  /// (`attachments/<directory>/<id>/<name>.<extension>`), so git and git-lfs see plain files.
  public var attachmentsDirectory: String { attachmentsPath.string }
  /// ``attachmentsDirectory`` as a path.
  package var attachmentsPath: FilePath { rootPath / "attachments" }
  /// True when the store has an `attachments/` directory; refused when that name is a link or a file.
  package var hasAttachments: Bool {
    get throws(StoreError) {
      switch FileIO.entry(attachmentsPath) {
      case .missing: return false
      case .directory: return true
      default:
        throw StoreError.wrongFileType(
          relative(attachmentsDirectory), found: FileIO.describe(attachmentsPath), expected: "a directory")
      }
    }
  }
  /// The folder of the attachments of the document `id` of a kind kept in `directory`.
  package func attachmentFolder(directory: String, id: String) -> FilePath { attachmentsPath / directory / id }

  /// `templates/`: pre-filled documents, `templates/KIND/NAME.json`.
  public var templatesDirectory: String { templatesPath.string }
  /// ``templatesDirectory`` as a path.
  package var templatesPath: FilePath { rootPath / "templates" }
  /// `json-schema/`: the JSON Schemas `editor setup` exports, committed (`schema check` reports them stale).
  public var jsonSchemaDirectory: String { (rootPath / "json-schema").string }

  /// `formsctl.yaml` of the store at `root`.
  static func manifestPath(root: String) -> FilePath { FilePath(root) / manifestName }

  /// Reads the manifest of the store at `root`.
  public init(root: String) throws(StoreError) {
    let manifestPath = Self.manifestPath(root: root)
    // The roles and recipients are the repository's word: never read through a link.
    if FileIO.entry(manifestPath) == .symlink {
      throw StoreError.wrongFileType(manifestPath.string, found: "a symbolic link", expected: "a regular file")
    }
    manifestStamp = FileStamp(notFollowing: manifestPath)
    let bytes = try FileIO.read(manifestPath)
    let node: YAMLNode?
    do throws(YAMLError) {
      node = try YAMLReader().read(bytes)
    } catch {
      throw StoreError.manifest(file: manifestPath.string, position: error.position, message: error.message)
    }
    guard let node, let pairs = node.mapping else {
      throw StoreError.manifest(
        file: manifestPath.string, position: node?.position, message: "the manifest must be a mapping")
    }
    var schemas = "schemas"
    var data = "data"
    var retention = RetentionPolicy.default
    var recipients: [Recipient] = []
    var roles: [String: [Signer]] = [:]
    var signerNames: [Signer: String] = [:]
    for pair in pairs {
      let key = pair.key.scalar?.text ?? ""
      func text() throws(StoreError) -> String {
        guard let s = pair.value.string, !s.isEmpty else {
          throw StoreError.manifest(
            file: manifestPath.string, position: pair.value.position, message: "\(key) must be a path")
        }
        return s
      }
      switch key {
      case "formsctl":
        guard case .number(let n)? = pair.value.scalar?.value, n.intValue == 1 else {
          throw StoreError.manifest(
            file: manifestPath.string, position: pair.value.position,
            message: "unsupported manifest format \(pair.value.scalar?.text ?? "?"); this formsctl reads format 1")
        }
      case "schemas": schemas = try text()
      case "data": data = try text()
      case "snapshots":
        do throws(RetentionPolicy.ParseError) {
          retention = try RetentionPolicy(yaml: pair.value)
        } catch {
          throw StoreError.manifest(file: manifestPath.string, position: error.position, message: error.message)
        }
      case "encryption":
        recipients = try Self.recipients(pair.value, manifest: manifestPath.string)
      case "roles":
        (roles, signerNames) = try Self.roles(pair.value, manifest: manifestPath.string)
      default:
        throw StoreError.manifest(
          file: manifestPath.string, position: pair.key.position,
          message: "unknown key \"\(key)\"; expected formsctl, schemas, data, snapshots, encryption or roles")
      }
    }
    self.root = root
    self.schemasDirectory = FilePath(schemas).absolute(from: root).string
    self.dataDirectory = FilePath(data).absolute(from: root).string
    self.retention = retention
    self.recipients = recipients
    self.roles = roles
    self.signerNames = signerNames
    try checkDirectories()
  }

  /// The directories the manifest names are what they must be: the schemas directory exists (a
  /// store without it would load as "0 kinds"); inside the store root neither it nor the data
  /// directory is a symbolic link (formsctl follows no link there, so a linked `data/` would read
  /// as empty). A schemas directory outside the root is named on purpose and may be reached
  /// through links. A missing data directory is a store without documents (git keeps no empty
  /// directory).
  func checkDirectories() throws(StoreError) {
    func check(_ path: FilePath, key: String, required: Bool) throws(StoreError) {
      let found = FileIO.entry(path)
      switch found {
      case .directory: return
      case .missing where !required: return
      case .missing: throw StoreError.missingDirectory(path.string, key: key)
      case .symlink where !isInsideRoot(path):
        guard FileIO.isDirectory(path) else { throw StoreError.missingDirectory(path.string, key: key) }
      default: throw StoreError.wrongFileType(path.string, found: FileIO.describe(path), expected: "a directory")
      }
    }
    try check(schemasPath, key: "schemas", required: true)
    try check(dataPath, key: "data", required: false)
  }

  /// True when `path` (absolute, normalized) is the store root or below it, by its spelling.
  func isInsideRoot(_ path: FilePath) -> Bool { rootPath.contains(path) }

  /// True when the schemas directory lies below the root (snapshots and the journal's sweep cover it then).
  var schemasInsideRoot: Bool { rootPath.relative(schemasPath) != nil }

  /// The `roles:` of a manifest's text (`shown` names it in errors), as another revision had them.
  public static func roles(inManifest bytes: [UInt8], shown: String) throws(StoreError) -> [String: [Signer]] {
    let node: YAMLNode?
    do throws(YAMLError) {
      node = try YAMLReader().read(bytes)
    } catch {
      throw StoreError.manifest(file: shown, position: error.position, message: error.message)
    }
    guard let roles = node?.mapping?.first(where: { $0.key.scalar?.text == "roles" }) else { return [:] }
    return try Self.roles(roles.value, manifest: shown).roles
  }

  /// A signer (`ed25519:…`) as people are shown it: the name `roles:` gives beside its key, else
  /// the key's first 12 characters; a text that is not a key, as it is.
  public func signerName(_ text: String) -> String {
    guard let signer = Signer(text) else { return text }
    return signerNames[signer] ?? signer.short
  }

  /// `roles: {ROLE: [ed25519:..., "Cory Diaz <ed25519:...>", ...]}`: who holds each role (a
  /// person is one signing key, named or not), and the names given beside keys. A key named
  /// differently in two places, or a name with control characters, is refused.
  static func roles(_ node: YAMLNode, manifest: String) throws(StoreError) -> (
    roles: [String: [Signer]], names: [Signer: String]
  ) {
    guard let pairs = node.mapping else {
      throw StoreError.manifest(
        file: manifest, position: node.position,
        message: "roles map each role to a list of signers (ed25519: public signing keys)", remedy: .makeKey)
    }
    var out: [String: [Signer]] = [:]
    var names: [Signer: String] = [:]
    for pair in pairs {
      guard let role = pair.key.scalar?.text, let items = pair.value.sequence else {
        throw StoreError.manifest(
          file: manifest, position: pair.value.position, message: "a role lists its signers: ROLE: [ed25519:...]")
      }
      out[role] = try keys(
        items, manifest: manifest, parse: { Signer(Self.namedKey($0).key) }, problem: Signer.problem)
      for item in items {
        guard let text = item.string, let name = Self.namedKey(text).name,
          let signer = Signer(Self.namedKey(text).key)
        else { continue }
        let hidden: Set<Unicode.GeneralCategory> = [.control, .format, .lineSeparator, .paragraphSeparator]
        if name.count > 100 || name.contains("<") || name.contains(">") || Signer(name) != nil
          || name.unicodeScalars.contains(where: { hidden.contains($0.properties.generalCategory) })
        {
          throw StoreError.manifest(
            file: manifest, position: item.position,
            message:
              "a signer's name is at most 100 characters of text: no < or >, no key, no control or format characters")
        }
        if let other = names[signer], other != name {
          throw StoreError.manifest(
            file: manifest, position: item.position, message: "\(signer.short) is named \"\(other)\" and \"\(name)\"")
        }
        if let holder = names.first(where: { $0.key != signer && $0.value.lowercased() == name.lowercased() }) {
          throw StoreError.manifest(
            file: manifest, position: item.position,
            message: "\"\(name)\" names both \(holder.key.short) and \(signer.short); each person's name is their own")
        }
        names[signer] = name
      }
    }
    return (out, names)
  }

  /// `Cory Diaz <ed25519:...>` → the name and the key; a bare key has no name.
  static func namedKey(_ text: String) -> (name: String?, key: String) {
    guard text.hasSuffix(">"), let open = text.lastIndex(of: "<") else { return (nil, text) }
    let name = text[..<open].drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()
    return (
      name.isEmpty ? nil : String(name), String(text[text.index(after: open)..<text.index(before: text.endIndex)])
    )
  }

  /// A list of public keys (recipients, a role's signers): each must parse, none twice.
  static func keys<Key: Hashable & CustomStringConvertible>(
    _ items: [YAMLNode], manifest: String, parse: (String) -> Key?, problem: (String) -> String
  ) throws(StoreError) -> [Key] {
    var out: [Key] = []
    for item in items {
      guard let key = item.string.flatMap(parse) else {
        throw StoreError.manifest(
          file: manifest, position: item.position, message: problem(item.scalar?.text ?? item.kindName),
          remedy: .makeKey)
      }
      if out.contains(key) {
        throw StoreError.manifest(file: manifest, position: item.position, message: "\(key) is listed twice")
      }
      out.append(key)
    }
    return out
  }

  /// `encryption: {recipients: [x25519:..., ...]}`: who sensitive values are sealed for.
  static func recipients(_ node: YAMLNode, manifest: String) throws(StoreError) -> [Recipient] {
    guard let pairs = node.mapping, pairs.count == 1, pairs[0].key.scalar?.text == "recipients",
      let items = pairs[0].value.sequence
    else {
      throw StoreError.manifest(
        file: manifest, position: node.position,
        message: "encryption takes one key, recipients: a list of x25519: public keys", remedy: .makeKey)
    }
    let out = try keys(items, manifest: manifest, parse: Recipient.init, problem: Recipient.problem)
    guard out.count <= Keyring.maxRecipients else {
      throw StoreError.manifest(
        file: manifest, position: node.position, message: "at most \(Keyring.maxRecipients) recipients")
    }
    return out
  }

  /// Finds the store: `--store`, else `FORMSCTL_STORE`, else the nearest directory upward from
  /// `workingDirectory` that holds `formsctl.yaml` (as git finds `.git`).
  public static func locate(explicit: String?, environment: [String: String], workingDirectory: String)
    throws(StoreError) -> StoreLayout
  {
    if let given = named(explicit: explicit, environment: environment) {
      let root = FilePath(given).absolute(from: workingDirectory).string
      guard FileIO.exists(manifestPath(root: root)) else {
        throw StoreError.storeNotFound(root, isDirectory: FileIO.isDirectory(FilePath(root)))
      }
      return try StoreLayout(root: root)
    }
    guard let root = nearest(holding: manifestName, from: workingDirectory) else {
      throw StoreError.notAStore(searchedFrom: workingDirectory)
    }
    return try StoreLayout(root: root)
  }

  /// The store `--store` or `FORMSCTL_STORE` names, if either does.
  public static func named(explicit: String?, environment: [String: String]) -> String? {
    explicit ?? environment["FORMSCTL_STORE"].flatMap { $0.isEmpty ? nil : $0 }
  }

  /// The nearest directory, from `directory` upward but not above `ceiling`, that holds an entry
  /// named `name` (as git finds `.git`, and formsctl `formsctl.yaml`).
  public static func nearest(holding name: String, from directory: String, ceiling: String = "/") -> String? {
    var current = FilePath(directory).normalized.string
    let top = FilePath(ceiling).normalized.string
    while true {
      if FileIO.exists(FilePath(current) / name) { return current }
      if current == top || current == "/" { return nil }
      current = FilePath(current).parent.string
    }
  }

  /// `paths` (relative to `workingDirectory`) grouped by the store each lies in, found by walking
  /// up from the path itself (as pre-commit passes files from the top of a repository holding
  /// stores anywhere below it); the paths inside no store come back apart. A store whose manifest
  /// does not load is an error, never "outside any store".
  public static func group(_ paths: [String], workingDirectory: String) throws(StoreError) -> (
    stores: [(layout: StoreLayout, paths: [String])], outside: [String]
  ) {
    var stores: [(layout: StoreLayout, paths: [String])] = []
    var outside: [String] = []
    // Many files share a directory and a store: walk up once per directory, read a manifest once.
    var roots: [String: String?] = [:]
    for path in paths {
      let absolute = FilePath(path).absolute(from: workingDirectory).string
      let start = FileIO.isDirectory(FilePath(absolute)) ? absolute : FilePath(absolute).parent.string
      if roots[start] == nil { roots[start] = nearest(holding: manifestName, from: start) }
      guard let root = roots[start] ?? nil else {
        outside.append(path)
        continue
      }
      if let index = stores.firstIndex(where: { $0.layout.root == root }) {
        stores[index].paths.append(path)
      } else {
        stores.append((try StoreLayout(root: root), [path]))
      }
    }
    return (stores, outside)
  }

  /// True when `path` (absolute) is this store's data directory or inside it.
  public func holdsDocument(_ path: String) -> Bool {
    dataPath.contains(FilePath(path).normalized)
  }

  // MARK: Document paths: the one place `data/<directory>/<id>.json` is spelled.

  /// A document file's name ends with this.
  public static let documentSuffix = ".json"

  /// The directory holding the documents a schema stores in `directory` (its `directory:`).
  public func documents(in directory: String) -> String { (dataPath / directory).string }

  /// Every document file (regular, `*.json`) a schema stores in `directory` and below, sorted.
  public func documentFiles(in directory: String) throws(StoreError) -> [String] {
    try FileIO.files(under: dataPath / directory, suffix: Self.documentSuffix)
  }

  /// The ids of the documents a schema stores in `directory` (its own entries, one `readdir`),
  /// those starting with `prefix`, sorted.
  public func ids(in directory: String, prefix: String = "", sorted: Bool = true) throws(StoreError) -> [String] {
    let ids = try FileIO.entries(of: dataPath / directory).compactMap { entry -> String? in
      guard entry.kind == .file, !entry.name.hasPrefix("."), entry.name.hasPrefix(prefix) else { return nil }
      return Self.id(fromFile: entry.name)
    }
    return sorted ? ids.sorted() : ids
  }

  /// Where the document `id` lives when its schema stores documents in `directory`.
  public func path(directory: String, id: String) -> String {
    (dataPath / directory / (id + Self.documentSuffix)).string
  }

  /// The schema directory and id a document path stands for (`data/forms/F-1.json` → `forms`,
  /// `F-1`): `path(directory:id:)` read backwards; nil for anything else.
  public func identify(_ path: String) -> (directory: String, id: String)? {
    guard let id = Self.id(fromFile: path) else { return nil }
    let directory = FilePath(path).parent
    guard directory.parent.string == dataDirectory else { return nil }
    return (directory.name, id)
  }

  /// The id a document file's name gives (`.../F-1.json` → `F-1`); nil when it is not `*.json`.
  public static func id(fromFile path: String) -> String? {
    let name = FilePath(path).name
    guard name.hasSuffix(documentSuffix), name.utf8.count > documentSuffix.utf8.count else { return nil }
    return String(name.dropLast(documentSuffix.count))
  }

  /// `data/...`, a path under the data directory as snapshots name it (`data` for the directory
  /// itself); nil for any other path.
  public func snapshotPath(_ path: String) -> String? {
    if path == dataDirectory { return "data" }
    return dataPath.relative(FilePath(path)).map { "data/" + $0 }
  }

  /// The live path of a file a snapshot holds at `relative` (`data/...`, `schemas/...`, or a file
  /// of the store root): `snapshotPath` read backwards.
  public func livePath(_ relative: String) -> String {
    if let below = FilePath("data").relative(FilePath(relative)) { return (dataPath / below).string }
    if let below = FilePath("schemas").relative(FilePath(relative)) { return (schemasPath / below).string }
    return (rootPath / relative).string
  }

  /// `path` relative to the store root when inside it (for messages), else unchanged.
  public func relative(_ path: String) -> String {
    rootPath.relative(FilePath(path)) ?? path
  }
}
