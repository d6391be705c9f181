import ArgumentParser
import FormsCore
import FormsStore
import Foundation

/// What every formsctl executable (`formsctl`, and each door that is a program of its own, such as
/// `formsctl-sync`) does around its commands: parse, run, and end every failure in one style with
/// the exit code of docs/design.md §7.
package enum CommandLineMain {
  /// Runs `Root` on the process's arguments, and ends the process on a failure. `words` are the command words the program stands
  /// for (`["sync"]` for `formsctl-sync`), for the `--help` hint.
  package static func run<Root: ParsableCommand>(_ root: Root.Type, words: [String] = []) {
    let arguments = Array(CommandLine.arguments.dropFirst())
    do {
      try checkSubcommands(root, arguments, words: words)
      var command = try Root.parseAsRoot(arguments)
      try command.run()
      SensitiveNote.shared.flush()
    } catch let error as any FormsError {
      SensitiveNote.shared.flush()
      switch error as? StoreError {
      case .invalidDocument(_, let diagnostics)?, .unreadableDocument(_, let diagnostics)?,
        .migrationFailed(_, let diagnostics)?,
        .importFailed(_, let diagnostics)?:
        render(diagnostics, as: .text, to: .standardError)
      default:
        break
      }
      printError(ErrorText.message(for: error))
      if case .usage(_, let excerpt?)? = error as? CommandError {
        FileHandleOutput.standardError.write(
          excerpt.split(separator: "\n").map { "  " + String($0).escapingControlCharacters + "\n" }.joined())
      }
      Platform.exit(ExitStatus.code(for: error.kind))
    } catch {
      SensitiveNote.shared.flush()
      // Help and --version print as argument-parser prints them; every error in one style.
      let code = Root.exitCode(for: error)
      let text = Root.message(for: error)
      // Help, --version, and a command's own exit code (its output already said why).
      guard code != .success, !(error is ExitCode), !text.isEmpty else { Root.exit(withError: error) }
      printError(text.replacingOccurrences(of: "\n", with: "; "))
      let path = (words + helpPath(root, arguments)).joined(separator: " ")
      FileHandleOutput.standardError.write("(formsctl \(path.isEmpty ? "COMMAND" : path) --help shows the usage)\n")
      Platform.exit(code.rawValue)
    }
  }

  /// The command words of `arguments` that name commands of `root`, for the `--help` hint.
  static func helpPath(_ root: any ParsableCommand.Type, _ arguments: [String]) -> [String] {
    var words: [String] = []
    var type = root
    for argument in arguments {
      guard let next = type.configuration.subcommands.first(where: { $0._commandName == argument }) else { break }
      words.append(argument)
      type = next
    }
    return words
  }

  /// Refuses an unknown subcommand word with the nearest known one (`lsit` → `list`), before
  /// argument-parser would report it as unexpected arguments.
  package static func checkSubcommands(_ root: any ParsableCommand.Type, _ arguments: [String], words: [String] = [])
    throws
  {
    let commands = root.configuration.subcommands.map { $0._commandName }
    let program = (["formsctl"] + words).joined(separator: " ")
    if let first = arguments.first, first.hasPrefix("-"), !first.hasPrefix("---"),
      !["-h", "--help", "--version", "--generate-completion-script"].contains(first),
      let command = arguments.first(where: { commands.contains($0) })
    {
      throw CommandError.usage("\(first) goes after the command: \(program) \(command) \(first) ...")
    }
    var type = root
    var said = ["formsctl"] + words
    for argument in arguments {
      let subcommands = type.configuration.subcommands
      guard !subcommands.isEmpty, !argument.hasPrefix("-"), argument != "help" else { return }
      guard let next = subcommands.first(where: { $0._commandName == argument }) else {
        // A command with a default subcommand (migrate → run) takes other words as its arguments.
        if type.configuration.defaultSubcommand != nil { return }
        let names = subcommands.map { $0._commandName }
        let hint = suggestion(for: argument, among: names).map { "did you mean \"\($0)\"? " } ?? ""
        throw CommandError.usage(
          "unknown command \"\(argument)\"; \(hint)(\(said.joined(separator: " ")) commands: \(names.joined(separator: ", ")))"
        )
      }
      said.append(argument)
      type = next
    }
  }
}
