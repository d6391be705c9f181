import FormsCore
import FormsStore

/// What can go wrong in a sync, each with its exit code (DESIGN §7, §13).
public enum SyncError: FormsError, Equatable {
  /// The URL is not a PostgreSQL URL formsctl can use (64).
  case badURL(String)
  /// No URL given (64).
  case noDatabase
  /// The server cannot be reached, or the connection was lost (75: try again).
  case unreachable(String)
  /// The server refused: a wrong password, a missing schema, a table changed by hand (65).
  case refused(String)
  /// A store error met while syncing.
  case store(StoreError)

  public var kind: FailureKind {
    switch self {
    case .badURL, .noDatabase: return .usage
    case .unreachable: return .tryAgain
    case .refused: return .badInput
    case .store(let error): return error.kind
    }
  }

  public var description: String {
    switch self {
    case .badURL(let message): return message
    case .noDatabase: return "no database: give --database URL or set FORMSCTL_DATABASE_URL"
    case .unreachable(let message), .refused(let message): return message
    case .store(let error): return error.description
    }
  }
}
