import FormsCore
import Foundation

/// `.formsctl/index/KIND.idx`: per document of a kind, what `stat` said of its file when it was
/// read, whether it parsed, and its top-level scalar members (the projection queries read). A
/// cache, never the truth: every entry is checked against a fresh `stat` before it is trusted, and
/// one whose file was modified within the racy window of the index's writing is read again (git's
/// racily-clean rule), so an edit behind formsctl's back that keeps the size and the second is
/// still seen. A file that is missing, of another format or fingerprint, or fails its checksum is
/// discarded and rebuilt, never trusted.
///
/// Layout (little-endian), read in place without decoding every entry: `FORMSIDX`, format (u32),
/// written at (i64 ns since 1970), fingerprint (u16 length + UTF-8), count (u32), `count` records
/// of 56 bytes (size, mtime ns, ctime ns, inode; then u32 offset and u16 length of the name in
/// the heap, u8 flags (1 = parses), a pad byte, u32 offset and u32 length of the projection,
/// u32 offset and u16 length of the names of the members that are not scalars, comma-separated,
/// and 2 pad bytes), the heap, then a 64-bit checksum of everything before it (its blocks hashed
/// on every core, see ``checksum(_:count:)``).
struct KindIndex: Sendable {
  /// One document read now, as an entry to write.
  struct Entry: Sendable, Equatable {
    var stamp: FileStamp
    var parses: Bool
    /// Top-level members holding an object or array (not in the projection), comma-separated.
    var nonScalar: [UInt8]
    /// The document's top-level scalar members but sensitive ones, as compact JSON.
    var projection: [UInt8]
  }

  static let magic = Array("FORMSIDX".utf8)
  static let format: UInt32 = 4
  static let recordSize = 56

  /// The file's bytes (mapped; empty: no index). Whatever is read in place (a projection, a
  /// name) points into them: use it while the index is alive.
  private let storage: MappedFile
  private var bytes: UnsafeBufferPointer<UInt8> { storage.bytes }
  /// When the stats the entries hold were taken (ns since 1970).
  let writtenAt: Int64
  let count: Int
  /// The file's checksum: names this index (see ``ListingStamp``).
  let identity: UInt64
  /// True when every entry's name is the name of a document in the kind's directory itself
  /// (`ID.json`: no `/`, not hidden), as a listing of that directory gives: then the index may
  /// stand for the listing (see ``ListingStamp``).
  private(set) var namesAreFlat: Bool
  private let records: Int
  private let heap: Int

  /// An empty index.
  init() {
    storage = MappedFile(copying: [])
    writtenAt = 0
    count = 0
    identity = 0
    namesAreFlat = true
    records = 0
    heap = 0
  }

  /// The index in `bytes`, or nil when it cannot be trusted (another format or fingerprint, a
  /// bad checksum, a short file).
  init?(_ bytes: [UInt8], fingerprint: String) {
    self.init(MappedFile(copying: bytes), fingerprint: fingerprint)
  }

  /// `verify` false: the file is the one a record vouched for (the same stat), so its checksum
  /// and references were checked when it was written or first loaded.
  private init?(_ storage: MappedFile, fingerprint: String, verify: Bool = true) {
    let bytes = storage.bytes
    guard bytes.count > Self.magic.count + 8, bytes.starts(with: Self.magic),
      !verify || Self.checksum(bytes, count: bytes.count - 8) == Self.load(UInt64.self, bytes, at: bytes.count - 8)
    else { return nil }
    var offset = Self.magic.count
    guard Self.load(UInt32.self, bytes, at: offset) == Self.format else { return nil }
    writtenAt = Self.load(Int64.self, bytes, at: offset + 4)
    offset += 12
    let length = Int(Self.load(UInt16.self, bytes, at: offset))
    guard offset + 2 + length + 4 <= bytes.count,
      bytes[(offset + 2)..<(offset + 2 + length)].elementsEqual(fingerprint.utf8)
    else { return nil }
    offset += 2 + length
    count = Int(Self.load(UInt32.self, bytes, at: offset))
    identity = Self.load(UInt64.self, bytes, at: bytes.count - 8)
    records = offset + 4
    heap = records + count * Self.recordSize
    guard heap <= bytes.count - 8 else { return nil }
    self.storage = storage
    namesAreFlat = true
    guard verify else {
      namesAreFlat = false  // not looked at: the index does not stand for a listing
      return
    }
    // Every reference into the heap must lie inside it: a damaged length is refused here, once,
    // on every core. The names are looked at on the way.
    let unchecked = self
    let checked = parallelChunks(count: count, chunkSize: 1 << 16) { range in [unchecked.check(range)] }
    guard checked.allSatisfy(\.inside) else { return nil }
    namesAreFlat = checked.allSatisfy(\.flat)
  }

  /// Whether the references of entries `range` lie inside the heap, and whether their names are flat.
  private func check(_ range: Range<Int>) -> (inside: Bool, flat: Bool) {
    var flat = true
    let suffix = StoreLayout.documentSuffix.utf8
    for index in range {
      guard let name = self.range(nameAt: index), self.range(projectionAt: index) != nil,
        self.range(nonScalarAt: index) != nil
      else { return (false, false) }
      if flat {
        let name = bytes[name]
        flat =
          name.first != UInt8(ascii: ".") && !name.contains(where: { $0 == UInt8(ascii: "/") || $0 == 0 })
          && name.count > suffix.count && name.suffix(suffix.count).elementsEqual(suffix)
      }
    }
    return (true, flat)
  }

  /// The index at `path` (mapped, not copied), or nil when there is none or it cannot be trusted.
  /// `verify` false skips the checksum and the references (see ``init(_:fingerprint:verify:)``).
  static func load(_ path: FilePath, fingerprint: String, verify: Bool = true) throws(StoreError) -> KindIndex? {
    guard FileIO.entry(path) == .file, let mapped = try MappedFile(path) else { return nil }
    return KindIndex(mapped, fingerprint: fingerprint, verify: verify)
  }

  // MARK: - Reading an entry in place

  fileprivate static func load<T: FixedWidthInteger>(_: T.Type, _ bytes: UnsafeBufferPointer<UInt8>, at offset: Int)
    -> T
  {
    T(littleEndian: UnsafeRawBufferPointer(bytes).loadUnaligned(fromByteOffset: offset, as: T.self))
  }

  /// The entries read in place, with no reference counted on the way (a pass over a million
  /// entries reads them through this): valid while the index is alive.
  struct Reader: @unchecked Sendable {  // read only; the mapping outlives every use
    let bytes: UnsafeBufferPointer<UInt8>
    let records: Int
    let heap: Int

    func field<T: FixedWidthInteger>(_: T.Type, _ index: Int, _ offset: Int) -> T {
      KindIndex.load(T.self, bytes, at: records + index * KindIndex.recordSize + offset)
    }

    func range(_ offset: Int, _ length: Int) -> Range<Int>? {
      let start = heap + offset
      return start >= heap && start + length <= bytes.count - 8 ? start..<(start + length) : nil
    }

    func range(nameAt index: Int) -> Range<Int>? {
      range(Int(field(UInt32.self, index, 32)), Int(field(UInt16.self, index, 36)))
    }

    func range(projectionAt index: Int) -> Range<Int>? {
      range(Int(field(UInt32.self, index, 40)), Int(field(UInt32.self, index, 44)))
    }

    func range(nonScalarAt index: Int) -> Range<Int>? {
      range(Int(field(UInt32.self, index, 48)), Int(field(UInt16.self, index, 52)))
    }

    func slice(_ range: Range<Int>?) -> UnsafeBufferPointer<UInt8> {
      range.map { UnsafeBufferPointer(rebasing: bytes[$0]) } ?? UnsafeBufferPointer(start: nil, count: 0)
    }

    /// Entry `index`'s file name, relative to the kind's directory.
    func name(_ index: Int) -> String { String(decoding: slice(range(nameAt: index)), as: UTF8.self) }

    /// A hash of entry `index`'s name, read in place (``KindIndex/nameHash(_:)-(UnsafeBufferPointer<UInt8>)``).
    func nameHash(_ index: Int) -> UInt64 { KindIndex.nameHash(slice(range(nameAt: index))) }

    func parses(_ index: Int) -> Bool { bytes[records + index * KindIndex.recordSize + 38] & 1 != 0 }

    /// Entry `index`'s projection, in place.
    func projection(_ index: Int) -> UnsafeBufferPointer<UInt8> { slice(range(projectionAt: index)) }

    /// Entry `index`'s members that are not scalars, comma-separated, in place.
    func nonScalar(_ index: Int) -> UnsafeBufferPointer<UInt8> { slice(range(nonScalarAt: index)) }
  }

  var reader: Reader { Reader(bytes: bytes, records: records, heap: heap) }

  private func field<T: FixedWidthInteger>(_: T.Type, _ index: Int, _ offset: Int) -> T {
    reader.field(T.self, index, offset)
  }

  private func range(nameAt index: Int) -> Range<Int>? { reader.range(nameAt: index) }
  private func range(projectionAt index: Int) -> Range<Int>? { reader.range(projectionAt: index) }
  private func range(nonScalarAt index: Int) -> Range<Int>? { reader.range(nonScalarAt: index) }

  /// Entry `index`'s file name, relative to the kind's directory.
  func name(_ index: Int) -> String { reader.name(index) }

  /// A hash of entry `index`'s name, read in place (``nameHash(_:)`` of the name).
  func nameHash(_ index: Int) -> UInt64 { reader.nameHash(index) }

  /// FNV-1a of a name's bytes: finds the few names a query looks for among a million without
  /// making a string of each.
  static func nameHash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return hash
  }

  static func nameHash(_ name: String) -> UInt64 {
    var name = name
    return name.withUTF8 { nameHash($0) }
  }

  /// True when entry `index`'s name is `name` (compared in place).
  func isNamed(_ index: Int, _ name: String) -> Bool {
    guard let range = range(nameAt: index), range.count == name.utf8.count else { return false }
    var name = name
    return name.withUTF8 { bytes[range].elementsEqual($0) }
  }

  func stamp(_ index: Int) -> FileStamp {
    FileStamp(
      size: Int(field(Int64.self, index, 0)), mtimeNanoseconds: field(Int64.self, index, 8),
      ctimeNanoseconds: field(Int64.self, index, 16), inode: field(UInt64.self, index, 24))
  }

  func parses(_ index: Int) -> Bool { reader.parses(index) }

  /// Entry `index`'s projection, in place (valid while the index is alive).
  func projection(_ index: Int) -> UnsafeBufferPointer<UInt8> { reader.projection(index) }

  /// Entry `index`'s members that are not scalars, comma-separated, in place (valid while the
  /// index is alive).
  func nonScalar(_ index: Int) -> UnsafeBufferPointer<UInt8> { reader.nonScalar(index) }

  /// Entry `index` as an entry to write again.
  func entry(_ index: Int) -> Entry {
    Entry(
      stamp: stamp(index), parses: parses(index), nonScalar: Array(nonScalar(index)),
      projection: Array(projection(index)))
  }

  /// True when entry `index` may be trusted for a file whose stat is `stamp`: the same stamp,
  /// and modified more than `racyWindow` nanoseconds before the index's stats were taken.
  func trusts(_ index: Int, for stamp: FileStamp, racyWindow: Int64) -> Bool {
    self.stamp(index) == stamp && stamp.isSettled(at: writtenAt, racyWindow: racyWindow)
  }

  // MARK: - Writing

  /// The entry for a document read now: its projection without `sensitive` members.
  static func entry(_ bytes: [UInt8], stamp: FileStamp, sensitive: Set<String>) -> Entry {
    // The top level only, containers skipped (checked, not built); anything unusual goes the long way.
    if let (scalars, containers) = JSONParser().parseTopLevelScalars(bytes, excluding: sensitive) {
      return Entry(
        stamp: stamp, parses: true, nonScalar: Array(containers.joined(separator: ",").utf8),
        projection: Array(JSONWriter.compact(.object(scalars)).utf8))
    }
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
      stamp: stamp, parses: true, nonScalar: Array(nonScalar.joined(separator: ",").utf8),
      projection: Array(JSONWriter.compact(.object(projection)).utf8))
  }

  /// The bytes of an index of `entries` (by name) whose stats were taken at `writtenAt`.
  static func encode(_ entries: [(name: String, entry: Entry)], writtenAt: Int64, fingerprint: String) -> [UInt8] {
    var out = magic
    func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { out += $0 } }
    append(format)
    append(writtenAt)
    append(UInt16(clamping: fingerprint.utf8.count))
    out += fingerprint.utf8.prefix(Int(UInt16.max))
    append(UInt32(entries.count))
    var heap: [UInt8] = []
    for (name, entry) in entries {
      append(Int64(entry.stamp.size))
      append(entry.stamp.mtimeNanoseconds)
      append(entry.stamp.ctimeNanoseconds)
      append(entry.stamp.inode)
      let nameBytes = Array(name.utf8.prefix(Int(UInt16.max)))
      append(UInt32(heap.count))
      append(UInt16(nameBytes.count))
      heap += nameBytes
      out += [entry.parses ? 1 : 0, 0]
      append(UInt32(heap.count))
      append(UInt32(entry.projection.count))
      heap += entry.projection
      let nonScalar = entry.nonScalar.prefix(Int(UInt16.max))
      append(UInt32(heap.count))
      append(UInt16(nonScalar.count))
      heap += nonScalar
      out += [0, 0]
    }
    out += heap
    append(checksum(out, count: out.count))
    return out
  }

  /// The ``identity`` of the index whose bytes ``encode(_:writtenAt:fingerprint:)`` gave: their checksum.
  static func identity(of encoded: [UInt8]) -> UInt64 {
    encoded.withUnsafeBufferPointer { load(UInt64.self, $0, at: $0.count - 8) }
  }

  /// Blocks of this many bytes are hashed apart, on every core (see ``checksum(_:count:)``).
  static let checksumBlock = 1 << 20

  /// FNV-1a over the first `count` bytes, block by block (``checksumBlock``) on every core, the
  /// blocks' hashes folded in order: finds a torn or damaged file, not an adversary (the index is
  /// a cache). A file of one block is hashed as that block.
  static func checksum(_ bytes: [UInt8], count: Int) -> UInt64 {
    bytes.withUnsafeBufferPointer { checksum($0, count: count) }
  }

  static func checksum(_ bytes: UnsafeBufferPointer<UInt8>, count: Int) -> UInt64 {
    guard count > checksumBlock else {
      return blockChecksum(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[0..<count])))
    }
    // Read only, and alive until the blocks are hashed (the call returns when they are).
    nonisolated(unsafe) let whole = UnsafeRawBufferPointer(bytes)
    let blocks = (count + checksumBlock - 1) / checksumBlock
    let hashes = parallelChunks(count: blocks, chunkSize: 4) { range in
      range.map { block in
        blockChecksum(
          UnsafeRawBufferPointer(rebasing: whole[(block * checksumBlock)..<min(count, (block + 1) * checksumBlock)]))
      }
    }
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for block in hashes { hash = (hash ^ block) &* 0x100_0000_01b3 }
    return hash
  }

  /// FNV-1a over 64-bit words in four interleaved lanes (word k to lane k mod 4, so the
  /// multiplications of a lane do not wait on the others'), the lanes folded into one, then the
  /// tail's words and bytes.
  private static func blockChecksum(_ raw: UnsafeRawBufferPointer) -> UInt64 {
    let (basis, prime): (UInt64, UInt64) = (0xcbf2_9ce4_8422_2325, 0x100_0000_01b3)
    let count = raw.count
    func word(_ offset: Int) -> UInt64 { raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self) }
    var (a, b, c, d) = (basis, basis ^ 1, basis ^ 2, basis ^ 3)
    var offset = 0
    while offset + 32 <= count {
      a = (a ^ word(offset)) &* prime
      b = (b ^ word(offset + 8)) &* prime
      c = (c ^ word(offset + 16)) &* prime
      d = (d ^ word(offset + 24)) &* prime
      offset += 32
    }
    var hash = a
    for lane in [b, c, d] { hash = (hash ^ lane) &* prime }
    while offset + 8 <= count {
      hash = (hash ^ word(offset)) &* prime
      offset += 8
    }
    while offset < count {
      hash = (hash ^ UInt64(raw[offset])) &* prime
      offset += 1
    }
    return hash
  }
}
