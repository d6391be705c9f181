import FormsCommandLine
import FormsSync

/// A sync error in the command line's words: the library's statement, and what to type next.
extension SyncError: WordedError {
  package var worded: String { SyncError.message(for: self) }

  static func message(for error: SyncError) -> String {
    switch error {
    case .store(let error): return ErrorText.message(for: error)
    case .badSchemaName: return "--schema: " + error.description
    default: return error.description + (advice(for: error) ?? "")
    }
  }

  static func advice(for error: SyncError) -> String? {
    switch error {
    case .noDatabase: return "; give --database URL or set FORMSCTL_DATABASE_URL"
    case .notInitialized: return "; create it with formsctl sync init"
    case .otherFormat, .missingTable: return "; run formsctl sync init"
    case .connectionLost: return "; run sync again"
    case .tlsHandshake: return "; check that sslrootcert names the certificate that signed the server's"
    case .alreadyRunning: return ". Retry when it ends, or pass --wait 600"
    case .passwordRequired: return "; put it in the URL"
    case .deletionBeyondBound: return " (--max-delete N or P% allows more)"
    case .nothingToResolve: return " (formsctl sync status lists them)"
    case .changedMeanwhile: return "; run formsctl sync, then resolve again"
    default: return nil
    }
  }
}
