import FormsCore
import Foundation

/// `.formsctl/index/KIND.log`: what changed since the index (`KIND.idx`) was last written whole,
/// one line per document, so that a write updates the index inside its commit without rewriting
/// it (at a million documents the index is about 100 MB), and a reader that had to read a few
/// files again notes them the same way.
///
/// A line is compact JSON: `{"f": fingerprint, "n": name, "t": when its stat was taken (ns),
/// "s", "m", "c", "i": the stat, "p": 1 when it parses, "x": its members that are not scalars,
/// "j": its projection}`, or `{"f", "n", "t", "d": 1}` for a file that is gone. The last line for
/// a name wins. An entry is trusted as the index's are (the same stat, modified more than the
/// racy window before `t`), so a line is a cache, never the truth: a line that does not parse (a
/// torn append) or carries another fingerprint is skipped. Appends are one `write` each, without
/// fsync; a lost line costs one file read.
enum IndexLog {
  /// One document's line: its entry, or nil when the file is gone.
  struct Line: Sendable {
    var name: String
    var entry: KindIndex.Entry?
    /// When the stat was taken (ns since 1970): the racy window is counted back from it.
    var at: Int64

    /// The entry, when this line may stand for a file whose stat is `stamp` (see ``KindIndex/trusts``).
    func trusted(for stamp: FileStamp, racyWindow: Int64) -> KindIndex.Entry? {
      guard let entry, entry.stamp == stamp, stamp.isSettled(at: at, racyWindow: racyWindow)
      else { return nil }
      return entry
    }
  }

  /// The log is folded into the index once it holds more lines than this (or than an eighth of
  /// the documents).
  static func foldThreshold(documents: Int) -> Int { max(1_000, documents / 8) }

  /// The lines at `path` with `fingerprint`, the last per name, and the file's size in bytes (0
  /// when there is none).
  static func load(_ path: FilePath, fingerprint: String) throws(StoreError) -> (lines: [String: Line], size: Int) {
    let bytes = try read(path)
    return (lines(bytes[...], fingerprint: fingerprint), bytes.count)
  }

  /// The log's bytes (none when there is no log).
  static func read(_ path: FilePath) throws(StoreError) -> [UInt8] {
    guard FileIO.entry(path) == .file else { return [] }
    return try FileIO.read(path, followLinks: false)
  }

  /// The lines in `bytes` with `fingerprint`, the last per name.
  static func lines(_ bytes: ArraySlice<UInt8>, fingerprint: String) -> [String: Line] {
    var lines: [String: Line] = [:]
    for text in bytes.split(separator: UInt8(ascii: "\n")) {
      guard let value = try? JSONParser().parse(Array(text)), let line = Self.line(value, fingerprint: fingerprint)
      else { continue }
      lines[line.name] = line
    }
    return lines
  }

  /// How many bytes of `bytes` are whole lines (up to the last newline): a line being appended
  /// while the log was read belongs to what comes after.
  static func wholeLines(_ bytes: [UInt8]) -> Int { (bytes.lastIndex(of: UInt8(ascii: "\n")) ?? -1) + 1 }

  /// Appends `lines` in one write. The directory is made when missing.
  static func append(_ lines: [Line], fingerprint: String, to path: FilePath) throws(StoreError) {
    guard !lines.isEmpty else { return }
    let text = lines.map { JSONWriter.compact(json($0, fingerprint: fingerprint)) + "\n" }.joined()
    try FileIO.makeDirectories(path.parent)
    let fd = POSIX.open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw StoreError.io(path.string, operation: "open", errno: Errno(errno)) }
    defer { close(fd) }
    try writeAll(fd, Array(text.utf8), path: path)
  }

  static func json(_ line: Line, fingerprint: String) -> JSONValue {
    var object = JSONObject([
      "f": .string(fingerprint), "n": .string(line.name), "t": .number(JSONNumber(Int(line.at))),
    ])
    guard let entry = line.entry else {
      object["d"] = .number(JSONNumber(1))
      return .object(object)
    }
    object["s"] = .number(JSONNumber(entry.stamp.size))
    object["m"] = .number(JSONNumber(Int(entry.stamp.mtimeNanoseconds)))
    object["c"] = .number(JSONNumber(Int(entry.stamp.ctimeNanoseconds)))
    object["i"] = .number(JSONNumber(Int(Int64(bitPattern: entry.stamp.inode))))
    object["p"] = .number(JSONNumber(entry.parses ? 1 : 0))
    object["x"] = .string(String(decoding: entry.nonScalar, as: UTF8.self))
    object["j"] = .string(String(decoding: entry.projection, as: UTF8.self))
    return .object(object)
  }

  static func line(_ value: JSONValue, fingerprint: String) -> Line? {
    func number(_ key: String) -> Int64? { value[key]?.numberValue.flatMap { Int64($0.text) } }
    guard value["f"]?.stringValue == fingerprint, let name = value["n"]?.stringValue, let at = number("t") else {
      return nil
    }
    if value["d"] != nil { return Line(name: name, entry: nil, at: at) }
    guard let size = number("s"), let mtime = number("m"), let ctime = number("c"), let inode = number("i"),
      let parses = number("p"), let nonScalar = value["x"]?.stringValue, let projection = value["j"]?.stringValue
    else { return nil }
    let stamp = FileStamp(
      size: Int(size), mtimeNanoseconds: mtime, ctimeNanoseconds: ctime, inode: UInt64(bitPattern: inode))
    return Line(
      name: name,
      entry: KindIndex.Entry(
        stamp: stamp, parses: parses == 1, nonScalar: Array(nonScalar.utf8), projection: Array(projection.utf8)),
      at: at)
  }
}
