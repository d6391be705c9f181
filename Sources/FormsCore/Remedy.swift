/// The next step a finding points at, as a value the library can hand out without speaking
/// command line: the executable words each one (a command to run, a flag to pass), an app its own way.
public enum Remedy: String, Sendable, Hashable, CaseIterable {
  /// Find out what is wrong with the file: validate it.
  case validate
  /// Rewrite the file in canonical form once it is fixed.
  case format
  /// Leave documents that are invalid before a migration where they are.
  case skipInvalid = "skip-invalid"
  /// Seal sensitive values stored in plain text.
  case reseal
  /// Check the schema descriptors.
  case checkSchemas = "check-schemas"
  /// Undo by restoring a snapshot.
  case restoreSnapshot = "restore-snapshot"
  /// Run with the identity of one who holds a key for the store's sealed values.
  case useIdentity = "use-identity"
  /// Make a key pair, whose public keys are what a manifest lists.
  case makeKey = "make-key"
  /// Give the value as JSON (a list or an object).
  case giveJSON = "give-json"
  /// Write the JSON Schemas for editors again from the descriptors.
  case exportSchemas = "export-schemas"
}
