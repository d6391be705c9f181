import FormsCore

/// `formsctl fmt`: makes JSON files canonical (docs/design.md §4), or reports which are not.
public struct DocumentFormatter: Sendable {
  /// What happened to one file.
  public enum Outcome: Sendable, Equatable {
    case canonical
    case rewritten
    case needsFormatting
    case failed(Diagnostic)
  }

  /// One file's outcome.
  public struct FileResult: Sendable, Equatable {
    public let path: String
    public let outcome: Outcome
  }

  /// All the files' outcomes, in path order.
  public struct Report: Sendable {
    public let results: [FileResult]

    public init(results: [FileResult]) { self.results = results }

    /// Files that were rewritten or would be.
    public var changed: [String] {
      results.filter { $0.outcome == .rewritten || $0.outcome == .needsFormatting }.map(\.path)
    }

    /// Files that could not be read or parsed.
    public var failures: [Diagnostic] {
      results.compactMap { result in
        guard case .failed(let diagnostic) = result.outcome else { return nil }
        return diagnostic
      }
    }
  }

  /// Only report, never write.
  public let check: Bool
  /// Where writes may go.
  package let writer: AtomicWriter

  package init(check: Bool, writer: AtomicWriter) {
    self.check = check
    self.writer = writer
  }

  /// `formsctl fmt PATHS`: every JSON file under `paths` (relative to `workingDirectory`),
  /// each under the write lock of the store it lies in (none in `check` mode, nor for files in no
  /// store); with `documentsOnly`, only documents of stores. A link, FIFO or device is never
  /// opened: in a store it is a failure, elsewhere it comes back in `skipped`.
  public static func format(
    _ paths: [String], workingDirectory cwd: String, check: Bool, documentsOnly: Bool, wait: Double
  ) throws(StoreError) -> (report: Report, skipped: [String]) {
    let (files, irregular) = try expand(paths.isEmpty ? ["."] : paths)
    let (stores, outside) = try StoreLayout.group(files, workingDirectory: cwd)
    var results: [FileResult] = []
    for store in stores {
      let mine =
        documentsOnly ? store.paths.filter { store.layout.holdsDocument((FilePath(cwd) / $0).string) } : store.paths
      guard !mine.isEmpty else { continue }
      let formatter = DocumentFormatter(check: check, writer: AtomicWriter(boundary: store.layout.rootPath))
      if check {
        results += formatter.run(mine).results
      } else {
        results += try store.layout.withWriteLock("fmt", wait: wait) { formatter.run(mine).results }
      }
    }
    if !documentsOnly {
      results += DocumentFormatter(check: check, writer: AtomicWriter(boundary: FilePath("/"))).run(outside).results
    }
    // A linked data directory would otherwise check nothing.
    let (linkedStores, linkedOutside) = try StoreLayout.group(irregular, workingDirectory: cwd)
    results += linkedStores.flatMap(\.paths).map(refused)
    return (Report(results: results.sorted { $0.path < $1.path }), documentsOnly ? [] : linkedOutside)
  }

  /// The JSON files named by `paths` (files as given; directories walked for `*.json`, skipping
  /// hidden directories such as `.formsctl`, `.git` and `.build`), and apart what a walk found and
  /// never opens: symbolic links (to files or directories), FIFOs, devices. A missing path is an error.
  public static func expand(_ paths: [String]) throws(StoreError) -> (files: [String], irregular: [String]) {
    var files: [String] = []
    var irregular: [String] = []
    for path in paths {
      switch FileIO.entry(FilePath(path)) {
      case .missing: throw StoreError.fileNotFound(path)
      case .directory:
        let found = try FileIO.walk(FilePath(path), suffix: ".json")
        files += found.files
        irregular += found.irregular
      default: files.append(path)
      }
    }
    return (files, irregular)
  }

  /// What `expand` found and never opens, as the failure a store reports for it.
  public static func refused(_ path: String) -> FileResult {
    FileResult(
      path: path,
      outcome: .failed(
        Diagnostic(
          file: path, position: nil, rule: "read",
          message: "\(FileIO.describe(FilePath(path))), not a regular file; formsctl does not follow it in a store "
            + "(replace it with what it points to, or move it out of the store)")))
  }

  /// Formats (or checks) every file; one file's failure never stops the others.
  package func run(_ files: [String]) -> Report {
    let this = self
    return Report(results: parallelMap(files, chunkSize: 16) { this.process($0) })
  }

  func process(_ path: String) -> FileResult {
    do throws(StoreError) {
      let bytes = try FileIO.read(FilePath(path))
      let value: JSONValue
      do throws(JSONParseError) {
        value = try JSONParser().parse(bytes)
      } catch {
        return FileResult(
          path: path,
          outcome: .failed(
            Diagnostic(
              file: path, position: error.location, rule: "parse", message: error.message)))
      }
      let canonical = JSONWriter.canonical(value)
      if canonical == bytes { return FileResult(path: path, outcome: .canonical) }
      if check { return FileResult(path: path, outcome: .needsFormatting) }
      try writer.write(canonical, to: FilePath(path))
      return FileResult(path: path, outcome: .rewritten)
    } catch {
      let position: SourcePosition? = error.kind == .badInput ? SourcePosition(line: 1, column: 1) : nil
      let message: String
      if case .fileTooLarge(_, let size, let limit) = error {
        message = "the file is \(size) bytes, more than the limit of \(limit) bytes (64 MiB)"
      } else {
        message = error.description
      }
      return FileResult(
        path: path,
        outcome: .failed(
          Diagnostic(
            file: path, position: position, rule: "read", message: message)))
    }
  }
}
