import FormsCore
import Foundation

/// `.formsctl/index/KIND.idx`: per document of a kind, what `stat` said of its file when it was
/// read, whether it parsed, and its top-level scalar members (the projection queries read). A
/// cache, never the truth: every entry is checked against a fresh `stat` before it is trusted, and
/// one whose file was modified within `racyWindow` of the index's writing is read again (git's
/// racily-clean rule), so an edit behind formsctl's back that keeps the size and the second is
/// still seen. A file that is missing, of another format or fingerprint, or fails its checksum is
/// discarded and rebuilt, never trusted.
///
/// Layout (little-endian): `FORMSIDX`, format (u32), written at (i64 ns since 1970), fingerprint
/// (length-prefixed UTF-8), count (u32), entries, then the FNV-1a 64 of everything before it. An
/// entry: name (u16 length + UTF-8), size, mtime ns, ctime ns, inode (i64/u64), flags (u8: 1 =
/// parses), the top-level members that are not scalars (u16 count, each u16 + UTF-8), and the
/// projection as compact JSON (u32 length + bytes).
struct KindIndex: Sendable {
  struct Entry: Sendable, Equatable {
    var stamp: FileStamp
    var parses: Bool
    /// Top-level members holding an object or array (not in the projection).
    var nonScalar: [String]
    /// The document's top-level scalar members but sensitive ones, as compact JSON.
    var projection: [UInt8]
  }

  static let magic = Array("FORMSIDX".utf8)
  static let format: UInt32 = 1

  /// Entries by the file's path relative to the kind's directory.
  var entries: [String: Entry] = [:]
  /// When the stats the entries hold were taken (ns since 1970).
  var writtenAt: Int64 = 0

  /// True when `entry` may be trusted for a file whose stat is `stamp`: the same stamp, and
  /// modified more than `racyWindow` nanoseconds before the index's stats were taken.
  func trusts(_ entry: Entry, for stamp: FileStamp, racyWindow: Int64) -> Bool {
    entry.stamp == stamp && stamp.mtimeNanoseconds < writtenAt - racyWindow
      && stamp.ctimeNanoseconds < writtenAt - racyWindow
  }

  /// The entry for a document read now: its projection without `sensitive` members.
  static func entry(_ bytes: [UInt8], stamp: FileStamp, sensitive: Set<String>) -> Entry {
    guard case .object(let object)? = try? JSONParser().parse(bytes) else {
      return Entry(stamp: stamp, parses: false, nonScalar: [], projection: [])
    }
    var projection = JSONObject()
    var nonScalar: [String] = []
    for member in object.members where !sensitive.contains(member.key) {
      switch member.value {
      case .object, .array: nonScalar.append(member.key)
      default: projection[member.key] = member.value
      }
    }
    return Entry(
      stamp: stamp, parses: true, nonScalar: nonScalar, projection: Array(JSONWriter.compact(.object(projection)).utf8))
  }

  // MARK: - On disk

  /// The index at `path`, or nil when there is none or it cannot be trusted (another format or
  /// fingerprint, a bad checksum, a short file): the caller rebuilds it.
  static func load(_ path: String, fingerprint: String) throws(StoreError) -> KindIndex? {
    guard FileIO.entry(path) == .file else { return nil }
    let bytes = try FileIO.read(path, limit: Int.max)
    guard bytes.count > 8 else { return nil }
    let body = bytes[..<(bytes.count - 8)]
    var reader = Reader(bytes: Array(bytes[(bytes.count - 8)...]))
    guard reader.u64() == fnv1a(body) else { return nil }
    reader = Reader(bytes: Array(body))
    guard reader.take(magic.count) == magic, reader.u32() == format else { return nil }
    var index = KindIndex()
    guard let written = reader.i64(), reader.string() == fingerprint, let count = reader.u32() else { return nil }
    index.writtenAt = written
    index.entries.reserveCapacity(Int(count))
    for _ in 0..<count {
      guard let name = reader.string(), let size = reader.i64(), let mtime = reader.i64(), let ctime = reader.i64(),
        let inode = reader.u64(), let flags = reader.take(1), let nonScalarCount = reader.u16()
      else { return nil }
      var nonScalar: [String] = []
      for _ in 0..<nonScalarCount {
        guard let member = reader.string() else { return nil }
        nonScalar.append(member)
      }
      guard let length = reader.u32(), let projection = reader.take(Int(length)) else { return nil }
      index.entries[name] = Entry(
        stamp: FileStamp(size: Int(size), mtimeNanoseconds: mtime, ctimeNanoseconds: ctime, inode: inode),
        parses: flags[0] & 1 != 0, nonScalar: nonScalar, projection: projection)
    }
    return reader.atEnd ? index : nil
  }

  /// The index's bytes (see the type for the layout).
  func encoded(fingerprint: String) -> [UInt8] {
    var out = Self.magic
    func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { out += $0 } }
    func append(_ text: String) {
      let utf8 = Array(text.utf8)
      append(UInt16(clamping: utf8.count))
      out += utf8.prefix(Int(UInt16.max))
    }
    append(Self.format)
    append(writtenAt)
    append(fingerprint)
    append(UInt32(entries.count))
    for (name, entry) in entries.sorted(by: { $0.key < $1.key }) {
      append(name)
      append(Int64(entry.stamp.size))
      append(entry.stamp.mtimeNanoseconds)
      append(entry.stamp.ctimeNanoseconds)
      append(entry.stamp.inode)
      out.append(entry.parses ? 1 : 0)
      append(UInt16(clamping: entry.nonScalar.count))
      for member in entry.nonScalar.prefix(Int(UInt16.max)) { append(member) }
      append(UInt32(entry.projection.count))
      out += entry.projection
    }
    append(Self.fnv1a(out[...]))
    return out
  }

  /// FNV-1a, 64 bits: finds a torn or damaged file (not an adversary: the index is a cache).
  static func fnv1a(_ bytes: ArraySlice<UInt8>) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return hash
  }

  /// Reads the layout's fields in order; nil past the end.
  private struct Reader {
    let bytes: [UInt8]
    var offset = 0

    var atEnd: Bool { offset == bytes.count }

    mutating func take(_ count: Int) -> [UInt8]? {
      guard count >= 0, offset + count <= bytes.count else { return nil }
      defer { offset += count }
      return Array(bytes[offset..<(offset + count)])
    }

    mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T? {
      guard let raw = take(MemoryLayout<T>.size) else { return nil }
      return T(littleEndian: raw.withUnsafeBytes { $0.loadUnaligned(as: T.self) })
    }

    mutating func u16() -> UInt16? { integer(UInt16.self) }
    mutating func u32() -> UInt32? { integer(UInt32.self) }
    mutating func u64() -> UInt64? { integer(UInt64.self) }
    mutating func i64() -> Int64? { integer(Int64.self) }

    mutating func string() -> String? {
      guard let length = u16(), let raw = take(Int(length)) else { return nil }
      return String(validating: raw, as: UTF8.self)
    }
  }
}
