import FormsCore
import Foundation

/// A line of the hash cache as read: its bytes (without the line break) and its fields.
struct CacheLine: Sendable {
  let bytes: [UInt8]
  let stamp: FileStamp
  let schemaRange: Range<Int>
  let pathRange: Range<Int>

  var sha: ArraySlice<UInt8> { bytes[0..<64] }
  var schema: [UInt8]? { schemaRange.isEmpty ? nil : Array(bytes[schemaRange]) }

  /// `sha \t size \t mtime \t ctime \t inode \t schema \t path`; nil when it does not read so.
  init?(_ bytes: [UInt8]) {
    var fields: [Range<Int>] = []
    var start = 0
    for k in bytes.indices where bytes[k] == 0x09 && fields.count < 6 {
      fields.append(start..<k)
      start = k + 1
    }
    fields.append(start..<bytes.count)
    func number(_ range: Range<Int>) -> Int64? {
      guard !range.isEmpty else { return nil }
      var value: Int64 = 0
      for k in range {
        guard bytes[k] >= 48 && bytes[k] <= 57 else { return nil }
        let (times, over) = value.multipliedReportingOverflow(by: 10)
        let (sum, past) = times.addingReportingOverflow(Int64(bytes[k] - 48))
        guard !over, !past else { return nil }
        value = sum
      }
      return value
    }
    guard fields.count == 7, fields[0].count == 64, let size = number(fields[1]), let mtime = number(fields[2]),
      let ctime = number(fields[3]), let inode = number(fields[4]), !fields[6].isEmpty
    else { return nil }
    self.bytes = bytes
    stamp = FileStamp(size: Int(size), mtimeNanoseconds: mtime, ctimeNanoseconds: ctime, inode: UInt64(inode))
    schemaRange = fields[5]
    pathRange = fields[6]
  }
}

/// The previous snapshot's hash cache (see `HashCache`), read a block at a time in the order a
/// snapshot walks the store: `entry(for:)` is asked in that order and moves forward only. A cache
/// in another order, or damaged, only costs reads: a file without its line is hashed again.
/// One thread uses it at a time: a snapshot hands it to the thread that reads ahead for the next
/// block while the current one is copied, and waits for that thread before going on.
final class CacheReader: @unchecked Sendable {
  /// The snapshot the lines describe; empty when there is no usable cache.
  private(set) var snapshot = ""
  private(set) var writtenAtNanoseconds: Int64 = 0
  private var fd: Int32 = -1
  private var path = ""
  private var buffer: [UInt8] = []
  private var position = 0
  private var ended = false
  private var pending: CacheLine?

  /// Reads the cache at `path`; missing, unreadable or of another format, it has no lines (only a
  /// cache, docs/design.md §13: it never fails a snapshot).
  init(path: String) {
    fd = POSIX.open(path, O_RDONLY | O_CLOEXEC)
    self.path = path
    ended = fd < 0
    readHeader()
  }

  /// The lines in `bytes` (a cache made from a manifest).
  init(bytes: [UInt8]) {
    buffer = bytes
    ended = true
    readHeader()
  }

  deinit { if fd >= 0 { close(fd) } }

  private func readHeader() {
    // `# v3 WRITTEN SNAPSHOT`
    guard let header = nextLine(), header.starts(with: Array("# v3 ".utf8)) else { return finish() }
    let fields = header.dropFirst(5).split(separator: 0x20, maxSplits: 1)
    guard fields.count == 2, let written = Int64(String(decoding: fields[0], as: UTF8.self)) else { return finish() }
    writtenAtNanoseconds = written
    snapshot = String(decoding: fields[1], as: UTF8.self)
    pending = nextEntry()
  }

  private func finish() {
    snapshot = ""
    ended = true
    buffer = []
    position = 0
  }

  /// The line for `path` (the path inside the snapshot), when the cache has one.
  func entry(for path: [UInt8]) -> CacheLine? {
    while let line = pending {
      let order = line.bytes.withUnsafeBufferPointer { b in
        path.withUnsafeBufferPointer { p -> Int in
          let own = UnsafeBufferPointer(rebasing: b[line.pathRange])
          if FileIO.walkOrder(own, p) { return -1 }
          return own.elementsEqual(p) ? 0 : 1
        }
      }
      if order > 0 { return nil }
      pending = nextEntry()
      if order == 0 { return line }
    }
    return nil
  }

  private func nextEntry() -> CacheLine? {
    while let bytes = nextLine() {
      if let line = CacheLine(bytes) { return line }
    }
    return nil
  }

  private func nextLine() -> [UInt8]? {
    while true {
      if let end = buffer[position...].firstIndex(of: 0x0A) {
        defer { position = end + 1 }
        return Array(buffer[position..<end])
      }
      if ended {
        guard position < buffer.count else { return nil }
        defer { position = buffer.count }
        return Array(buffer[position...])
      }
      buffer.removeSubrange(0..<position)
      position = 0
      let had = buffer.count
      buffer += repeatElement(0, count: 1 << 20)
      let n = buffer.withUnsafeMutableBytes { POSIX.read(fd, $0.baseAddress.map { $0 + had }, 1 << 20, path: path) }
      // Only a cache: what cannot be read ends it (the files after are hashed again).
      buffer.removeSubrange((had + max(n, 0))...)
      if n <= 0 { ended = true }
    }
  }
}

/// A file written through a buffer of a megabyte (no sync of its own: the snapshot makes what it
/// wrote durable together, file by file or by one syncfs); created, so it must not exist.
final class BufferedFile {
  let path: String
  private var fd: Int32
  private var buffer: [UInt8] = []

  init(creating path: String, mode: mode_t = 0o644) throws(StoreError) {
    self.path = path
    fd = POSIX.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
    guard fd >= 0 else { throw StoreError.io(path, operation: "create", errno: Errno(errno)) }
    buffer.reserveCapacity(1 << 20 + 4096)
  }

  deinit { if fd >= 0 { Foundation.close(fd) } }

  func append(_ bytes: [UInt8]) { buffer += bytes }

  func flushIfFull() throws(StoreError) {
    if buffer.count >= 1 << 20 { try flush() }
  }

  func flush() throws(StoreError) {
    try writeAll(fd, buffer, path: path)
    buffer.removeAll(keepingCapacity: true)
  }

  func close() throws(StoreError) {
    try flush()
    Foundation.close(fd)
    fd = -1
  }
}
