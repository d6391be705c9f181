import FormsCore
import Foundation

/// A whole-store snapshot, streamed: the store is walked one directory at a time, in the order
/// the manifest lists it (`attachments/`, `data/`, `formsctl.yaml`, `schemas/`; each directory's names sorted by
/// their bytes, a subdirectory where its name falls), and the previous snapshot's hash cache is
/// read alongside in the same order. Each block of files is stat'ed and linked on every core,
/// what changed is read, hashed and copied, and the block's manifest entries and cache lines are
/// appended to files, so memory holds one block and one directory's names, never the store.
extension Snapshots {
  /// What a streamed copy wrote besides the copies: how many files, and documents per kind and version.
  struct Streamed {
    var files = 0
    var counts: [String: [String: Int]] = [:]
    /// The directories made and the files written (not linked) in the snapshot: what must be made
    /// durable. Nil once more than `fewWrites` were written (then the whole file system is synced).
    var written: [FilePath]? = []
  }

  /// Up to this many new files and directories, a snapshot fsyncs each; past it, one syncfs (which
  /// also waits for whatever else is being written to that file system).
  static let fewWrites = 1_000

  /// How many files a block holds: one lookup in the cache each, then stat'ed and linked in parallel.
  static let blockSize = 4096

  /// Copies the whole store into `temporary` (links for what the hash cache vouches for or whose
  /// content turns out unchanged), writing the manifest's entries to `entriesPath` and the new
  /// hash cache (naming `name`, written at `now`) to `cachePath`.
  func streamStore(
    into temporary: FilePath, entries entriesPath: FilePath, cache newCache: FilePath, name: String, at now: Int64
  )
    throws(StoreError) -> Streamed
  {
    let previous = try previousEntries()
    let base = previous.snapshot.isEmpty ? nil : directory / previous.snapshot
    if base == nil {
      // The first snapshot copies every file: refuse up front when they cannot fit.
      try Storage.require(try storeSize(), at: directory.string, for: "the first snapshot")
    }
    let entries = try BufferedFile(creating: entriesPath)
    let cache = try BufferedFile(creating: newCache)
    var streamed = Streamed()
    var counter = SchemaCounter()
    cache.append(Array("# v3 \(now) \(name)\n".utf8))
    try forEachRun { live, relative, names throws(StoreError) in
      let run = try RunCopy(live: live, relative: relative, temporary: temporary, base: base)
      defer { run.close() }
      // The run's directory and those above it (made with it) hold new entries.
      var made = [run.target]
      while let last = made.last, last != temporary, temporary.contains(last) {
        made.append(last.parent)
      }
      streamed.note(made.filter { !(streamed.written?.contains($0) ?? false) })
      let progress = ProgressCounter(
        relative.isEmpty ? "snapshot" : "snapshot \(relative)", total: names.count, self.progress)
      // Each block is stat'ed and linked while, on a thread of its own, the block before it is put
      // into words (its manifest entries and cache lines) and the cache is read for the next one.
      let blocks = stride(from: 0, to: names.count, by: Self.blockSize).map {
        $0..<min(names.count, $0 + Self.blockSize)
      }
      let (prefix, trustedBefore) = (run.prefix, previous.writtenAtNanoseconds - 2_000_000_000)
      @Sendable func lookUp(_ range: Range<Int>) -> [CacheLine?] {
        names[range].map { previous.entry(for: prefix + Array($0.utf8)) }
      }
      var found = blocks.first.map(lookUp) ?? []
      var pending: (block: [String], copied: [RunCopy.Outcome])?
      func writeDown(_ words: RunCopy.Words, count: Int) throws(StoreError) {
        entries.append(words.entries)
        cache.append(words.cache)
        for schema in words.schemas { counter.add(schema) }
        streamed.files += count
        try entries.flushIfFull()
        try cache.flushIfFull()
        progress?.add(count)
      }
      // Each block is stat'ed and linked here while the block before it is put into words on a
      // thread of its own; then its changed files are read and hashed on every core while the
      // copies of the block before it are created here.
      var reading: RunCopy.Read?
      func finish(_ read: RunCopy.Read) throws(StoreError) -> (block: [String], copied: [RunCopy.Outcome]) {
        let (copied, wrote) = try run.finish(read)
        streamed.note(wrote)
        return (read.stamped.names, copied)
      }
      for (b, range) in blocks.enumerated() {
        let block = Array(names[range])
        let (done, first, next) = (pending, streamed.files == 0, b + 1 < blocks.count ? blocks[b + 1] : nil)
        let ((words, nextFound), stamped) = try alongside({
          (done.map { RunCopy.words($0.block, $0.copied, prefix: prefix, first: first) }, next.map(lookUp))
        }) { () throws(StoreError) in
          try run.stamp(block, previous: found, trustedBefore: trustedBefore)
        }
        if let words, let done { try writeDown(words, count: done.block.count) }
        found = nextFound ?? []
        let earlier = reading
        let (read, finished) = try alongside({ run.read(stamped) }) {
          () throws(StoreError) -> (block: [String], copied: [RunCopy.Outcome])? in
          guard let earlier else { return nil }
          return try finish(earlier)
        }
        pending = finished
        reading = read
      }
      // The last block read is created; then the two blocks not yet in words, in order.
      var last: (block: [String], copied: [RunCopy.Outcome])?
      if let reading { last = try finish(reading) }
      for done in [pending, last].compactMap({ $0 }) {
        try writeDown(
          RunCopy.words(done.block, done.copied, prefix: prefix, first: streamed.files == 0), count: done.block.count)
      }
    }
    try entries.close()
    try cache.close()
    streamed.counts = counter.counts
    return streamed
  }

  /// What copies of every file a whole-store snapshot holds take, in the file system's blocks
  /// with their directory entries (`Storage.allocated`): the same walk, in the order the
  /// directories list their names (a sum needs no sorting), each directory's files stat'ed on
  /// every core.
  func storeSize() throws(StoreError) -> Int64 {
    let block = Storage.blockSize(at: layout.root) ?? Storage.assumedBlockSize
    var bytes: Int64 = 0
    try forEachRun(sorted: false) { live, _, names throws(StoreError) in
      let opened = FileIO.Directory(live)
      bytes += parallelChunks(count: names.count, chunkSize: 1024) { range in
        [
          range.reduce(Int64(0)) { sum, k in
            let stamp =
              if let opened { FileStamp(name: names[k], in: opened) } else {
                FileStamp(live / names[k])
              }
            // In blocks, with its directory entry: what its copy takes (`Storage.allocated`).
            return sum
              + Storage.allocated(size: Int64(stamp?.size ?? 0), nameLength: names[k].utf8.count, blockSize: block)
          }
        ]
      }.reduce(0, +)
    }
    return bytes
  }

  /// Calls `body` with each run of regular files of one directory, in the manifest's order
  /// (unless not `sorted`: then in the order each directory lists its names): (the live
  /// directory, the directory inside the snapshot, its names).
  func forEachRun(sorted: Bool = true, _ body: (FilePath, String, [String]) throws(StoreError) -> Void)
    throws(StoreError)
  {
    // `attachments/` sorts before `data/`: the walk keeps the manifest's order.
    if try layout.hasAttachments { try Self.walkRuns(layout.attachmentsPath, as: "attachments", sorted: sorted, body) }
    try Self.walkRuns(layout.dataPath, as: "data", sorted: sorted, body)
    try body(StoreLayout.manifestPath(root: layout.root).parent, "", [StoreLayout.manifestName])
    if layout.schemasInsideRoot { try Self.walkRuns(layout.schemasPath, as: "schemas", sorted: sorted, body) }
  }

  private static func walkRuns(
    _ directory: FilePath, as relative: String, sorted: Bool,
    _ body: (FilePath, String, [String]) throws(StoreError) -> Void
  ) throws(StoreError) {
    var run: [String] = []
    let entries = sorted ? try FileIO.sortedEntries(of: directory) : try FileIO.visibleEntries(of: directory)
    for (name, kind) in entries {
      switch kind {
      case .file: run.append(name)
      case .directory:
        if !run.isEmpty { try body(directory, relative, run) }
        run = []
        try walkRuns(directory / name, as: relative + "/" + name, sorted: sorted, body)
      default: continue
      }
    }
    if !run.isEmpty { try body(directory, relative, run) }
  }

  /// What the previous whole snapshot holds, in the walk's order: the hash cache, or when it is
  /// missing or names a snapshot that is gone, the newest whole snapshot's manifest (its entries
  /// never vouch for a file by its stamp: each is read and hashed, and linked where it is the same).
  func previousEntries() throws(StoreError) -> CacheReader {
    let cached = CacheReader(path: cachePath)
    if !cached.snapshot.isEmpty, FileIO.exists(directory / cached.snapshot / "manifest.json") {
      return cached
    }
    guard let base = try list().last(where: { $0.manifest.map { $0.covers == nil } ?? false }),
      let manifest = base.manifest
    else { return CacheReader(bytes: []) }
    let unknown = FileStamp(size: 0, mtimeNanoseconds: 0, ctimeNanoseconds: 0, inode: 0)
    let rows = manifest.files.sorted { FileIO.walkOrder($0.path, $1.path) }.map { ($0.path, unknown, $0) }
    return CacheReader(bytes: HashCache.serialize(rows, snapshot: base.name, now: 0))
  }
}

extension Snapshots.Streamed {
  mutating func note(_ paths: [FilePath]) {
    guard var list = written else { return }
    list += paths
    written = list.count > Snapshots.fewWrites ? nil : list
  }
}

/// Documents per kind and version, counted from each entry's `_schema` bytes (runs of the same
/// schema, the common case, cost a comparison each).
struct SchemaCounter {
  private var last: [UInt8] = []
  private var run = 0
  private var totals: [String: Int] = [:]

  mutating func add(_ schema: [UInt8]?) {
    guard let schema else { return }
    if schema != last {
      flush()
      last = schema
    }
    run += 1
  }

  private mutating func flush() {
    if run > 0 { totals[String(decoding: last, as: UTF8.self), default: 0] += run }
    run = 0
  }

  var counts: [String: [String: Int]] {
    var copy = self
    copy.flush()
    var counts: [String: [String: Int]] = [:]
    for (schema, count) in copy.totals {
      guard let at = schema.lastIndex(of: "@") else { continue }
      counts[String(schema[..<at]), default: [:]][String(schema[schema.index(after: at)...]), default: 0] += count
    }
    return counts
  }
}

/// One directory's run of files being copied into a snapshot: its live, snapshot and base
/// directories open, so each file costs one name lookup.
struct RunCopy {
  let live: FilePath
  let target: FilePath
  let relative: String
  /// The path inside the snapshot up to a name: `data/orders/`, or nothing at the top.
  let prefix: [UInt8]
  private let liveFD: Int32
  private let targetFD: Int32
  private let baseFD: Int32
  /// The live and snapshot directories again, for reads and creates by name (nil: by whole path).
  private let liveDirectory: FileIO.Directory?
  private let targetDirectory: FileIO.Directory?

  /// What became of one file.
  enum Outcome: Sendable {
    /// A link to the base's copy; the cache's line (its stamp is the file's) says the rest.
    case linked(CacheLine)
    /// Read and hashed: a link to the base's copy or a new copy.
    case copied(stamp: FileStamp, sha: [UInt8], size: Int, schema: [UInt8]?)

    var schema: [UInt8]? {
      switch self {
      case .linked(let line): line.schema
      case .copied(_, _, _, let schema): schema
      }
    }

    func manifestEntry(path: [UInt8], first: Bool) -> [UInt8] {
      var out: [UInt8] = []
      out.reserveCapacity(200)
      path.withUnsafeBufferPointer { path in
        switch self {
        case .linked(let line):
          line.bytes.withUnsafeBufferPointer { b in
            SnapshotManifest.appendEntry(
              path: path, schema: line.schemaRange.isEmpty ? nil : UnsafeBufferPointer(rebasing: b[line.schemaRange]),
              sha: UnsafeBufferPointer(rebasing: b[0..<64]), size: line.stamp.size, first: first, into: &out)
          }
        case .copied(_, let sha, let size, let schema):
          sha.withUnsafeBufferPointer { sha in
            if let schema {
              schema.withUnsafeBufferPointer {
                SnapshotManifest.appendEntry(path: path, schema: $0, sha: sha, size: size, first: first, into: &out)
              }
            } else {
              SnapshotManifest.appendEntry(path: path, schema: nil, sha: sha, size: size, first: first, into: &out)
            }
          }
        }
      }
      return out
    }

    /// The hash cache's line for the file; nil for a name a line cannot hold (a tab or a line
    /// break: such a file is simply hashed again next time).
    func cacheLine(path: [UInt8]) -> [UInt8]? {
      switch self {
      case .linked(let line): return line.bytes + [0x0A]
      case .copied(let stamp, let sha, _, let schema):
        let unreadable: (UInt8) -> Bool = { $0 == 0x09 || $0 == 0x0A }
        guard !path.contains(where: unreadable), !(schema?.contains(where: unreadable) ?? false) else { return nil }
        var out = sha
        for number in [
          Int64(stamp.size), stamp.mtimeNanoseconds, stamp.ctimeNanoseconds, Int64(bitPattern: stamp.inode),
        ] {
          out.append(0x09)
          out += String(number).utf8
        }
        out.append(0x09)
        out += schema ?? []
        out.append(0x09)
        out += path
        out.append(0x0A)
        return out
      }
    }
  }

  /// A block's manifest entries and cache lines, and each file's `_schema`.
  struct Words: Sendable {
    var entries: [UInt8] = []
    var cache: [UInt8] = []
    var schemas: [[UInt8]?] = []
  }

  /// What a block of `names` (under `prefix` in the snapshot) adds to the manifest and the hash
  /// cache; `first`: the block opens the manifest's list.
  static func words(_ names: [String], _ outcomes: [Outcome], prefix: [UInt8], first: Bool) -> Words {
    var words = Words()
    words.schemas.reserveCapacity(outcomes.count)
    for (k, outcome) in outcomes.enumerated() {
      let path = prefix + Array(names[k].utf8)
      words.entries += outcome.manifestEntry(path: path, first: first && k == 0)
      if let line = outcome.cacheLine(path: path) { words.cache += line }
      words.schemas.append(outcome.schema)
    }
    return words
  }

  init(live: FilePath, relative: String, temporary: FilePath, base: FilePath?) throws(StoreError) {
    self.live = live
    self.relative = relative
    self.target = relative.isEmpty ? temporary : temporary / relative
    prefix = relative.isEmpty ? [] : Array((relative + "/").utf8)
    try FileIO.makeDirectories(target)
    liveFD = POSIX.open(live, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard liveFD >= 0 else { throw StoreError.io(live.string, operation: "open", errno: Errno(errno)) }
    targetFD = POSIX.open(target, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard targetFD >= 0 else {
      let failure = errno
      Foundation.close(liveFD)
      throw StoreError.io(target.string, operation: "open", errno: Errno(failure))
    }
    liveDirectory = FileIO.Directory(live)
    targetDirectory = FileIO.Directory(target)
    // A base without this directory (new since then) gives no links: its files are copied.
    baseFD =
      base.map {
        Foundation.open(relative.isEmpty ? $0.string : ($0 / relative).string, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
      } ?? -1
  }

  func close() {
    for fd in [liveFD, targetFD, baseFD] where fd >= 0 { Foundation.close(fd) }
  }

  /// A block stat'ed: each file linked (what the cache vouches for) or to be read.
  struct Stamped: Sendable {
    let names: [String]
    let previous: [CacheLine?]
    let outcomes: [Outcome?]
    let changed: [(index: Int, stamp: FileStamp)]
  }

  /// A block's changed files read and hashed, each with its `_schema`.
  struct Read: Sendable {
    let stamped: Stamped
    let files: [Result<(bytes: [UInt8], sha: [UInt8], schema: [UInt8]?), StoreError>]
  }

  /// Stats `names` (with the cache's line for each, when it has one) on every core, linking what
  /// the cache vouches for (a stamp that matches, older than `trustedBefore`). A link that fails
  /// leaves the file to be read.
  func stamp(_ names: [String], previous: [CacheLine?], trustedBefore: Int64) throws(StoreError) -> Stamped {
    enum Stat: Sendable {
      case linked
      case stamped(FileStamp)
      case missing
    }
    let (liveFD, targetFD, baseFD, target) = (self.liveFD, self.targetFD, self.baseFD, self.target)
    let stats = parallelChunks(count: names.count, chunkSize: 512) { range -> [Stat] in
      range.map { k in
        var info = stat()
        guard fstatat(liveFD, names[k], &info, 0) == 0 else { return .missing }
        let (mtime, ctime) = Platform.times(info)
        let stamp = FileStamp(
          size: Int(info.st_size), mtimeNanoseconds: mtime, ctimeNanoseconds: ctime, inode: UInt64(info.st_ino))
        if let line = previous[k], line.stamp == stamp, max(mtime, ctime) < trustedBefore, baseFD >= 0,
          POSIX.linkat(baseFD, names[k], targetFD, path: target / names[k]) == 0
        {
          return .linked
        }
        return .stamped(stamp)
      }
    }
    var changed: [(index: Int, stamp: FileStamp)] = []
    for (k, stat) in stats.enumerated() {
      switch stat {
      case .linked: continue
      // A file gone since the walk: the caller's write lock makes this a bug, not a race.
      case .missing: throw StoreError.fileNotFound((live / names[k]).string)
      case .stamped(let stamp): changed.append((k, stamp))
      }
    }
    let outcomes = zip(stats, previous).map { stat, line -> Outcome? in
      if case .linked = stat, let line { return .linked(line) }
      return nil
    }
    if baseFD >= 0, !changed.isEmpty {
      // In the file system's blocks, with a directory entry for every file, linked or copied.
      let block = Storage.blockSize(at: target.parent.string) ?? Storage.assumedBlockSize
      let entries = names.reduce(Int64(0)) { $0 + Storage.entry(nameLength: $1.utf8.count) }
      try Storage.require(
        changed.reduce(entries) { $0 + Storage.blocks(Int64($1.stamp.size), blockSize: block) },
        at: target.parent.string,
        for: "the snapshot (\(plural(changed.count, "changed file")))")
    }
    return Stamped(names: names, previous: previous, outcomes: outcomes, changed: changed)
  }

  /// Reads and hashes the changed files of `stamped` on every core, finding each one's `_schema`
  /// (the base's line gives it when the content is the same).
  func read(_ stamped: Stamped) -> Read {
    let (live, liveDirectory, at) = (self.live, self.liveDirectory, String(decoding: prefix, as: UTF8.self))
    let (names, previous) = (stamped.names, stamped.previous)
    let files = parallelMap(stamped.changed, chunkSize: 16) {
      file -> Result<(bytes: [UInt8], sha: [UInt8], schema: [UInt8]?), StoreError> in
      Result { () throws(StoreError) in
        let bytes = try FileIO.read(live / names[file.index], limit: Int.max, in: liveDirectory)
        let sha = Array(sha256Hex(bytes).utf8)
        if let line = previous[file.index], line.sha.elementsEqual(sha) { return (bytes, sha, line.schema) }
        return (bytes, sha, Snapshots.schema(of: bytes, at: at).map { Array($0.utf8) })
      }
    }
    return Read(stamped: stamped, files: files)
  }

  /// Puts the files of `read` in the snapshot from this thread: a link to the base's copy when the
  /// content is the same, else a new copy. Returns every file's outcome and the copies made.
  func finish(_ read: Read) throws(StoreError) -> ([Outcome], wrote: [FilePath]) {
    let stamped = read.stamped
    var outcomes = stamped.outcomes
    var wrote: [FilePath] = []
    for (file, result) in zip(stamped.changed, read.files) {
      let (bytes, sha, schema) = try result.get()
      let name = stamped.names[file.index]
      let path = target / name
      outcomes[file.index] = .copied(stamp: file.stamp, sha: sha, size: bytes.count, schema: schema)
      if let line = stamped.previous[file.index], line.sha.elementsEqual(sha), baseFD >= 0,
        POSIX.linkat(baseFD, name, targetFD, path: path) == 0
      {
        continue
      }
      try Snapshots.writePlainly(bytes, to: path, mode: 0o444, in: targetDirectory)
      wrote.append(path)
    }
    return (try Self.every(outcomes), wrote)
  }

  /// The outcomes, each file having one.
  private static func every(_ outcomes: [Outcome?]) throws(StoreError) -> [Outcome] {
    let all = outcomes.compactMap { $0 }
    guard all.count == outcomes.count else { throw StoreError.internalError("a snapshot left a file undecided") }
    return all
  }
}
