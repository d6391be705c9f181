import Crypto

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

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

/// What `stat` says about a file, for deciding "unchanged" without reading it. The ctime is the
/// part nobody can set: an edit that restores the mtime (`cp -p`, `touch -r`) still changes it.
struct FileStamp: Equatable, Sendable {
  let size: Int
  let mtimeNanoseconds: Int64
  let ctimeNanoseconds: Int64
  let inode: UInt64

  init?(_ path: String) {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    size = Int(info.st_size)
    mtimeNanoseconds = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    ctimeNanoseconds = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
    inode = UInt64(info.st_ino)
  }

  init(size: Int, mtimeNanoseconds: Int64, ctimeNanoseconds: Int64, inode: UInt64) {
    self.size = size
    self.mtimeNanoseconds = mtimeNanoseconds
    self.ctimeNanoseconds = ctimeNanoseconds
    self.inode = inode
  }
}

/// Hashes of live files from the last snapshot, keyed by path with their size, mtime, ctime and
/// inode, so an unchanged file is not read again. An entry whose mtime or ctime is within two
/// seconds of when the cache was written is not trusted (the file may have changed again in the
/// same tick), as git does. A cache of another format (`# N` without `v2`) is ignored.
struct HashCache: Sendable {
  var entries: [String: (stamp: FileStamp, sha256: String)] = [:]
  var writtenAtNanoseconds: Int64 = 0

  static func load(_ path: String) -> HashCache {
    var cache = HashCache()
    guard let bytes = try? FileIO.read(path, limit: Int.max) else { return cache }
    // Byte-level parsing: `sha \t size \t mtime \t ctime \t inode \t path \n`, after `# v2 written`.
    bytes.withUnsafeBufferPointer { b in
      var i = 0
      func field(_ terminator: UInt8) -> Range<Int> {
        let start = i
        while i < b.count && b[i] != terminator { i += 1 }
        defer { i += 1 }
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
      func text(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: b[range]), as: UTF8.self) }
      let header = field(0x0A)
      guard header.count > 5, text(header.lowerBound..<header.lowerBound + 5) == "# v2 ",
        let written = number(header.lowerBound + 5..<header.upperBound)
      else { return }
      cache.writtenAtNanoseconds = written
      while i < b.count {
        let sha = field(0x09), size = field(0x09), mtime = field(0x09), ctime = field(0x09), inode = field(0x09), name = field(0x0A)
        guard let size = number(size), let mtime = number(mtime), let ctime = number(ctime), let inode = number(inode), sha.count == 64
        else { continue }
        let stamp = FileStamp(size: Int(size), mtimeNanoseconds: mtime, ctimeNanoseconds: ctime, inode: UInt64(inode))
        cache.entries[text(name)] = (stamp, text(sha))
      }
    }
    return cache
  }

  /// The cached hash when `stamp` matches and is old enough to trust.
  func hash(for path: String, stamp: FileStamp) -> String? {
    guard let entry = entries[path], entry.stamp == stamp,
      max(stamp.mtimeNanoseconds, stamp.ctimeNanoseconds) < writtenAtNanoseconds - 2_000_000_000
    else { return nil }
    return entry.sha256
  }

  func serialized(now: Int64) -> [UInt8] {
    var out = "# v2 \(now)\n"
    for (path, entry) in entries.sorted(by: { $0.key < $1.key }) {
      let stamp = entry.stamp
      out += "\(entry.sha256)\t\(stamp.size)\t\(stamp.mtimeNanoseconds)\t\(stamp.ctimeNanoseconds)\t\(stamp.inode)\t\(path)\n"
    }
    return Array(out.utf8)
  }
}
