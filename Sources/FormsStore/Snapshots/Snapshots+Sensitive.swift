import FormsCore
import Foundation

/// Snapshots are copies: sealing a value in the store (`keys reseal`, or a field made sensitive)
/// leaves its plain text in every snapshot taken before. These find such snapshots and delete them.
extension Snapshots {
  /// A snapshot holding values in plain text that the store's descriptors now keep sealed.
  public struct Exposure: Sendable {
    public let snapshot: Info
    /// Its documents holding such values, relative to the snapshot (`data/forms/F-1.json`).
    public var documents: [String] = []
    /// How many values, in all.
    public var values = 0
    /// Why it is kept (its mark, its label), as `Snapshots.keeping` said when `deleteExposed`
    /// looked: a kept snapshot is never deleted, only named.
    public internal(set) var keeping: [RetentionPlanner.Keeping] = []
    /// True when it is kept (`keeping` is not empty).
    public var kept: Bool { !keeping.isEmpty }
  }

  /// Every snapshot holding, in plain text, a value that some version of its kind in `registry`
  /// marks sensitive; oldest first. Only the directories of kinds with sensitive fields are read,
  /// and a file hard-linked into several snapshots is read once. A file that does not parse is
  /// not judged (`snapshot verify` reports damage); one that cannot be read is an error.
  public func exposures(registry: SchemaRegistry) throws(StoreError) -> [Exposure] {
    var kinds: [String: [Schema]] = [:]
    for (kind, versions) in registry.schemas {
      let sensitive = versions.values.filter(\.hasSensitiveFields)
      if !sensitive.isEmpty { kinds[kind] = sensitive }
    }
    guard !kinds.isEmpty else { return [] }
    let directories = Set(kinds.keys.flatMap { registry.schemas(of: $0).map(\.directory) }).sorted()
    var found: [Exposure] = []
    var valuesByInode: [UInt64: Int] = [:]
    let snapshots = try list()
    let reading = ProgressCounter("reading snapshots", total: snapshots.count, progress)
    for snapshot in snapshots {
      var exposure = Exposure(snapshot: snapshot)
      for directory in directories {
        let top = snapshot.directory / "data" / directory
        guard FileIO.entry(top) == .directory else { continue }
        for path in try FileIO.walk(top, suffix: ".json").files {
          let inode = FileStamp(FilePath(path))?.inode
          let values: Int
          if let inode, let known = valuesByInode[inode] {
            values = known
          } else {
            values = Self.plaintextValues(try FileIO.read(FilePath(path), followLinks: false), kinds: kinds)
            if let inode { valuesByInode[inode] = values }
          }
          guard values > 0 else { continue }
          exposure.documents.append(snapshot.directory.relative(FilePath(path)) ?? path)
          exposure.values += values
        }
      }
      if exposure.values > 0 { found.append(exposure) }
      reading?.add(1)
    }
    return found
  }

  /// How many values the document in `bytes` holds in plain text that a version of its kind seals.
  static func plaintextValues(_ bytes: [UInt8], kinds: [String: [Schema]]) -> Int {
    // Not JSON, or no `_schema`: not a document formsctl can judge; `snapshot verify` checks files.
    guard let document = try? JSONParser().parse(bytes), let reference = document["_schema"]?.stringValue,
      let at = reference.lastIndex(of: "@"), let versions = kinds[String(reference[..<at])]
    else { return 0 }
    return Set(versions.flatMap { $0.plaintextSensitive(in: document) }).count
  }

  /// `exposures`, then (unless `dryRun`) each such snapshot deleted, under the store's write lock
  /// (waiting up to `wait` seconds for another writer). A kept snapshot (marked, or by its label:
  /// `keeping`) is never deleted: it is returned with `keeping` set, for the caller to name
  /// (decision 0091).
  public func deleteExposed(registry: SchemaRegistry, dryRun: Bool, wait: Double) throws(StoreError) -> [Exposure] {
    try layout.withWriteLock("snapshot prune", wait: wait) { () throws(StoreError) in
      var found = try exposures(registry: registry)
      for index in found.indices {
        found[index].keeping = keeping(found[index].snapshot)
        if !dryRun && !found[index].kept { try delete(found[index].snapshot.name) }
      }
      return found
    }
  }

  /// Deletes one snapshot: first renamed out of the list (`.deleting-NAME`, durably), so an
  /// interruption leaves no half snapshot that looks whole; the next lock holder finishes it.
  func delete(_ name: String) throws(StoreError) {
    let doomed = directory / (".deleting-" + name)
    if POSIX.rename(directory / name, doomed) != 0 {
      throw StoreError.io((directory / name).string, operation: "rename", errno: Errno(errno))
    }
    try AtomicWriter.syncDirectory(directory)
    try Self.removeTree(doomed)
  }
}
