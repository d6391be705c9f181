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
        if !FileIO.exists((FilePath(cwd) / path).string) { throw StoreError.fileNotFound(path) }
        if !documentsOnly { printWarning("\(path) is inside no formsctl store (no formsctl.yaml above it); skipped") }
      }
      if stores.isEmpty && !documentsOnly { throw StoreError.notAStore(searchedFrom: cwd) }
      return stores
    }

    static func finish(_ code: Int32) throws {
      if code != ExitStatus.ok { throw ExitStatus.exit(code) }
    }

    /// Validates `paths` (all documents when empty) of one store; returns the exit code.
    func validate(
      _ layout: StoreLayout, paths: [String], display: @escaping @Sendable (String) -> String, label: String = ""
    )
      throws -> Int32
    {
      let cwd = FileIO.currentDirectory
      let registry = try SchemaRegistry.load(directory: layout.schemasDirectory, display: display)
      if !registry.diagnostics.isEmpty {
        render(registry.diagnostics, as: format, to: .standardOutput)
        printError(
          "the schema descriptors have \(registry.diagnostics.count) problem(s); fix them first (formsctl schema check)"
        )
        return ExitStatus.code(for: .badInput)
      }
      var validator = StoreValidator(layout: layout, registry: registry, display: display)
      validator.keyring = try Keyring.load(layout, registry: registry, environment: ProcessInfo.processInfo.environment)
      SensitiveNote.shared.track(validator.keyring)
      // The whole store, as it stands: walked a directory at a time, never listed whole.
      let whole = paths.isEmpty && changedSince == nil && against == nil
      var files =
        try whole ? [] : paths.isEmpty ? validator.allFiles() : validator.files(named: paths, workingDirectory: cwd)
      var why = ""
      if let revision = changedSince ?? against {
        let git = try GitRepository(around: layout.root)
        let (changed, deleted) = try git.changes(since: revision, under: layout.dataDirectory)
        let touched = (changed + deleted).compactMap(validator.identify)
        let referrers = try validator.referrers(of: touched).filter { !changed.contains($0) }
        if changedSince != nil || paths.isEmpty {
          files = (changed.filter { FileIO.exists($0) } + referrers).sorted()
          why = " (\(changed.count) changed since \(revision), \(referrers.count) referring to changed or deleted ones)"
        }
      }
      var report =
        try whole
        ? validator.validateStore(progress: options.progress) : validator.validate(files, progress: options.progress)
      if let revision = against {
        let git = try GitRepository(around: layout.root)
        report.diagnostics += try RevisionCheck.run(
          files: files, revision: revision, git: git, registry: registry, layout: layout, display: display)
        report.invalid = Set(report.diagnostics.map(\.file)).count
      }
      render(report.diagnostics, as: format, to: .standardOutput)
      if !options.quiet {
        let summary = label + report.summary + why
        if format == .json { FileHandleOutput.standardError.write(summary + "\n") } else { printOut(summary) }
      }
      if let operation = try Journal(layout: layout).pending() {
        printWarning(
          "\(label)an interrupted \(operation) awaits `formsctl recover`; the documents may be half-changed, so this is no verdict"
        )
        return ExitStatus.code(for: .tryAgain)
      }
      if report.unreadable > 0 { return ExitStatus.code(for: .badInput) }
      return report.invalid > 0 ? ExitStatus.problemsFound : ExitStatus.ok
    }
  }
}
