import ArgumentParser
import FormsCore
import FormsStore
import Foundation

@main
struct Formsctl: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "formsctl",
    abstract: "A document store of JSON files, with YAML schemas, validation, migration and snapshots.",
    discussion: """
      Each document is one canonical JSON file under data/; schemas/<kind>/<version>.yaml says what a valid document is. Commands find the store by walking up from the working directory to formsctl.yaml, or take --store DIR or FORMSCTL_STORE.

      Exit codes: 0 ok, 1 problems found, 64 bad arguments, 65 bad input data, 66 no input (no store, missing file), 70 internal error, 74 I/O error (disk full, EIO, permission denied, stdout), 75 locked or awaiting `formsctl recover`.

      Examples:
        formsctl list form --fields id,status,form_type
        formsctl validate
        formsctl snapshot create --label before-cleanup
      """,
    version: formsctlVersion,
    subcommands: [
      Init.self, New.self, Get.self, ListCommand.self, Watch.self, Diff.self, Stats.self, SetCommand.self, Edit.self,
      Status.self, Approve.self, Reject.self,
      Remove.self,
      Move.self,
      Validate.self, Fmt.self, Schema.self, Migrate.self, Snapshot.self, Import.self, Log.self, Git.self,
      MergeFile.self, Editor.self, LSP.self, SyncCommand.self, Keygen.self, Keys.self, Recover.self,
    ]
  )

  static func main() {
    do {
      if let script = Completions.script(Array(CommandLine.arguments.dropFirst())) {
        print(script)
        return
      }
      try checkSubcommands(Array(CommandLine.arguments.dropFirst()))
      var command = try parseAsRoot()
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
      let code = exitCode(for: error)
      let text = message(for: error)
      // Help, --version, and a command's own exit code (its output already said why).
      guard code != .success, !(error is ExitCode), !text.isEmpty else { exit(withError: error) }
      printError(text.replacingOccurrences(of: "\n", with: "; "))
      FileHandleOutput.standardError.write("(formsctl \(helpPath(for: error)) --help shows the usage)\n")
      Platform.exit(code.rawValue)
    }
  }

  /// The command words of the command line that failed, for the `--help` hint.
  static func helpPath(for error: Error) -> String {
    var words: [String] = []
    var type: ParsableCommand.Type = Formsctl.self
    for argument in CommandLine.arguments.dropFirst() {
      guard let next = type.configuration.subcommands.first(where: { $0._commandName == argument }) else { break }
      words.append(argument)
      type = next
    }
    return words.joined(separator: " ").isEmpty ? "COMMAND" : words.joined(separator: " ")
  }

  /// Refuses an unknown subcommand word with the nearest known one (`lsit` → `list`), before
  /// argument-parser would report it as unexpected arguments.
  static func checkSubcommands(_ arguments: [String]) throws {
    let commands = Formsctl.configuration.subcommands.map { $0._commandName }
    if let first = arguments.first, first.hasPrefix("-"), !first.hasPrefix("---"),
      !["-h", "--help", "--version", "--generate-completion-script"].contains(first),
      let command = arguments.first(where: { commands.contains($0) })
    {
      throw CommandError.usage("\(first) goes after the command: formsctl \(command) \(first) ...")
    }
    var type: ParsableCommand.Type = Formsctl.self
    var words = ["formsctl"]
    for argument in arguments {
      let subcommands = type.configuration.subcommands
      guard !subcommands.isEmpty, !argument.hasPrefix("-"), argument != "help" else { return }
      guard let next = subcommands.first(where: { $0._commandName == argument }) else {
        // A command with a default subcommand (migrate → run) takes other words as its arguments.
        if type.configuration.defaultSubcommand != nil { return }
        let names = subcommands.map { $0._commandName }
        let hint = suggestion(for: argument, among: names).map { "did you mean \"\($0)\"? " } ?? ""
        throw CommandError.usage(
          "unknown command \"\(argument)\"; \(hint)(\(words.joined(separator: " ")) commands: \(names.joined(separator: ", ")))"
        )
      }
      words.append(argument)
      type = next
    }
  }
}
