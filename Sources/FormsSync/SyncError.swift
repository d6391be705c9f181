import FormsCore
import FormsStore

/// What can go wrong in a sync, each with its exit code (docs/design.md §7, §13). Each case states the
/// fact with its data; what to type next is the command line's to add.
public enum SyncError: FormsError, Equatable {
  /// The URL is not a PostgreSQL URL formsctl can use (64).
  case badURL(String)
  /// The PostgreSQL schema name is not one formsctl makes (64).
  case badSchemaName(String)
  /// No URL given (64).
  case noDatabase
  /// The URL's TLS settings cannot be used (64).
  case tlsSettings(String)
  /// The server cannot be reached (75: try again). `server` is `HOST:PORT`.
  case unreachable(server: String, detail: String)
  /// The connection was lost or the server is shutting down (75: try again).
  case connectionLost(server: String, detail: String)
  /// The database conversation ended without an outcome (75).
  case noOutcome
  /// The server refused the user: a wrong password, an unknown user (65).
  case authentication(server: String, user: String, detail: String)
  /// The server asks for a password the URL does not hold (65).
  case passwordRequired(server: String, user: String)
  /// The URL requires TLS, which the server does not offer (65).
  case tlsUnsupported(server: String, mode: String)
  /// The TLS handshake failed: most often a server certificate the URL's roots do not verify (65).
  case tlsHandshake(server: String, mode: String, detail: String)
  /// Any other error the server reports, with its SQLSTATE (65).
  case server(message: String, sqlState: String)
  /// The connection failed for a reason the client names (65).
  case connectionFailed(String)
  /// The database has no formsctl schema of this name: `sync init` was never run (65).
  case notInitialized(database: String, schema: String)
  /// The schema was made by a formsctl of another format (65).
  case otherFormat(schema: String, format: String?)
  /// A kind has no table in the schema (65).
  case missingTable(schema: String, table: String, kind: String)
  /// A table's column was changed by hand; `found` is its type now, nil when it is gone (65).
  case tableChanged(schema: String, table: String, column: String, found: String?, expected: String)
  /// A row cannot be decoded (65).
  case unreadableRow(schema: String, table: String, detail: String)
  /// Deleting this many would pass the deletion bound; nothing of the kind was synced (65).
  case deletionBeyondBound(kind: String, removing: Int, of: Int, inDatabase: Bool, reason: String)
  /// Rows hold a revision lower than the one recorded at the last sync: the database went back
  /// (restored from an older copy); nothing was synced (65).
  case wentBack(kind: String, ids: [String])
  /// `resolve` of a document with no conflict (65).
  case nothingToResolve(kind: String, id: String)
  /// The row changed in the database while it was being resolved (65).
  case changedMeanwhile(kind: String, id: String)
  /// Another sync of this store holds the sync lock; `pid` and `command` name it when known (75).
  case alreadyRunning(pid: Int32?, command: String, waited: Double)
  /// A store error met while syncing.
  case store(StoreError)

  /// A run refused as a whole before it wrote (a deletion beyond the bound, a database that
  /// went back): what it planned waits until the cause is dealt with.
  public var isRefusal: Bool {
    switch self {
    case .deletionBeyondBound, .wentBack: return true
    default: return false
    }
  }

  public var kind: FailureKind {
    switch self {
    case .badURL, .badSchemaName, .noDatabase, .tlsSettings: return .usage
    case .unreachable, .connectionLost, .noOutcome, .alreadyRunning: return .tryAgain
    case .store(let error): return error.kind
    default: return .badInput
    }
  }

  public var description: String {
    switch self {
    case .badURL(let message): return message
    case .badSchemaName(let name):
      return "\(name) is not a schema name formsctl uses: lower-case letters, digits and _ (at most 63)"
    case .noDatabase: return "no database URL was given"
    case .tlsSettings(let detail): return "the TLS settings of the database URL cannot be used: \(detail)"
    case .unreachable(let server, let detail):
      return "cannot reach the database at \(server) (\(detail)); nothing was changed there"
    case .connectionLost(let server, let detail): return "the database at \(server) went away (\(detail))"
    case .noOutcome: return "the sync ended without a result"
    case .authentication(let server, let user, let detail):
      return "the database at \(server) refused user \(user): \(detail)"
    case .passwordRequired(let server, let user):
      return "the database at \(server) asks user \(user) for a password, and the URL holds none"
    case .tlsUnsupported(let server, let mode):
      return "the database at \(server) does not offer TLS, which sslmode=\(mode) requires"
    case .tlsHandshake(let server, let mode, let detail):
      return "the TLS handshake with the database at \(server) failed (sslmode=\(mode)): \(detail)"
    case .server(let message, let state): return "the database said: \(message) (SQLSTATE \(state))"
    case .connectionFailed(let code): return "the database connection failed: \(code)"
    case .notInitialized(let database, let schema): return "the database \(database) has no formsctl schema \(schema)"
    case .otherFormat(let schema, let format):
      return "the schema \(schema) was made by another formsctl (format \(format ?? "none"))"
    case .missingTable(let schema, let table, let kind):
      return "the database has no table \(schema).\(table) for \(kind)"
    case .tableChanged(let schema, let table, let column, let found, let expected):
      let what = found.map { "is \($0), not \(expected)" } ?? "is missing"
      return "the table \(schema).\(table) was changed by hand: column \(column) \(what); nothing was synced"
    case .unreadableRow(let schema, let table, let detail):
      return "a row of \(schema).\(table) cannot be read: \(detail)"
    case .deletionBeyondBound(let kind, let removing, let of, let inDatabase, let reason):
      let place = inDatabase ? "\(kind) rows in the database" : "\(kind) documents here"
      return "sync would delete \(removing) of \(of) \(place), \(reason); nothing was synced"
    case .wentBack(let kind, let ids):
      let shown = ids.prefix(10).joined(separator: ", ") + (ids.count > 10 ? " and \(ids.count - 10) more" : "")
      return "the database went back: \(kind) \(shown) hold an older revision than at the last sync "
        + "(restored from an older copy?); nothing was synced, so nothing newer is lost"
    case .nothingToResolve(let kind, let id): return "\(kind) \(id) has no sync conflict to resolve"
    case .changedMeanwhile(let kind, let id): return "\(kind) \(id) changed in the database meanwhile"
    case .alreadyRunning(let pid, let command, let waited):
      let holder = pid.map { "pid \($0) (\(command))" } ?? "another process"
      return "another sync of this store is running: \(holder); waited \(Int(waited)) s"
    case .store(let error): return error.description
    }
  }
}
