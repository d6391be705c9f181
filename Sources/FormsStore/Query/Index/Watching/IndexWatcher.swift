import Dispatch
import FormsCore
import Foundation
import Synchronization

/// Keeps, for each kind's directory, which files changed since which moment, so that a query
/// need not `stat` the files that did not (decision 0120). One inotify watch per directory of
/// the documents (each kind's directory and those below it), the directories above them, and
/// `.formsctl/watcher/` where the cookies are made.
///
/// It vouches for an answer only as Watchman and git's fsmonitor do: it makes a cookie file and
/// answers once its own events report it, so every write made before the question is in the
/// answer (one inotify queue keeps the order of its events). Whenever continuity is lost it
/// answers "everything may have changed" with the reason, and the query checks every file: the
/// kernel's queue overflowed, a watch could not be added (the system's limit), a directory was
/// made, removed or replaced, the watcher started after the last query (its tokens name its
/// instance), the cookie did not come back within ``Options/cookieWait``, the directory is on
/// a network or FUSE file system, or more than ``Options/maxNames`` files changed.
public final class IndexWatcher: Sendable {
  let core: WatcherCore

  /// Starts watching the kinds of `registry` in `layout`, on a thread of its own, until `stop`
  /// (or until it is released). Throws when inotify cannot be had at all, or the cookies'
  /// directory cannot be made.
  public init(layout: StoreLayout, registry: SchemaRegistry, options: Options = Options()) throws(StoreError) {
    core = try WatcherCore(layout: layout, registry: registry, options: options)
  }

  deinit { core.cancellation.cancel() }

  /// Ends the watch; every later question is answered nil.
  public func stop() { core.cancellation.cancel() }

  /// Why the watch ended; nil while it runs.
  public var ended: String? { core.shared.withLock { $0.ended } }

  /// Names this run of the watcher in its tokens.
  public var instance: String { core.instance }

  /// How many directories it watches (each one of the system's inotify watches).
  public var watchCount: Int { core.shared.withLock { $0.watchCount } }

  /// What changed in `kind`'s directory since `token`, every write made before this call
  /// included (cookie sync); nil when the watcher has ended or did not answer within twice the
  /// cookie wait.
  package func changes(kind: String, directory: String, since token: String?) -> IndexChanges? {
    core.changes(kind: kind, directory: directory, since: token)
  }

  /// Testing: cookies stop (or start again) coming back.
  package func ignoreCookies(_ ignore: Bool) { core.shared.withLock { $0.ignoreCookies = ignore } }

  /// Testing: the loop stops reading events until `true` (so the kernel's queue can overflow).
  package func holdEvents(_ hold: Bool) {
    core.shared.withLock { $0.holdEvents = hold }
    core.wake.poke()
  }

  public struct Options: Sendable {
    /// How long a question waits for its cookie before it is answered "everything".
    public var cookieWait: Duration = .seconds(1)
    /// Past this many changed names in a directory, it forgets them and answers "everything"
    /// for older tokens: the memory stays bounded whatever happens to the store.
    public var maxNames = 65_536
    /// The file system type of a directory, when it is one inotify cannot vouch for (a network
    /// or FUSE file system); nil when it is local. Injected by tests.
    public var remoteFileSystem: @Sendable (String) -> String? = IndexWatcher.remoteFileSystem
    /// Hears what a person should know: how many watches it took, a limit reached, a remote
    /// file system.
    public var report: @Sendable (String) -> Void = { _ in }
    public init() {}
  }

}

/// The state an ``IndexWatcher`` shares with its loop's thread.
final class WatcherCore: Sendable {
  typealias Options = IndexWatcher.Options
  /// Names this run of the watcher in its tokens: a token of another run means "everything".
  let instance: String
  let options: Options
  let layout: StoreLayout
  /// Each kind's directory.
  let directories: [String: String]
  let shared: Mutex<Shared>
  let cancellation = WatchCancellation()
  /// Written to wake the loop when a question comes.
  let wake: WatchCancellation

  /// One kind directory's changes.
  struct Directory {
    /// Answers for tokens older than this are "everything", for `reason`.
    var base: UInt64 = 0
    var reason = "no earlier query through this watcher"
    /// The moment each name changed last.
    var changed: [String: UInt64] = [:]
    /// Set when the directory cannot be watched at all (its answers are always "everything").
    var unwatchable: String?
  }

  /// A question waiting for its cookie.
  final class Question: Sendable {
    let kind: String
    /// The kind's directory as the asker's descriptors place it.
    let directory: String
    let since: String?
    let answered = DispatchSemaphore(value: 0)
    let answer = Mutex<IndexChanges?>(nil)
    init(kind: String, directory: String, since: String?) {
      self.kind = kind
      self.directory = directory
      self.since = since
    }
  }

  struct Shared {
    /// The moment: raised once per batch of events.
    var now: UInt64 = 1
    var directories: [String: Directory] = [:]
    /// Questions not yet seen by the loop.
    var questions: [Question] = []
    /// Set when the loop ended (the store went away, an error): every question is answered nil.
    var ended: String?
    /// Testing: cookies are made but their events are ignored (a cookie that never comes back).
    var ignoreCookies = false
    /// Testing: events are left in the kernel's queue.
    var holdEvents = false
    var watchCount = 0
  }

  init(layout: StoreLayout, registry: SchemaRegistry, options: Options) throws(StoreError) {
    self.layout = layout
    self.options = options
    var instance = ""
    for _ in 0..<8 { instance += String(format: "%02x", UInt8.random(in: 0...255)) }
    self.instance = instance
    directories = Dictionary(
      registry.latestByKind.map { ($0.kind, layout.documents(in: $0.schema.directory)) },
      uniquingKeysWith: { a, _ in a })
    shared = Mutex(Shared())
    wake = WatchCancellation()
    // The first watches are taken here, so that what cannot be watched at all is the caller's
    // error; then the loop's thread alone uses the loop.
    let loop = try WatcherLoop(core: self)
    try loop.start()
    let thread = Thread { [self] in
      // The loop holds the core, not the watcher: releasing the watcher ends the loop.
      do throws(StoreError) { try loop.run() } catch {
        self.end(error.description)
        self.options.report("the index watcher stopped: \(error.description)")
        return
      }
      self.end("the watcher stopped")
    }
    thread.name = "formsctl index watcher"
    thread.start()
  }

  func end(_ reason: String) {
    let waiting = shared.withLock { shared in
      shared.ended = shared.ended ?? reason
      defer { shared.questions = [] }
      return shared.questions
    }
    for question in waiting { question.answered.signal() }
  }

  func changes(kind: String, directory: String, since token: String?) -> IndexChanges? {
    let question = Question(kind: kind, directory: directory, since: token)
    let open = shared.withLock { shared in
      guard shared.ended == nil else { return false }
      shared.questions.append(question)
      return true
    }
    guard open else { return nil }
    wake.poke()
    let deadline = DispatchTime.now() + .nanoseconds(Int(options.cookieWait.nanoseconds * 2))
    guard question.answered.wait(timeout: deadline) == .success else { return nil }
    return question.answer.withLock { $0 }
  }

  /// The answer for `question` now (called by the loop once its cookie came back, under the lock).
  func answer(_ question: Question, in shared: inout Shared) -> IndexChanges {
    let token = "\(instance):\(shared.now)"
    func everything(_ why: String) -> IndexChanges { IndexChanges(token: token, everything: why) }
    guard let path = directories[question.kind], var directory = shared.directories[path] else {
      return everything("the watcher does not know the kind \(question.kind)")
    }
    // The descriptors or the manifest moved the kind since the watcher started: it watches another tree.
    guard path == question.directory else { return everything("the kind's directory is not the one watched") }
    if let reason = directory.unwatchable { return everything(reason) }
    guard let since = question.since else { return everything("no earlier query through this watcher") }
    let parts = since.split(separator: ":")
    guard parts.count == 2, parts[0] == instance, let moment = UInt64(parts[1]), moment <= shared.now else {
      return everything("the watcher was started again since the last query")
    }
    if moment < directory.base { return everything(directory.reason) }
    if directory.changed.count > options.maxNames {
      directory.changed = [:]
      directory.base = shared.now
      directory.reason = "more than \(options.maxNames) files changed"
      shared.directories[path] = directory
      return everything(directory.reason)
    }
    return IndexChanges(token: token, changed: directory.changed.filter { $0.value > moment }.keys.sorted())
  }

}

extension IndexWatcher {
  /// The system's limit on inotify watches (`fs.inotify.max_user_watches`); nil when unknown.
  public static var systemLimit: Int? {
    #if os(Linux)
      DirectoryEvents.limit("max_user_watches")
    #else
      nil
    #endif
  }

  /// The type of the file system holding `path` when it is a network or FUSE one (inotify sees
  /// only the changes made through this machine's kernel there), else nil: the mount whose
  /// point is the longest prefix of the path's real path, in `/proc/self/mounts`.
  public static func remoteFileSystem(_ path: String) -> String? {
    guard let real = FileIO.realPath(FilePath(path))?.string else { return nil }
    let table: [UInt8]
    do throws(StoreError) { table = try FileIO.read(FilePath("/proc/self/mounts"), limit: 16 << 20, toEnd: true) } catch
    {
      return nil  // No mount table (not Linux): nothing known to doubt.
    }
    var best: (point: String, type: String)?
    for line in String(decoding: table, as: UTF8.self).split(separator: "\n") {
      let fields = line.split(separator: " ")
      guard fields.count >= 3 else { continue }
      let point = fields[1].replacingOccurrences(of: "\\040", with: " ")
      guard real == point || real.hasPrefix(point == "/" ? "/" : point + "/"),
        point.count >= (best?.point.count ?? 0)
      else { continue }
      best = (point, String(fields[2]))
    }
    guard let type = best?.type else { return nil }
    let remote: Set<String> = [
      "nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "afs", "ceph", "coda", "ncpfs", "lustre", "gfs2", "ocfs2",
      "glusterfs", "sshfs", "davfs", "virtiofs",
    ]
    return remote.contains(type) || type.hasPrefix("fuse") ? type : nil
  }
}

extension WatchCancellation {
  /// Wakes the poll of the loop without ending it (a wake pipe): the loop drains it.
  func poke() {
    var byte: UInt8 = 1
    _ = Foundation.write(writeDescriptor, &byte, 1)
  }

  /// Empties the pipe a `poke` wrote to.
  func drain() {
    var bytes = [UInt8](repeating: 0, count: 64)
    while bytes.withUnsafeMutableBytes({ Foundation.read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
  }
}

extension Duration {
  var nanoseconds: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }
}
