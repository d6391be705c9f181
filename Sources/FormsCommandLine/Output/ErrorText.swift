import FormsCore
import FormsStore
import Foundation

/// The sentence formsctl prints for an error: the library's statement of what failed, and, where
/// the command line has one, what to type next (commands, flags, environment variables). The
/// library never speaks command line; only this file does.
package enum ErrorText {
  /// A ``Remedy`` in the command line's words.
  package static func advice(for remedy: Remedy) -> String {
    switch remedy {
    case .validate: return "run formsctl validate"
    case .format: return "then run formsctl fmt"
    case .skipInvalid: return "fix it, or pass --skip-invalid"
    case .reseal: return "`formsctl keys reseal` seals it"
    case .checkSchemas: return "formsctl schema check says what"
    case .restoreSnapshot: return "restore a snapshot instead (formsctl snapshot restore)"
    case .useIdentity: return "run it with a key holder's identity (FORMSCTL_IDENTITY)"
    case .makeKey: return "`formsctl keygen` prints one"
    case .giveJSON: return "give it as JSON with --json"
    case .exportSchemas:
      return "run `formsctl editor setup` (or `formsctl schema export --out json-schema`) and commit the result"
    }
  }

  /// `diagnostics` with each one's remedy worded after its message.
  package static func worded(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
    diagnostics.map { diagnostic in
      guard let remedy = diagnostic.remedy else { return diagnostic }
      var worded = diagnostic
      worded.message += "; " + advice(for: remedy)
      return worded
    }
  }

  package static func message(for error: any FormsError) -> String {
    if let error = error as? any WordedError { return error.worded }
    guard let error = error as? StoreError else { return error.description }
    return message(for: error)
  }

  package static func message(for error: StoreError) -> String {
    switch error {
    case .refused(let refusal):
      return message(for: refusal)
    case .editKept(let cause, let path, let kind, let id):
      let sealed = path.hasSuffix(".sealed") ? " (sealed: it holds sensitive values)" : ""
      return "\(message(for: cause)). Your edited text is kept at \(path)\(sealed); "
        + "continue with formsctl edit \(kind) \(id) --resume \(path)"
    case .pruneRefused(let kind, let removing, let stored, let reason):
      let percent = StoreError.percent(removing, of: stored)
      return "--prune would remove \(removing) of \(plural(stored, "\(kind) document")) (\(percent)%): \(reason); "
        + "nothing written. Check the feed, or allow it with --max-prune \(removing) (or --max-prune \(percent)%)"
    default:
      return error.description + (advice(for: error) ?? "")
    }
  }

  /// What to type next after the library's sentence, for the errors that have a next step here.
  package static func advice(for error: StoreError) -> String? {
    switch error {
    case .storeNotFound(let root, let isDirectory):
      return isDirectory ? "; run `formsctl init \(root)` to make it one" : " (named by --store or FORMSCTL_STORE)"
    case .notAStore: return "; run `formsctl init`, pass --store DIR, or set FORMSCTL_STORE"
    case .locked: return ". Retry, or pass --wait 60"
    case .recoveryNeeded: return "; run `formsctl recover` first"
    case .unfinished:
      return ". Nothing is lost: fix that, then run `formsctl recover`, which finishes it "
        + "(the store refuses other writes until then)"
    case .unverifiable:
      return ". Either restore the operation's safety snapshot (`formsctl snapshot list`), or run "
        + "`formsctl recover --abandon` to drop the journal and keep the files as they are"
    case .rollBackFailed: return "; fix that, then run `formsctl recover`, which removes what it staged"
    case .insufficientSpace: return " (formsctl snapshot prune removes old snapshots)"
    case .missingDirectory(let path, _): return " (git checkout -- \(FilePath(path).name) restores it from git)"
    case .badFileName: return " (ls -b shows the bytes)"
    case .manifest(_, _, _, let remedy?): return "; " + advice(for: remedy)
    case .assignment(let problem): return problem.remedy.map { "; " + advice(for: $0) }
    case .watchLimit(let what, _):
      return "; raise it, as root or with sudo: sysctl fs.inotify.max_user_\(what)=524288 "
        + "(and in /etc/sysctl.d/ to keep it)"
    default: return nil
    }
  }

  package static func message(for refusal: Refusal) -> String {
    switch refusal {
    case .targetVersionWithoutKind: return "--to needs --kind: versions belong to one kind"
    case .identityMissing(let path):
      // Named by where it came from: the variable, or the default when the variable is unset.
      let named = !(ProcessInfo.processInfo.environment["FORMSCTL_IDENTITY"] ?? "").isEmpty
      let source = named ? "FORMSCTL_IDENTITY" : "the default identity; FORMSCTL_IDENTITY names another"
      return "the identity \(path) (\(source)) does not exist; `formsctl keygen --out \(path)` makes one"
    default: return refusal.description + (advice(for: refusal) ?? "")
    }
  }

  package static func advice(for refusal: Refusal) -> String? {
    switch refusal {
    case .noMigrationPath(_, _, _, let remedy?): return "; " + advice(for: remedy)
    case .unknownSchema: return "; run `formsctl validate` on it"
    case .wouldVoidApprovals, .leavesReview, .migrationVoidsApprovals:
      return ". Pass --void-approvals to write it anyway"
    case .idChanged(let kind, let from, let to): return "; rename it with `formsctl mv \(kind) \(from) \(to)`"
    case .schemaChanged: return "; `formsctl migrate` moves documents between versions"
    case .creationState: return "; create it, then move it with `formsctl status`"
    case .unreadableMatch: return "; fix it (formsctl validate) before changing documents by query"
    case .sealedQuery, .sealedField: return " (FORMSCTL_IDENTITY names a recipient's identity)"
    case .descriptorChanged: return ". If the change was intended, run `formsctl migrate repair`"
    case .rulesChanged: return "; run the command again, or restart `formsctl serve` or `formsctl mcp`"
    case .keptCopyNeedsIdentity: return " (FORMSCTL_IDENTITY)"
    case .storeInsideStore: return " (run init outside it)"
    case .notCovered(_, let snapshot, _, _): return " (snapshot show \(snapshot) says its scope)"
    case .restoreWithoutManifest(let snapshot, _):
      return " (restore its documents alone: formsctl snapshot restore \(snapshot) data)"
    case .identityInStore(_, let store):
      return store == nil
        ? "; move it out (e.g. to ~/.config/formsctl/identity)"
        : "; write it elsewhere (default ~/.config/formsctl/identity)"
    case .notAnIdentity: return "; `formsctl keygen` writes one"
    case .noRecipients: return "; run `formsctl keygen`, then `formsctl keys add RECIPIENT`"
    case .resealNeedsIdentity: return " (set FORMSCTL_IDENTITY)"
    default: return nil
    }
  }
}

/// An error of a door's own (sync's, a server's) that words itself in the command line's words;
/// the door's executable conforms it, so this module never imports the door.
package protocol WordedError: FormsError {
  /// The one line `formsctl: error:` prints.
  var worded: String { get }
}
