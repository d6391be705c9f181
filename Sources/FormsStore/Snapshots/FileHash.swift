import Crypto
import Foundation

/// SHA-256 (swift-crypto) as lowercase hex.
func sha256Hex(_ bytes: [UInt8]) -> String {
  let digest = SHA256.hash(data: bytes)
  let hex: [UInt8] = Array("0123456789abcdef".utf8)
  var out: [UInt8] = []
  out.reserveCapacity(64)
  for byte in digest {
    out.append(hex[Int(byte >> 4)])
    out.append(hex[Int(byte & 0xF)])
  }
  return String(decoding: out, as: UTF8.self)
}

/// What the newest whole snapshot holds, with what `stat` said of each live file when it was
/// taken, keyed by the path inside the snapshot (`data/forms/x.json`): a live file whose stamp
/// still matches is unchanged, so the next snapshot links it without reading it, and needs neither
/// the previous manifest nor a hash. An entry whose mtime or ctime is within two seconds of when
/// the cache was written is not trusted (the file may have changed again in the same tick), as
/// git does. A cache of another format, or one naming a snapshot that is gone, is not used.
struct HashCache: Sendable {
  var entries: [String: (stamp: FileStamp, entry: SnapshotManifest.Entry)] = [:]
  var writtenAtNanoseconds: Int64 = 0
  /// The snapshot the entries describe.
  var snapshot = ""

  static func load(_ path: FilePath) -> HashCache {
    var cache = HashCache()
    // Only a cache (docs/design.md §13): missing, unreadable or corrupt, it is bypassed (the next
    // snapshot reads and hashes every file, then writes a new one); it never fails a snapshot.
    let bytes: [UInt8]
    do throws(StoreError) {
      bytes = try FileIO.read(path, limit: Int.max)
    } catch {
      return cache
    }
    // Byte-level: `# v3 written snapshot`, then `sha \t size \t mtime \t ctime \t inode \t schema \t path \n`.
    bytes.withUnsafeBufferPointer { b in
      var i = 0
      func field(_ terminator: UInt8) -> Range<Int> {
        let start = i
        while i < b.count && b[i] != terminator && b[i] != 0x0A { i += 1 }
        defer { if i < b.count && b[i] == terminator { i += 1 } }
        return start..<i
      }
      func number(_ range: Range<Int>) -> Int64? {
        guard !range.isEmpty else { return nil }
        var value: Int64 = 0
        for k in range {
          guard b[k] >= 48 && b[k] <= 57 else { return nil }
          value = value &* 10 &+ Int64(b[k] - 48)
        }
        return value
      }
      func text(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: b[range]), as: UTF8.self)
      }
      guard b.count > 5, text(0..<5) == "# v3 " else { return }
      i = 5
      guard let written = number(field(0x20)) else { return }
      let name = text(field(0x0A))
      cache.entries.reserveCapacity(b.count / 120)
      while i < b.count {
        let sha = field(0x09)
        let size = field(0x09)
        let mtime = field(0x09)
        let ctime = field(0x09)
        let inode = field(0x09)
        let schema = field(0x09)
        let path = field(0x0A)
        guard let size = number(size), let mtime = number(mtime), let ctime = number(ctime), let inode = number(inode),
          sha.count == 64
        else { continue }
        let stamp = FileStamp(size: Int(size), mtimeNanoseconds: mtime, ctimeNanoseconds: ctime, inode: UInt64(inode))
        let relative = text(path)
        cache.entries[relative] = (
          stamp,
          SnapshotManifest.Entry(
            path: relative, size: Int(size), sha256: text(sha),
            schema: schema.isEmpty ? nil : text(schema))
        )
      }
      cache.writtenAtNanoseconds = written
      cache.snapshot = name
    }
    return cache
  }

  /// The snapshot's entry for `relative` when the live file's `stamp` matches and is old enough to trust.
  func unchanged(_ relative: String, stamp: FileStamp) -> SnapshotManifest.Entry? {
    guard let cached = entries[relative], cached.stamp == stamp,
      max(stamp.mtimeNanoseconds, stamp.ctimeNanoseconds) < writtenAtNanoseconds - 2_000_000_000
    else { return nil }
    return cached.entry
  }

  /// The bytes of a cache describing `snapshot`: one line per (path inside it, stamp, entry).
  static func serialize(_ rows: [(String, FileStamp, SnapshotManifest.Entry)], snapshot: String, now: Int64) -> [UInt8]
  {
    var out: [UInt8] = []
    out.reserveCapacity(64 + rows.count * 160)
    out += "# v3 \(now) \(snapshot)\n".utf8
    for (path, stamp, entry) in rows {
      // A name with a tab or a line break would not read back; such a file is simply hashed again.
      let unreadable: (UInt8) -> Bool = { $0 == 0x09 || $0 == 0x0A }
      guard !path.utf8.contains(where: unreadable), !(entry.schema?.utf8.contains(where: unreadable) ?? false) else {
        continue
      }
      out += entry.sha256.utf8
      for number in [Int64(stamp.size), stamp.mtimeNanoseconds, stamp.ctimeNanoseconds, Int64(bitPattern: stamp.inode)]
      {
        out.append(0x09)
        out += String(number).utf8
      }
      out.append(0x09)
      out += (entry.schema ?? "").utf8
      out.append(0x09)
      out += path.utf8
      out.append(0x0A)
    }
    return out
  }
}
