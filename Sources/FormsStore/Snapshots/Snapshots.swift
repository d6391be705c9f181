import FormsCore
import Foundation
import Synchronization

/// The snapshots of a store (docs/design.md §10): plain, read-only, timestamped directories under
/// `.formsctl/snapshots/`, each with `data/`, `schemas/` (when inside the store), `formsctl.yaml`
/// and `manifest.json`; files unchanged since the previous snapshot are hard links to its copies.
public struct Snapshots: Sendable {
  public let layout: StoreLayout
  /// The current time; injected so tests are reproducible.
  public var now: @Sendable () -> Date = { Date() }
  /// Hears how far `create`, `verify` and `prune` are; nil: silent.
  public var progress: ProgressHandler?
  /// The snapshot this value (or a copy of it) took last: the retention policy applied right
  /// after it never removes it, whatever the clock says (a clock set back dates it before the
  /// newest).
  let taken = Taken()

  /// The name of the snapshot taken last, shared by the copies of a `Snapshots`.
  final class Taken: Sendable {
    private let name = Mutex<String?>(nil)
    func set(_ name: String) { self.name.withLock { $0 = name } }
    var last: String? { name.withLock { $0 } }
  }

  public init(layout: StoreLayout) { self.layout = layout }

  var directory: FilePath { layout.snapshotsDirectory }
  var cachePath: FilePath { directory / ".hash-cache" }

  /// A snapshot on disk. Its manifest is read on first use (listing needs only names and times).
  public struct Info: Sendable {
    public let name: String
    /// Its directory.
    package let directory: FilePath
    /// Its directory, as text.
    public var path: String { directory.string }
    /// When it was taken (from the name), seconds since 1970.
    public let time: Int64
    private let loaded = Memo<Result<SnapshotManifest?, StoreError>>()
    /// The summary, read once (see `SnapshotSummary`).
    let summarized = Memo<SnapshotSummary?>()

    init(name: String, directory: FilePath) {
      self.name = name
      self.directory = directory
      self.time = Instant(Snapshots.timeText(fromName: name))?.seconds ?? 0
    }

    /// The manifest (read once): nil when it is missing or does not parse, so the snapshot cannot
    /// be used; an error when it cannot be read. What acts on a snapshot (resolve, restore,
    /// verify) asks this.
    public func loadManifest() throws(StoreError) -> SnapshotManifest? {
      let path = directory / "manifest.json"
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
    let names = try FileIO.entries(of: directory).filter { !$0.name.hasPrefix(".") && $0.kind == .directory }
      .map(
        \.name)
    // By time, then by when the manifest was written (two snapshots can share a second).
    let infos = names.map { info($0) }
    let written = infos.map { FileStamp($0.directory / "manifest.json")?.mtimeNanoseconds ?? 0 }
    return infos.indices.sorted { a, b in
      if infos[a].time != infos[b].time { return infos[a].time < infos[b].time }
      return written[a] != written[b] ? written[a] < written[b] : infos[a].name < infos[b].name
    }.map { infos[$0] }
  }

  func info(_ name: String) -> Info { Info(name: name, directory: directory / name) }

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
      return try FileIO.files(under: FilePath(directory), suffix: "").map {
        (prefix + String(decoding: $0.utf8.dropFirst(skip), as: UTF8.self), $0)
      }
    }
    var files =
      try layout.hasAttachments ? under(layout.attachmentsDirectory, as: "attachments/") : []
    files += try under(layout.dataDirectory, as: "data/")
    if layout.schemasInsideRoot {
      files += try under(layout.schemasDirectory, as: "schemas/")
    }
    files.append((StoreLayout.manifestName, StoreLayout.manifestPath(root: layout.root).string))
    return files
  }

  /// `snapshot create`: a whole-store snapshot taken by a person, under the store's write lock
  /// (waiting up to `wait` seconds for another writer), then the retention policy applied (see
  /// `autoPrune`); the snapshots it removed, newest first.
  /// With `keep`, the snapshot is marked to keep (see `setKept`) as it is put in place.
  public func createManual(message: String?, label: String?, keep: Bool = false, wait: Double) throws(StoreError) -> (
    snapshot: Info, pruned: [String]
  ) {
    try layout.withWriteLock("snapshot create", wait: wait) { () throws(StoreError) in
      (try create(reason: "manual", message: message, label: label, keep: keep), try autoPrune())
    }
  }

  /// Takes a snapshot. The caller holds the store lock, so no write lands half-way through it.
  ///
  /// With `only` (live document paths), a partial snapshot: it holds the present version of just
  /// those documents, and its manifest's `covers` names them all, so the ones that do not exist
  /// yet are recorded as absent. An operation that is about to change those documents (`import`)
  /// takes one, at a cost in proportion to what it changes; restoring it brings those documents
  /// back to this state (absent ones are removed) and leaves every other file alone.
  package func create(
    reason: String, message: String? = nil, label: String? = nil, only documents: [String]? = nil, keep: Bool = false
  )
    throws(StoreError) -> Info
  {
    if let label, !DocumentID.isValid(label) {
      throw StoreError.refused(.badLabel(label))
    }
    // Only live document paths, as the store spells them: a `..` or a path outside data/ would
    // copy a file from elsewhere into the snapshot, and a restore would bring it into the store.
    for path in documents ?? [] where FilePath(path).normalized.string != path || layout.identify(path) == nil {
      throw StoreError.internalError("a partial snapshot names \(path), which is not a document path of the store")
    }
    try FileIO.makeDirectories(directory)
    try removeStaleTemporaries()
    let date = now()
    let time = Instant(date).rfc3339
    var name = time.replacingOccurrences(of: ":", with: "-") + (label.map { "-" + $0 } ?? "")
    var suffix = 1
    while FileIO.exists(directory / name) {
      suffix += 1
      name = time.replacingOccurrences(of: ":", with: "-") + (label.map { "-" + $0 } ?? "") + "-\(suffix)"
    }
    let temporary = directory / ".creating-\(name)-\(getpid())"
    let newCache = directory / ".hash-cache.\(getpid()).0.tmp"
    let manifestPath = temporary / "manifest.json"
    let summary: SnapshotSummary
    // What must be made durable: the snapshot's directories and new files (nil: too many to
    // fsync one by one, so its whole file system is synced).
    var written: [FilePath]?
    do throws(StoreError) {
      try FileIO.makeDirectories(temporary)
      if let documents {
        var paths = try Set(documents.map { path throws(StoreError) in try relativeDocumentPath(path) })
        // A document's attachment files are part of it: the snapshot holds them too.
        for document in documents { paths.formUnion(try attachmentFiles(ofDocument: document)) }
        let covers = paths.sorted()
        let manifest = SnapshotManifest(
          name: name, time: time, reason: reason, message: message, label: label,
          files: try copy(covers.map { ($0, layout.livePath($0)) }, into: temporary), covers: covers)
        try Self.writePlainly(manifest.serialized(), to: manifestPath, mode: 0o444)
        summary = SnapshotSummary(manifest)
        let tree = try FileIO.tree(temporary)
        written = tree.count > Self.fewWrites ? nil : tree
      } else {
        // The entries go to a hidden file as they are made; the manifest, whose counts come
        // before them, is put together from it once every file is in.
        let entries = temporary / ".entries"
        let streamed = try streamStore(
          into: temporary, entries: entries, cache: newCache, name: name,
          at: Int64(date.timeIntervalSince1970 * 1_000_000_000))
        let head = SnapshotManifest.head(
          name: name, time: time, reason: reason, message: message, label: label, counts: streamed.counts)
        try Self.writeManifest(head, entries: entries, empty: streamed.files == 0, to: manifestPath)
        try FileIO.remove(entries)
        summary = SnapshotSummary(
          time: time, reason: reason, message: message, label: label, files: streamed.files, scope: "whole store")
        // The new hash cache is renamed into place after the snapshot: it is made durable with it.
        written = streamed.written.map { [manifestPath, newCache] + $0 }
      }
      // Written plainly, then made durable at once: each new file and directory fsynced when
      // there are few (a link is durable with its directory), else one syncfs for all (where there
      // is no syncfs, each file and directory of the snapshot is fsynced).
      let summaryPath = temporary / SnapshotSummary.fileName
      try Self.writePlainly(Array(JSONWriter.canonical(summary.json)), to: summaryPath, mode: 0o444)
      // The keep mark arrives with the snapshot: there is no instant it exists unmarked.
      let keepPath = temporary / Self.keepFileName
      if keep { try Self.writePlainly(keepMark(), to: keepPath) }
      if let written {
        try FileIO.sync(written + [summaryPath] + (keep ? [keepPath] : []))
      } else {
        try FileIO.sync(try FileIO.tree(temporary), orFileSystemOf: temporary)
      }
      DebugPause.at("snapshot-before-rename")
      if POSIX.rename(temporary, directory / name) != 0 {
        throw StoreError.io(temporary.string, operation: "rename", errno: Errno(errno))
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
    // it; it is only a cache (docs/design.md §13): when it cannot be put in place, the next create
    // rebuilds it from the manifest, and its temporary is a leftover `recover` removes.
    if documents == nil, POSIX.rename(newCache, cachePath) != 0 {
      _ = POSIX.unlink(newCache)
    }
    try AtomicWriter.syncDirectory(directory)
    taken.set(name)
    return info(name)
  }

  /// Writes a manifest with `head` whose entries are in the file `entries` (as `streamStore`
  /// wrote them), copied a megabyte at a time.
  static func writeManifest(_ head: JSONObject, entries: FilePath, empty: Bool, to path: FilePath) throws(StoreError) {
    let (before, after) = SnapshotManifest.frame(head)
    let out = try BufferedFile(creating: path, mode: 0o444)
    out.append(before + SnapshotManifest.openFiles(empty: empty))
    let fd = POSIX.open(entries, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw StoreError.io(entries.string, operation: "open", errno: Errno(errno)) }
    defer { close(fd) }
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    while true {
      let n = chunk.withUnsafeMutableBytes { POSIX.read(fd, $0.baseAddress, $0.count, path: entries) }
      if n < 0 {
        if errno == EINTR { continue }
        throw StoreError.io(entries.string, operation: "read", errno: Errno(errno))
      }
      if n == 0 { break }
      out.append(Array(chunk[0..<n]))
      try out.flush()
    }
    out.append(SnapshotManifest.closeFiles(empty: empty) + after)
    try out.close()
  }

  /// Creates `path` (it must not exist) holding `bytes`, without a sync of its own; relative to
  /// `directory` when it is below it (one name looked up, not the whole path).
  static func writePlainly(
    _ bytes: [UInt8], to path: FilePath, mode: mode_t = 0o644, in directory: FileIO.Directory? = nil
  )
    throws(StoreError)
  {
    let flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC
    let fd = directory?.open(path, flags, mode) ?? POSIX.open(path, flags, mode)
    guard fd >= 0 else { throw StoreError.io(path.string, operation: "create", errno: Errno(errno)) }
    defer { close(fd) }
    try writeAll(fd, bytes, path: path)
  }

  /// The files of the attachment folder of the live document at `path`, as a snapshot names them
  /// (`attachments/<directory>/<id>/<name>`).
  func attachmentFiles(ofDocument path: String) throws(StoreError) -> [String] {
    let file = FilePath(path)
    guard let id = StoreLayout.id(fromFile: path), DocumentID.isValid(id) else { return [] }
    let directory = file.parent.name
    let folder = try layout.checkedAttachmentFolder(directory: directory, id: id)
    return try FileIO.entries(of: folder).filter { $0.kind == .file }.map {
      "attachments/\(directory)/\(id)/\($0.name)"
    }
  }

  /// `data/...` for a live document path; anything else is not a document a partial snapshot takes.
  func relativeDocumentPath(_ live: String) throws(StoreError) -> String {
    guard let path = layout.snapshotPath(live), path != "data" else {
      throw StoreError.refused(.notADocument(path: live))
    }
    return path
  }

  /// Reads, hashes and copies `files` into `temporary` (a partial snapshot's documents); a file
  /// that does not exist is left out. Reading and hashing run on every core, creating the copies
  /// from one thread, in batches.
  func copy(_ files: [(relative: String, live: String)], into temporary: FilePath) throws(StoreError)
    -> [SnapshotManifest.Entry]
  {
    for made in Set(files.map { (temporary / $0.relative).parent }) {
      try FileIO.makeDirectories(made)
    }
    try Storage.require(
      Storage.allocated(of: files.map { FilePath($0.live) }, at: layout.root), at: directory.string,
      for: "the snapshot (\(plural(files.count, "changed file")))")
    let copying = ProgressCounter("copying", total: files.count, progress)
    var entries: [SnapshotManifest.Entry] = []
    for start in stride(from: 0, to: files.count, by: 1024) {
      let batch = Array(files[start..<min(files.count, start + 1024)])
      let read = parallelMap(batch, chunkSize: 16, progress: copying) {
        file -> Result<(bytes: [UInt8], sha: String, schema: String?)?, StoreError> in
        Result { () throws(StoreError) in
          guard FileIO.exists(FilePath(file.live)) else { return nil }
          let bytes = try FileIO.read(FilePath(file.live), limit: Int.max)
          return (bytes, sha256Hex(bytes), Self.schema(of: bytes, at: file.relative))
        }
      }
      for (file, result) in zip(batch, read) {
        guard let (bytes, sha, schema) = try result.get() else { continue }
        try Self.writePlainly(bytes, to: temporary / file.relative, mode: 0o444)
        entries.append(SnapshotManifest.Entry(path: file.relative, size: bytes.count, sha256: sha, schema: schema))
      }
    }
    return entries
  }

  /// A document's `_schema`, for a manifest's counts (nil for a file outside `data/`): read by
  /// building only that member (the whole parse only where the two could differ).
  static func schema(of bytes: [UInt8], at relative: String) -> String? {
    guard relative.hasPrefix("data/") else { return nil }
    let document = schemaOnly.flatMap { JSONParser().parse(bytes, keeping: $0) } ?? (try? JSONParser().parse(bytes))
    return document?["_schema"]?.stringValue
  }

  private static let schemaOnly = JSONProjection(paths: [FilterExpression.Path(steps: [.member("_schema")])])

  /// What the next snapshot will copy at most, for a check of free space before work that takes
  /// one: every live file when there is no snapshot yet (after that, unchanged files are links,
  /// and `create` checks exactly what it copies).
  func firstSnapshotCost() throws(StoreError) -> Int64 {
    try list().isEmpty ? try storeSize() : 0
  }

  /// Removes what an interrupted create or delete left (the caller holds the lock, so none is in progress);
  /// returns how many.
  @discardableResult
  func removeStaleTemporaries() throws(StoreError) -> Int {
    var removed = 0
    for entry in try FileIO.entries(of: directory) {
      if entry.name.hasPrefix(".creating-") || entry.name.hasPrefix(".deleting-") || entry.name.hasPrefix(".pulling-")
        || entry.name.hasPrefix(".verifying-") || entry.name.hasPrefix(".marking-")
      {
        try Self.removeTree(directory / entry.name)
        removed += 1
      } else if AtomicWriter.isTemporaryName(entry.name) {
        try FileIO.remove(directory / entry.name)  // a hash cache never put in place
      } else if entry.kind == .directory && !entry.name.hasPrefix(".") {
        // A keep mark never put in place (`setKept`), beside the snapshot's own files.
        for inside in try FileIO.entries(of: directory / entry.name)
        where inside.kind == .file && AtomicWriter.isTemporaryName(inside.name) {
          try FileIO.remove(directory / entry.name / inside.name)
        }
      }
    }
    return removed
  }

  /// Deletes a directory tree (snapshot files are read-only, but their directories are not); a
  /// missing one is not an error.
  static func removeTree(_ path: FilePath) throws(StoreError) {
    guard FileIO.entry(path) == .directory else {
      try FileIO.remove(path)
      return
    }
    for entry in try FileIO.entries(of: path) { try removeTree(path / entry.name) }
    if POSIX.rmdir(path) != 0 && errno != ENOENT {
      throw StoreError.io(path.string, operation: "rmdir", errno: Errno(errno))
    }
  }
}
