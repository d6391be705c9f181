import Foundation

/// `.formsctl/index/KIND.dir`: that the kind's directory, while its `stat` was `stamp`, listed
/// exactly the files of one index (`KIND.idx`, named by its checksum and count), in the index's
/// order, and nothing else (no subdirectory, no irregular name). A query whose fresh `stat` of
/// the directory is the same then takes the names from the index instead of listing a million
/// of them. A directory's mtime and ctime change whenever a name in it is made, removed or
/// renamed, and the ctime cannot be set back by hand; a stamp taken within the racy window of a
/// change is not written, and one modified within it is not trusted (as ``KindIndex`` trusts its
/// entries). git's untracked cache rests on the same rule. A cache, never the truth: a file that
/// is missing, short, of another format or with a bad checksum is ignored, and the directory
/// listed.
///
/// Layout (little-endian, 80 bytes): `FORMSDIR`, format (u32), 4 pad bytes, the index's checksum
/// (u64) and count (u64), the directory's stamp (size, mtime ns, ctime ns, inode), when it was
/// taken (i64 ns since 1970), then a 64-bit checksum of everything before it.
struct ListingStamp: Equatable, Sendable {
  /// The index whose names the directory listed: its checksum and count.
  var index: UInt64
  var count: Int
  var stamp: FileStamp
  /// When `stamp` was taken (ns since 1970), before the directory was listed.
  var at: Int64

  static let magic = Array("FORMSDIR".utf8)
  static let format: UInt32 = 1
  static let size = 80

  /// True when a fresh `stat` of the directory, `now`, vouches that it still lists the files of
  /// `index` in its order: the stamp is the same, and was not modified within `racyWindow`
  /// nanoseconds of the moment it was taken.
  func vouches(for index: KindIndex, now: FileStamp, racyWindow: Int64) -> Bool {
    self.index == index.identity && count == index.count && stamp == now
      && now.isSettled(at: at, racyWindow: racyWindow)
  }

  var encoded: [UInt8] {
    var out = Self.magic
    func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { out += $0 } }
    append(Self.format)
    append(UInt32(0))
    append(index)
    append(UInt64(count))
    append(Int64(stamp.size))
    append(stamp.mtimeNanoseconds)
    append(stamp.ctimeNanoseconds)
    append(stamp.inode)
    append(at)
    append(KindIndex.checksum(out, count: out.count))
    return out
  }

  init(index: UInt64, count: Int, stamp: FileStamp, at: Int64) {
    self.index = index
    self.count = count
    self.stamp = stamp
    self.at = at
  }

  /// The stamp in `bytes`; nil when they are not one.
  init?(_ bytes: [UInt8]) {
    guard bytes.count == Self.size, bytes.starts(with: Self.magic),
      KindIndex.checksum(bytes, count: Self.size - 8) == Self.load(UInt64.self, bytes, Self.size - 8),
      Self.load(UInt32.self, bytes, 8) == Self.format
    else { return nil }
    index = Self.load(UInt64.self, bytes, 16)
    count = Int(Self.load(UInt64.self, bytes, 24))
    stamp = FileStamp(
      size: Int(Self.load(Int64.self, bytes, 32)), mtimeNanoseconds: Self.load(Int64.self, bytes, 40),
      ctimeNanoseconds: Self.load(Int64.self, bytes, 48), inode: Self.load(UInt64.self, bytes, 56))
    at = Self.load(Int64.self, bytes, 64)
  }

  /// The stamp at `path`; nil when there is none or it is not one.
  static func load(_ path: FilePath) throws(StoreError) -> ListingStamp? {
    guard FileIO.entry(path) == .file else { return nil }
    return ListingStamp(try FileIO.read(path))
  }

  private static func load<T: FixedWidthInteger>(_: T.Type, _ bytes: [UInt8], _ offset: Int) -> T {
    bytes.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: T.self)) }
  }
}
