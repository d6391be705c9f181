import FormsCore

extension Snapshots {
  /// A file of a snapshot that does not match its manifest.
  public struct Problem: Sendable, Equatable, CustomStringConvertible {
    public let snapshot: String
    public let path: String
    public let problem: String
    public var description: String { "\(snapshot)/\(path): \(problem)" }
  }

  /// Re-hashes every file of `info` (or only `paths`) against its manifest.
  public func verify(_ info: Info, paths: Set<String>? = nil) -> [Problem] {
    guard let manifest = info.manifest else {
      return [Problem(snapshot: info.name, path: "manifest.json", problem: "missing or unreadable")]
    }
    let entries = manifest.files.filter { paths?.contains($0.path) ?? true }
    var problems = parallelMap(entries, chunkSize: 32) { entry -> Problem? in
      let path = info.path + "/" + entry.path
      guard let bytes = try? FileIO.read(path, limit: Int.max) else {
        return Problem(snapshot: info.name, path: entry.path, problem: "missing")
      }
      if bytes.count != entry.size || sha256Hex(bytes) != entry.sha256 {
        return Problem(snapshot: info.name, path: entry.path, problem: "altered (its SHA-256 no longer matches the manifest)")
      }
      return nil
    }.compactMap { $0 }
    if paths == nil {
      let listed = Set(manifest.files.map(\.path) + ["manifest.json"])
      for path in FileIO.files(under: info.path, suffix: "") where !listed.contains(String(path.dropFirst(info.path.count + 1))) {
        problems.append(Problem(snapshot: info.name, path: String(path.dropFirst(info.path.count + 1)), problem: "not in the manifest"))
      }
    }
    return problems.sorted { $0.path < $1.path }
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

  /// Hashes of the live files (the cache spares reading unchanged ones).
  func liveEntries() -> [String: (sha256: String, path: String)] {
    let cache = HashCache.load(cachePath)
    let pairs = parallelMap(liveFiles(), chunkSize: 32) { file -> (String, (String, String))? in
      guard let stamp = FileStamp(file.live) else { return nil }
      if let sha = cache.hash(for: file.live, stamp: stamp) { return (file.relative, (sha, file.live)) }
      guard let bytes = try? FileIO.read(file.live, limit: Int.max) else { return nil }
      return (file.relative, (sha256Hex(bytes), file.live))
    }.compactMap { $0 }
    return Dictionary(pairs, uniquingKeysWith: { a, _ in a })
  }

  /// The difference from snapshot `from` to snapshot `to`, or to the live store when `to` is nil.
  public func diff(from: Info, to: Info?) -> Difference {
    let old = Dictionary((from.manifest?.files ?? []).map { ($0.path, ($0.sha256, from.path + "/" + $0.path)) }, uniquingKeysWith: { a, _ in a })
    let new = to.map { info in
      Dictionary((info.manifest?.files ?? []).map { ($0.path, ($0.sha256, info.path + "/" + $0.path)) }, uniquingKeysWith: { a, _ in a })
    } ?? liveEntries().mapValues { ($0.sha256, $0.path) }
    var difference = Difference()
    difference.added = new.keys.filter { old[$0] == nil }.sorted()
    difference.removed = old.keys.filter { new[$0] == nil }.sorted()
    for path in old.keys.sorted() {
      guard let before = old[path], let after = new[path], before.0 != after.0 else { continue }
      let a = (try? FileIO.read(before.1, limit: Int.max)).flatMap { try? JSONParser().parse($0) }
      let b = (try? FileIO.read(after.1, limit: Int.max)).flatMap { try? JSONParser().parse($0) }
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
