import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore
import Foundation

extension DiagnosticPrinter.Format: ExpressibleByArgument {}

extension Formsctl {
  struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "validate",
      abstract: "Check documents against their schemas and against each other.",
      discussion: """
        Checks the whole store, or the files and directories named: JSON syntax, a known _schema, every type and constraint, unknown fields, rules, unique keys in lists, file name = id, valid ids, the right directory, and relations that point at documents that exist. Every problem is reported as file:line:col: error: path: message [rule].

        Exit: 0 all valid; 1 invalid documents (or names under data/ that are not regular files: links, FIFOs); 65 a document does not parse or names an unknown kind or version (or the descriptors have errors); 66 no store or a missing path; 75 an interrupted operation awaits `formsctl recover`.

        Examples:
          formsctl validate
          formsctl validate data/forms --format json | jq '.[].message'
          formsctl validate --format github          # annotations in GitHub Actions
        """
    )

    @OptionGroup var options: StoreOptions

    @Option(help: "Output: text, json (one array) or github (Actions annotations).")
    var format: DiagnosticPrinter.Format = .text

    @Argument(help: "Document files or directories (default: the whole store).")
    var paths: [String] = []

    @Option(
      help: ArgumentHelp(
        "Only documents git reports changed since REV (plus those referring to them).", valueName: "REV"))
    var changedSince: String?

    @Option(
      help: ArgumentHelp(
        "Also report changes since REV that immutable / immutable_when or the workflow forbid.", valueName: "REV"))
    var against: String?

    @Flag(
      help:
        "Leave named files that lie in no store alone, without a warning, and pass when none is in a store (the pre-commit hook)."
    )
    var documentsOnly = false

    func run() throws {
      let cwd = FileIO.currentDirectory
      // GitHub annotations name files from the top of the repository, wherever CI runs.
      let base = format == .github ? StoreLayout.nearest(holding: ".git", from: cwd) ?? cwd : cwd
      let display = PathDisplay(workingDirectory: base).show
      let named = StoreLayout.named(explicit: options.store, environment: ProcessInfo.processInfo.environment)
      guard !paths.isEmpty, named == nil else {
        return try Self.finish(validate(options.locate(), paths: paths, display: display))
      }
      let stores = try Self.stores(holding: paths, cwd: cwd, documentsOnly: documentsOnly)
      var worst: Int32 = 0
      for store in stores {
        let label = stores.count > 1 ? display(store.layout.root) + ": " : ""
        worst = max(worst, try validate(store.layout, paths: store.paths, display: display, label: label))
      }
      try Self.finish(worst)
    }

    /// Files named from anywhere (a pre-commit hook at the top of the repository), grouped by the
    /// store each lies in; one in no store is skipped with a warning, one that does not exist is an error.
    /// With `documentsOnly` (the hook's JSON in a `data/` folder of no store), those are left
    /// alone quietly, and none in a store is nothing to check.
    static func stores(holding paths: [String], cwd: String, documentsOnly: Bool = false) throws -> [(
      layout: StoreLayout, paths: [String]
    )] {
      let (stores, outside) = try StoreLayout.group(paths, workingDirectory: cwd)
      for path in outside {
        if !FileIO.exists(FilePath(cwd) / path) { throw StoreError.fileNotFound(path) }
        if !documentsOnly { printWarning("\(path) is inside no formsctl store (no formsctl.yaml above it); skipped") }
      }
      if stores.isEmpty && !documentsOnly { throw StoreError.notAStore(searchedFrom: cwd) }
      return stores
    }

    static func finish(_ code: Int32) throws {
      if code != ExitStatus.ok { throw ExitStatus.exit(code) }
    }

    /// Validates `paths` (all documents when empty) of one store, prints what it found; returns
    /// the exit code.
    func validate(
      _ layout: StoreLayout, paths: [String], display: @escaping @Sendable (String) -> String, label: String = ""
    )
      throws -> Int32
    {
      var request = StoreValidation.Request(
        workingDirectory: FileIO.currentDirectory, environment: ProcessInfo.processInfo.environment)
      request.paths = paths
      request.changedSince = changedSince
      request.against = against
      request.progress = options.progress
      let outcome = try StoreValidation.run(layout, request, display: display)
      if let keyring = outcome.keyring { SensitiveNote.shared.track(keyring) }
      guard let report = outcome.report else {
        render(outcome.descriptorProblems, as: format, to: .standardOutput)
        printError(
          "the schema descriptors have \(outcome.descriptorProblems.count) problem(s); fix them first (formsctl schema check)"
        )
        return ExitStatus.code(for: .badInput)
      }
      render(report.diagnostics, as: format, to: .standardOutput)
      if !options.quiet {
        let summary = label + report.summary + outcome.scope
        if format == .json { FileHandleOutput.standardError.write(summary + "\n") } else { printOut(summary) }
      }
      switch outcome.verdict {
      case .noVerdict:
        printWarning(
          "\(label)an interrupted \(outcome.pending ?? "operation") awaits `formsctl recover`; the documents may be half-changed, so this is no verdict"
        )
        return ExitStatus.code(for: .tryAgain)
      case .unreadable, .descriptorsInvalid: return ExitStatus.code(for: .badInput)
      case .invalid: return ExitStatus.problemsFound
      case .valid: return ExitStatus.ok
      }
    }
  }
}
