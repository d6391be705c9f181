import FormsCore
import Foundation

/// What a store knows of one database it syncs with (`.formsctl/sync/<database>/`, git-ignored,
/// docs/design.md §13): the database's identity, and per document the text both sides agreed on at the
/// last sync (the base of a three-way merge), its hash, the row's revision then, a status, and
/// the file's stat signature then (so an unchanged file is known without reading it).
/// Without a record from this same database, sync never deletes a document on either side.
///
/// Per kind, three files: `KIND.records` (every record, one line each, sorted by id), `KIND.log`
/// (records saved since, appended), and `KIND.texts.N` (the texts the records point into,
/// appended). A sync run opens a kind's `Table`, saves as it goes (an append each, which a kill
/// cannot undo) and finishes it: the log folded into the records, everything made durable, the
/// texts rewritten when most of them are stale. Reading replays the log over the records.
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

  /// A text of a record: given (not yet kept), or kept in the kind's texts file.
  public enum Text: Sendable, Equatable {
    case given(String)
    case kept(offset: Int64, length: Int)
  }

  /// A file's `stat` signature when its record was saved, and when that was (nanoseconds).
  public struct Stamp: Sendable, Equatable {
    let file: FileStamp
    let recorded: Int64

    /// The signature of the file at `path` now; nil when it is not there.
    public static func of(_ path: String) -> Stamp? {
      FileStamp(FilePath(path)).map { Stamp(file: $0, recorded: Int64(Date().timeIntervalSince1970 * 1e9)) }
    }

    /// True when `now` (the file's signature now) proves the file unchanged: equal, and written
    /// at least two seconds before the record was (a file changed within the same timestamp
    /// tick as the record could look equal; it is read instead, as git does).
    func vouchesFor(_ now: FileStamp) -> Bool {
      now == file && file.mtimeNanoseconds < recorded - 2_000_000_000
    }
  }

  /// One document's record.
  public struct Record: Sendable, Equatable {
    public var kind: String
    public var id: String
    public var status: Status
    /// When the two sides last agreed.
    public var lastSynced: String?
    /// The canonical text both sides held then (sealed values as envelopes); nil before the first agreement.
    public var text: Text?
    /// SHA-256 of `text`.
    public var sha256: String?
    /// The database row's revision at the last sync (or the row a conflict or refusal is about).
    public var revision: Int64?
    /// For a conflict: the database's text, kept for `sync resolve --theirs`.
    public var theirs: Text?
    /// For a conflict or a refusal: why, in one line.
    public var problem: String?
    /// For a conflict or a refusal: the revision of the row it is about.
    public var remoteRevision: Int64?
    /// The file's signature when the two sides agreed on `text`.
    public var stamp: Stamp?

    public init(
      kind: String, id: String, status: Status, lastSynced: String? = nil, text: Text? = nil,
      sha256: String? = nil, revision: Int64? = nil, theirs: Text? = nil, problem: String? = nil,
      remoteRevision: Int64? = nil, stamp: Stamp? = nil
    ) {
      self.kind = kind
      self.id = id
      self.status = status
      self.lastSynced = lastSynced
      self.text = text
      self.sha256 = sha256
      self.revision = revision
      self.theirs = theirs
      self.problem = problem
      self.remoteRevision = remoteRevision
      self.stamp = stamp
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

  public var directory: String { directoryPath.string }
  /// ``directory`` as a path.
  var directoryPath: FilePath { layout.syncDirectory / database }

  /// The records of `kind`, open for a run.
  public func table(_ kind: String) throws(StoreError) -> Table { try Table(directory: directoryPath, kind: kind) }

  /// Every record of `kind`, by id (read only).
  public func records(kind: String) throws(StoreError) -> [String: Record] { try table(kind).records }

  /// Writes the database's identity beside its records (for people; nothing reads it back).
  public func describe(_ identity: JSONValue) throws(StoreError) {
    try FileIO.makeDirectories(directoryPath)
    try AtomicWriter(boundary: layout.rootPath).write(
      Array(JSONWriter.canonicalString(identity).utf8), to: directoryPath / "database.json")
  }

  /// The state of the database synced with most recently (its `database.json` written last), if any.
  public static func latest(_ layout: StoreLayout) throws(StoreError) -> SyncState? {
    let root = layout.syncDirectory
    guard FileIO.isDirectory(root) else { return nil }
    var best: (time: Int64, name: String)?
    for entry in try FileIO.entries(of: root) {
      var info = stat()
      guard stat((root / entry.name / "database.json").string, &info) == 0 else { continue }
      let time = Platform.times(info).modified
      if time > best?.time ?? Int64.min { best = (time, entry.name) }
    }
    return best.map { SyncState(layout: layout, database: $0.name) }
  }

  /// The SHA-256 of `bytes`, in hex: what `sha256` records.
  public static func hash(_ bytes: [UInt8]) -> String { sha256Hex(bytes) }

  /// The status of a document whose record is `record` and whose file's SHA-256 is `sha256` (nil: no file).
  public static func status(of record: Record?, sha256: String?) -> Status? {
    guard let record else { return sha256 == nil ? nil : .localChanged }
    if record.status != .synced { return record.status }
    guard let sha256 else { return .localChanged }
    return sha256 == record.sha256 ? .synced : .localChanged
  }

  /// The SHA-256 of the file at `path` as `record` knows it: the record's own when the file's
  /// signature vouches for it, else read and hashed. Nil when there is no file.
  public static func fileHash(_ path: String, record: Record?) throws(StoreError) -> String? {
    try fileState(FilePath(path), record: record)?.sha256
  }

  /// `fileHash`, with the signature a synced record should take instead of its own when the file
  /// was read, still holds the record's text, and is old enough for the signature to vouch for
  /// it next time (so a file written within the timestamp tick of its record is read once more,
  /// not on every run: git refreshes its index the same way).
  package static func fileState(_ path: FilePath, record: Record?, in directory: FileIO.Directory? = nil)
    throws(StoreError) -> (
      sha256: String, refreshed: Stamp?
    )?
  {
    guard let now = FileStamp(path, in: directory) else {
      if FileIO.entry(path) == .missing { return nil }
      throw StoreError.io(path.string, operation: "stat", errno: Errno(errno))
    }
    if let record, let stamp = record.stamp, let sha = record.sha256, stamp.vouchesFor(now) { return (sha, nil) }
    let sha = hash(try FileIO.read(path, followLinks: false))
    let fresh = Stamp(file: now, recorded: Int64(Date().timeIntervalSince1970 * 1e9))
    guard let record, record.status == .synced, record.sha256 == sha, fresh.vouchesFor(now) else { return (sha, nil) }
    return (sha, fresh)
  }
}

extension SyncState {
  /// The records of one kind, read once and saved by appending, then folded by `finish`. Used by
  /// one run at a time (not shared between threads).
  public final class Table {
    public private(set) var records: [String: Record]
    let kind: String
    /// The database's directory, which holds the table's files.
    let directory: FilePath
    /// The number of the texts file the records point into.
    var generation: Int
    var log: Int32 = -1
    var texts: Int32 = -1
    var textsSize: Int64 = 0
    /// Lines in the log (read, and appended since).
    var logLines = 0

    var recordsPath: FilePath { directory / (kind + ".records") }
    var logPath: FilePath { directory / (kind + ".log") }
    func textsPath(_ generation: Int) -> FilePath { directory / (kind + ".texts.\(generation)") }

    init(directory: FilePath, kind: String) throws(StoreError) {
      self.kind = kind
      self.directory = directory
      records = [:]
      generation = 0
      if FileIO.entry(recordsPath) != .missing {
        let bytes = try FileIO.read(recordsPath, limit: Int.max)
        let lines = bytes.split(separator: 0x0A)
        guard let header = lines.first, header.starts(with: Self.header.utf8),
          let number = Int(String(decoding: header.dropFirst(Self.header.utf8.count), as: UTF8.self))
        else {
          throw StoreError.refused(.notADocument(path: recordsPath.string))
        }
        generation = number
        records.reserveCapacity(lines.count)
        for line in lines.dropFirst() { apply(line) }
      }
      if FileIO.entry(logPath) != .missing {
        for line in try FileIO.read(logPath, limit: Int.max).split(separator: 0x0A) {
          // A line of another texts file was folded into the records already; a torn last line
          // (power lost mid-append) does not parse and is dropped.
          guard let tab = line.firstIndex(of: 0x09),
            Int(String(decoding: line[..<tab], as: UTF8.self)) == generation
          else { continue }
          apply(line[(tab + 1)...])
          logLines += 1
        }
      }
    }

    deinit {
      if log >= 0 { close(log) }
      if texts >= 0 { close(texts) }
    }

    static let header = "formsctl sync records 1 texts "

    func apply(_ line: ArraySlice<UInt8>) {
      Self.split(line, into: &fields)
      if fields.count == 2, line[fields[1]].elementsEqual([UInt8(ascii: "!")]) {
        records[Self.unescaped(line[fields[0]])] = nil
      } else if let record = Self.record(line, fields, kind: kind, numbers: &numbers) {
        records[record.id] = record
      }
    }

    /// The tab-separated fields of `line`, as ranges (reused from line to line: a kind's records
    /// are read on every run, and an array per line cost more than the rest of the reading).
    var fields: [Range<Int>] = []
    var numbers: [Int64] = []

    static func split(_ line: ArraySlice<UInt8>, into fields: inout [Range<Int>]) {
      fields.removeAll(keepingCapacity: true)
      var start = line.startIndex
      for index in line.indices where line[index] == 0x09 {
        fields.append(start..<index)
        start = index + 1
      }
      fields.append(start..<line.endIndex)
    }

    /// The text `text` stands for (a given one as given; a kept one read from the texts file).
    public func string(_ text: Text?) throws(StoreError) -> String? {
      switch text {
      case nil: return nil
      case .given(let string): return string
      case .kept(let offset, let length):
        let path = textsPath(generation)
        let fd = POSIX.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StoreError.io(path.string, operation: "open", errno: Errno(errno)) }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: length)
        var done = 0
        while done < length {
          let got = bytes.withUnsafeMutableBytes {
            POSIX.pread(
              fd, $0.baseAddress.map { $0 + done }, length - done, off_t(offset) + off_t(done), path: path)
          }
          if got < 0 { throw StoreError.io(path.string, operation: "read", errno: Errno(errno)) }
          if got == 0 { return nil }  // cut short (power lost before it was made durable)
          done += got
        }
        return String(decoding: bytes, as: UTF8.self)
      }
    }

    /// The agreed text of `record`, when it is still the text its hash names.
    public func base(_ record: Record) throws(StoreError) -> String? {
      guard let text = try string(record.text) else { return nil }
      return sha256Hex(Array(text.utf8)) == record.sha256 ? text : nil
    }

    /// Saves `record`: its given texts appended to the texts file, its line to the log.
    public func save(_ record: Record) throws(StoreError) { try save([record]) }

    /// Saves `records` with one append to each file.
    public func save(_ records: [Record]) throws(StoreError) {
      guard !records.isEmpty else { return }
      var texts: [UInt8] = []
      var lines = ""
      var kept: [Record] = []
      let given = records.contains { record in
        [record.text, record.theirs].contains { if case .given? = $0 { true } else { false } }
      }
      let start = given ? try textsEnd() : 0
      func keep(_ text: Text?) -> Text? {
        guard case .given(let string)? = text else { return text }
        let offset = start + Int64(texts.count)
        texts += Array(string.utf8)
        return .kept(offset: offset, length: string.utf8.count)
      }
      for var record in records {
        record.text = keep(record.text)
        record.theirs = keep(record.theirs)
        kept.append(record)
        lines += "\(generation)\t" + Self.line(record) + "\n"
      }
      if !texts.isEmpty {
        try writeAll(self.texts, texts, path: textsPath(generation))
        textsSize += Int64(texts.count)
      }
      try append(lines)
      logLines += kept.count
      for record in kept { self.records[record.id] = record }
    }

    /// Forgets the record of `id` (the document is gone on both sides).
    public func forget(_ id: String) throws(StoreError) {
      guard records[id] != nil else { return }
      try append("\(generation)\t" + Self.escaped(id) + "\t!\n")
      logLines += 1
      records[id] = nil
    }

    /// Makes what this run saved durable. While the log is short beside the records, that is an
    /// fsync of the texts and of the log (a run that changed ten documents of 100,000 writes ten
    /// lines, not the records again). Otherwise the log is folded into the records (temporary,
    /// fsync, rename) and removed; and when most kept text is stale, the live texts are first
    /// copied to a new texts file, the old one removed after.
    public func finish() throws(StoreError) {
      guard log >= 0 || texts >= 0 || FileIO.entry(logPath) != .missing else { return }
      try FileIO.makeDirectories(directory)
      var live: Int64 = 0
      for record in records.values {
        for case .kept(_, let length)? in [record.text, record.theirs] { live += Int64(length) }
      }
      let size = try textsEnd()
      let stale = size > 2 * live + 1_048_576
      if !stale && logLines < max(1_000, records.count / 8) {
        for (fd, path) in [(texts, textsPath(generation)), (log, logPath)] where fd >= 0 {
          if POSIX.fsync(fd, path: path) != 0 {
            throw StoreError.io(path.string, operation: "fsync", errno: Errno(errno))
          }
        }
        try AtomicWriter.syncDirectory(directory)
        return
      }
      let old = generation
      if stale {
        var compacted: [UInt8] = []
        var moved: [String: Record] = [:]
        for (id, var record) in records {
          func move(_ text: Text?) throws(StoreError) -> Text? {
            guard let string = try string(text) else { return nil }
            defer { compacted += Array(string.utf8) }
            return .kept(offset: Int64(compacted.count), length: string.utf8.count)
          }
          record.text = try move(record.text)
          record.theirs = try move(record.theirs)
          moved[id] = record
        }
        generation += 1
        try AtomicWriter(boundary: directory).write(compacted, to: textsPath(generation))
        records = moved
        if texts >= 0 { close(texts) }
        texts = -1
      } else if texts >= 0 {
        if POSIX.fsync(texts, path: textsPath(generation)) != 0 {
          throw StoreError.io(textsPath(generation).string, operation: "fsync", errno: Errno(errno))
        }
      }
      var text = Self.header + "\(generation)\n"
      for (_, record) in records.sorted(by: { $0.key < $1.key }) { text += Self.line(record) + "\n" }
      try AtomicWriter(boundary: directory).write(Array(text.utf8), to: recordsPath)
      if log >= 0 { close(log) }
      log = -1
      try FileIO.remove(logPath)
      logLines = 0
      if generation != old { try FileIO.remove(textsPath(old)) }
      try AtomicWriter.syncDirectory(directory)
    }

    /// Where the next text goes (opening the texts file for appending).
    func textsEnd() throws(StoreError) -> Int64 {
      if texts < 0 {
        let path = textsPath(generation)
        try FileIO.makeDirectories(path.parent)
        texts = POSIX.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard texts >= 0 else { throw StoreError.io(path.string, operation: "open", errno: Errno(errno)) }
        var info = stat()
        guard fstat(texts, &info) == 0 else { throw StoreError.io(path.string, operation: "stat", errno: Errno(errno)) }
        textsSize = Int64(info.st_size)
      }
      return textsSize
    }

    func append(_ text: String) throws(StoreError) {
      if log < 0 {
        try FileIO.makeDirectories(logPath.parent)
        log = POSIX.open(logPath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard log >= 0 else { throw StoreError.io(logPath.string, operation: "open", errno: Errno(errno)) }
      }
      try writeAll(log, Array(text.utf8), path: logPath)
    }
  }
}
