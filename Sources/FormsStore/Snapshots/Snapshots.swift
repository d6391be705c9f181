import FormsCore
import Foundation

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

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

  var directory: String { layout.stateDirectory + "/snapshots" }
  var cachePath: String { directory + "/.hash-cache" }

  /// A snapshot on disk. Its manifest is read on first use (listing needs only names and times).
  public struct Info: Sendable {
    public let name: String
    public let path: String
    /// When it was taken (from the name), seconds since 1970.
    public let time: Int64
    private let box: ManifestBox

    init(name: String, path: String) {
      self.name = name
      self.path = path
      self.time = Instant(Snapshots.timeText(fromName: name))?.seconds ?? 0
      self.box = ManifestBox(path: path + "/manifest.json")
    }

    /// The manifest, or nil when it is missing or unreadable.
    public var manifest: SnapshotManifest? { box.value }
  }

  final class ManifestBox: @unchecked Sendable {
    let path: String
    lazy var value: SnapshotManifest? = (try? FileIO.read(path)).flatMap { try? JSONParser().parse($0) }
      .flatMap(SnapshotManifest.init(json:))
    init(path: String) { self.path = path }
  }

  /// Every snapshot, oldest first. Names starting with `.` (a create in progress) are not snapshots.
  public func list() -> [Info] {
    let names = FileIO.entries(of: directory).filter { !$0.name.hasPrefix(".") && $0.kind == .directory }.map(\.name)
    // By time, then by when the manifest was written (two snapshots can share a second).
    let infos = names.map { Info(name: $0, path: directory + "/" + $0) }
    let written = infos.map { FileStamp($0.path + "/manifest.json")?.mtimeNanoseconds ?? 0 }
    return infos.indices.sorted { a, b in
      if infos[a].time != infos[b].time { return infos[a].time < infos[b].time }
      return written[a] != written[b] ? written[a] < written[b] : infos[a].name < infos[b].name
    }.map { infos[$0] }
  }

  func info(_ name: String) -> Info { Info(name: name, path: directory + "/" + name) }

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
    let all = list()
    let (found, note) = try pick(reference, among: all)
    guard let manifest = found.manifest else {
      throw StoreError.badRequest("snapshot \(found.name) has no readable manifest.json; it cannot be used")
    }
    if let unsafe = manifest.files.first(where: { !SnapshotManifest.Entry.isSafe($0.path) }) {
      throw StoreError.badRequest("snapshot \(found.name): manifest.json names \"\(unsafe.path)\", which is not a file a snapshot holds "
        + "(data/, schemas/, formsctl.yaml); refusing to use it")
    }
    return (found, note)
  }

  private func pick(_ reference: String, among all: [Info]) throws(StoreError) -> (Info, String?) {
    let newestFirst = Array(all.reversed())
    func unknown(_ why: String) -> StoreError {
      let known = newestFirst.prefix(5).map { info in info.manifest?.label.map { "\(info.name) (\($0))" } ?? info.name }
      return StoreError.badRequest("\(why)\(all.isEmpty ? " (there are none)" : "; the newest: \(known.joined(separator: ", "))")")
    }
    if reference == "latest" || reference.hasPrefix("latest~") {
      guard let back = reference == "latest" ? 0 : Int(reference.dropFirst("latest~".count)), back >= 0 else {
        throw StoreError.badRequest("\(reference): write latest~N with N a whole number (latest~1 is the one before latest)")
      }
      let candidates = newestFirst.filter { $0.manifest?.reason != "pre-restore" }
      guard back < candidates.count else {
        throw unknown("\(reference) goes back further than the \(candidates.count) snapshot\(candidates.count == 1 ? "" : "s") not taken by a restore")
      }
      return (candidates[back], nil)
    }
    if let exact = all.first(where: { $0.name == reference }) { return (exact, nil) }
    let labelled = newestFirst.filter { $0.manifest?.label == reference }
    if let newest = labelled.first {
      let note = labelled.count > 1 ? "\(labelled.count) snapshots carry the label \"\(reference)\"; using the newest, \(newest.name)" : nil
      return (newest, note)
    }
    let prefixed = newestFirst.filter { $0.name.hasPrefix(reference) }
    if prefixed.count == 1, reference.count >= 4 { return (prefixed[0], nil) }
    if prefixed.count > 1 {
      throw StoreError.ambiguousID(kind: "snapshot", prefix: reference, candidates: prefixed.map(\.name))
    }
    throw unknown("no snapshot \"\(reference)\"")
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
  func liveFiles() -> [(relative: String, live: String)] {
    var files: [(String, String)] = FileIO.files(under: layout.dataDirectory, suffix: "").map {
      ("data/" + String($0.dropFirst(layout.dataDirectory.count + 1)), $0)
    }
    if layout.schemasDirectory.hasPrefix(layout.root + "/") {
      files += FileIO.files(under: layout.schemasDirectory, suffix: "").map {
        ("schemas/" + String($0.dropFirst(layout.schemasDirectory.count + 1)), $0)
      }
    }
    files.append((StoreLayout.manifestName, layout.root + "/" + StoreLayout.manifestName))
    return files
  }

  /// The live path of a file inside a snapshot.
  func livePath(_ relative: String) -> String {
    if relative.hasPrefix("data/") { return layout.dataDirectory + "/" + relative.dropFirst(5) }
    if relative.hasPrefix("schemas/") { return layout.schemasDirectory + "/" + relative.dropFirst(8) }
    return layout.root + "/" + relative
  }

  /// Takes a snapshot. The caller holds the store lock, so no write lands half-way through it.
  public func create(reason: String, message: String? = nil, label: String? = nil) throws(StoreError) -> SnapshotManifest {
    if let label, !DocumentID.isValid(label) { throw StoreError.badRequest("label \"\(label)\": use A–Z a–z 0–9 . _ -") }
    try FileIO.makeDirectories(directory)
    removeStaleTemporaries()
    let date = now()
    let time = Store.rfc3339(date)
    var name = time.replacingOccurrences(of: ":", with: "-") + (label.map { "-" + $0 } ?? "")
    var suffix = 1
    while FileIO.exists(directory + "/" + name) {
      suffix += 1
      name = time.replacingOccurrences(of: ":", with: "-") + (label.map { "-" + $0 } ?? "") + "-\(suffix)"
    }
    let temporary = directory + "/.creating-\(name)-\(getpid())"
    let previous = list().last { $0.manifest != nil }
    let previousFiles = Dictionary(
      (previous?.manifest?.files ?? []).map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
    let cache = HashCache.load(cachePath)
    let files = liveFiles()
    do throws(StoreError) {
      for directory in Set(files.map { parentDirectory(temporary + "/" + $0.relative) }) {
        try FileIO.makeDirectories(directory)
      }
      let previousPath = previous?.path
      // Decide in parallel (stat and the hash cache), link unchanged files from one thread (two
      // threads linking into one directory contend on its lock), copy changed files in parallel.
      let decisions = parallelMap(files, chunkSize: 64, progress: ProgressCounter("comparing", total: files.count, progress)) {
        file -> (FileStamp?, SnapshotManifest.Entry?) in
        guard let stamp = FileStamp(file.live) else { return (nil, nil) }
        guard let previous = previousFiles[file.relative], previous.size == stamp.size,
          cache.hash(for: file.live, stamp: stamp) == previous.sha256
        else { return (stamp, nil) }
        return (stamp, previous)
      }
      var results: [(SnapshotManifest.Entry, FileStamp)?] = Array(repeating: nil, count: files.count)
      var toCopy: [Int] = []
      for (index, decision) in decisions.enumerated() {
        if let previousPath, let stamp = decision.0, let entry = decision.1,
          link(previousPath + "/" + entry.path, temporary + "/" + files[index].relative) == 0
        {
          results[index] = (entry, stamp)
        } else {
          toCopy.append(index)
        }
      }
      // Changed files: read and hash on every core, then create the copies from one thread, in
      // batches (creating files in one directory from two threads contends on its lock).
      // Unchanged files cost a link; the changed ones are copied: check they fit before copying.
      try Storage.require(toCopy.reduce(Int64(0)) { $0 + Int64(decisions[$1].0?.size ?? 0) }, at: directory,
        for: "the snapshot (\(toCopy.count) changed file\(toCopy.count == 1 ? "" : "s"))")
      let copying = ProgressCounter("copying", total: toCopy.count, progress)
      for start in stride(from: 0, to: toCopy.count, by: 1024) {
        let batch = Array(toCopy[start..<min(toCopy.count, start + 1024)])
        let read = parallelMap(batch, chunkSize: 16, progress: copying) { index -> Result<(bytes: [UInt8], sha: String, stamp: FileStamp), StoreError> in
          Result { () throws(StoreError) in
            let file = files[index]
            guard let stamp = FileStamp(file.live) else { throw StoreError.fileNotFound(file.live) }
            let bytes = try FileIO.read(file.live, limit: Int.max)
            return (bytes, sha256Hex(bytes), stamp)
          }
        }
        for (index, result) in zip(batch, read) {
          let (bytes, sha, stamp) = try result.get()
          results[index] = try Self.store(bytes, sha: sha, stamp: stamp, file: files[index], into: temporary,
            previous: previousFiles[files[index].relative], previousPath: previousPath)
        }
      }
      var entries: [SnapshotManifest.Entry] = []
      entries.reserveCapacity(files.count)
      var newCache = HashCache()
      for (file, result) in zip(files, results) {
        guard let (entry, stamp) = result else { throw StoreError.fileNotFound(file.live) }
        entries.append(entry)
        newCache.entries[file.live] = (stamp, entry.sha256)
      }
      let manifest = SnapshotManifest(name: name, time: time, reason: reason, message: message, label: label, files: entries)
      let manifestPath = temporary + "/manifest.json"
      try Journal.writeDurably(JSONWriter.canonical(manifest.json), to: manifestPath)
      chmod(manifestPath, 0o444)
      try Self.syncFileSystem(of: temporary)
      DebugPause.at("snapshot-before-rename")
      if rename(temporary, directory + "/" + name) != 0 { throw StoreError.io(temporary, operation: "rename", errno: errno) }
      try AtomicWriter.syncDirectory(directory)
      let nowNanoseconds = Int64(date.timeIntervalSince1970 * 1_000_000_000)
      try AtomicWriter(boundary: layout.root).write(newCache.serialized(now: nowNanoseconds), to: cachePath)
      return manifest
    } catch {
      Self.removeTree(temporary)
      throw error
    }
  }

  /// What the next snapshot will copy at most, for a check of free space before work that takes
  /// one: every live file when there is no snapshot yet (after that, unchanged files are links,
  /// and `create` checks exactly what it copies).
  func firstSnapshotCost() -> Int64 {
    list().isEmpty ? Storage.size(of: liveFiles().map(\.live)) : 0
  }

  /// Puts one changed file into the snapshot being built: a link to the previous copy when its
  /// content turns out unchanged after all, else a new read-only copy.
  static func store(
    _ bytes: [UInt8], sha: String, stamp: FileStamp, file: (relative: String, live: String), into temporary: String,
    previous: SnapshotManifest.Entry?, previousPath: String?
  ) throws(StoreError) -> (SnapshotManifest.Entry, FileStamp) {
    let target = temporary + "/" + file.relative
    if let previous, let previousPath, previous.sha256 == sha, link(previousPath + "/" + file.relative, target) == 0 {
      return (previous, stamp)
    }
    let fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o444)
    guard fd >= 0 else { throw StoreError.io(target, operation: "create", errno: errno) }
    defer { close(fd) }
    try writeAll(fd, bytes, path: target)
    let schema = file.relative.hasPrefix("data/") ? (try? JSONParser().parse(bytes))?["_schema"]?.stringValue : nil
    return (SnapshotManifest.Entry(path: file.relative, size: bytes.count, sha256: sha, schema: schema), stamp)
  }

  /// Makes everything written on the file system of `path` durable, in one call (Linux `syncfs`).
  static func syncFileSystem(of path: String) throws(StoreError) {
    let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { throw StoreError.io(path, operation: "open", errno: errno) }
    defer { close(fd) }
    if let syncfs = Self.syncfs {
      if syncfs(fd) != 0 { throw StoreError.io(path, operation: "syncfs", errno: errno) }
    } else {
      sync()
    }
  }

  /// Linux `syncfs(2)`, looked up at run time (Swift's Glibc module does not declare it).
  nonisolated(unsafe) static let syncfs: (@convention(c) (Int32) -> Int32)? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "syncfs") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Int32).self)
  }()

  /// Removes what an interrupted create left (the caller holds the lock, so none is in progress);
  /// returns how many.
  @discardableResult
  func removeStaleTemporaries() -> Int {
    var removed = 0
    for entry in FileIO.entries(of: directory) where entry.name.hasPrefix(".creating-") {
      Self.removeTree(directory + "/" + entry.name)
      removed += 1
    }
    return removed
  }

  /// Deletes a directory tree (snapshot files are read-only, but their directories are not).
  static func removeTree(_ path: String) {
    guard FileIO.entry(path) == .directory else {
      unlink(path)
      return
    }
    for entry in FileIO.entries(of: path) { removeTree(path + "/" + entry.name) }
    rmdir(path)
  }
}
