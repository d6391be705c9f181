import FormsCore
import Foundation
import Synchronization

/// The thread that owns an ``IndexWatcher``'s inotify instance: it turns events into changed
/// names and lost continuity, makes a cookie for each question, and answers it once the cookie's
/// own event has come (every event before it handled).
final class WatcherLoop: @unchecked Sendable {  // used by its one thread only
  private let core: WatcherCore
  private let events: DirectoryEvents
  private let cookies: FilePath
  /// The directory of documents each watched directory belongs to (a kind's, or one below it).
  private var owners: [String: String] = [:]
  /// The directories above the kinds' (the store's root, data/, and any between): a directory
  /// made, removed or moved there may be a kind's.
  private let ancestors: Set<String>
  /// A question whose cookie was made.
  private struct Pending {
    var cookie: String
    var question: WatcherCore.Question
    var deadline: ContinuousClock.Instant
    /// The cookie's event came: every event before it is handled.
    var arrived = false
  }
  private var pending: [Pending] = []
  private var cookieCount = 0
  /// The device and inode of each kind's directory and of those above it, when watched: a
  /// directory mounted over raises no event, so they are looked at again before each answer.
  private var identities: [String: [UInt64]] = [:]

  init(core: WatcherCore) throws(StoreError) {
    self.core = core
    events = try DirectoryEvents(cancellation: core.cancellation)
    cookies = core.layout.watcherDirectory
    let data = core.layout.dataDirectory
    var ancestors: Set<String> = [core.layout.root, data]
    for directory in core.directories.values {
      var parent = FilePath(directory).parent
      while parent.string.hasPrefix(data + "/") {
        ancestors.insert(parent.string)
        parent = parent.parent
      }
    }
    self.ancestors = ancestors
  }

  /// The device and inode of `path` (not followed); empty when it is not there.
  private static func identity(_ path: String) -> [UInt64] {
    var info = stat()
    guard lstat(path, &info) == 0 else { return [] }
    return [UInt64(info.st_dev), UInt64(info.st_ino)]
  }

  /// The first watches: the cookies' directory, the ancestors, then each kind's tree.
  func start() throws(StoreError) {
    try makeCookieDirectory()
    for ancestor in ancestors.sorted() {
      try events.watch(ancestor)
      identities[ancestor] = Self.identity(ancestor)
    }
    var unwatchable: [String: String] = [:]
    for top in Set(core.directories.values).sorted() { unwatchable[top] = watchTree(top) }
    core.shared.withLock { shared in
      for top in Set(core.directories.values) {
        shared.directories[top] = WatcherCore.Directory(base: shared.now, unwatchable: unwatchable[top] ?? nil)
      }
      shared.watchCount = events.count
    }
  }

  /// `.formsctl/watcher/`, the store's own (not a link, mode 0700), watched.
  private func makeCookieDirectory() throws(StoreError) {
    try FileIO.makeDirectories(cookies, mode: 0o700)
    guard FileIO.entry(cookies) == .directory else {
      throw StoreError.wrongFileType(cookies.string, found: FileIO.describe(cookies), expected: "a directory")
    }
    // Left by another user's watcher: queries would refuse a socket in it.
    var info = stat()
    guard lstat(cookies.string, &info) == 0, info.st_uid == getuid() else {
      throw StoreError.wrongFileType(
        cookies.string, found: "a directory of user \(info.st_uid)", expected: "a directory of your own")
    }
    // Nobody else may make or remove names in it (the socket's directory).
    guard chmod(cookies.string, 0o700) == 0 else {
      throw StoreError.io(cookies.string, operation: "chmod", errno: Errno(errno))
    }
    guard try events.watch(cookies.string) else {
      throw StoreError.io(cookies.string, operation: "watch", errno: Errno(ENOENT))
    }
  }

  /// Watches `top` and every directory below it (not hidden, never through a link); the reason
  /// it cannot be vouched for, or nil. A missing `top` is watched when it is made.
  private func watchTree(_ top: String) -> String? {
    identities[top] = Self.identity(top)
    if let system = core.options.remoteFileSystem(top) {
      let reason = "\(top) is on a \(system) file system, whose changes inotify does not see"
      core.options.report(reason + ": queries of it check every file")
      return reason
    }
    var stack = [top]
    while let directory = stack.popLast() {
      do throws(StoreError) {
        guard try events.watch(directory) else {
          if directory == top && FileIO.entry(FilePath(top)) == .missing { return nil }
          return "\(directory) is not a directory (a symbolic link is not followed)"
        }
        owners[directory] = top
        for (name, kind) in try FileIO.entries(of: FilePath(directory)) where kind == .directory && !name.hasPrefix(".")
        {
          stack.append((FilePath(directory) / name).string)
        }
      } catch {
        let reason =
          if case .watchLimit(_, let limit) = error {
            "the system's limit of inotify watches (fs.inotify.max_user_watches\(limit.map { " = \($0)" } ?? "")) is reached"
          } else {
            error.description
          }
        core.options.report("cannot watch \(directory): \(reason): queries of its kind check every file")
        return reason
      }
    }
    return nil
  }

  /// Handles events and questions until cancelled.
  func run() throws(StoreError) {
    while true {
      if core.cancellation.isCancelled { return }
      if core.shared.withLock({ $0.holdEvents }) {
        Thread.sleep(forTimeInterval: 0.02)
        continue
      }
      let now = ContinuousClock.now
      let timeout = pending.map(\.deadline).min().map { max(.zero, $0 - now) }
      let batch = try events.wait(timeout, waking: core.wake.descriptor)
      if batch.cancelled || core.cancellation.isCancelled { return }
      if batch.woken { core.wake.drain() }
      try handle(batch)
      ask()
      try answerDue()
    }
  }

  /// What a batch of events says: names changed, directories to watch again, continuity lost.
  private func handle(_ batch: DirectoryEvents.Batch) throws(StoreError) {
    var changed: [(top: String, name: String)] = []
    var lost: [String: String] = [:]
    var again: Set<String> = []
    var arrived: Set<String> = []
    if batch.overflowed {
      for top in Set(core.directories.values) { lost[top] = "the kernel's queue of events overflowed" }
    }
    for event in batch.events {
      let path = FilePath(event.directory) / event.name
      if event.directory == cookies.string {
        if event.directoryGone { try makeCookieDirectory() } else { arrived.insert(event.name) }
      } else if let top = owners[event.directory] {
        if event.directoryGone {
          owners[event.directory] = nil
          lost[top] = "its directory was removed or moved"
        } else if event.isDirectory {
          lost[top] = "a directory in it was made, removed or moved"
          if event.isDirectoryCreated { again.insert(top) }
        } else if !event.nameIsValid {
          // Not a name an answer can carry: the query checks every file (and says what it found).
          lost[top] = "a file name in it is not valid UTF-8"
        } else if !event.name.hasPrefix("."),
          let name = FilePath(top).relative(path) ?? (event.directory == top ? event.name : nil)
        {
          changed.append((top, name))
        }
      } else if ancestors.contains(event.directory) {
        if event.directoryGone {
          try requireStore()
          for top in Set(core.directories.values) where top.hasPrefix(event.directory + "/") {
            lost[top] = "its directory was removed or moved"
          }
        } else if event.isDirectory {
          // A directory above a kind's, or a kind's, was made, removed or replaced.
          for ancestor in ancestors.sorted() where ancestor == path.string || ancestor.hasPrefix(path.string + "/") {
            try events.watch(ancestor)
          }
          for top in Set(core.directories.values) where top == path.string || top.hasPrefix(path.string + "/") {
            lost[top] = "its directory was made, removed or replaced"
            if event.isDirectoryCreated { again.insert(top) }
          }
        }
      }
    }
    var unwatchable: [String: String?] = [:]
    for top in again.sorted() { unwatchable[top] = watchTree(top) }
    let ignoreCookies = core.shared.withLock { shared in
      shared.now += 1
      for (top, name) in changed { shared.directories[top]?.changed[name] = shared.now }
      for (top, reason) in lost {
        shared.directories[top]?.base = shared.now
        shared.directories[top]?.reason = reason
        shared.directories[top]?.changed = [:]
      }
      for (top, reason) in unwatchable { shared.directories[top]?.unwatchable = reason }
      shared.watchCount = events.count
      return shared.ignoreCookies
    }
    guard !ignoreCookies else { return }
    for index in pending.indices where arrived.contains(pending[index].cookie) { pending[index].arrived = true }
  }

  /// The store's manifest is still there, or the watch ends.
  private func requireStore() throws(StoreError) {
    guard FileIO.entry(StoreLayout.manifestPath(root: core.layout.root)) == .file else {
      throw StoreError.storeGone(core.layout.root)
    }
  }

  /// Makes a cookie for each new question.
  private func ask() {
    let questions = core.shared.withLock { shared in
      defer { shared.questions = [] }
      return shared.questions
    }
    for question in questions {
      cookieCount += 1
      let name = "cookie-\(getpid())-\(cookieCount)"
      let path = cookies / name
      let fd = POSIX.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
      guard fd >= 0 else {
        let reason = "the watcher could not make its cookie (\(Errno(errno)))"
        core.shared.withLock { reply(question, IndexChanges(token: "\(core.instance):\($0.now)", everything: reason)) }
        continue
      }
      close(fd)
      pending.append(Pending(cookie: name, question: question, deadline: .now + core.options.cookieWait))
    }
  }

  /// Directories mounted over (or replaced without an event) since they were watched: their
  /// kinds lose continuity and are watched again.
  private func checkIdentities() throws(StoreError) {
    var replaced: [String] = []
    for ancestor in ancestors.sorted() where Self.identity(ancestor) != identities[ancestor] {
      try events.watch(ancestor)
      identities[ancestor] = Self.identity(ancestor)
      replaced += Set(core.directories.values).filter { $0.hasPrefix(ancestor + "/") }
    }
    for top in Set(core.directories.values).sorted() where Self.identity(top) != identities[top] {
      replaced.append(top)
    }
    guard !replaced.isEmpty else { return }
    var unwatchable: [String: String?] = [:]
    for top in Set(replaced).sorted() { unwatchable[top] = watchTree(top) }
    core.shared.withLock { shared in
      shared.now += 1
      for (top, reason) in unwatchable {
        shared.directories[top]?.base = shared.now
        shared.directories[top]?.reason = "its directory was replaced or mounted over"
        shared.directories[top]?.changed = [:]
        shared.directories[top]?.unwatchable = reason
      }
      shared.watchCount = events.count
    }
  }

  /// Answers the questions whose cookie came back (everything before it handled), and those
  /// whose cookie did not come back in time ("everything"); removes their cookies.
  private func answerDue() throws(StoreError) {
    if pending.contains(where: \.arrived) { try checkIdentities() }
    let now = ContinuousClock.now
    let due = pending.filter { $0.arrived || $0.deadline <= now }
    pending.removeAll { $0.arrived || $0.deadline <= now }
    for waiting in due {
      let name = waiting.cookie
      core.shared.withLock { shared in
        let answer =
          waiting.arrived
          ? core.answer(waiting.question, in: &shared)
          : IndexChanges(
            token: "\(core.instance):\(shared.now)",
            everything: "the watcher's cookie did not come back within \(core.options.cookieWait)")
        reply(waiting.question, answer)
      }
      if POSIX.unlink(cookies / name) != 0 && errno != ENOENT {
        core.options.report("cannot remove \((cookies / name).string): \(Errno(errno))")
      }
    }
  }

  private func reply(_ question: WatcherCore.Question, _ answer: IndexChanges) {
    question.answer.withLock { $0 = answer }
    question.answered.signal()
  }
}
