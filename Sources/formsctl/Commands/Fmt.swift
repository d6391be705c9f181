import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore
import Foundation

extension Formsctl {
  struct Fmt: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "fmt",
      abstract: "Rewrite JSON files in canonical form, or check that they are.",
      discussion: """
        Canonical form: keys sorted by code point, two-space indent, one member per line, numbers exactly as written, LF, one final newline (the layout of `jq -S --indent 2 .`). With no PATH, every *.json under the current directory, skipping hidden directories (.formsctl, .git, .build). Files are rewritten atomically; a file inside a store, under that store's lock (and not while an interrupted operation awaits `formsctl recover`).

        Exit: 0 all canonical (or rewritten), 1 with --check when some are not, 65 when a file does not parse (the others are still processed).

        Examples:
          formsctl fmt --check            # CI: list non-canonical files, exit 1 if any
          formsctl fmt data/forms         # rewrite a directory in place
        """
    )

    @Flag(help: "List files that are not canonical and exit 1; write nothing.")
    var check = false

    @Option(name: .long, help: "Seconds to wait for another writer to release the store lock.")
    var wait: Double = 10

    @Argument(help: "Files or directories (default: the current directory).")
    var paths: [String] = []

    @Flag(
      help:
        "Only documents of a store (files under a store's data directory); skip other JSON files, as the pre-commit hook does."
    )
    var documentsOnly = false

    func run() throws {
      let (report, skipped) = try DocumentFormatter.format(
        paths, workingDirectory: FileIO.currentDirectory, check: check, documentsOnly: documentsOnly, wait: wait)
      for path in skipped {
        printWarning("skipped \(path): \(FileIO.describe(FilePath(path))), not a regular file (fmt follows no link)")
      }
      for result in report.results {
        switch result.outcome {
        case .rewritten: printOut("formatted \(result.path)")
        case .needsFormatting: printOut(result.path)
        case .failed(let diagnostic): render([diagnostic], as: .text, to: .standardError)
        case .canonical: break
        }
      }
      if !report.failures.isEmpty { throw ExitStatus.exit(.badInput) }
      if check && !report.changed.isEmpty { throw ExitStatus.problems }
    }
  }
}
