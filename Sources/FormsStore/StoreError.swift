import FormsCore
import Foundation

/// Errors of the store layer: files, locks, the store's layout.
public enum StoreError: FormsError, Equatable {
  case fileNotFound(String)
  case notAStore(searchedFrom: String)
  /// `--store DIR` or FORMSCTL_STORE names a directory without formsctl.yaml (`isDirectory`), or nothing.
  case storeNotFound(String, isDirectory: Bool)
  case manifest(file: String, position: SourcePosition?, message: String, remedy: Remedy? = nil)
  case fileTooLarge(String, size: Int, limit: Int)
  /// A FIFO, device, directory or (where formsctl keeps its own files) symbolic link.
  case wrongFileType(String, found: String, expected: String)
  case io(String, operation: String, errno: Errno)
  /// The free-space check found that the work would fill the disk (exit 74, before anything is written).
  case insufficientSpace(what: String, needed: Int64, free: Int64, at: String)
  case symlinkOutsideStore(String)
  /// A name in `directory` that is not valid UTF-8, shown with `\xNN` escapes.
  case badFileName(String, escaped: String)
  /// A directory the manifest names (`schemas:`) is missing: `key` is its manifest key.
  case missingDirectory(String, key: String)
  case pathOutsideStore(String)
  case locked(pid: Int32?, command: String, waited: Double)
  case storeExists(String)
  case recoveryNeeded(operation: String)
  /// Committed, but a step after the commit record failed: `recover` finishes it once `cause` is fixed.
  case unfinished(operation: String, cause: String)
  /// `recover` cannot verify a committed plan: a file it would put in place or remove is not
  /// what the plan recorded (exit 65; the journal is kept).
  case unverifiable(operation: String, path: String, reason: String)
  /// An operation failed before its commit record (`cause`), and rolling it back failed too
  /// (`failure`): the store is unchanged, and the journal waits for `recover` to finish rolling back.
  case rollBackFailed(operation: String, cause: String, failure: String)
  case invalidDocument(String, [Diagnostic])
  /// A stored document that does not parse (a merge conflict left in it), found by a read.
  case unreadableDocument(String, [Diagnostic])
  case migrationFailed(documents: Int, [Diagnostic])
  case importFailed(records: Int, [Diagnostic])
  /// `import --prune` would remove `removing` of the kind's `of` documents, beyond its bound.
  case pruneRefused(kind: String, removing: Int, of: Int, reason: String)
  /// A request the store understood and will not carry out (the cases an app may handle).
  case refused(Refusal)
  /// An assignment (`field=value`) that does not fit the document or its schema.
  case assignment(Assignment.Problem)
  /// Bad arguments, found only once the store is read (exit 64).
  case usage(String)
  case notFound(kind: String, id: String, path: String)
  /// An `edit` of `kind` `id` that failed after the person changed the text; the text is kept at
  /// `at`, from where an edit resumes.
  indirect case editKept(StoreError, at: String, kind: String, id: String)
  /// A short id that starts more than one document's id.
  case ambiguousID(kind: String, prefix: String, candidates: [String])
  /// The system's limit on inotify `what` (watches or instances) is reached; `limit` is its value
  /// when it could be read.
  case watchLimit(what: String, limit: Int?)
  /// The store being watched was removed or moved away (`root`).
  case storeGone(String)
  /// Another watcher already serves the index of this store on `socket` (exit 75).
  case watcherRunning(socket: String)
  /// Copying snapshots to or from `place` failed (rsync's first line of complaint).
  case transferFailed(place: String, message: String)
  /// A report an unattended run must leave (`import --rejects FILE`) cannot be written at `path`
  /// (exit 74); nothing was imported.
  case reportNotWritten(path: String, cause: String)
  /// The rejects list of a run that already changed the store (`sync --rejects FILE`) cannot be
  /// written at `path` (exit 74): the run completed; only the list is missing.
  case reportNotWrittenAfterRun(path: String, cause: String)
  /// A file written for a person (a rejects list, a rendered page, exported schemas) was asked
  /// for at `path`, a place formsctl never writes such a file (`reason`: inside the repository's
  /// `.git`, the store's data, its schemas; exit 64). Nothing was written.
  case outputRefused(path: String, reason: String)
  /// A bug: the message says what went wrong.
  case internalError(String)

  public var kind: FailureKind {
    switch self {
    case .fileNotFound, .notAStore, .storeNotFound, .missingDirectory: return .noInput
    case .manifest, .fileTooLarge, .wrongFileType, .symlinkOutsideStore, .pathOutsideStore, .storeExists, .badFileName:
      return .badInput
    case .io(_, _, let code):
      // A path that is not what the store's layout needs is bad input; anything else the system
      // returned (a full disk, EIO, a permission denied) is an I/O error, never a bug.
      return [ENOTDIR, EISDIR, ELOOP, ENAMETOOLONG].contains(code.rawValue) ? .badInput : .ioError
    case .insufficientSpace, .watchLimit, .storeGone, .transferFailed, .reportNotWritten, .reportNotWrittenAfterRun:
      return .ioError
    case .locked, .recoveryNeeded, .unfinished, .rollBackFailed, .watcherRunning: return .tryAgain
    case .unverifiable: return .badInput
    case .assignment(let problem): return problem.kind
    case .invalidDocument, .unreadableDocument, .refused, .migrationFailed, .importFailed, .pruneRefused:
      return .badInput
    case .notFound: return .noInput
    case .ambiguousID, .usage, .outputRefused: return .usage
    case .editKept(let error, _, _, _): return error.kind
    case .internalError: return .internalError
    }
  }

  public var description: String {
    switch self {
    case .fileNotFound(let path):
      return "\(path): no such file or directory"
    case .storeNotFound(let root, let isDirectory):
      return isDirectory ? "\(root) is not a formsctl store (it has no formsctl.yaml)" : "\(root): no such directory"
    case .notAStore(let start):
      return "no formsctl store found in \(start) or any parent directory (looked for formsctl.yaml)"
    case .manifest(let file, let position, let message, _):
      return "\(file)\(position.map { ":\($0.line):\($0.column)" } ?? ""): \(message)"
    case .fileTooLarge(let path, let size, let limit):
      return "\(path):1:1: the file is \(size) bytes, more than the limit of \(limit) bytes (\(limit >> 20) MiB)"
    case .wrongFileType(let path, let found, let expected):
      return
        "\(path) is \(found), not \(expected); formsctl does not open or follow it (move it away, or replace it with \(expected))"
    case .io(let path, let operation, let code):
      return "\(path): \(operation) failed: \(code)"
    case .symlinkOutsideStore(let path):
      return "\(path): a symbolic link that leads out of the store; refusing to write through it"
    case .badFileName(let directory, let escaped):
      return "\(directory)/\(escaped): the file name is not valid UTF-8, so formsctl cannot name it to read, copy "
        + "or remove it; rename it or move it out of the store"
    case .missingDirectory(let path, let key):
      return
        "\(path): no such directory (formsctl.yaml names it as `\(key):`); restore it, or correct `\(key):` in formsctl.yaml"
    case .transferFailed(let place, let message):
      return "copying snapshots with \(place) failed: \(message)"
    case .pathOutsideStore(let path):
      return "\(path): not inside the store"
    case .watchLimit(let what, let limit):
      return "the system's limit on inotify \(what) is reached (fs.inotify.max_user_\(what) = "
        + "\(limit.map(String.init) ?? "unknown"))"
    case .storeGone(let root):
      return "\(root): the store was removed or moved away while it was watched"
    case .watcherRunning(let socket):
      return "another watcher already serves this store's index on \(socket); stop it first, or let it serve"
    case .locked(let pid, let command, let waited):
      let holder = pid.map { "pid \($0) (\(command))" } ?? "another process"
      return "the store is locked by \(holder); waited \(Int(waited)) s"
    case .recoveryNeeded(let operation):
      return "an interrupted \(operation) awaits recovery"
    case .unfinished(let operation, let cause):
      return "the \(operation) is committed but not finished: \(cause)"
    case .unverifiable(let operation, let path, let reason):
      return "cannot finish the interrupted \(operation): \(path): \(reason). Nothing was changed by this attempt; "
        + "the journal is kept"
    case .rollBackFailed(let operation, let cause, let failure):
      return "the \(operation) failed (\(cause)), and rolling it back failed too (\(failure)). No document was "
        + "changed"
    case .unreadableDocument(let what, let diagnostics):
      return "\(what) does not parse, so it cannot be read (\(plural(diagnostics.count, "problem")) above)"
    case .invalidDocument(let what, let diagnostics):
      return
        "\(what) \(what.hasSuffix("descriptors") ? "are" : "is") not valid; nothing written (\(plural(diagnostics.count, "problem")) above)"
    case .migrationFailed(let documents, let diagnostics):
      return
        "\(plural(documents, "document")) cannot be migrated (\(plural(diagnostics.count, "problem")) above); nothing written"
    case .importFailed(let records, let diagnostics):
      return
        "\(plural(records, "feed record")) cannot be imported (\(plural(diagnostics.count, "problem")) above); nothing written"
    case .pruneRefused(let kind, let removing, let stored, let reason):
      return "pruning would remove \(removing) of \(plural(stored, "\(kind) document")) "
        + "(\(Self.percent(removing, of: stored))%): \(reason); nothing written"
    case .refused(let refusal):
      return refusal.description
    case .assignment(let problem):
      return problem.description
    case .insufficientSpace(let what, let needed, let free, let path):
      return "\(what) needs \(Storage.format(needed)), \(Storage.format(free)) free on the file system of \(path); "
        + "nothing written. Free some space"
    case .usage(let message):
      return message
    case .notFound(let kind, let id, let path):
      return "no \(kind) with id \"\(id)\" (\(path) does not exist)"
    case .editKept(let error, let path, _, _):
      let sealed = path.hasSuffix(".sealed") ? " (sealed: it holds sensitive values)" : ""
      return "\(error.description). Your edited text is kept at \(path)\(sealed)"
    case .ambiguousID(let kind, let prefix, let candidates):
      let shown =
        candidates.prefix(10).joined(separator: ", ")
        + (candidates.count > 10 ? ", … (\(candidates.count) in all)" : "")
      return "\"\(prefix)\" starts \(candidates.count) \(kind) ids: \(shown); type more of it"
    case .reportNotWritten(let path, let cause):
      return "\(path): cannot write the rejects file: \(cause); nothing imported"
    case .reportNotWrittenAfterRun(let path, let cause):
      return
        "\(path): cannot write the rejects file: \(cause); the run completed (its rows are in), only the list"
        + " was not written (`formsctl sync status` shows the rows that wait)"
    case .outputRefused(let path, let reason):
      return "\(path): formsctl does not write a file there: \(reason); nothing written"
    case .internalError(let message):
      return "internal error (a bug in formsctl): \(message)"
    case .storeExists(let path):
      return "\(path) already holds a formsctl store (formsctl.yaml); refusing to overwrite it"
    }
  }

  /// `removing` as a share of `total`, rounded up (100 for an empty total).
  public static func percent(_ removing: Int, of total: Int) -> Int {
    total == 0 ? 100 : (removing * 100 + total - 1) / total
  }
}
