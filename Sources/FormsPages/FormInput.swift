/// What a submitted form holds: its fields in order, names and values as typed
/// (`application/x-www-form-urlencoded`), bounded.
public struct FormInput: Sendable {
  /// The most fields a form may hold, and the most bytes of one value.
  public static let maximumFields = 5000
  public static let maximumValueBytes = 64 * 1024

  public private(set) var entries: [(name: String, value: String)]

  public init(_ entries: [(name: String, value: String)] = []) { self.entries = entries }

  /// A form body or query string; refuses one that is not UTF-8, breaks an escape, or goes past
  /// the bounds, saying which.
  public init(urlEncoded bytes: some Collection<UInt8>) throws(FormInputError) {
    entries = []
    for part in bytes.split(separator: UInt8(ascii: "&")) {
      guard entries.count < Self.maximumFields else { throw .tooManyFields(Self.maximumFields) }
      let pair = part.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
      guard let name = Self.decode(pair[0]) else { throw .undecodable }
      let value = pair.count > 1 ? Self.decode(pair[1]) : ""
      guard let value else { throw .undecodable }
      guard value.utf8.count <= Self.maximumValueBytes else {
        throw .valueTooLarge(name: name, limit: Self.maximumValueBytes)
      }
      entries.append((name, value))
    }
  }

  private static func decode(_ bytes: some Collection<UInt8>) -> String? {
    guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
    return Link.decode(text, plus: true)
  }

  /// The first value named `name`.
  public subscript(name: String) -> String? { entries.first { $0.name == name }?.value }

  /// Every value named `name`, in order.
  public func values(_ name: String) -> [String] { entries.filter { $0.name == name }.map(\.value) }

  public mutating func append(_ name: String, _ value: String) { entries.append((name, value)) }

  public mutating func removeAll(named name: String) { entries.removeAll { $0.name == name } }
}

/// Why a submitted form was refused before anything in it was read.
public enum FormInputError: Error, Equatable, CustomStringConvertible {
  case undecodable
  case tooManyFields(Int)
  case valueTooLarge(name: String, limit: Int)

  public var description: String {
    switch self {
    case .undecodable: "the form is not UTF-8 text with valid %-escapes"
    case .tooManyFields(let limit): "the form has more than \(limit) fields"
    case .valueTooLarge(_, let limit): "a field of the form holds more than \(limit) bytes"
    }
  }
}
