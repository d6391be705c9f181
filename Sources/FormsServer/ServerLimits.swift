import Foundation
import Hummingbird
import HummingbirdCore
import NIOCore

/// How much of the machine a server may hold, so that no number of clients can stop it: the
/// connections it holds at once (each a file descriptor; past the limit new connections wait in
/// the system's queue until one closes, and nothing is refused for want of a descriptor), and
/// how long a connection may go with nothing written to it (an idle connection, a request that
/// never ends, a client that never sends the token or never reads) before it is closed.
public struct ServerLimits: Sendable {
  /// Connections held at once.
  public var connections: Int
  /// How long a connection may go with nothing written to it: no response begun, no event sent
  /// (a page listening for changes is sent one every 5 seconds).
  public var idleTimeout: Duration

  public init(connections: Int, idleTimeout: Duration = .seconds(30)) {
    self.connections = max(1, connections)
    self.idleTimeout = idleTimeout
  }

  /// The limits for this process: at most 1,000 connections, and at most a quarter of the
  /// descriptors the process may open (`RLIMIT_NOFILE`), the rest left to the store (its watch, the
  /// files a page reads, a write's journal).
  public static func forThisProcess() -> ServerLimits {
    ServerLimits(connections: connections(openFiles: openFileLimit()))
  }

  /// The connections a process that may open `openFiles` descriptors holds at once.
  static func connections(openFiles: Int) -> Int { max(8, min(1000, openFiles / 4)) }

  /// The process's soft limit of open descriptors (1,024 when the system does not say).
  static func openFileLimit() -> Int {
    var limit = rlimit()
    guard getrlimit(openFilesResource, &limit) == 0 else { return 1024 }
    // No limit (RLIM_INFINITY, all ones) clamps to Int.max.
    return Int(clamping: limit.rlim_cur)
  }

  #if canImport(Glibc)
    private static let openFilesResource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
  #else
    private static let openFilesResource = RLIMIT_NOFILE
  #endif

  /// The handlers every connection gets: the clock of its idle time, and what closes it.
  func channelHandlers() -> [any RemovableChannelHandler] {
    let nanoseconds =
      idleTimeout.components.seconds * 1_000_000_000 + idleTimeout.components.attoseconds / 1_000_000_000
    return [IdleStateHandler(writeTimeout: .nanoseconds(nanoseconds)), CloseWhenIdle()]
  }
}

/// Closes a connection nothing was written to for the idle timeout.
final class CloseWhenIdle: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = NIOAny

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if case .write = event as? IdleStateHandler.IdleStateEvent {
      context.close(promise: nil)
    } else {
      context.fireUserInboundEventTriggered(event)
    }
  }
}
