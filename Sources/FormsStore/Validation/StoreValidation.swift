import FormsCore
import Foundation

/// `validate`'s whole job on one store, as a value: which documents it checks (all of them, those
/// named, or those a git revision changed with those that refer to them), their diagnostics, and
/// whether the verdict stands (an interrupted operation awaiting `recover` makes it none). The
/// command line only renders it and chooses the exit code.
public struct StoreValidation: Sendable {
  /// What to validate.
  public struct Request: Sendable {
    /// Files or directories to check; empty: every document.
    public var paths: [String] = []
    /// Only what changed since this git revision (and what refers to it).
    public var changedSince: String?
    /// Also the changes since this revision that `immutable`, `immutable_when` or the workflow forbid.
    public var against: String?
    /// Where relative `paths` start.
    public var workingDirectory: String
    /// Where the identity is found (`FORMSCTL_IDENTITY`), so that sealed values are checked.
    public var environment: [String: String]
    public var progress: ProgressHandler?

    public init(workingDirectory: String, environment: [String: String]) {
      self.workingDirectory = workingDirectory
      self.environment = environment
    }
  }

  /// What the run decides.
  public enum Verdict: Sendable, Equatable {
    /// Every document checked is valid.
    case valid
    /// Some documents are invalid (their diagnostics say why).
    case invalid
    /// Some documents could not be checked at all: unreadable, not JSON, an unknown `_schema`.
    case unreadable
    /// The descriptors have problems, so no document was checked.
    case descriptorsInvalid
    /// An operation (`pending`) awaits `recover`: the documents may be half-changed.
    case noVerdict
  }

  /// The descriptors' problems; when there are any, nothing else was checked.
  public var descriptorProblems: [Diagnostic] = []
  public var report: StoreValidator.Report?
  /// Which documents a revision selected, for the summary: ` (3 changed since main, 1 referring
  /// to changed or deleted ones)`; empty otherwise.
  public var scope = ""
  /// The interrupted operation awaiting `recover`, if any.
  public var pending: String?
  /// The keyring sealed values were checked with (nil when the descriptors stopped the run).
  public var keyring: Keyring?

  public var verdict: Verdict {
    guard descriptorProblems.isEmpty, let report else { return .descriptorsInvalid }
    if pending != nil { return .noVerdict }
    if report.unreadable > 0 { return .unreadable }
    return report.invalid > 0 ? .invalid : .valid
  }

  /// Validates the store at `layout` as `request` asks, naming files with `display`.
  public static func run(
    _ layout: StoreLayout, _ request: Request, display: @escaping @Sendable (String) -> String
  ) throws(StoreError) -> StoreValidation {
    var outcome = StoreValidation()
    let registry = try SchemaRegistry.load(directory: layout.schemasDirectory, display: display)
    guard registry.diagnostics.isEmpty else {
      outcome.descriptorProblems = registry.diagnostics
      return outcome
    }
    var validator = StoreValidator(layout: layout, registry: registry, display: display)
    validator.keyring = try Keyring.load(layout, registry: registry, environment: request.environment)
    outcome.keyring = validator.keyring
    // The whole store, as it stands: walked a directory at a time, never listed whole.
    let whole = request.paths.isEmpty && request.changedSince == nil && request.against == nil
    var files =
      try whole
      ? []
      : request.paths.isEmpty
        ? validator.allFiles() : validator.files(named: request.paths, workingDirectory: request.workingDirectory)
    if let revision = request.changedSince ?? request.against {
      let git = try GitRepository(around: layout.root)
      var (changed, deleted) = try git.changes(since: revision, under: layout.dataDirectory)
      // A changed attachment file changes its document: `attachments/<directory>/<id>/...`.
      let attached =
        try layout.hasAttachments ? try git.changes(since: revision, under: layout.attachmentsDirectory) : ([], [])
      for path in attached.0 + attached.1 {
        guard let parts = layout.attachmentsPath.relative(FilePath(path))?.split(separator: "/"), parts.count >= 2
        else {
          continue
        }
        let document = layout.path(directory: String(parts[0]), id: String(parts[1]))
        if FileIO.exists(FilePath(document)), !changed.contains(document) { changed.append(document) }
      }
      let touched = (changed + deleted).compactMap(validator.identify)
      let referrers = try validator.referrers(of: touched).filter { !changed.contains($0) }
      if request.changedSince != nil || request.paths.isEmpty {
        files = (changed.filter { FileIO.exists(FilePath($0)) } + referrers).sorted()
        outcome.scope =
          " (\(changed.count) changed since \(revision), \(referrers.count) referring to changed or deleted ones)"
      }
    }
    var report =
      try whole
      ? validator.validateStore(progress: request.progress) : validator.validate(files, progress: request.progress)
    if whole {
      let orphans = try AttachmentChecks.orphans(layout: layout, registry: registry, display: display)
      report.diagnostics += orphans
      report.invalid += orphans.count
    }
    if let revision = request.against {
      let git = try GitRepository(around: layout.root)
      report.diagnostics += try RevisionCheck.run(
        files: files, revision: revision, git: git, registry: registry, layout: layout, display: display)
      report.invalid = Set(report.diagnostics.map(\.file)).count
    }
    outcome.report = report
    outcome.pending = try Journal(layout: layout).pending()
    return outcome
  }
}
