import FormsCore

/// Errors of the executable itself.
enum CommandError: FormsError {
  case badInput(String)
  /// Bad arguments; `excerpt` (the argument with a caret under the fault) is printed below.
  case usage(String, excerpt: String? = nil)

  var kind: FailureKind {
    switch self {
    case .badInput: return .badInput
    case .usage: return .usage
    }
  }

  var description: String {
    switch self {
    case .badInput(let message), .usage(let message, _): return message
    }
  }
}
