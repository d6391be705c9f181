import FormsStore
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// One connection to the database, with its errors turned into `SyncError`s: what cannot be
/// reached (or was lost) is `unreachable` (75), what the server refuses is `refused` (65).
final class Database: Sendable {
  let connection: PostgresConnection
  let url: DatabaseURL
  /// The thread the conversation's tasks run on (see `blocking`).
  let executor: ThreadExecutor
  /// Nothing of the client's own logging reaches the terminal: errors come back as values.
  static let logger = Logger(label: "formsctl.sync") { _ in SwiftLogNoOpLogHandler() }

  private init(connection: PostgresConnection, url: DatabaseURL, executor: ThreadExecutor) {
    self.connection = connection
    self.url = url
    self.executor = executor
  }

  static func connect(_ url: DatabaseURL, on executor: ThreadExecutor) async throws(SyncError) -> Database {
    let tls: PostgresConnection.Configuration.TLS
    do {
      switch url.tls {
      case .disable: tls = .disable
      case .allow, .prefer, .require:
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        let context = try NIOSSLContext(configuration: configuration)
        tls = url.tls == .require ? .require(context) : .prefer(context)
      case .verifyCA, .verifyFull:
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let root = url.rootCertificate { configuration.trustRoots = .file(root) }
        if url.tls == .verifyCA { configuration.certificateVerification = .noHostnameVerification }
        tls = .require(try NIOSSLContext(configuration: configuration))
      }
    } catch {
      throw SyncError.tlsSettings("\(error)")
    }
    let configuration = PostgresConnection.Configuration(
      host: url.host, port: url.port, username: url.user, password: url.password, database: url.database, tls: tls)
    do {
      let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: Self.logger)
      return Database(connection: connection, url: url, executor: executor)
    } catch {
      throw classify(error, url: url)
    }
  }

  /// Runs `query` and returns every row.
  func rows(_ query: PostgresQuery) async throws(SyncError) -> [PostgresRow] {
    do {
      return try await untilClosed { [connection] in
        var out: [PostgresRow] = []
        for try await row in try await connection.query(query, logger: Self.logger) { out.append(row) }
        return out
      }
    } catch {
      throw Self.classify(error, url: url, connected: true)
    }
  }

  /// `body`'s result, or the connection's loss as soon as the connection closes. PostgresNIO
  /// never answers a query written to a connection the server has already closed (its write
  /// fails and nobody is told), so the close is watched beside it; a query left waiting that way
  /// is abandoned with the run.
  func untilClosed<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let lost = SyncError.connectionLost(server: "\(url.host):\(url.port)", detail: "the server closed the connection")
    return try await withCheckedThrowingContinuation { continuation in
      let first = FirstOutcome(continuation)
      Task(executorPreference: executor) {
        do { first.resume(.success(try await body())) } catch { first.resume(.failure(error)) }
      }
      connection.closeFuture.whenComplete { _ in first.resume(.failure(lost)) }
    }
  }

  /// Runs `sql` (no parameters).
  func run(_ sql: String) async throws(SyncError) { _ = try await rows(PostgresQuery(unsafeSQL: sql)) }

  func close() async {
    do { try await connection.close() } catch {
      // Closing a connection that is already gone: there is nothing left to release.
    }
  }

  /// A PostgreSQL or network error as a `SyncError`. Once `connected`, a closed connection is
  /// a lost one (the run may have changed things), not a server that cannot be reached.
  static func classify(_ error: any Error, url: DatabaseURL, connected: Bool = false) -> SyncError {
    if let error = error as? SyncError { return error }
    let server = "\(url.host):\(url.port)"
    if let error = error as? PSQLError {
      if error.code == .server, let info = error.serverInfo {
        let state = info[.sqlState] ?? ""
        let message = info[.message] ?? "an error"
        // Class 08 (connection exception) and 57P (the server shutting down) are worth a retry.
        if state.hasPrefix("08") || state.hasPrefix("57P") {
          return .connectionLost(server: server, detail: message)
        }
        if state == "28P01" || state == "28000" {
          return .authentication(server: server, user: url.user, detail: message)
        }
        return .server(message: message, sqlState: state)
      }
      switch error.code {
      case .connectionError where error.underlying is NIOSSLError || error.underlying is NIOSSLExtraError:
        let why = error.underlying.map { "\($0)" } ?? "\(error.code)"
        return .tlsHandshake(server: server, mode: url.tls.rawValue, detail: why)
      case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown:
        let why = error.underlying.map { "\($0)" } ?? "\(error.code)"
        return connected ? .connectionLost(server: server, detail: why) : .unreachable(server: server, detail: why)
      case .sslUnsupported:
        return .tlsUnsupported(server: server, mode: url.tls.rawValue)
      case .authMechanismRequiresPassword:
        return .passwordRequired(server: server, user: url.user)
      default:
        return .connectionFailed("\(error.code)")
      }
    }
    return connected
      ? .connectionLost(server: server, detail: "\(error)") : .unreachable(server: server, detail: "\(error)")
  }
}

/// A continuation resumed by whichever of its racers comes first; the others are ignored.
final class FirstOutcome<T: Sendable>: Sendable {
  private let continuation: Mutex<CheckedContinuation<T, any Error>?>

  init(_ continuation: CheckedContinuation<T, any Error>) { self.continuation = Mutex(continuation) }

  func resume(_ result: Result<T, any Error>) { continuation.withLock { $0.take() }?.resume(with: result) }
}

/// Runs `body` and waits for it: the command line (and a caller on the concurrency pool) is
/// synchronous. The task runs on a thread of its own, so waiting never starves the pool it needs.
func blocking<T: Sendable>(_ body: @escaping @Sendable (ThreadExecutor) async throws(SyncError) -> T) throws(SyncError)
  -> T
{
  let result = Mutex<Result<T, SyncError>?>(nil)
  let done = DispatchSemaphore(value: 0)
  let executor = ThreadExecutor()
  defer { executor.stop() }
  Task(executorPreference: executor) {
    let outcome: Result<T, SyncError>
    do throws(SyncError) { outcome = .success(try await body(executor)) } catch { outcome = .failure(error) }
    result.withLock { $0 = outcome }
    done.signal()
  }
  done.wait()
  guard let outcome = result.withLock({ $0 }) else { throw SyncError.noOutcome }
  return try outcome.get()
}

/// A task executor with one thread of its own, running the jobs given to it in order.
final class ThreadExecutor: TaskExecutor, Sendable {
  private let jobs = Mutex<[UnownedJob]>([])
  private let ready = DispatchSemaphore(value: 0)

  init() {
    let thread = Thread { [self] in
      while true {
        ready.wait()
        guard let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { return }
        job.runSynchronously(on: asUnownedTaskExecutor())
      }
    }
    thread.start()
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    jobs.withLock { $0.append(job) }
    ready.signal()
  }

  /// Ends the thread once the jobs given so far have run.
  func stop() { ready.signal() }
}
