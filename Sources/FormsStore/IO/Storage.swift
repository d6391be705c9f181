import Foundation

/// Free space, checked before long work writes, so it is refused up front with the figures rather
/// than failing half-way (the journal keeps the store whole either way).
public enum Storage {
  /// Bytes an ordinary writer may still use on the file system holding `path`; nil when unknown.
  public static func freeBytes(at path: String) -> Int64? {
    var info = statvfs()
    guard statvfs(path, &info) == 0 else { return nil }
    return Int64(info.f_bavail) * Int64(info.f_frsize)
  }

  /// The file system's allocation unit at `path` (statvfs `f_frsize`, else `f_bsize`); nil when
  /// unknown.
  public static func blockSize(at path: String) -> Int64? {
    var info = statvfs()
    guard statvfs(path, &info) == 0 else { return nil }
    let size = info.f_frsize > 0 ? Int64(info.f_frsize) : Int64(info.f_bsize)
    return size > 0 ? size : nil
  }

  /// The block size assumed where the file system does not say (most have 4 KiB blocks).
  static let assumedBlockSize: Int64 = 4096

  /// What a new file of `size` bytes, named with `nameLength` bytes, takes on a file system whose
  /// allocation unit is `blockSize`: its bytes rounded up to whole blocks (a 300-byte document
  /// takes a 4 KiB block; an empty file none), and its directory entry (8 bytes and the name, to
  /// a multiple of 4, as ext4 stores one). A hard link (`size` 0) takes its entry only. Free space
  /// is counted in blocks, so an estimate in bytes promises room that small files do not find.
  static func allocated(size: Int64, nameLength: Int, blockSize: Int64) -> Int64 {
    blocks(size, blockSize: blockSize) + entry(nameLength: nameLength)
  }

  /// `size` bytes rounded up to whole blocks of `blockSize`.
  static func blocks(_ size: Int64, blockSize: Int64) -> Int64 {
    let block = max(blockSize, 1)
    return size <= 0 ? 0 : (size + block - 1) / block * block
  }

  /// A directory entry for a name of `nameLength` bytes.
  static func entry(nameLength: Int) -> Int64 { Int64((8 + nameLength + 3) / 4 * 4) }

  /// What copies of the files at `paths` take on the file system holding `target` (see
  /// `allocated(size:nameLength:blockSize:)`).
  static func allocated(of paths: [FilePath], at target: String) -> Int64 {
    let block = blockSize(at: target) ?? assumedBlockSize
    return paths.reduce(0) {
      $0 + allocated(size: Int64(FileStamp($1)?.size ?? 0), nameLength: $1.name.utf8.count, blockSize: block)
    }
  }

  /// What `bytes` of new files need free: themselves, 5% more, and 1 MiB for directories and the journal.
  public static func withMargin(_ bytes: Int64) -> Int64 { bytes + bytes / 20 + (1 << 20) }

  /// Refuses (exit 74, as the full disk it foresees) when `bytes` of new files, with the margin,
  /// do not fit at `path`. `bytes` is what the files take on disk (`allocated`), not their sizes.
  public static func require(_ bytes: Int64, at path: String, for what: String) throws(StoreError) {
    let needed = withMargin(bytes)
    guard let free = freeBytes(at: path), free < needed else { return }
    throw StoreError.insufficientSpace(what: what, needed: needed, free: free, at: path)
  }

  /// `412 MB`, `3.1 GB`, `96 kB` (powers of 1,000, as df -H prints them).
  public static func format(_ bytes: Int64) -> String {
    let units = ["bytes", "kB", "MB", "GB", "TB"]
    var value = Double(bytes)
    var unit = 0
    while value >= 1000 && unit < units.count - 1 {
      value /= 1000
      unit += 1
    }
    if unit == 0 { return "\(bytes) bytes" }
    let tenths = Int((value * 10).rounded())
    return value < 10 ? "\(tenths / 10).\(tenths % 10) \(units[unit])" : "\(Int(value.rounded())) \(units[unit])"
  }

  /// The total size of `paths` (stat only).
  static func size(of paths: [FilePath]) -> Int64 {
    paths.reduce(0) { $0 + Int64(FileStamp($1)?.size ?? 0) }
  }
}
