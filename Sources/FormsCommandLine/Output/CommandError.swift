import FormsCore

/// Errors of the executable itself.
package enum CommandError: FormsError {
  case badInput(String)
  /// Bad arguments; `excerpt` (the argument with a caret under the fault) is printed below.
  case usage(String, excerpt: String? = nil)
  /// A door that is a program of its own (`formsctl-sync`) is not beside formsctl.
  case missingProgram(String)

  package var kind: FailureKind {
    switch self {
    case .badInput: return .badInput
    case .usage: return .usage
    case .missingProgram: return .noInput
    }
  }

  package var description: String {
    switch self {
    case .badInput(let message), .usage(let message, _), .missingProgram(let message): return message
    }
  }
}
