import FormsCore
import Foundation

/// What the documents of some kinds were when last looked at, and what changed since: the change
/// detection a watch is built on. A file is judged by its `stat` signature (size, mtime and ctime
/// in nanoseconds, inode), and read only when that changed; what it held is kept as one hash per
/// top-level member, so an update made behind formsctl's back is named by the members it changed.
/// Memory: one packed 64-bit word per member (its name's number, 24 bits, and 40 bits of the hash
/// of its canonical text), names kept once.
struct ChangeDetector {
  /// What a document's directory entry was when looked at: a regular file's stamp, or what
  /// else is there (a directory, a symbolic link, a FIFO: never opened, never followed), as its
  /// `lstat` says, with the problem to report.
  enum Signature: Equatable {
    case file(FileStamp)
    case other(type: mode_t, inode: UInt64, changed: Int64, problem: String)
  }

  /// One document as last seen.
  struct Known {
    var stamp: Signature
    /// Each top-level member when it last parsed (nil: never), packed and sorted (see the type).
    var members: [UInt64]?
    /// The file does not parse now.
    var broken = false
  }

  /// The kinds watched, by the directory that holds their documents.
  let kinds: [String: String]
  private(set) var known: [String: Known] = [:]
  /// Member names by number, and numbers by name.
  private var names: [String] = []
  private var numbers: [String: UInt64] = [:]

  init(kinds: [String: String]) { self.kinds = kinds }

  /// The document files of the watched kinds, each with its kind: every file `list` reads, in
  /// the kind's directory and the folders below it (a walk that follows no link).
  func files(in directories: [String]) throws(StoreError) -> [(path: String, kind: String)] {
    var out: [(String, String)] = []
    for directory in directories {
      guard let kind = kinds[directory], FileIO.entry(FilePath(directory)) == .directory else { continue }
      // Every entry with a document's name: one that is no regular file is reported as such.
      let walked = try FileIO.walk(FilePath(directory), suffix: ".json")
      for path in walked.files + walked.irregular where Self.isDocumentName(FilePath(path).name) {
        out.append((path, kind))
      }
    }
    return out
  }

  /// The watched kind directory that holds `path` at any depth, or nil.
  func kindDirectory(holding path: String) -> String? {
    var directory = FilePath(path).parent
    while directory.string.count > 1 {
      if kinds[directory.string] != nil { return directory.string }
      directory = directory.parent
    }
    return nil
  }

  /// The kind of the document at `path` (in its kind's directory or a folder below it).
  func kind(of path: String) -> String? { kindDirectory(holding: path).flatMap { kinds[$0] } }

  /// A document's file name: `ID.json`, not hidden (the journal stages `.NAME.formsctl-journal`,
  /// editors write hidden swap files).
  static func isDocumentName(_ name: String) -> Bool { name.hasSuffix(".json") && !name.hasPrefix(".") }

  /// What a look found: each path whose entry changes, with its new entry (nil: gone).
  typealias Updates = [(path: String, known: Known?)]

  /// Looks at `paths` (nil: every file of every watched kind) and returns what changed since the
  /// last look, with the updates to what the detector knows; `adopt` applies them.
  mutating func scan(_ paths: Set<String>?) throws(StoreError) -> (changes: [Store.Change], updates: Updates) {
    var state: Updates = []
    var candidates: [(path: String, kind: String)]
    if let paths {
      candidates = paths.compactMap { path in kind(of: path).map { (path, $0) } }
    } else {
      candidates = try files(in: Array(kinds.keys))
      let present = Set(candidates.map(\.path))
      for path in known.keys where !present.contains(path) {
        candidates.append((path, kind(of: path) ?? ""))
      }
    }
    let known = known
    let looked = parallelMap(candidates.sorted { $0.path < $1.path }, chunkSize: 32) {
      candidate -> (String, String, Signature?, [(String, Int)]?) in
      let (stamp, read) = Self.look(candidate.path, unless: known[candidate.path]?.stamp)
      return (candidate.path, candidate.kind, stamp, read)
    }
    var changes: [Store.Change] = []
    for (path, kind, stamp, read) in looked {
      var now: Known?
      if let stamp {
        if let before = known[path], before.stamp == stamp {
          now = before
        } else {
          let members = read.map { pack($0) }
          now = Known(stamp: stamp, members: members, broken: members == nil)
        }
      }
      let before = known[path]
      let id = StoreLayout.id(fromFile: path) ?? FilePath(path).name
      switch (before, now) {
      case (nil, nil): continue
      case (_?, nil):
        state.append((path, nil))
        changes.append(Store.Change(kind: kind, id: id, operation: .delete, pointers: [.root]))
      case (nil, let now?):
        state.append((path, now))
        changes.append(
          Store.Change(
            kind: kind, id: id, operation: .create, pointers: [.root],
            problem: now.members == nil ? now.stamp.problem : nil))
      case (let before?, let now?):
        guard before.stamp != now.stamp else { continue }
        state.append((path, Known(stamp: now.stamp, members: now.members ?? before.members, broken: now.broken)))
        guard let members = now.members else {
          changes.append(
            Store.Change(kind: kind, id: id, operation: .update, pointers: [], problem: now.stamp.problem))
          continue
        }
        let pointers = changedMembers(before.members, members)
        // Touched but not changed (`touch`, a checkout that rewrote the same bytes): nothing to say.
        if pointers.isEmpty && before.members != nil && !before.broken { continue }
        changes.append(Store.Change(kind: kind, id: id, operation: .update, pointers: pointers))
      }
    }
    return (changes, state)
  }

  /// Applies `updates` (from `scan`) to what the detector knows.
  mutating func adopt(_ updates: Updates) {
    for (path, entry) in updates { known[path] = entry }
  }

  /// What is at `path` (nil: nothing) and, for a regular file whose stamp is not `unless`, its
  /// members (nil when it does not parse or cannot be read: the signature says why). A document
  /// name that is a directory, a symbolic link, a FIFO or a socket is reported, never opened or
  /// followed (so a FIFO never blocks the watch), as `list` skips it with a warning; so is a file
  /// that cannot be read (permission denied), and the watch goes on.
  static func look(_ path: String, unless previous: Signature?) -> (Signature?, [(String, Int)]?) {
    var info = stat()
    guard lstat(path, &info) == 0 else {
      if errno == ENOENT || errno == ENOTDIR { return (nil, nil) }
      let problem = "cannot be looked at: \(Errno(errno))"
      return (.other(type: 0, inode: 0, changed: 0, problem: problem), nil)
    }
    let type = info.st_mode & S_IFMT
    guard type == S_IFREG else {
      let problem =
        "\(FileIO.describe(mode: info.st_mode)), not a document; formsctl does not "
        + (type == S_IFLNK ? "follow it" : "read it")
      let changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
      return (.other(type: type, inode: UInt64(info.st_ino), changed: changed, problem: problem), nil)
    }
    guard let stamp = FileStamp(FilePath(path)) else { return (nil, nil) }
    if case .file(stamp)? = previous { return (.file(stamp), nil) }
    let bytes: [UInt8]
    do throws(StoreError) {
      bytes = try FileIO.read(FilePath(path), followLinks: false)
    } catch {
      switch error {
      // Gone between the stat and the read: the next look sees it missing.
      case .fileNotFound: return (nil, nil)
      case .wrongFileType(_, let found, _):
        return (
          .other(type: 0, inode: 0, changed: 0, problem: "\(found), not a document; formsctl does not read it"), nil
        )
      case .io(_, _, let code):
        return (
          .other(
            type: S_IFREG, inode: stamp.inode, changed: stamp.ctimeNanoseconds, problem: "cannot be read: \(code)"), nil
        )
      default:
        return (
          .other(type: S_IFREG, inode: stamp.inode, changed: stamp.ctimeNanoseconds, problem: error.description), nil
        )
      }
    }
    guard case .object(let object)? = try? JSONParser().parse(bytes) else { return (.file(stamp), nil) }
    return (.file(stamp), object.members.map { ($0.key, JSONWriter.compact($0.value).hashValue) })
  }

  private static let hashBits: UInt64 = 40

  /// `members` packed: per member, its name's number above 40 bits of its hash; sorted.
  private mutating func pack(_ members: [(String, Int)]) -> [UInt64] {
    members.map { name, hash in
      let number =
        numbers[name]
        ?? {
          names.append(name)
          numbers[name] = UInt64(names.count - 1)
          return UInt64(names.count - 1)
        }()
      return number << Self.hashBits | UInt64(bitPattern: Int64(hash)) & (1 << Self.hashBits - 1)
    }.sorted()
  }

  /// The members added, removed or changed between two versions, as pointers, sorted by name.
  func changedMembers(_ before: [UInt64]?, _ after: [UInt64]) -> [JSONPointer] {
    guard let before else { return [.root] }
    let old = Dictionary(before.map { ($0 >> Self.hashBits, $0) }, uniquingKeysWith: { a, _ in a })
    let new = Dictionary(after.map { ($0 >> Self.hashBits, $0) }, uniquingKeysWith: { a, _ in a })
    let differing = Set(old.keys).union(new.keys).filter { old[$0] != new[$0] }
    return differing.map { names[Int($0)] }.sorted().map { JSONPointer(tokens: [$0]) }
  }
}

extension ChangeDetector.Signature {
  /// What to report of an entry whose members are unknown: why it is no document.
  var problem: String {
    switch self {
    case .file: return "does not parse"
    case .other(_, _, _, let problem): return problem
    }
  }
}
