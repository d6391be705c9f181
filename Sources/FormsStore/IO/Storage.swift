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

  /// What `bytes` of new files need free: themselves, 5% more, and 1 MiB for directories and the journal.
  public static func withMargin(_ bytes: Int64) -> Int64 { bytes + bytes / 20 + (1 << 20) }

  /// Refuses (exit 74, as the full disk it foresees) when `bytes` of new files, with the margin,
  /// do not fit at `path`.
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
