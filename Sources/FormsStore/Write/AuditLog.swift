import FormsCore
import Foundation

/// One document's part in a committed change, as the audit log keeps it (docs/design.md §12).
public struct AuditEntry: Sendable, Equatable {
  public enum Action: String, Sendable { case create, update, delete, rename }

  public var kind: String
  public var id: String
  public var action: Action
  /// Where the document changed (JSON Pointers; the root for a created or deleted document).
  public var pointers: [JSONPointer]
  /// The workflow state before and after, when it changed: the only values the log keeps.
  public var from: String?
  public var to: String?
  /// For a rename (`mv`, or a restore that brings a file back under its name), the old id.
  public var previousID: String?

  public init(
    kind: String, id: String, action: Action, pointers: [JSONPointer], from: String? = nil, to: String? = nil,
    previousID: String? = nil
  ) {
    self.kind = kind
    self.id = id
    self.action = action
    self.pointers = pointers
    self.from = from
    self.to = to
    self.previousID = previousID
  }

  /// `{kind, id, action, pointers, from?, to?, previous_id?}`.
  public var json: JSONValue {
    var object = JSONObject([
      "kind": .string(kind), "id": .string(id), "action": .string(action.rawValue),
      "pointers": .array(pointers.map { .string($0.description) }),
    ])
    if let from { object["from"] = .string(from) }
    if let to { object["to"] = .string(to) }
    if let previousID { object["previous_id"] = .string(previousID) }
    return .object(object)
  }
}

/// `.formsctl/history.jsonl`: one JSON object per committed change, appended inside the change's
/// journaled commit (so `recover` finishing an operation finishes its record too), kept in git.
public enum AuditLog {
  /// The log's path in `layout`.
  public static func path(_ layout: StoreLayout) -> String { layout.historyPath.string }

  /// The record of one change: `time`, `user`, `operation`, `command`, `documents`, then `details`.
  public static func record(
    time: Date, user: String, operation: String, command: String, documents: [AuditEntry], details: JSONObject
  ) -> [UInt8] {
    var object = JSONObject([
      "time": .string(Instant(time).rfc3339), "user": .string(user), "operation": .string(operation),
      "command": .string(command), "documents": .array(documents.map(\.json)),
    ])
    for member in details.members where object[member.key] == nil { object[member.key] = member.value }
    return Array((JSONWriter.compact(.object(object)) + "\n").utf8)
  }

  /// Who is changing the store: git's `user.name <user.email>` for the store's repository when
  /// set, else `$USER`, else the uid.
  public static func currentUser(root: String, environment: [String: String] = ProcessInfo.processInfo.environment)
    -> String
  {
    var name: String?
    var email: String?
    if let result = Subprocess.run(["git", "-C", root, "config", "--get-regexp", "^user\\.(name|email)$"]),
      result.status == 0
    {
      for line in String(decoding: result.stdout, as: UTF8.self).split(separator: "\n") {
        let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[1].isEmpty else { continue }
        if parts[0] == "user.name" { name = parts[1] } else if parts[0] == "user.email" { email = parts[1] }
      }
    }
    switch (name, email) {
    case (let name?, let email?): return "\(name) <\(email)>"
    case (let name?, nil): return name
    case (nil, let email?): return email
    case (nil, nil):
      if let user = environment["USER"] ?? environment["LOGNAME"], !user.isEmpty { return user }
      return "uid \(getuid())"
    }
  }

  /// The size of the file at `path` (0 when there is none).
  static func size(_ path: FilePath) -> Int {
    var info = stat()
    return lstat(path.string, &info) == 0 ? Int(info.st_size) : 0
  }

  /// Appends `line` to the log unless it is already there at `offset` (a roll-forward run twice);
  /// a torn copy of it at `offset` (a crash mid-append) is replaced. Durable when it returns.
  static func appendOnce(_ line: [UInt8], layout: StoreLayout, at offset: Int) throws(StoreError) {
    let path = layout.historyPath
    let fd = POSIX.open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
    guard fd >= 0 else { throw StoreError.io(path.string, operation: "open", errno: Errno(errno)) }
    defer { close(fd) }
    var end = Int(lseek(fd, 0, SEEK_END))
    if end > offset {
      let tail = try read(fd, path: path, at: offset, count: min(end - offset, line.count))
      if tail.count == min(end - offset, line.count) && tail == Array(line.prefix(tail.count)) {
        if tail.count == line.count { return }
        // Torn by a crash: cut it off and write the record whole.
        guard POSIX.ftruncate(fd, off_t(offset), path: path) == 0 else {
          throw StoreError.io(path.string, operation: "truncate", errno: Errno(errno))
        }
        end = offset
      }
    }
    let last = end > 0 ? try read(fd, path: path, at: end - 1, count: 1) : [0x0A]
    try writeAll(fd, last == [0x0A] ? line : [0x0A] + line, path: path)
    if POSIX.fsync(fd, path: path) != 0 { throw StoreError.io(path.string, operation: "fsync", errno: Errno(errno)) }
  }

  /// Cuts the log back to `size` bytes, durably (an append that failed and has no journal).
  static func truncate(_ layout: StoreLayout, to size: Int) throws(StoreError) {
    let path = layout.historyPath
    let fd = POSIX.open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else { throw StoreError.io(path.string, operation: "open", errno: Errno(errno)) }
    defer { close(fd) }
    guard POSIX.ftruncate(fd, off_t(size), path: path) == 0 else {
      throw StoreError.io(path.string, operation: "truncate", errno: Errno(errno))
    }
    if POSIX.fsync(fd, path: path) != 0 { throw StoreError.io(path.string, operation: "fsync", errno: Errno(errno)) }
  }

  /// The log from `offset` to its end (empty when it is shorter).
  static func bytes(_ layout: StoreLayout, from offset: Int) throws(StoreError) -> [UInt8] {
    let path = layout.historyPath
    let fd = POSIX.open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else {
      if errno == ENOENT { return [] }
      throw StoreError.io(path.string, operation: "open", errno: Errno(errno))
    }
    defer { close(fd) }
    let end = Int(lseek(fd, 0, SEEK_END))
    return end > offset ? try read(fd, path: path, at: offset, count: end - offset) : []
  }

  /// SHA-256 of the `length` bytes of the log at `offset`; nil when the log is shorter.
  static func hash(_ layout: StoreLayout, at offset: Int, length: Int) throws(StoreError) -> String? {
    let path = layout.historyPath
    guard FileIO.entry(path) != .missing else { return nil }
    let fd = POSIX.open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else { throw StoreError.io(path.string, operation: "open", errno: Errno(errno)) }
    defer { close(fd) }
    let bytes = try read(fd, path: path, at: offset, count: length)
    return bytes.count == length ? sha256Hex(bytes) : nil
  }

  /// Up to `count` bytes at `offset` (fewer at the end of the file).
  private static func read(_ fd: Int32, path: FilePath, at offset: Int, count: Int) throws(StoreError) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    var total = 0
    while total < count {
      let n = bytes.withUnsafeMutableBytes {
        POSIX.pread(fd, $0.baseAddress.map { $0 + total }, count - total, off_t(offset + total), path: path)
      }
      if n < 0 && errno == EINTR { continue }
      if n < 0 { throw StoreError.io(path.string, operation: "read", errno: Errno(errno)) }
      if n == 0 { break }
      total += n
    }
    return Array(bytes.prefix(total))
  }
}

extension AuditLog {
  /// A line of the log that does not parse as a JSON object.
  public struct Problem: Sendable, Equatable {
    public let line: Int
    public let column: Int
    public let message: String
  }

  /// The records of the log in file order, with their line numbers, and the lines that do not
  /// parse as a JSON object, which are skipped. No log is no records; a log that cannot be read
  /// is an error.
  public static func read(_ layout: StoreLayout) throws(StoreError) -> (
    records: [(line: Int, value: JSONValue)], problems: [Problem]
  ) {
    guard FileIO.entry(layout.historyPath) != .missing else { return ([], []) }
    let bytes = try FileIO.read(layout.historyPath, limit: Int.max)
    var records: [(line: Int, value: JSONValue)] = []
    var problems: [Problem] = []
    for (index, line) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
      guard line.contains(where: { ![0x20, 0x09, 0x0D].contains($0) }) else { continue }
      do {
        let value = try JSONParser().parse(Array(line))
        guard case .object = value else {
          problems.append(
            Problem(line: index + 1, column: 1, message: "a record must be a JSON object, not a \(value.typeName)"))
          continue
        }
        records.append((index + 1, value))
      } catch {
        problems.append(Problem(line: index + 1, column: error.location.column, message: error.message))
      }
    }
    return (records, problems)
  }
}

extension AuditLog {
  /// Which records `formsctl log` shows.
  public struct Query: Sendable {
    public var kind: String?
    public var id: String?
    /// Records at or after this date or datetime (a date counts its whole day).
    public var since: String?
    public var limit: Int?
    /// Access records (reads of sealed values) instead of changes.
    public var access: Bool
    public init(kind: String? = nil, id: String? = nil, since: String? = nil, limit: Int? = nil, access: Bool = false) {
      self.kind = kind
      self.id = id
      self.since = since
      self.limit = limit
      self.access = access
    }
  }

  /// The records matching `query`, newest first (changes, or with `access` the access records
  /// alone); with a kind (and id), each record's `documents` (or `access`) narrowed to the
  /// matching ones. An id that no record names exactly may be the start (4
  /// characters or more) of one id the log names for the kind, as everywhere else ids are taken;
  /// the start of several is ``StoreError/ambiguousID(kind:prefix:candidates:)``. Lines that do
  /// not parse come back as problems.
  public static func query(_ layout: StoreLayout, _ query: Query) throws(StoreError) -> (
    records: [AuditRecord], problems: [Problem]
  ) {
    let (all, problems) = try read(layout)
    var query = query
    if let kind = query.kind, let id = query.id { query.id = try expand(id, kind: kind, in: all.map(\.value)) }
    var out: [AuditRecord] = []
    // Newest first by time (each parsed once); records of one time, or without one, by line, last first.
    let ordered = all.map { (time: $0.value["time"]?.stringValue.flatMap(Instant.init), record: $0) }.sorted { a, b in
      if let x = a.time, let y = b.time, x != y { return y < x }
      return a.record.line > b.record.line
    }
    for (_, (_, record)) in ordered {
      if let since = query.since, let time = record["time"]?.stringValue, (Instant.order(time, since) ?? -1) < 0 {
        continue
      }
      guard (record["operation"]?.stringValue == accessOperation) == query.access else { continue }
      var record = record
      // An access record names its documents under `access`, a change under `documents`.
      let member = query.access ? "access" : "documents"
      if let kind = query.kind {
        guard case .array(let documents)? = record[member] else {
          // Records from before the audit log named documents: by the kind(s) they name.
          let named = record["kind"]?.stringValue == kind || record["kinds"]?[kind] != nil
          if named && query.id == nil { out.append(AuditRecord(record)) }
          continue
        }
        let matching = documents.filter { document in
          document["kind"]?.stringValue == kind
            && (query.id == nil || document["id"]?.stringValue == query.id
              || document["previous_id"]?.stringValue == query.id)
        }
        guard !matching.isEmpty else { continue }
        record[member] = .array(matching)
      }
      out.append(AuditRecord(record))
      if let limit = query.limit, out.count >= limit { break }
    }
    return (out, problems)
  }

  /// `id`, or the one id of `kind` that `records` name and that starts with it.
  private static func expand(_ id: String, kind: String, in records: [JSONValue]) throws(StoreError) -> String {
    var ids = Set<String>()
    for record in records {
      let documents = (record["documents"]?.arrayValue ?? []) + (record["access"]?.arrayValue ?? [])
      for document in documents where document["kind"]?.stringValue == kind {
        for name in ["id", "previous_id"] { if let named = document[name]?.stringValue { ids.insert(named) } }
      }
    }
    guard !ids.contains(id), id.count >= 4 else { return id }
    let candidates = ids.filter { $0.hasPrefix(id) }.sorted()
    if candidates.count > 1 { throw StoreError.ambiguousID(kind: kind, prefix: id, candidates: candidates) }
    return candidates.first ?? id
  }
}
