import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore
import Foundation

extension Formsctl {
  struct Approve: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "approve",
      abstract: "Sign an approval of a submitted document; the last one a chain needs moves it on.",
      discussion: """
        The document must be in the review state of one of its kind's approval chains (descriptor approvals:), submitted there with `formsctl status KIND ID STATE`, which signs the submission and names the preparer. Your identity (FORMSCTL_IDENTITY, else ~/.config/formsctl/identity) signs the document's content as stored, without _approvals, the workflow's field, its timestamps and the fields the chain marks free; the record (signer, role, step, time, comment, content hash, signature) is added to the document's _approvals. The step is the first one waiting for one of your roles (roles: in formsctl.yaml), or --step. When the approval completes the chain, the document moves to the state the chain guards in the same write. Refused: a signer who holds no role the chain asks for, the preparer, one who already signed this round, a document not in review, a step out of order. `formsctl validate` checks every signature, role, count and order; a change of signed content makes the approvals stale. The bundled example store declares no chain, so there the examples below are refused (exit 65); the Approvals guide (docs/guide/approvals.md) builds a store that does.

        Examples:
          formsctl approve form 0adc90c4 --comment "prices checked"   # exit 65
          formsctl approve form 0adc90c4 --step sign                  # exit 65
        """
    )
    @OptionGroup var options: StoreOptions
    @OptionGroup var signing: SigningOptions

    func run() throws { try signing.sign(.approve, options) }
  }

  struct Reject: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "reject",
      abstract: "Sign a rejection of a submitted document: the round ends, and it goes back to be submitted again.",
      discussion: """
        Signed and recorded as `approve` records an approval; the chain's reject_to state, if it names one, is where the document moves. The next submission starts a new round. (In the bundled example store, which declares no chain, the example is refused: exit 65.)

        Examples:
          formsctl reject form 0adc90c4 --comment "wrong NAICS code"   # exit 65
        """
    )
    @OptionGroup var options: StoreOptions
    @OptionGroup var signing: SigningOptions

    func run() throws { try signing.sign(.reject, options) }
  }
}

/// What `approve` and `reject` take, and how they report.
struct SigningOptions: ParsableArguments {
  @Argument(help: "The kind.", completion: Completions.kinds) var kind: String
  @Argument(help: "The document's id (or a unique prefix of 4+ characters).", completion: Completions.ids) var id:
    String
  @Option(help: "The step to sign (default: the first one waiting for one of your roles).") var step: String?
  @Option(help: "A comment, signed with the record.") var comment: String?

  /// Signs `action` with the identity of the person running, and says what it did.
  func sign(_ action: ApprovalRecord.Action, _ options: StoreOptions) throws {
    let store = try options.open(toWrite: true)
    let id = try store.expand(kind: kind, id: self.id)
    let identity = try store.signingIdentity(environment: ProcessInfo.processInfo.environment)
    let outcome =
      action == .reject
      ? try store.reject(kind: kind, id: id, step: step, comment: comment, identity: identity)
      : try store.approve(kind: kind, id: id, step: step, comment: comment, identity: identity)
    printOut(Self.describe(outcome, kind: kind))
  }

  /// `approved form 0adc90c4 (step review, as reviewer); waiting: sign (1 more contracting_officer)`.
  static func describe(_ outcome: Store.ApprovalOutcome, kind: String) -> String {
    let record = outcome.record
    let done = record.action == .approve ? "approved" : "rejected"
    var line =
      "\(done) \(kind) \(StoreLayout.id(fromFile: outcome.document.path) ?? "") (step \(record.step ?? ""), as \(record.role ?? ""))"
    if let moved = outcome.moved {
      line += "; it is now \(moved)"
    } else if !outcome.waiting.isEmpty {
      line += "; waiting: " + outcome.waiting.joined(separator: ", ")
    }
    return line
  }
}

/// Names on stderr each document whose approvals a write made stale (its round ended; approved
/// ones went back to review), so nobody learns it only from `validate`.
func warnStale(_ stale: [StaleApprovals], dryRun: Bool = false) {
  for document in stale {
    printWarning((dryRun ? "would make approvals stale: " : "approvals made stale: ") + document.description)
  }
}
