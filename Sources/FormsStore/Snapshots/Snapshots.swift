import FormsCore
import Foundation

/// The snapshots of a store (DESIGN §10): plain, read-only, timestamped directories under
/// `.formsctl/snapshots/`, each with `data/`, `schemas/` (when inside the store), `formsctl.yaml`
/// and `manifest.json`; files unchanged since the previous snapshot are hard links to its copies.
public struct Snapshots: Sendable {
  public let layout: StoreLayout
  /// The current time; injected so tests are reproducible.
  public var now: @Sendable () -> Date = { Date() }
  /// Hears how far `create`, `verify` and `prune` are; nil: silent.
  public var progress: ProgressHandler?

  public init(layout: StoreLayout) { self.layout = layout }

  var directory: String { layout.snapshotsDirectory }
  var cachePath: String { (FilePath(directory) / ".hash-cache").string }

  /// A snapshot on disk. Its manifest is read on first use (listing needs only names and times).
  public struct Info: Sendable {
    public let name: String
    public let path: String
    /// When it was taken (from the name), seconds since 1970.
    public let time: Int64
    private let loaded = Memo<Result<SnapshotManifest?, StoreError>>()
    /// The summary, read once (see `SnapshotSummary`).
    let summarized = Memo<SnapshotSummary?>()

    init(name: String, path: String) {
      self.name = name
      self.path = path
      self.time = Instant(Snapshots.timeText(fromName: name))?.seconds ?? 0
    }

    /// The manifest (read once): nil when it is missing or does not parse, so the snapshot cannot
    /// be used; an error when it cannot be read. What acts on a snapshot (resolve, restore,
    /// verify) asks this.
    public func loadManifest() throws(StoreError) -> SnapshotManifest? {
      let path = (FilePath(self.path) / "manifest.json").string
      return try loaded.value {
        Result { () throws(StoreError) -> SnapshotManifest? in
          guard FileIO.entry(path) != .missing else { return nil }
          let bytes = try FileIO.read(path)
          return (try? JSONParser().parse(bytes)).flatMap(SnapshotManifest.init(json:))
        }
      }.get()
    }

    /// `loadManifest()` for what only shows or ranks snapshots (listings, labels, the base a new
    /// snapshot links to, which is only a saving): nil also when it cannot be read, and the
    /// snapshot is shown as having no manifest.
    public var manifest: SnapshotManifest? { (try? loadManifest()) ?? nil }
  }

  /// Every snapshot, oldest first. Names starting with `.` (a create in progress) are not snapshots.
  public func list() throws(StoreError) -> [Info] {
    let names = try FileIO.entries(of: directory).filter { !$0.name.hasPrefix(".") && $0.kind == .directory }.map(
      \.name)
    // By time, then by when the manifest was written (two snapshots can share a second).
    let infos = names.map { info($0) }
    let written = infos.map { FileStamp((FilePath($0.path) / "manifest.json").string)?.mtimeNanoseconds ?? 0 }
    return infos.indices.sorted { a, b in
      if infos[a].time != infos[b].time { return infos[a].time < infos[b].time }
      return written[a] != written[b] ? written[a] < written[b] : infos[a].name < infos[b].name
    }.map { infos[$0] }
  }

  func info(_ name: String) -> Info { Info(name: name, path: (FilePath(directory) / name).string) }

  /// A snapshot by reference: its id, a unique prefix of it, its label (the newest with that
  /// label), `latest` (the newest not taken by a restore: a restore's own safety copy would
  /// otherwise become `latest` and make the next `restore latest` a no-op) or `latest~N` (N
  /// before that, counting the same way).
  public func find(_ reference: String) throws(StoreError) -> Info {
    try resolve(reference).info
  }

  /// `find`, with a note for people when the reference was ambiguous but resolved (a label that
  /// two snapshots carry: the newest wins).
  public func resolve(_ reference: String) throws(StoreError) -> (info: Info, note: String?) {
    let all = try list()
    let (found, note) = try pick(reference, among: all)
    guard let manifest = try found.loadManifest() else {
      throw StoreError.refused(.snapshotWithoutManifest(name: found.name))
    }
    if let unsafe = (manifest.files.map(\.path) + (manifest.covers ?? [])).first(where: {
      !SnapshotManifest.Entry.isSafe($0)
    }) {
      throw StoreError.refused(.snapshotUnsafePath(name: found.name, path: unsafe, partial: false))
    }
    return (found, note)
  }

  private func pick(_ reference: String, among all: [Info]) throws(StoreError) -> (Info, String?) {
    let newestFirst = Array(all.reversed())
    let newest = newestFirst.prefix(5).map { info in info.summary?.label.map { "\(info.name) (\($0))" } ?? info.name }
    if reference == "latest" || reference.hasPrefix("latest~") {
      guard let back = reference == "latest" ? 0 : Int(reference.dropFirst("latest~".count)), back >= 0 else {
        throw StoreError.refused(.badSnapshotReference(reference))
      }
      let candidates = newestFirst.filter { $0.manifest?.reason != "pre-restore" }
      guard back < candidates.count else {
        throw StoreError.refused(
          .notThatManySnapshots(reference: reference, available: candidates.count, newest: newest))
      }
      return (candidates[back], nil)
    }
    if let exact = all.first(where: { $0.name == reference }) { return (exact, nil) }
    let labelled = newestFirst.filter { $0.summary?.label == reference }
    if let newest = labelled.first {
      let note =
        labelled.count > 1
        ? "\(labelled.count) snapshots carry the label \"\(reference)\"; using the newest, \(newest.name)" : nil
      return (newest, note)
    }
    let prefixed = newestFirst.filter { $0.name.hasPrefix(reference) }
    if prefixed.count == 1, reference.count >= 4 { return (prefixed[0], nil) }
    if prefixed.count > 1 {
      throw StoreError.ambiguousID(kind: "snapshot", prefix: reference, candidates: prefixed.map(\.name))
    }
    throw StoreError.refused(.noSuchSnapshot(reference: reference, newest: newest))
  }

  /// `2026-11-22T03-48-14Z` → `2026-11-22T03:48:14Z`.
  static func timeText(fromName name: String) -> String {
    let stamp = String(name.prefix(20))
    guard stamp.count == 20 else { return "" }
    var chars = Array(stamp)
    chars[13] = ":"
    chars[16] = ":"
    return String(chars)
  }

  /// The live files a snapshot holds, as (path inside the snapshot, live path).
  func liveFiles() throws(StoreError) -> [(relative: String, live: String)] {
    func under(_ directory: String, as prefix: String) throws(StoreError) -> [(String, String)] {
      let skip = directory.utf8.count + 1
      return try FileIO.files(under: directory, suffix: "").map {
        (prefix + String(decoding: $0.utf8.dropFirst(skip), as: UTF8.self), $0)
      }
    }
    var files = try under(layout.dataDirectory, as: "data/")
    if layout.schemasInsideRoot {
      files += try under(layout.schemasDirectory, as: "schemas/")
    }
    files.append((StoreLayout.manifestName, StoreLayout.manifestPath(root: layout.root)))
    return files
  }

  /// `snapshot create`: a whole-store snapshot taken by a person, under the store's write lock
  /// (waiting up to `wait` seconds for another writer), then the retention policy applied (see
  /// `autoPrune`); the snapshots it removed, newest first.
  public func createManual(message: String?, label: String?, wait: Double) throws(StoreError) -> (
    manifest: SnapshotManifest, pruned: [String]
  ) {
    try layout.withWriteLock("snapshot create", wait: wait) { () throws(StoreError) in
      (try create(reason: "manual", message: message, label: label), try autoPrune())
    }
  }

  /// Takes a snapshot. The caller holds the store lock, so no write lands half-way through it.
  ///
  /// With `only` (live document paths), a partial snapshot: it holds the present version of just
  /// those documents, and its manifest's `covers` names them all, so the ones that do not exist
  /// yet are recorded as absent. An operation that is about to change those documents (`import`)
  /// takes one, at a cost in proportion to what it changes; restoring it brings those documents
  /// back to this state (absent ones are removed) and leaves every other file alone.
  public func create(reason: String, message: String? = nil, label: String? = nil, only documents: [String]? = nil)
    throws(StoreError) -> SnapshotManifest
  {
    if let label, !DocumentID.isValid(label) {
      throw StoreError.refused(.badLabel(label))
    }
    try FileIO.makeDirectories(directory)
    try removeStaleTemporaries()
    let date = now()
    let time = Instant(date).rfc3339
    var name = time.replacingOccurrences(of: ":", with: "-") + (label.map { "-" + $0 } ?? "")
    var suffix = 1
    while FileIO.exists((FilePath(directory) / name).string) {
      suffix += 1
      name = time.replacingOccurrences(of: ":", with: "-") + (label.map { "-" + $0 } ?? "") + "-\(suffix)"
    }
    let temporary = (FilePath(directory) / ".creating-\(name)-\(getpid())").string
    let newCache = (FilePath(directory) / ".hash-cache.\(getpid()).0.tmp").string
    let manifest: SnapshotManifest
    do throws(StoreError) {
      let bytes: [UInt8]
      if let documents {
        let covers = try Set(documents.map { path throws(StoreError) in try relativeDocumentPath(path) }).sorted()
        manifest = SnapshotManifest(
          name: name, time: time, reason: reason, message: message, label: label,
          files: try copy(covers.map { ($0, layout.livePath($0)) }, into: temporary), covers: covers)
        bytes = manifest.serialized()
      } else {
        let made = try copyStore(
          into: temporary, cacheNamed: name, at: Int64(date.timeIntervalSince1970 * 1_000_000_000)
        ) {
          SnapshotManifest(name: name, time: time, reason: reason, message: message, label: label, files: $0)
        }
        (manifest, bytes) = (made.manifest, made.bytes)
        try Self.writePlainly(made.cache, to: newCache)
      }
      // Written plainly: one syncfs makes the manifest, every copy and every link durable at once
      // (where there is no syncfs, each file and directory of the snapshot is fsynced).
      try Self.writePlainly(bytes, to: (FilePath(temporary) / "manifest.json").string, mode: 0o444)
      try Self.writePlainly(
        Array(JSONWriter.canonical(SnapshotSummary(manifest).json)),
        to: (FilePath(temporary) / SnapshotSummary.fileName).string,
        mode: 0o444)
      let tree = try FileIO.tree(temporary)
      try FileIO.sync(tree, orFileSystemOf: temporary)
      DebugPause.at("snapshot-before-rename")
      if POSIX.rename(temporary, (FilePath(directory) / name).string) != 0 {
        throw StoreError.io(temporary, operation: "rename", errno: Errno(errno))
      }
    } catch {
      // Nothing is a snapshot yet; what cannot be removed now is an unfinished snapshot, which
      // the next create or `recover` removes (under the lock).
      do throws(StoreError) {
        try Self.removeTree(temporary)
        try FileIO.remove(newCache)
      } catch let cleanup {
        throw StoreError.rollBackFailed(operation: "snapshot", cause: error.description, failure: cleanup.description)
      }
      throw error
    }
    // The snapshot is there. The cache names the snapshot it describes, so it goes in place after
    // it; it is only a cache (DESIGN §13): when it cannot be put in place, the next create
    // rebuilds it from the manifest, and its temporary is a leftover `recover` removes.
    if documents == nil, POSIX.rename(newCache, cachePath) != 0 { _ = POSIX.unlink(newCache) }
    try AtomicWriter.syncDirectory(directory)
    return manifest
  }

  /// Creates `path` (it must not exist) holding `bytes`, without a sync of its own.
  static func writePlainly(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644) throws(StoreError) {
    let fd = POSIX.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
    guard fd >= 0 else { throw StoreError.io(path, operation: "create", errno: Errno(errno)) }
    defer { close(fd) }
    try writeAll(fd, bytes, path: path)
  }

  /// `data/...` for a live document path; anything else is not a document a partial snapshot takes.
  func relativeDocumentPath(_ live: String) throws(StoreError) -> String {
    guard let path = layout.snapshotPath(live), path != "data" else {
      throw StoreError.refused(.notADocument(path: live))
    }
    return path
  }

  /// A whole-store snapshot being made: its manifest, the manifest's bytes, the new hash cache's bytes.
  struct StoreCopy {
    var manifest: SnapshotManifest
    var bytes: [UInt8]
    var cache: [UInt8]
  }

  /// The copies of a whole-store snapshot in `temporary`, its manifest (`describe` makes it from
  /// the entries) and the hash cache that describes it. A file whose stamp matches the cache
  /// costs one `linkat` to the previous snapshot's copy (no read, no hash, no sync of its own):
  /// every core stats the files in chunks of 1,024, then links them in chunks (`parallelChunks`:
  /// no state is shared but through its lock). The rest are read, hashed and copied (or linked
  /// when their content turns out unchanged).
  func copyStore(
    into temporary: String, cacheNamed name: String, at now: Int64,
    describe: ([SnapshotManifest.Entry]) -> SnapshotManifest
  )
    throws(StoreError) -> StoreCopy
  {
    let (listed, loaded) = concurrently(
      { Result { () throws(StoreError) in try liveFiles() } }, { HashCache.load(cachePath) })
    let files = try listed.get()
    var cache = loaded
    let basePath = (FilePath(directory) / cache.snapshot).string
    if cache.snapshot.isEmpty || !FileIO.exists((FilePath(basePath) / "manifest.json").string) {
      // No cache for a snapshot that is there: the newest whole snapshot's manifest says what
      // each file held; every file is read and hashed, and linked where it is the same.
      cache = HashCache()
      if let base = try list().last(where: { $0.manifest.map { $0.covers == nil } ?? false }),
        let manifest = base.manifest
      {
        cache.snapshot = base.name
        for entry in manifest.files {
          cache.entries[entry.path] = (FileStamp(size: -1, mtimeNanoseconds: 0, ctimeNanoseconds: 0, inode: 0), entry)
        }
      }
    }
    let base = cache.snapshot.isEmpty ? nil : (FilePath(directory) / cache.snapshot).string
    for parent in Set(files.map { FilePath($0.relative).parent.string }) {
      try FileIO.makeDirectories((FilePath(temporary) / parent).string)
    }

    // Each file's stat, and its entry when the cache vouches that it is unchanged (then it is a
    // link to the base's copy); a chunk stats its files relative to their open directory.
    let trusted = cache
    let decided = parallelChunks(count: files.count, chunkSize: 1024) {
      range -> [(stamp: FileStamp?, kept: SnapshotManifest.Entry?)] in
      var directory: FileIO.Directory?
      return range.map { index in
        let live = files[index].live
        if !(directory?.contains(live) ?? false) { directory = FileIO.Directory(FilePath(live).parent.string) }
        let stamp = FileStamp(live, in: directory)
        return (stamp, stamp.flatMap { trusted.unchanged(files[index].relative, stamp: $0) })
      }
    }
    let stamps = decided.map(\.stamp)
    let kept = decided.map(\.kept)
    // The links, a chunk of one directory's files at a time; a link that fails is a copy instead.
    let linking = ProgressCounter("linking", total: files.count, progress)
    let unlinked = parallelChunks(count: files.count, chunkSize: 1024) { range -> [Bool] in
      var linker = Linker()
      defer {
        linker.finish()
        linking?.add(range.count)
      }
      return range.map { index in
        guard let base, let entry = kept[index] else { return false }
        return !linker.link(entry.path, from: base, to: temporary)
      }
    }
    func finish(_ entries: [SnapshotManifest.Entry]) throws(StoreError) -> StoreCopy {
      let manifest = describe(entries)
      var rows: [(String, FileStamp, SnapshotManifest.Entry)] = []
      rows.reserveCapacity(files.count)
      for index in files.indices {
        // A file gone since the walk was not snapshotted: the caller's write lock makes this a bug.
        guard let stamp = stamps[index] else { throw StoreError.fileNotFound(files[index].live) }
        rows.append((files[index].relative, stamp, entries[index]))
      }
      return StoreCopy(
        manifest: manifest, bytes: manifest.serialized(), cache: HashCache.serialize(rows, snapshot: name, now: now))
    }
    // Every file unchanged and linked: the common case.
    let allKept = kept.compactMap { $0 }
    if !unlinked.contains(true), allKept.count == files.count { return try finish(allKept) }

    var entries = Array(repeating: SnapshotManifest.Entry(path: "", size: 0, sha256: ""), count: files.count)
    var toCopy: [Int] = []
    for index in files.indices {
      if let entry = kept[index], !unlinked[index] { entries[index] = entry } else { toCopy.append(index) }
    }
    let copied = try copy(toCopy.map { files[$0] }, into: temporary, previous: trusted, base: base)
    guard copied.count == toCopy.count else {
      throw StoreError.fileNotFound(toCopy.map { files[$0].live }.first { !FileIO.exists($0) } ?? temporary)
    }
    for (index, entry) in zip(toCopy, copied) { entries[index] = entry }
    return try finish(entries)
  }

  /// Reads, hashes and copies `files` into `temporary` (a link to `base`'s copy when `previous`
  /// says its content is the same); a file that does not exist is left out. Reading and hashing
  /// run on every core, creating the copies from one thread, in batches.
  func copy(
    _ files: [(relative: String, live: String)], into temporary: String, previous: HashCache = HashCache(),
    base: String? = nil
  )
    throws(StoreError) -> [SnapshotManifest.Entry]
  {
    for made in Set(files.map { (FilePath(temporary) / $0.relative).parent.string }) {
      try FileIO.makeDirectories(made)
    }
    try Storage.require(
      Storage.size(of: files.map(\.live)), at: directory,
      for: "the snapshot (\(plural(files.count, "changed file")))")
    let copying = ProgressCounter("copying", total: files.count, progress)
    var entries: [SnapshotManifest.Entry] = []
    for start in stride(from: 0, to: files.count, by: 1024) {
      let batch = Array(files[start..<min(files.count, start + 1024)])
      let read = parallelMap(batch, chunkSize: 16, progress: copying) {
        file -> Result<(bytes: [UInt8], sha: String)?, StoreError> in
        Result { () throws(StoreError) in
          guard FileIO.exists(file.live) else { return nil }
          let bytes = try FileIO.read(file.live, limit: Int.max)
          return (bytes, sha256Hex(bytes))
        }
      }
      for (file, result) in zip(batch, read) {
        guard let (bytes, sha) = try result.get() else { continue }
        entries.append(
          try Self.store(
            bytes, sha: sha, file: file, into: temporary, previous: previous.entries[file.relative]?.entry, base: base))
      }
    }
    return entries
  }

  /// What the next snapshot will copy at most, for a check of free space before work that takes
  /// one: every live file when there is no snapshot yet (after that, unchanged files are links,
  /// and `create` checks exactly what it copies).
  func firstSnapshotCost() throws(StoreError) -> Int64 {
    try list().isEmpty ? Storage.size(of: try liveFiles().map(\.live)) : 0
  }

  /// Puts one changed file into the snapshot being built: a link to the previous copy when its
  /// content turns out unchanged after all, else a new read-only copy.
  static func store(
    _ bytes: [UInt8], sha: String, file: (relative: String, live: String), into temporary: String,
    previous: SnapshotManifest.Entry?, base: String?
  ) throws(StoreError) -> SnapshotManifest.Entry {
    let target = (FilePath(temporary) / file.relative).string
    // A link that fails (a full directory, a link limit) is a copy instead.
    if let previous, let base, previous.sha256 == sha, POSIX.link((FilePath(base) / file.relative).string, target) == 0
    {
      return previous
    }
    try writePlainly(bytes, to: target, mode: 0o444)
    let schema = file.relative.hasPrefix("data/") ? (try? JSONParser().parse(bytes))?["_schema"]?.stringValue : nil
    return SnapshotManifest.Entry(path: file.relative, size: bytes.count, sha256: sha, schema: schema)
  }

  /// Hard links files of one snapshot into another with `linkat` on open directories, so each
  /// link resolves one name rather than a whole path.
  struct Linker {
    var directory = ""
    var from: Int32 = -1
    var to: Int32 = -1

    mutating func link(_ relative: String, from base: String, to temporary: String) -> Bool {
      let parent = FilePath(relative).parent.string
      if parent != directory {
        finish()
        directory = parent
        from = POSIX.open((FilePath(base) / parent).string, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        to = POSIX.open((FilePath(temporary) / parent).string, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
      }
      guard from >= 0, to >= 0 else { return false }
      return POSIX.linkat(from, FilePath(relative).name, to, path: (FilePath(temporary) / relative).string) == 0
    }

    mutating func finish() {
      if from >= 0 { close(from) }
      if to >= 0 { close(to) }
      (from, to) = (-1, -1)
    }
  }

  /// Removes what an interrupted create or delete left (the caller holds the lock, so none is in progress);
  /// returns how many.
  @discardableResult
  func removeStaleTemporaries() throws(StoreError) -> Int {
    var removed = 0
    for entry in try FileIO.entries(of: directory) {
      if entry.name.hasPrefix(".creating-") || entry.name.hasPrefix(".deleting-") || entry.name.hasPrefix(".pulling-") {
        try Self.removeTree((FilePath(directory) / entry.name).string)
        removed += 1
      } else if AtomicWriter.isTemporaryName(entry.name) {
        try FileIO.remove((FilePath(directory) / entry.name).string)  // a hash cache never put in place
      }
    }
    return removed
  }

  /// Deletes a directory tree (snapshot files are read-only, but their directories are not); a
  /// missing one is not an error.
  static func removeTree(_ path: String) throws(StoreError) {
    guard FileIO.entry(path) == .directory else {
      try FileIO.remove(path)
      return
    }
    for entry in try FileIO.entries(of: path) { try removeTree((FilePath(path) / entry.name).string) }
    if POSIX.rmdir(path) != 0 && errno != ENOENT { throw StoreError.io(path, operation: "rmdir", errno: Errno(errno)) }
  }
}
