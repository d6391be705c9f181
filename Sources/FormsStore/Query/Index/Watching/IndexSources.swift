import FormsCore
import Foundation
import Synchronization

/// The store's watcher over its socket (`formsctl watch --serve-index`), for a short-lived
/// command: connected at the first query, once, and given up on for the rest of the process at
/// the first thing that is not a prompt, well-formed answer (no socket, a socket that is not
/// the store owner's, no answer within `timeout`). Records are kept in `.formsctl/index/KIND.watch`.
final class SocketIndexSource: IndexChangeSource {
  private let layout: StoreLayout
  private let timeout: Duration
  private enum Connection {
    case untried
    case open(Int32, buffer: [UInt8])
    case failed
  }
  private let connection = Mutex<Connection>(.untried)

  /// Replies are at most this long (the watcher forgets names past 65,536 per directory).
  static let replyLimit = 64 << 20

  init(layout: StoreLayout, timeout: Duration) {
    self.layout = layout
    self.timeout = timeout
  }

  deinit {
    connection.withLock { if case .open(let fd, _) = $0 { close(fd) } }
  }

  func changes(kind: String, directory: String, since token: String?) -> IndexChanges? {
    connection.withLock { connection -> IndexChanges? in
      if case .untried = connection { connection = connect().map { .open($0, buffer: []) } ?? .failed }
      guard case .open(let fd, var buffer) = connection else { return nil }
      let deadline = ContinuousClock.now + timeout
      let since: JSONValue = token.map { .string($0) } ?? .null
      let request = JSONValue.object(
        JSONObject(["kind": .string(kind), "directory": .string(directory), "since": since]))
      guard UnixSocket.send(fd, Array((JSONWriter.compact(request) + "\n").utf8), until: deadline),
        let line = UnixSocket.line(fd, &buffer, limit: Self.replyLimit, until: deadline),
        let value = try? JSONParser().parse(line), let answer = IndexChanges(value)
      else {
        close(fd)
        connection = .failed
        return nil
      }
      connection = .open(fd, buffer: buffer)
      return answer
    }
  }

  /// A connection to the store's watcher, when its socket is there, is the store owner's, and
  /// answers; nil otherwise.
  private func connect() -> Int32? {
    let directory = layout.watcherDirectory
    let path = directory / "socket"
    var info = stat()
    // The directory and the socket: no link, the owner's own, nobody else may write to them.
    guard lstat(directory.string, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == getuid(),
      info.st_mode & 0o022 == 0, lstat(path.string, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK,
      info.st_uid == getuid()
    else { return nil }
    let fd = UnixSocket.connect(path)
    guard fd >= 0 else { return nil }
    guard UnixSocket.peerUser(fd) == getuid() else {
      close(fd)
      return nil
    }
    return fd
  }

  func record(kind: String) -> WatchRecord? {
    do throws(StoreError) { return try WatchRecord.load(recordPath(kind)) } catch {
      return nil  // A cache: without it, the query checks every file once.
    }
  }

  func save(_ record: WatchRecord, kind: String) {
    let path = recordPath(kind)
    do throws(StoreError) {
      try FileIO.makeDirectories(path.parent)
      try AtomicWriter(boundary: layout.state).write(Array(JSONWriter.compact(record.json).utf8), to: path)
    } catch {
      // Deliberately not an error: a cache that cannot be saved costs the next query a full check.
      return
    }
  }

  private func recordPath(_ kind: String) -> FilePath { layout.indexDirectory / (kind + ".watch") }
}

/// A watcher of this process's own (`formsctl serve`, `formsctl watch --query`, `formsctl lsp`):
/// started at the first query, stopped with the store. Records are kept in memory.
final class ProcessIndexSource: IndexChangeSource {
  private let layout: StoreLayout
  private let registry: SchemaRegistry
  private let options: IndexWatcher.Options
  private let state = Mutex<(watcher: IndexWatcher?, failed: Bool, records: [String: WatchRecord])>((nil, false, [:]))

  init(layout: StoreLayout, registry: SchemaRegistry, options: IndexWatcher.Options) {
    self.layout = layout
    self.registry = registry
    self.options = options
  }

  deinit { state.withLock { $0.watcher?.stop() } }

  /// The watcher, started now when it is not yet; nil when it cannot be (no inotify instance left).
  var watcher: IndexWatcher? {
    state.withLock { state in
      if state.watcher == nil && !state.failed {
        do throws(StoreError) {
          state.watcher = try IndexWatcher(layout: layout, registry: registry, options: options)
        } catch {
          options.report("the index is not watched: \(error.description)")
          state.failed = true
        }
      }
      return state.watcher
    }
  }

  func changes(kind: String, directory: String, since token: String?) -> IndexChanges? {
    watcher?.changes(kind: kind, directory: directory, since: token)
  }

  func record(kind: String) -> WatchRecord? { state.withLock { $0.records[kind] } }

  func save(_ record: WatchRecord, kind: String) { state.withLock { $0.records[kind] = record } }
}
