import ArgumentParser
import FormsCore
import FormsStore
import Foundation

extension Formsctl {
  struct Fmt: ParsableCommand {
    static let configuration = CommandConfiguration(
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
      let cwd = FileIO.currentDirectory
      let (files, irregular) = try DocumentFormatter.expand(paths.isEmpty ? ["."] : paths)
      // Each file under the lock of the store it lies in, wherever fmt runs from; JSON files in
      // no store need no lock.
      let (stores, outside) = try StoreLayout.group(files, workingDirectory: cwd)
      var results: [DocumentFormatter.FileResult] = []
      for store in stores {
        let mine = documentsOnly ? store.paths.filter { store.layout.holdsDocument(joinPath(cwd, $0)) } : store.paths
        guard !mine.isEmpty else { continue }
        let formatter = DocumentFormatter(check: check, writer: AtomicWriter(boundary: store.layout.root))
        if check {
          results += formatter.run(mine).results
        } else {
          results += try store.layout.withWriteLock("fmt", wait: wait) { formatter.run(mine).results }
        }
      }
      if !documentsOnly {
        results += DocumentFormatter(check: check, writer: AtomicWriter(boundary: "/")).run(outside).results
      }
      // A link, FIFO or device is never opened: in a store it is a failure (a linked data
      // directory would otherwise check nothing), elsewhere a warning.
      let (linkedStores, linkedOutside) = try StoreLayout.group(irregular, workingDirectory: cwd)
      results += linkedStores.flatMap(\.paths).map(DocumentFormatter.refused)
      for path in linkedOutside where !documentsOnly {
        printWarning("skipped \(path): \(FileIO.describe(path)), not a regular file (fmt follows no link)")
      }
      let report = DocumentFormatter.Report(results: results.sorted { $0.path < $1.path })
      for result in report.results {
        switch result.outcome {
        case .rewritten: printOut("formatted \(result.path)")
        case .needsFormatting: printOut(result.path)
        case .failed(let diagnostic): FileHandleOutput.standardError.write(diagnostic.compilerStyle + "\n")
        case .canonical: break
        }
      }
      if !report.failures.isEmpty { throw ExitStatus.exit(.badInput) }
      if check && !report.changed.isEmpty { throw ExitStatus.problems }
    }
  }
}
