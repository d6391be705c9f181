import FormsStore
import Synchronization

/// The keyrings of the stores a command opened, so the note about sensitive values that could
/// not be opened is said once, at the end, whatever the command did.
final class SensitiveNote: Sendable {
  static let shared = SensitiveNote()
  private let keyrings = Mutex<[Keyring]>([])

  func track(_ keyring: Keyring) { keyrings.withLock { $0.append(keyring) } }

  /// Prints each store's note (if any) as a warning.
  func flush() {
    let all = keyrings.withLock { keyrings in
      defer { keyrings = [] }
      return keyrings
    }
    for note in all.compactMap({ $0.unreadableNote() }) { printWarning(note) }
  }
}
