/// One finding about a file, as a value: where, what rule, what to tell the person.
public struct Diagnostic: Sendable, Hashable {
  /// How serious a finding is.
  public enum Severity: String, Sendable, Hashable {
    case error, warning, note
  }

  /// The file, as shown to the user (relative to the store or the working directory).
  public var file: String
  /// The 1-based position in the file, when known.
  public var position: SourcePosition?
  /// The value the finding is about (the root for whole-file findings).
  public var pointer: JSONPointer
  /// A short stable rule name (`min`, `type`, `parse`, `unknown-field`...).
  public var rule: String
  /// The message a person reads.
  public var message: String
  public var severity: Severity
  /// The next step, when the finding has one; the executable words it after the message.
  public var remedy: Remedy?

  public init(
    file: String, position: SourcePosition?, pointer: JSONPointer = .root, rule: String, message: String,
    severity: Severity = .error, remedy: Remedy? = nil
  ) {
    self.remedy = remedy
    self.file = file
    self.position = position
    self.pointer = pointer
    self.rule = rule
    self.message = message
    self.severity = severity
  }

  /// `file:line:col: error: path: message [rule]`, the compiler-style line editors jump to;
  /// always one line (control characters from the input are escaped).
  public var compilerStyle: String {
    let location = position.map { "\(file):\($0.line):\($0.column)" } ?? file
    let path = pointer.path
    return "\(location): \(severity.rawValue): \(path.isEmpty ? "" : path + ": ")\(message) [\(rule)]"
      .escapingControlCharacters
  }
}

/// What kind of failure an error is; the executable maps each to one exit code (docs/design.md §7).
public enum FailureKind: Sendable {
  /// Bad arguments (exit 64).
  case usage
  /// Bad input data: a file or feed that does not parse, an unknown kind, version or id (exit 65).
  case badInput
  /// No input: no store, a named file missing (exit 66).
  case noInput
  /// A bug (exit 70).
  case internalError
  /// An I/O error the system returned: a full disk, EIO, a permission denied on a store file, a
  /// failed write to stdout (exit 74).
  case ioError
  /// Try again later: locked, or an interrupted operation awaits `formsctl recover` (exit 75).
  case tryAgain
}

/// An error that knows its failure kind and prints as one line.
public protocol FormsError: Error, CustomStringConvertible {
  var kind: FailureKind { get }
}
