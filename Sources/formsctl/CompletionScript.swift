import ArgumentParser
import FormsCommandLine
import Foundation

extension Completions {
  /// The script `--generate-completion-script SHELL` prints: argument-parser's, with one change
  /// for bash and zsh. A candidate that ends in `=` (`set`'s `PATH=`) is the start of a word, so
  /// the shell adds no space after it (and bash does not escape the `=`); fish already leaves
  /// the space out after `=`.
  static func script(_ arguments: [String]) -> String? {
    guard arguments.count == 2, arguments[0] == "--generate-completion-script",
      let shell = CompletionShell(rawValue: arguments[1])
    else { return nil }
    let script = Formsctl.completionScript(for: shell)
    switch shell {
    case .bash:
      return script.replacingOccurrences(
        of: "    done < <(IFS=$'\\n' compgen \"${@}\" -- \"${cur}\")\n}",
        with: """
              done < <(IFS=$'\\n' compgen "${@}" -- "${cur}")
              if [[ ${#COMPREPLY[@]} -gt 0 && ${COMPREPLY[0]} == *= ]]; then
                  compopt -o nospace +o filenames 2>/dev/null
              fi
          }
          """)
    case .zsh:
      return script.replacingOccurrences(
        of: "    _describe -V '' non_empty_completions -- empty_completions -P $'\\'\\''\n}",
        with: """
              if [[ ${non_empty_completions[1]} == *= ]]; then
                  _describe -V '' non_empty_completions -S '' -- empty_completions -P $'\\'\\''
              else
                  _describe -V '' non_empty_completions -- empty_completions -P $'\\'\\''
              fi
          }
          """)
    default:
      return script
    }
  }
}
