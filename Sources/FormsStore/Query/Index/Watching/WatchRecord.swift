import FormsCore
import Foundation

/// What a query through a watcher leaves for the next one (`.formsctl/index/KIND.watch` for the
/// store's watcher; in memory for a watcher in the process): the watcher's token it started
/// from, and the index files it found exact then. The next query trusts, without `stat`ing, the
/// entry of every file the watcher says did not change since the token, but only while the
/// index is the same file (`index`, `indexStamp`) and the log starts with the same `logSize`
/// bytes (`logChecksum`); lines appended to the log since, and the files the watcher names, are
/// checked as every file is without a watcher. The record names the kind's directory the pass
/// listed: a watcher goes on answering for the directory it watches, so a record made while the
/// descriptors or the manifest placed the kind elsewhere (whose index is that directory's) is
/// never trusted for this one. A cache: a record that does not parse, or does not match, costs one
/// full check.
package struct WatchRecord: Sendable, Equatable {
  /// The watcher's token when the pass that made this record started.
  var token: String
  /// The kind's directory the pass read (the index is this directory's).
  var directory: String
  /// The index's identity (0: no index was used).
  var index: UInt64
  /// The index file's stat when the record was made (nil: none).
  var indexStamp: FileStamp?
  /// The log's first `logSize` bytes, whose checksum is `logChecksum`, are exact.
  var logSize: Int
  var logChecksum: UInt64
  /// Names in the directory that are not regular files (as a listing reports them), full paths.
  var irregular: [String]
  /// When the pass started (ns since 1970): an index file changed within the racy window of it
  /// is checked whole again before it is trusted.
  var at: Int64

  /// At most this many irregular names are kept; with more, no record is made.
  static let irregularLimit = 1_000

  var json: JSONValue {
    var object = JSONObject([
      "token": .string(token), "directory": .string(directory), "index": .string(String(index)),
      "log_size": .number(JSONNumber(logSize)),
      "log_checksum": .string(String(logChecksum)), "irregular": .array(irregular.map { .string($0) }),
      "at": .number(JSONNumber(Int(at))),
    ])
    if let indexStamp {
      object["index_stamp"] = .array(
        [
          String(indexStamp.size), String(indexStamp.mtimeNanoseconds), String(indexStamp.ctimeNanoseconds),
          String(indexStamp.inode),
        ].map { .string($0) })
    }
    return .object(object)
  }

  init(
    token: String, directory: String, index: UInt64, indexStamp: FileStamp?, logSize: Int, logChecksum: UInt64,
    irregular: [String],
    at: Int64
  ) {
    self.token = token
    self.directory = directory
    self.index = index
    self.indexStamp = indexStamp
    self.logSize = logSize
    self.logChecksum = logChecksum
    self.irregular = irregular
    self.at = at
  }

  /// The record in `value`; nil when it is not one.
  init?(_ value: JSONValue) {
    guard let token = value["token"]?.stringValue, let directory = value["directory"]?.stringValue,
      let index = value["index"]?.stringValue.flatMap({ UInt64($0) }),
      let logSize = value["log_size"]?.numberValue.flatMap({ Int($0.text) }), logSize >= 0,
      let logChecksum = value["log_checksum"]?.stringValue.flatMap({ UInt64($0) }),
      let irregular = value["irregular"]?.arrayValue?.compactMap(\.stringValue),
      let at = value["at"]?.numberValue.flatMap({ Int64($0.text) })
    else { return nil }
    var stamp: FileStamp?
    if let parts = value["index_stamp"]?.arrayValue?.compactMap(\.stringValue) {
      guard parts.count == 4, let size = Int(parts[0]), let mtime = Int64(parts[1]), let ctime = Int64(parts[2]),
        let inode = UInt64(parts[3])
      else { return nil }
      stamp = FileStamp(size: size, mtimeNanoseconds: mtime, ctimeNanoseconds: ctime, inode: inode)
    }
    self.init(
      token: token, directory: directory, index: index, indexStamp: stamp, logSize: logSize, logChecksum: logChecksum,
      irregular: irregular, at: at)
  }

  /// The record at `path`; nil when there is none or it is not one.
  static func load(_ path: FilePath) throws(StoreError) -> WatchRecord? {
    guard FileIO.entry(path) == .file else { return nil }
    let bytes = try FileIO.read(path, limit: 1 << 20, followLinks: false)
    guard let value = try? JSONParser().parse(bytes) else { return nil }
    return WatchRecord(value)
  }
}
