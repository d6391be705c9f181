import FormsCore
import Foundation

/// What a store knows of one database it syncs with (`.formsctl/sync/<database>/`, git-ignored,
/// DESIGN §13): the database's identity, and per document the text both sides agreed on at the
/// last sync (the base of a three-way merge), its hash, the row's revision then, and a status.
/// Without a record from this same database, sync never deletes a document on either side.
public struct SyncState: Sendable {
  /// Where a document stands with the database.
  public enum Status: String, Sendable, CaseIterable {
    /// Both sides hold the text of the record.
    case synced
    /// Changed here since the last sync (found from the file, not stored).
    case localChanged = "local-changed"
    /// Changed in the database since (found when sync reads it, or when a push met a newer row).
    case remoteChanged = "remote-changed"
    /// Both changed the same place: waits for `sync resolve`.
    case conflict
    /// The database's row was refused by the store (invalid, or a restricted delete).
    case rejected
  }

  /// One document's record.
  public struct Record: Sendable, Equatable {
    public var kind: String
    public var id: String
    public var status: Status
    /// When the two sides last agreed.
    public var lastSynced: String?
    /// The canonical text both sides held then (sealed values as envelopes); nil before the first agreement.
    public var text: String?
    /// SHA-256 of `text`.
    public var sha256: String?
    /// The database row's revision at the last sync (or the row a conflict or refusal is about).
    public var revision: Int64?
    /// For a conflict: the database's text, kept for `sync resolve --theirs`.
    public var theirs: String?
    /// For a conflict or a refusal: why, in one line.
    public var problem: String?
    /// For a conflict or a refusal: the revision of the row it is about.
    public var remoteRevision: Int64?

    public init(
      kind: String, id: String, status: Status, lastSynced: String? = nil, text: String? = nil,
      sha256: String? = nil, revision: Int64? = nil, theirs: String? = nil, problem: String? = nil,
      remoteRevision: Int64? = nil
    ) {
      self.remoteRevision = remoteRevision
      self.kind = kind
      self.id = id
      self.status = status
      self.lastSynced = lastSynced
      self.text = text
      self.sha256 = sha256
      self.revision = revision
      self.theirs = theirs
      self.problem = problem
    }

    var json: JSONValue {
      var object = JSONObject(["kind": .string(kind), "id": .string(id), "status": .string(status.rawValue)])
      if let lastSynced { object["last_synced"] = .string(lastSynced) }
      if let text { object["text"] = .string(text) }
      if let sha256 { object["sha256"] = .string(sha256) }
      if let revision { object["revision"] = .number(JSONNumber(Int(revision))) }
      if let theirs { object["theirs"] = .string(theirs) }
      if let problem { object["problem"] = .string(problem) }
      if let remoteRevision { object["remote_revision"] = .number(JSONNumber(Int(remoteRevision))) }
      return .object(object)
    }

    init?(_ value: JSONValue) {
      guard let kind = value["kind"]?.stringValue, let id = value["id"]?.stringValue,
        let status = value["status"]?.stringValue.flatMap(Status.init)
      else { return nil }
      self.init(
        kind: kind, id: id, status: status, lastSynced: value["last_synced"]?.stringValue,
        text: value["text"]?.stringValue, sha256: value["sha256"]?.stringValue,
        revision: value["revision"]?.numberValue.flatMap { Int64($0.text) }, theirs: value["theirs"]?.stringValue,
        problem: value["problem"]?.stringValue,
        remoteRevision: value["remote_revision"]?.numberValue.flatMap { Int64($0.text) })
    }
  }

  public let layout: StoreLayout
  /// The database's directory name under `.formsctl/sync/`.
  public let database: String

  /// `identity` names the database (its system identifier, name and schema); the directory is
  /// its hash, so two databases never share records.
  public init(layout: StoreLayout, identity: String) {
    self.layout = layout
    self.database = String(sha256Hex(Array(identity.utf8)).prefix(16))
  }

  init(layout: StoreLayout, database: String) {
    self.layout = layout
    self.database = database
  }

  public var directory: String { layout.stateDirectory + "/sync/" + database }

  func path(kind: String, id: String) -> String { directory + "/documents/" + kind + "/" + id + ".json" }

  /// The record of `kind` `id`, nil when there is none; one that does not parse is an error.
  public func record(kind: String, id: String) throws(StoreError) -> Record? {
    let path = path(kind: kind, id: id)
    guard FileIO.entry(path) != .missing else { return nil }
    let value = try Store.parsed(try FileIO.read(path, followLinks: false), shown: path)
    guard let record = Record(value) else { throw StoreError.refused(.notADocument(path: path)) }
    return record
  }

  /// Every record of `kind`, by id.
  public func records(kind: String) throws(StoreError) -> [String: Record] {
    let directory = directory + "/documents/" + kind
    guard FileIO.entry(directory) == .directory else { return [:] }
    var out: [String: Record] = [:]
    for path in try FileIO.files(under: directory, suffix: ".json") {
      guard let id = StoreLayout.id(fromFile: path), let record = try record(kind: kind, id: id) else { continue }
      out[id] = record
    }
    return out
  }

  /// Writes `record` durably (temporary file, fsync, rename).
  public func save(_ record: Record) throws(StoreError) {
    let path = path(kind: record.kind, id: record.id)
    try FileIO.makeDirectories(parentDirectory(path))
    try AtomicWriter(boundary: layout.root).write(Array((JSONWriter.canonicalString(record.json)).utf8), to: path)
  }

  /// Forgets the record of `kind` `id` (the document is gone on both sides).
  public func forget(kind: String, id: String) throws(StoreError) {
    let path = path(kind: kind, id: id)
    if FileIO.entry(path) != .missing { try FileIO.remove(path) }
  }

  /// Writes the database's identity beside its records (for people; nothing reads it back).
  public func describe(_ identity: JSONValue) throws(StoreError) {
    try FileIO.makeDirectories(directory)
    try AtomicWriter(boundary: layout.root).write(
      Array(JSONWriter.canonicalString(identity).utf8), to: directory + "/database.json")
  }

  /// The state of the database synced with most recently (its `database.json` written last), if any.
  public static func latest(_ layout: StoreLayout) throws(StoreError) -> SyncState? {
    let root = layout.stateDirectory + "/sync"
    guard FileIO.isDirectory(root) else { return nil }
    var best: (time: Int64, name: String)?
    for entry in try FileIO.entries(of: root) {
      var info = stat()
      guard stat(root + "/" + entry.name + "/database.json", &info) == 0 else { continue }
      let time = Platform.times(info).modified
      if time > best?.time ?? Int64.min { best = (time, entry.name) }
    }
    return best.map { SyncState(layout: layout, database: $0.name) }
  }

  /// The SHA-256 of `bytes`, in hex: what `sha256` records.
  public static func hash(_ bytes: [UInt8]) -> String { sha256Hex(bytes) }

  /// The status of a document whose record is `record` and whose file holds `bytes` (nil: no file).
  public static func status(of record: Record?, bytes: [UInt8]?) -> Status? {
    guard let record else { return bytes == nil ? nil : .localChanged }
    if record.status != .synced { return record.status }
    guard let bytes else { return .localChanged }
    return sha256Hex(bytes) == record.sha256 ? .synced : .localChanged
  }
}
