import FormsStore
import Foundation

/// The keyrings of the stores a command opened, so the note about sensitive values that could
/// not be opened is said once, at the end, whatever the command did.
final class SensitiveNote: @unchecked Sendable {
  static let shared = SensitiveNote()
  private let lock = NSLock()
  private var keyrings: [Keyring] = []

  func track(_ keyring: Keyring) {
    lock.lock()
    keyrings.append(keyring)
    lock.unlock()
  }

  /// Prints each store's note (if any) as a warning.
  func flush() {
    lock.lock()
    let all = keyrings
    keyrings = []
    lock.unlock()
    for note in all.compactMap({ $0.unreadableNote() }) { printWarning(note) }
  }
}
