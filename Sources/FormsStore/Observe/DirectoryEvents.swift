import Foundation
import Synchronization

/// Wakes a watch from another thread (`cancel`), through a pipe the watch polls beside its events.
/// The pipe is closed when the last reference goes, so a late `cancel` never writes to a reused
/// descriptor.
public final class WatchCancellation: Sendable {
  private let pipe: (read: Int32, write: Int32)
  private let cancelled = Atomic<Bool>(false)

  public init() {
    var fds: [Int32] = [-1, -1]
    if Foundation.pipe(&fds) == 0 {
      for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
      _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
      _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
    }
    pipe = (fds[0], fds[1])
  }

  deinit {
    if pipe.read >= 0 { close(pipe.read) }
    if pipe.write >= 0 { close(pipe.write) }
  }

  /// Ends the watch: it returns (or its sequence finishes) and releases every kernel watch.
  public func cancel() {
    guard !cancelled.exchange(true, ordering: .sequentiallyConsistent), pipe.write >= 0 else { return }
    var byte: UInt8 = 1
    _ = Foundation.write(pipe.write, &byte, 1)
  }

  /// True once `cancel` was called.
  public var isCancelled: Bool { cancelled.load(ordering: .sequentiallyConsistent) }

  /// The descriptor a watch polls to learn it was cancelled.
  var descriptor: Int32 { pipe.read }
  var writeDescriptor: Int32 { pipe.write }
}

/// The kernel's news of changes in a few directories: inotify on Linux. Elsewhere it reports
/// nothing and the watch relies on its periodic rescan (`Store.ObserveOptions.rescanInterval`).
/// Used by one thread; closing it (`deinit`) releases every watch.
final class DirectoryEvents {
  /// A name in a watched directory that changed, or news about the directory itself.
  struct Event {
    /// The watched directory.
    var directory: String
    /// The name inside it (empty for news about the directory itself).
    var name: String
    /// A directory was made inside it.
    var isDirectoryCreated = false
    /// The name is a directory (made, removed or moved).
    var isDirectory = false
    /// The name's bytes are UTF-8 (`name` is exact); false: `name` stands in for it.
    var nameIsValid = true
    /// The watched directory was removed or moved.
    var directoryGone = false
  }

  /// What a wait returned.
  struct Batch {
    var events: [Event] = []
    /// The kernel's queue overflowed: events were lost, so everything must be rescanned.
    var overflowed = false
    var cancelled = false
    /// The descriptor given to `wait(_:waking:)` became readable.
    var woken = false
  }

  private let cancellation: WatchCancellation
  #if os(Linux)
    private let fd: Int32
    private var watches: [Int32: String] = [:]
  #endif

  init(cancellation: WatchCancellation) throws(StoreError) {
    self.cancellation = cancellation
    #if os(Linux)
      fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
      guard fd >= 0 else {
        let code = errno
        if code == EMFILE { throw StoreError.watchLimit(what: "instances", limit: Self.limit("max_user_instances")) }
        throw StoreError.io("inotify", operation: "inotify_init", errno: Errno(code))
      }
    #endif
  }

  deinit {
    #if os(Linux)
      close(fd)
    #endif
  }

  /// How many directories are watched now (each costs one of the system's inotify watches).
  var count: Int {
    #if os(Linux)
      watches.count
    #else
      0
    #endif
  }

  /// Starts watching `directory` (not below it, and never through a symbolic link); a missing
  /// directory, or a link, is not watched, and false.
  @discardableResult
  func watch(_ directory: String) throws(StoreError) -> Bool {
    #if os(Linux)
      if let code = FaultInjection.check(.watch, FilePath(directory)) {
        errno = code
      } else {
        let mask =
          IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO
          | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW
        let wd = inotify_add_watch(fd, directory, UInt32(mask))
        if wd >= 0 {
          // Another watch on the same path is of a directory moved or removed since: its events
          // would name the new one.
          for (other, path) in watches where path == directory && other != wd {
            inotify_rm_watch(fd, other)
            watches[other] = nil
          }
          watches[wd] = directory
          return true
        }
      }
      switch errno {
      case ENOENT, ENOTDIR: return false
      case ENOSPC: throw StoreError.watchLimit(what: "watches", limit: Self.limit("max_user_watches"))
      default: throw StoreError.io(directory, operation: "inotify_add_watch", errno: Errno(errno))
      }
    #else
      return FileIO.entry(FilePath(directory)) == .directory
    #endif
  }

  /// Waits up to `timeout` (nil: until something happens) for events, a cancellation, or
  /// `waking` (a descriptor another thread writes to) becoming readable.
  func wait(_ timeout: Duration?, waking: Int32? = nil) throws(StoreError) -> Batch {
    let milliseconds =
      timeout.map {
        Int32(clamping: max(0, $0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000))
      } ?? -1
    var polled: [pollfd] = [pollfd(fd: cancellation.descriptor, events: Int16(POLLIN), revents: 0)]
    if let waking { polled.append(pollfd(fd: waking, events: Int16(POLLIN), revents: 0)) }
    #if os(Linux)
      polled.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0))
    #endif
    let ready = poll(&polled, nfds_t(polled.count), milliseconds)
    var batch = Batch()
    if ready < 0 {
      guard errno == EINTR else { throw StoreError.io("inotify", operation: "poll", errno: Errno(errno)) }
      return batch
    }
    batch.cancelled = cancellation.isCancelled
    batch.woken = waking != nil && polled[1].revents != 0
    #if os(Linux)
      if polled[polled.count - 1].revents != 0 { try read(into: &batch) }
    #endif
    return batch
  }

  #if os(Linux)
    /// Reads every queued event (`struct inotify_event`: wd, mask, cookie, len, then the name).
    private func read(into batch: inout Batch) throws(StoreError) {
      var buffer = [UInt8](repeating: 0, count: 64 * 1024)
      while true {
        let count = buffer.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, $0.count) }
        if count < 0 {
          if errno == EINTR { continue }
          if errno == EAGAIN { return }
          throw StoreError.io("inotify", operation: "read", errno: Errno(errno))
        }
        if count == 0 { return }
        var offset = 0
        while offset + 16 <= count {
          let (wd, mask, length) = buffer.withUnsafeBytes { raw in
            (
              raw.loadUnaligned(fromByteOffset: offset, as: Int32.self),
              raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
              Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            )
          }
          let nameBytes = buffer[(offset + 16)..<min(count, offset + 16 + length)].prefix { $0 != 0 }
          offset += 16 + length
          if mask & UInt32(IN_Q_OVERFLOW) != 0 { batch.overflowed = true }
          if mask & UInt32(IN_IGNORED) != 0 { watches[wd] = nil }
          guard let directory = watches[wd] else { continue }
          var event = Event(directory: directory, name: String(decoding: nameBytes, as: UTF8.self))
          event.nameIsValid = String(validating: nameBytes, as: UTF8.self) != nil
          event.isDirectory = mask & UInt32(IN_ISDIR) != 0
          event.isDirectoryCreated = event.isDirectory && mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0
          event.directoryGone = mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF) != 0
          batch.events.append(event)
          if event.directoryGone {
            // The path names it no more: what it reports from now on is not news of the path.
            inotify_rm_watch(fd, wd)
            watches[wd] = nil
          }
        }
      }
    }

    /// `/proc/sys/fs/inotify/NAME`, the limit to raise.
    /// Nil when it cannot be read: the number only makes the message precise.
    static func limit(_ name: String) -> Int? {
      let bytes: [UInt8]
      do throws(StoreError) { bytes = try FileIO.read(FilePath("/proc/sys/fs/inotify/" + name), limit: 64) } catch {
        return nil
      }
      return Int(String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
  #endif
}
