import FormsCore

/// Why a YAML text was refused, with the 1-based position of the problem.
public struct YAMLError: Error, Sendable, Equatable, CustomStringConvertible {
  public let message: String
  public let position: SourcePosition

  public init(message: String, position: SourcePosition) {
    self.message = message
    self.position = position
  }

  public var description: String { "\(position): \(message)" }
}
