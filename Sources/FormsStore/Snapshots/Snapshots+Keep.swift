import FormsCore

// A snapshot a person marked to keep: the retention policy (`snapshot prune`, `auto_prune`)
// never removes it. `snapshot keep --off` takes the mark off, and the policy decides again
// (docs/decisions/0091-kept-snapshots.md).
extension Snapshots {
  /// The mark's file inside a snapshot's directory: its presence keeps the snapshot. Beside
  /// `manifest.json` (read-only and as large as the store), so marking rewrites a few bytes;
  /// it goes with the snapshot when it is pushed, pulled or deleted.
  static let keepFileName = "keep.json"

  /// The mark's bytes: when it was set (for a person reading the directory).
  func keepMark() -> [UInt8] {
    Array(JSONWriter.canonical(.object(JSONObject(["kept_since": .string(Instant(now()).rfc3339)]))))
  }

  /// Marks the snapshot `reference` names as kept (`kept` true) or takes the mark off, under the
  /// store's write lock; the snapshot. An unknown reference is refused (66 or 65, as `show`).
  public func setKept(_ reference: String, _ kept: Bool, wait: Double) throws(StoreError) -> Info {
    try layout.withWriteLock(kept ? "snapshot keep" : "snapshot keep --off", wait: wait) {
      () throws(StoreError) -> Info in
      try removeStaleTemporaries()
      let info = try find(reference)
      let path = info.directory / Self.keepFileName
      if kept {
        // A damaged mark (a link, a directory) is replaced, never written through.
        switch FileIO.entry(path) {
        case .missing, .file: break
        case .directory: try Self.removeTree(path)
        default: try FileIO.remove(path)
        }
        try AtomicWriter(boundary: layout.rootPath).write(keepMark(), to: path)
      } else if FileIO.entry(path) == .directory {
        try Self.removeTree(path)  // a damaged mark counts as one (`kept`): --off takes it off
        try AtomicWriter.syncDirectory(info.directory)
      } else if FileIO.entry(path) != .missing {
        try FileIO.remove(path)
        try AtomicWriter.syncDirectory(info.directory)
      }
      return info
    }
  }
}

extension Snapshots {
  /// Why `info` is kept whatever the retention policy says (empty: it is not): a person's mark,
  /// and its label when the manifest's `keep_labels` matches it. The one answer `snapshot list`,
  /// `keep`, `prune`, the deletion of snapshots holding sealed values in plain text and the
  /// retention applied after every snapshot all use.
  public func keeping(_ info: Info) -> [RetentionPlanner.Keeping] {
    RetentionPlanner.keeping(
      marked: info.marked, label: info.summary?.label, keepLabels: layout.retention.keepLabels)
  }
}

extension Snapshots.Info {
  /// True when a person marked the snapshot to keep (`snapshot create --keep`, `snapshot keep`):
  /// anything at the mark's name counts (a file of any content, a directory, a symbolic link,
  /// dangling or not), as a damaged mark must never let the policy delete what a person kept.
  /// Whether the snapshot is kept is `Snapshots.keeping`, which also reads `keep_labels`.
  public var marked: Bool { FileIO.entry(directory / Snapshots.keepFileName) != .missing }
}
