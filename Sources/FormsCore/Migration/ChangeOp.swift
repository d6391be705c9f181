/// One step of a migration (docs/design.md §10), applied to a document. Values a step does not touch are
/// kept exactly (numbers keep their text).
public indirect enum ChangeOp: Sendable, Equatable, CustomStringConvertible {
  case rename(from: FieldPath, to: FieldPath, ifPresent: Bool)
  case add(field: FieldPath, value: JSONValue?, copy: FieldPath?)
  case remove(field: FieldPath, ifPresent: Bool)
  case map(field: FieldPath, values: [(String, String)], keepUnmapped: Bool)
  case move(from: FieldPath, to: FieldPath, ifPresent: Bool)
  case convert(field: FieldPath, to: Conversion, ifPresent: Bool)
  case each(list: FieldPath, changes: [ChangeOp])
  case jq(filter: String)

  /// What `convert` turns a value into.
  public enum Conversion: String, Sendable, Equatable {
    /// A JSON string parsed into an object or list.
    case object
    /// A number from its text, or a string from a number's text.
    case number, string
    /// An object or list written as a compact JSON string.
    case json
    /// A datetime cut to its date; a date extended to midnight UTC.
    case date, datetime
  }

  public static func == (a: ChangeOp, b: ChangeOp) -> Bool { a.description == b.description }

  /// The step as a person reads it in messages: `rename formNumber → form_number`.
  public var description: String {
    switch self {
    case .rename(let from, let to, _): return "rename \(from) → \(to)"
    case .add(let field, let value, let copy):
      return "add \(field)" + (copy.map { " (copy of \($0))" } ?? value.map { " = \(JSONWriter.compact($0))" } ?? "")
    case .remove(let field, _): return "remove \(field)"
    case .map(let field, _, _): return "map \(field)"
    case .move(let from, let to, _): return "move \(from) → \(to)"
    case .convert(let field, let to, _): return "convert \(field) to \(to.rawValue)"
    case .each(let list, let changes): return "each \(list): [\(changes.map(\.description).joined(separator: "; "))]"
    case .jq(let filter): return "jq \(filter)"
    }
  }
}

/// A dotted path of object members (`metadata.created_by`).
public struct FieldPath: Sendable, Hashable, CustomStringConvertible {
  public let names: [String]
  public init?(_ text: String) {
    let names = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    guard !names.isEmpty, !names.contains(where: \.isEmpty) else { return nil }
    self.names = names
  }
  public var description: String { names.joined(separator: ".") }

  /// A path from names; nil when there are none.
  init?(names: [String]) {
    guard !names.isEmpty else { return nil }
    self.names = names
  }

  func get(_ value: JSONValue) -> JSONValue? {
    var current = value
    for name in names {
      guard let next = current[name] else { return nil }
      current = next
    }
    return current
  }

  /// Sets (or with nil removes) the value, creating missing objects on the way.
  func set(_ newValue: JSONValue?, in value: inout JSONValue) throws(MigrationError) {
    try Self.set(newValue, names[...], in: &value, path: self)
  }

  private static func set(
    _ newValue: JSONValue?, _ names: ArraySlice<String>, in value: inout JSONValue, path: FieldPath
  )
    throws(MigrationError)
  {
    guard let name = names.first else { return }
    guard case .object(var object) = value else {
      throw MigrationError("\(path): \(name) is inside a \(value.typeName), not an object")
    }
    if names.count == 1 {
      object[name] = newValue
    } else {
      if var child = object[name] ?? (newValue == nil ? nil : .object(JSONObject())) {
        try set(newValue, names.dropFirst(), in: &child, path: path)
        object[name] = child
      }
    }
    value = .object(object)
  }
}

/// Why a change could not be applied to a document, or could not be read from a descriptor.
public struct MigrationError: Error, Sendable, Equatable, CustomStringConvertible {
  public let message: String
  /// The next step, when there is one (an irreversible step: restore a snapshot).
  public let remedy: Remedy?
  public init(_ message: String, remedy: Remedy? = nil) {
    self.message = message
    self.remedy = remedy
  }
  public var description: String { message }
}

/// Runs a jq filter over one document (FormsCore does no I/O; FormsStore supplies the `jq` program).
public typealias JQRunner = @Sendable (_ filter: String, _ document: JSONValue) throws(MigrationError) -> JSONValue
