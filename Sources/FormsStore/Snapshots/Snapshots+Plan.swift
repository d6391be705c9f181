import FormsCore

// `snapshot create --dry-run`: what the next whole-store snapshot would copy and what it would
// hard-link, decided as `streamStore` decides it, writing nothing.
extension Snapshots {
  /// What a whole-store snapshot taken now would do.
  public struct CreatePlan: Sendable, Equatable {
    /// Files linked to the previous snapshot's copies (unchanged), and their bytes.
    public var linked = 0
    public var linkedBytes: Int64 = 0
    /// Files copied (new or changed, or every file when there is no previous snapshot), and their bytes.
    public var copied = 0
    public var copiedBytes: Int64 = 0
    /// The snapshot it would link from; nil when it would be the first (or none is usable).
    public var base: String?
    /// What the copies need free, in the file system's blocks (each small file takes a whole one)
    /// with every file's directory entry and the margin `create` requires, and what is free.
    public var needed: Int64 = 0
    public var free: Int64?
    /// True when the copies would fit (the free-space check `create` makes).
    public var fits: Bool { free.map { $0 >= needed } ?? true }
  }

  /// Walks the store as a snapshot would, in the manifest's order: a file the previous snapshot's
  /// hash cache vouches for by its stamp, or whose content is the same as its copy there, would be
  /// a link; any other a copy. Reads the changed files to hash them; writes nothing and takes no lock.
  public func planCreate() throws(StoreError) -> CreatePlan {
    let previous = try previousEntries()
    var plan = CreatePlan()
    plan.base = previous.snapshot.isEmpty ? nil : previous.snapshot
    let trustedBefore = previous.writtenAtNanoseconds - 2_000_000_000
    // What the copies take is counted in the file system's blocks, and every file, linked or
    // copied, takes a directory entry in the new snapshot: as `create` checks it.
    let block = Storage.blockSize(at: layout.root) ?? Storage.assumedBlockSize
    var allocated: Int64 = 0
    try forEachRun { live, relative, names throws(StoreError) in
      let prefix = relative.isEmpty ? [] : Array((relative + "/").utf8)
      for name in names {
        let path = live / name
        guard let stamp = FileStamp(path) else { throw StoreError.fileNotFound(path.string) }
        let line = previous.entry(for: prefix + Array(name.utf8))
        var link = false
        if plan.base != nil, let line {
          if line.stamp == stamp && max(stamp.mtimeNanoseconds, stamp.ctimeNanoseconds) < trustedBefore {
            link = true
          } else {
            link = line.sha.elementsEqual(sha256Hex(try FileIO.read(path, limit: Int.max)).utf8)
          }
        }
        if link {
          plan.linked += 1
          plan.linkedBytes += Int64(stamp.size)
        } else {
          plan.copied += 1
          plan.copiedBytes += Int64(stamp.size)
        }
        allocated += Storage.allocated(
          size: link ? 0 : Int64(stamp.size), nameLength: name.utf8.count, blockSize: block)
      }
    }
    plan.needed = Storage.withMargin(allocated)
    plan.free = Storage.freeBytes(at: layout.root)
    return plan
  }
}
