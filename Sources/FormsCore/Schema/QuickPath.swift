extension SchemaType {
  /// A constraint a type carries beyond its kind: each stored property of `SchemaType` that
  /// validation reads is one of these (a test holds the two lists equal), so a constraint added
  /// later is known by name to `QuickPath`, which then leaves it to the full validator.
  public enum Constraint: String, CaseIterable, Sendable {
    case minimum, maximum, minLength, maxLength, pattern, scale, values
    case element, minItems, maxItems, unique
    case fields, additional
    case discriminator, cases
  }

  /// The stored properties of `SchemaType` that are not constraints: its kind and name, what is
  /// maintained on write rather than checked, and tables derived from the constraints.
  public static let structuralProperties: Set<String> = [
    "kind", "name", "fieldOrder", "caseOrder", "timestamps", "requiredFields", "sortedFields", "constraints",
    "quickPath",
  ]
}

/// What `QuickCheck` (validation from a file's bytes, building no tree) may do with a
/// value of a type. It is decided once per type, when the descriptor is compiled, from the type's
/// kind and `constraints` against the table `decided`: the byte path judges alone only what that
/// table names, so a constraint it does not know can never pass an invalid document through it.
public enum QuickPath: Sendable, Equatable {
  /// The byte path judges the value: its structure, and the constraints `decided` lists for its kind.
  case bytes
  /// A scalar the byte path parses and hands to the full validator's own check for the type.
  case scalar
  /// No quick check: a document holding such a value is checked by the full path.
  case none

  /// By kind, the constraints the byte path decides on its own. Strings are judged on their
  /// bytes when they hold no escape; objects walk their fields (`fields`, required ones, `null`
  /// where nullable, `additional`); lists count and compare their elements' `unique` keys. A
  /// scalar kind missing here, or a scalar type with a constraint missing here, is `scalar`; any
  /// other type with a constraint missing here is `none`.
  public static let decided: [SchemaType.Kind: Set<SchemaType.Constraint>] = [
    .string: [], .date: [], .datetime: [], .enumeration: [.values],
    .object: [.fields, .additional],
    .list: [.element, .minItems, .maxItems, .unique],
    .map: [.element],
    .any: [],
  ]

  /// The path for a type of `kind` carrying `constraints`; `frozen` is false for an object whose
  /// field table the byte path cannot walk (more than 64 required fields).
  public static func of(_ kind: SchemaType.Kind, constraints: Set<SchemaType.Constraint>, frozen: Bool) -> QuickPath {
    let known = decided[kind]
    if kind.isScalar { return known.map { constraints.isSubset(of: $0) } == true ? .bytes : .scalar }
    guard let known, constraints.isSubset(of: known), frozen else { return .none }
    return .bytes
  }
}

extension SchemaType.Kind {
  /// A kind whose values are single JSON scalars.
  public var isScalar: Bool {
    switch self {
    case .string, .integer, .decimal, .number, .boolean, .date, .datetime, .uuid, .enumeration: return true
    case .list, .object, .map, .any, .oneOf, .jsonString: return false
    }
  }
}
