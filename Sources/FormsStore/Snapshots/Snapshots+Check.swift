import FormsCore

extension Snapshots {
  /// A file of a snapshot that does not match its manifest.
  public struct Problem: Sendable, Equatable, CustomStringConvertible {
    public let snapshot: String
    public let path: String
    public let problem: String
    /// The error when the file could not be read (the system's failure, not the copy's).
    public var failure: StoreError? = nil
    public var description: String { "\(snapshot)/\(path): \(problem)" }

    public init(snapshot: String, path: String, problem: String, failure: StoreError? = nil) {
      self.snapshot = snapshot
      self.path = path
      self.problem = problem
      self.failure = failure
    }
  }

  /// Re-hashes every file of `info` (or only `paths`) against its manifest.
  public func verify(_ info: Info, paths: Set<String>? = nil) throws(StoreError) -> [Problem] {
    try verify([info], paths: paths, full: true)
  }

  /// Re-hashes the files of `infos` against their manifests. Unchanged files are hard links shared
  /// by many snapshots: each file (inode) is read once, unless `full`, which reads every path.
  public func verify(_ infos: [Info], paths: Set<String>? = nil, full: Bool = false) throws(StoreError) -> [Problem] {
    var problems: [Problem] = []
    var checks: [(snapshot: String, path: String, entry: SnapshotManifest.Entry)] = []
    for info in infos {
      let manifest: SnapshotManifest?
      do throws(StoreError) {
        manifest = try info.loadManifest()
      } catch {
        problems.append(
          Problem(snapshot: info.name, path: "manifest.json", problem: "unreadable (\(error))", failure: error))
        continue
      }
      guard let manifest else {
        problems.append(Problem(snapshot: info.name, path: "manifest.json", problem: "missing or not a manifest"))
        continue
      }
      for entry in manifest.files where paths?.contains(entry.path) ?? true {
        guard SnapshotManifest.Entry.isSafe(entry.path) else {
          problems.append(
            Problem(snapshot: info.name, path: entry.path, problem: "not a path a snapshot holds; never read"))
          continue
        }
        checks.append((info.name, (info.directory / entry.path).string, entry))
      }
      if paths == nil {
        // The summary, when there is one, must say what the manifest says (list and labels read it).
        if FileIO.entry(info.directory / SnapshotSummary.fileName) != .missing,
          info.readSummary() != SnapshotSummary(manifest)
        {
          problems.append(
            Problem(snapshot: info.name, path: SnapshotSummary.fileName, problem: "does not agree with manifest.json"))
        }
        let listed = Set(
          manifest.files.map(\.path) + ["manifest.json", SnapshotSummary.fileName, Snapshots.keepFileName])
        for path in try FileIO.files(under: info.directory, suffix: "") {
          let relative = info.directory.relative(FilePath(path)) ?? path
          if !listed.contains(relative) {
            problems.append(Problem(snapshot: info.name, path: relative, problem: "not in the manifest"))
          }
        }
      }
    }
    // One read per inode (and expected content): the verdict holds for every link to it.
    var groups: [String: [Int]] = [:]
    for (index, check) in checks.enumerated() {
      let inode = full ? nil : FileStamp(FilePath(check.path))?.inode
      groups[inode.map { "\($0) \(check.entry.sha256) \(check.entry.size)" } ?? "path \(index)", default: []].append(
        index)
    }
    let representatives = groups.values.map { checks[$0[0]] }
    let verdicts = parallelMap(
      representatives, chunkSize: 32, progress: ProgressCounter("verifying", total: representatives.count, progress)
    ) {
      check -> (String, StoreError?)? in
      let bytes: [UInt8]
      do throws(StoreError) {
        bytes = try FileIO.read(FilePath(check.path), limit: Int.max, followLinks: false)
      } catch {
        if case .fileNotFound = error { return ("missing", nil) }
        return ("unreadable (\(error.description))", error)
      }
      if bytes.count != check.entry.size || sha256Hex(bytes) != check.entry.sha256 {
        return ("altered (its SHA-256 no longer matches the manifest)", nil)
      }
      return nil
    }
    for (members, verdict) in zip(groups.values, verdicts) {
      guard let (text, failure) = verdict else { continue }
      for index in members {
        problems.append(
          Problem(snapshot: checks[index].snapshot, path: checks[index].entry.path, problem: text, failure: failure))
      }
    }
    return problems.sorted { ($0.snapshot, $0.path) < ($1.snapshot, $1.path) }
  }

  /// How two states of the store differ, file by file; changed documents list their changed pointers.
  public struct Difference: Sendable {
    public struct Change: Sendable {
      public let path: String
      public let pointers: [String]
    }

    public var added: [String] = []
    public var removed: [String] = []
    public var changed: [Change] = []
  }

  /// Hashes of the live files (the cache spares reading unchanged ones), or of just the snapshot
  /// paths `only` names, by their path inside a snapshot.
  /// A file that is not there has no entry; one that cannot be read is an error.
  func liveEntries(only: [String]? = nil) throws(StoreError) -> [String: (sha256: String, path: String)] {
    let cache = HashCache.load(cachePath)
    let files: [(String, String)]
    if let only { files = only.map { ($0, layout.livePath($0)) } } else { files = try liveFiles() }
    let results = parallelMap(files, chunkSize: 32) { file -> Result<(String, (String, String))?, StoreError> in
      guard let stamp = FileStamp(FilePath(file.1)) else { return .success(nil) }
      if let entry = cache.unchanged(file.0, stamp: stamp) { return .success((file.0, (entry.sha256, file.1))) }
      return Result { () throws(StoreError) in
        (file.0, (sha256Hex(try FileIO.read(FilePath(file.1), limit: Int.max)), file.1))
      }
    }
    var pairs: [(String, (String, String))] = []
    for result in results { if let pair = try result.get() { pairs.append(pair) } }
    return Dictionary(pairs, uniquingKeysWith: { a, _ in a })
  }

  /// The difference from snapshot `from` to snapshot `to`, or to the live store when `to` is nil.
  public func diff(from: Info, to: Info?) throws(StoreError) -> Difference {
    // Partial snapshots speak only for the documents they cover: the difference is within those.
    let covers = [from.manifest?.covers, to?.manifest?.covers].compactMap { $0.map(Set.init) }
    let scope = covers.isEmpty ? nil : covers.dropFirst().reduce(covers[0]) { $0.intersection($1) }
    func entries(_ info: Info) -> [String: (String, String)] {
      Dictionary(
        (info.manifest?.files ?? []).filter { scope?.contains($0.path) ?? true }.map {
          ($0.path, ($0.sha256, (info.directory / $0.path).string))
        },
        uniquingKeysWith: { a, _ in a })
    }
    let old = entries(from)
    let new: [String: (String, String)]
    if let to {
      new = entries(to)
    } else {
      new = try liveEntries(only: scope.map { $0.sorted() }).mapValues { ($0.sha256, $0.path) }
    }
    var difference = Difference()
    difference.added = new.keys.filter { old[$0] == nil }.sorted()
    difference.removed = old.keys.filter { new[$0] == nil }.sorted()
    for path in old.keys.sorted() {
      guard let before = old[path], let after = new[path], before.0 != after.0 else { continue }
      // A file that cannot be read is an error; one that does not parse changed as a whole.
      let (old, new) = (
        try FileIO.read(FilePath(before.1), limit: Int.max), try FileIO.read(FilePath(after.1), limit: Int.max)
      )
      let a = try? JSONParser().parse(old)
      let b = try? JSONParser().parse(new)
      var pointers: [String] = []
      if let a, let b { changedPointers(a, b, at: .root, into: &pointers) }
      difference.changed.append(.init(path: path, pointers: pointers))
    }
    return difference
  }

  func changedPointers(_ a: JSONValue, _ b: JSONValue, at pointer: JSONPointer, into out: inout [String]) {
    switch (a, b) {
    case (.object(let x), .object(let y)):
      let keys = Set(x.keys).union(y.keys).sorted { codePointLess($0, $1) }
      for key in keys {
        switch (x[key], y[key]) {
        case (let p?, let q?): changedPointers(p, q, at: pointer.appending(key), into: &out)
        default: out.append(pointer.appending(key).description)
        }
      }
    case (.array(let x), .array(let y)) where x.count == y.count:
      for k in x.indices { changedPointers(x[k], y[k], at: pointer.appending(index: k), into: &out) }
    default:
      if a != b { out.append(pointer.description) }
    }
  }
}
