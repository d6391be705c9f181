import FormsCore
import FormsStore
import Synchronization

/// The keyrings of the stores a command opened, so the note about sensitive values that could
/// not be opened is said once, at the end, whatever the command did.
package final class SensitiveNote: Sendable {
  package static let shared = SensitiveNote()
  private let keyrings = Mutex<[Keyring]>([])

  package func track(_ keyring: Keyring) { keyrings.withLock { $0.append(keyring) } }

  /// Prints each store's note (if any) as a warning.
  package func flush() {
    let all = keyrings.withLock { keyrings in
      defer { keyrings = [] }
      return keyrings
    }
    for keyring in all { if let note = Self.note(keyring) { printWarning(note) } }
  }

  /// `3 sensitive values were not readable (shown as «encrypted»): ...`, and what to do.
  package static func note(_ keyring: Keyring) -> String? {
    guard let (values, notForMe) = keyring.unopened else { return nil }
    let said =
      "\(values) sensitive value\(values == 1 ? " was" : "s were") not readable (shown as \(SealedText.placeholder))"
    guard keyring.identity != nil else {
      return "\(said): no identity at \(keyring.identityPath); set FORMSCTL_IDENTITY to a key holder's identity file"
    }
    return "\(said): the identity \(keyring.identityPath) is not among the recipients "
      + "\(notForMe == values ? "they were" : "some were") sealed for; a key holder adds its recipient with `formsctl keys add`"
  }
}
