import FormsCore
import Foundation
import Synchronization

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
/// A snapshot asks it from the thread that reads ahead for the next block while the current one
/// is copied; its reading position is behind a `Mutex`, so that is safe by construction.
final class CacheReader: Sendable {
  /// The snapshot the lines describe; empty when there is no usable cache.
  let snapshot: String
  let writtenAtNanoseconds: Int64
  private let lines: Mutex<Lines>

  /// Reads the cache at `path`; missing, unreadable or of another format, it has no lines (only a
  /// cache, docs/design.md §13: it never fails a snapshot).
  convenience init(path: FilePath) {
    let fd = POSIX.open(path, O_RDONLY | O_CLOEXEC)
    self.init(Lines(fd: fd, path: path, ended: fd < 0))
  }

  /// The lines in `bytes` (a cache made from a manifest).
  convenience init(bytes: [UInt8]) {
    self.init(Lines(fd: -1, path: FilePath(""), buffer: bytes, ended: true))
  }

  private init(_ source: consuming Lines) {
    var source = source
    // `# v3 WRITTEN SNAPSHOT`
    let header = source.nextLine()
    let fields = header.map { $0.dropFirst(5).split(separator: 0x20, maxSplits: 1) } ?? []
    if let header, header.starts(with: Array("# v3 ".utf8)), fields.count == 2,
      let written = Int64(String(decoding: fields[0], as: UTF8.self))
    {
      writtenAtNanoseconds = written
      snapshot = String(decoding: fields[1], as: UTF8.self)
      source.pending = source.nextEntry()
    } else {
      writtenAtNanoseconds = 0
      snapshot = ""
      source.finish()
    }
    lines = Mutex(source)
  }

  /// The line for `path` (the path inside the snapshot), when the cache has one.
  func entry(for path: [UInt8]) -> CacheLine? {
    lines.withLock { $0.entry(for: path) }
  }

  /// The cache's file, read forward a megabyte at a time.
  private struct Lines: ~Copyable {
    let fd: Int32
    let path: FilePath
    var buffer: [UInt8] = []
    var position = 0
    var ended: Bool
    var pending: CacheLine?

    init(fd: Int32, path: FilePath, buffer: [UInt8] = [], ended: Bool) {
      self.fd = fd
      self.path = path
      self.buffer = buffer
      self.ended = ended
    }

    deinit { if fd >= 0 { close(fd) } }

    mutating func finish() {
      ended = true
      buffer = []
      position = 0
    }

    mutating func entry(for path: [UInt8]) -> CacheLine? {
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

    mutating func nextEntry() -> CacheLine? {
      while let bytes = nextLine() {
        if let line = CacheLine(bytes) { return line }
      }
      return nil
    }

    mutating func nextLine() -> [UInt8]? {
      while true {
        let start = position
        let newline = buffer.withUnsafeBufferPointer { all -> Int? in
          guard start < all.count, let base = all.baseAddress,
            let found = memchr(base + start, 0x0A, all.count - start)
          else { return nil }
          return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
        if let end = newline {
          position = end + 1
          return Array(buffer[start..<end])
        }
        if ended {
          guard start < buffer.count else { return nil }
          position = buffer.count
          return Array(buffer[start...])
        }
        buffer.removeSubrange(0..<start)
        position = 0
        // Read into new capacity, never filled first: a megabyte of zeros a read costs more than
        // the read (in a debug build, much more).
        var n = 0
        let chunk = [UInt8](unsafeUninitializedCapacity: 1 << 20) { bytes, count in
          n = POSIX.read(fd, bytes.baseAddress, bytes.count, path: path)
          count = max(n, 0)
        }
        buffer += chunk
        // Only a cache: what cannot be read ends it (the files after are hashed again).
        if n <= 0 { ended = true }
      }
    }
  }
}

/// A file written through a buffer of a megabyte (no sync of its own: the snapshot makes what it
/// wrote durable together, file by file or by one syncfs); created, so it must not exist.
final class BufferedFile {
  let path: FilePath
  private var fd: Int32
  private var buffer: [UInt8] = []

  init(creating path: FilePath, mode: mode_t = 0o644) throws(StoreError) {
    self.path = path
    fd = POSIX.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
    guard fd >= 0 else { throw StoreError.io(path.string, operation: "create", errno: Errno(errno)) }
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
