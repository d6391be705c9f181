import ArgumentParser
import FormsCore

/// Every exit code formsctl ends with (docs/design.md §7), and only here.
package enum ExitStatus {
  package static let ok: Int32 = 0
  /// The check ran and found problems (invalid documents, unformatted files, blockers).
  package static let problemsFound: Int32 = 1

  /// Ends a command with `code` (its output already said why).
  package static func exit(_ code: Int32) -> ExitCode { ExitCode(code) }

  /// Ends a check that found problems with `problemsFound` (its output already said which).
  package static var problems: ExitCode { exit(problemsFound) }

  /// Ends a command with the code of `kind` (its output already said why).
  package static func exit(_ kind: FailureKind) -> ExitCode { ExitCode(code(for: kind)) }

  package static func code(for kind: FailureKind) -> Int32 {
    switch kind {
    case .usage: return 64
    case .badInput: return 65
    case .noInput: return 66
    case .internalError: return 70
    case .ioError: return 74
    case .tryAgain: return 75
    }
  }
}
