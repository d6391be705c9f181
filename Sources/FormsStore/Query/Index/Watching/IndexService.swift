import Dispatch
import FormsCore
import Foundation
import Synchronization

/// `formsctl watch --serve-index`: an ``IndexWatcher`` answering the store's short-lived
/// commands over `.formsctl/watcher/socket` (decision 0120).
///
/// The protocol is one line of compact JSON each way: `{"kind": K, "directory": ITS DIRECTORY,
/// "since": TOKEN or null}`,
/// answered `{"token": T, "changed": [NAMES]}` or `{"token": T, "everything": WHY}` (or
/// `{"error": WHY}`). The socket and its directory are the store owner's alone (mode 0600 in a
/// 0700 directory, never a link), and a connection from another user is closed unanswered. A
/// request is at most 4 KiB and must come within 5 s; at most 32 connections are served at once.
package final class IndexService: Sendable {
  package let watcher: IndexWatcher
  package let socketPath: FilePath
  private let listener = Mutex<Int32>(-1)
  private let socketInode: UInt64
  private let connections = Atomic<Int>(0)

  static let requestLimit = 4096
  static let connectionLimit = 32
  static let requestWait = Duration.seconds(5)

  /// Starts the watcher and listens. Refuses (75) when another watcher answers on the socket.
  package init(layout: StoreLayout, registry: SchemaRegistry, options: IndexWatcher.Options) throws(StoreError) {
    let path = layout.watcherDirectory / "socket"
    socketPath = path
    // Its directory is the store's own: never a link (a socket is not looked for through one).
    let directory = FileIO.entry(layout.watcherDirectory)
    guard directory == .directory || directory == .missing else {
      throw StoreError.wrongFileType(
        layout.watcherDirectory.string, found: FileIO.describe(layout.watcherDirectory), expected: "a directory")
    }
    switch FileIO.entry(path) {
    case .missing: break
    case .other:
      let fd = UnixSocket.connect(path)
      if fd >= 0 {
        close(fd)
        throw StoreError.watcherRunning(socket: path.string)
      }
      // A socket left by a watcher that died: nobody answers on it.
      guard POSIX.unlink(path) == 0 else { throw StoreError.io(path.string, operation: "unlink", errno: Errno(errno)) }
    default:
      throw StoreError.wrongFileType(path.string, found: FileIO.describe(path), expected: "a socket")
    }
    // The watcher makes .formsctl/watcher/ (mode 0700, not a link) before the socket is bound in it.
    watcher = try IndexWatcher(layout: layout, registry: registry, options: options)
    let fd = UnixSocket.make()
    guard fd >= 0 else { throw StoreError.io(path.string, operation: "socket", errno: Errno(errno)) }
    // Made with no permission for anyone else from the start (the umask), then listened on.
    let mask = umask(0o177)
    let bound = UnixSocket.withAddress(of: path) { bind(fd, $0, $1) }
    let code = errno
    umask(mask)
    guard bound == 0, listen(fd, 64) == 0 else {
      close(fd)
      // Another watcher started at the same moment bound it first.
      if bound != 0 && code == EADDRINUSE { throw StoreError.watcherRunning(socket: path.string) }
      throw StoreError.io(path.string, operation: "bind", errno: Errno(bound == 0 ? errno : code))
    }
    listener.withLock { $0 = fd }
    socketInode = FileStamp(notFollowing: path)?.inode ?? 0
  }

  deinit { shutDown() }

  /// Stops listening, removes the socket (only while it is still this watcher's) and stops the watcher.
  private func shutDown() {
    listener.withLock { fd in
      guard fd >= 0 else { return }
      close(fd)
      fd = -1
      if FileStamp(notFollowing: socketPath)?.inode == socketInode { _ = POSIX.unlink(socketPath) }
    }
    watcher.stop()
  }

  /// Accepts and answers connections until `cancellation`; each is served on a thread of its own.
  package func run(until cancellation: WatchCancellation) throws(StoreError) {
    defer { shutDown() }
    let listener = self.listener.withLock { $0 }
    while !cancellation.isCancelled {
      var polled = [
        pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
        pollfd(fd: cancellation.descriptor, events: Int16(POLLIN), revents: 0),
      ]
      let ready = poll(&polled, 2, 1000)
      if ready < 0 {
        guard errno == EINTR else { throw StoreError.io(socketPath.string, operation: "poll", errno: Errno(errno)) }
        continue
      }
      if let ended = watcher.ended {
        throw StoreError.io(socketPath.string, operation: "watch (\(ended))", errno: Errno(EIO))
      }
      guard polled[0].revents != 0 else { continue }
      let client = accept(listener, nil, nil)
      guard client >= 0 else { continue }  // the client gave up before it was accepted
      _ = fcntl(client, F_SETFD, FD_CLOEXEC)
      guard UnixSocket.peerUser(client) == getuid(),
        connections.add(1, ordering: .relaxed).newValue <= Self.connectionLimit
      else {
        if UnixSocket.peerUser(client) == getuid() { connections.subtract(1, ordering: .relaxed) }
        close(client)
        continue
      }
      DispatchQueue.global().async { [self] in
        serve(client)
        close(client)
        connections.subtract(1, ordering: .relaxed)
      }
    }
  }

  /// Answers the requests of one connection until it ends, is silent for 5 s, or sends too much.
  private func serve(_ fd: Int32) {
    var buffer: [UInt8] = []
    while let line = UnixSocket.line(fd, &buffer, limit: Self.requestLimit, until: .now + Self.requestWait) {
      let reply: JSONValue
      if line.count > Self.requestLimit {
        reply = .object(JSONObject(["error": .string("a request is at most \(Self.requestLimit) bytes")]))
      } else if let request = try? JSONParser().parse(line), let kind = request["kind"]?.stringValue,
        let directory = request["directory"]?.stringValue, kind.utf8.count <= 256,
        request["since"] == nil || request["since"] == .null || request["since"]?.stringValue != nil
      {
        let since = request["since"]?.stringValue
        reply =
          watcher.changes(kind: kind, directory: directory, since: since)?.json
          ?? .object(JSONObject(["error": .string("the watcher stopped")]))
      } else {
        reply = .object(
          JSONObject(["error": .string(#"a request is {"kind": KIND, "directory": PATH, "since": TOKEN or null}"#)]))
      }
      guard UnixSocket.send(fd, Array((JSONWriter.compact(reply) + "\n").utf8), until: .now + Self.requestWait),
        reply["error"] == nil
      else { return }
    }
  }
}
