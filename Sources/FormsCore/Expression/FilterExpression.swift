/// A parsed filter or rule expression (docs/design.md §9): comparisons, `~`, `in`, `exists`, `and`, `or`,
/// `not`, parentheses, and paths with `.` and `[]`.
public indirect enum FilterExpression: Sendable, Equatable {
  case and(FilterExpression, FilterExpression)
  case or(FilterExpression, FilterExpression)
  case not(FilterExpression)
  case exists(Path)
  case compare(Operand, ComparisonOperator, Operand)
  case matches(Operand, Regex)
  case isIn(Operand, [JSONValue])

  /// A path into a document: `items[].quantity`, `metadata.agency`, `items[0].sku`.
  public struct Path: Sendable, Equatable, CustomStringConvertible {
    public enum Step: Sendable, Equatable {
      case member(String)
      case index(Int)
      case each
    }

    public var steps: [Step]

    public init(steps: [Step]) { self.steps = steps }

    /// Parses `a.b[].c[2]`; nil when it is not a path.
    public init?(_ text: String) {
      guard let expression = try? ExpressionParser.parse(text + " exists"), case .exists(let path) = expression else {
        return nil
      }
      self = path
    }

    public var description: String {
      var out = ""
      for step in steps {
        switch step {
        case .member(let name): out += out.isEmpty ? name : "." + name
        case .index(let i): out += "[\(i)]"
        case .each: out += "[]"
        }
      }
      return out
    }

    /// Every value the path reaches in `value` (`[]` fans out over list elements).
    public func values(in value: JSONValue) -> [JSONValue] {
      var current = [value]
      for step in steps {
        var next: [JSONValue] = []
        for item in current {
          switch (step, item) {
          case (.member(let name), .object(let object)):
            if let found = object[name] { next.append(found) }
          case (.index(let i), .array(let elements)):
            if i >= 0 && i < elements.count { next.append(elements[i]) }
          case (.each, .array(let elements)):
            next += elements
          default:
            break
          }
        }
        current = next
        if current.isEmpty { break }
      }
      return current
    }

    /// The one value the path reaches when it has no `[]` step, gathered without a list:
    /// `.some(nil)` when it reaches none, nil when it may reach several (use `values(in:)`).
    func single(in value: JSONValue) -> JSONValue?? {
      var current = value
      for step in steps {
        switch (step, current) {
        case (.each, _): return nil
        case (.member(let name), .object(let object)):
          guard let found = object[name] else { return .some(nil) }
          current = found
        case (.index(let i), .array(let elements)):
          guard i >= 0 && i < elements.count else { return .some(nil) }
          current = elements[i]
        default: return .some(nil)
        }
      }
      return .some(current)
    }

    /// `values(in:)` with the JSON Pointer of each value.
    public func located(in value: JSONValue) -> [(pointer: JSONPointer, value: JSONValue)] {
      var current: [(pointer: JSONPointer, value: JSONValue)] = [(.root, value)]
      for step in steps {
        var next: [(pointer: JSONPointer, value: JSONValue)] = []
        for (pointer, item) in current {
          switch (step, item) {
          case (.member(let name), .object(let object)):
            if let found = object[name] { next.append((pointer.appending(name), found)) }
          case (.index(let i), .array(let elements)):
            if i >= 0 && i < elements.count { next.append((pointer.appending(index: i), elements[i])) }
          case (.each, .array(let elements)):
            next += elements.enumerated().map { (pointer.appending(index: $0.offset), $0.element) }
          default:
            break
          }
        }
        current = next
        if current.isEmpty { break }
      }
      return current
    }
  }

  /// One side of a comparison.
  public enum Operand: Sendable, Equatable {
    case path(Path)
    case literal(JSONValue)

    func values(in document: JSONValue) -> [JSONValue] {
      switch self {
      case .path(let path): return path.values(in: document)
      case .literal(let value): return [value]
      }
    }

    /// `Path.single(in:)` of an operand: a literal is one value.
    func single(in document: JSONValue) -> JSONValue?? {
      switch self {
      case .path(let path): return path.single(in: document)
      case .literal(let value): return .some(value)
      }
    }
  }

  /// `==`, `!=`, `<`, `<=`, `>`, `>=`.
  public enum ComparisonOperator: String, Sendable, Equatable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
  }

  /// A regular expression with the source it came from.
  public struct Regex: Sendable, Equatable {
    public let source: String
    let compiled: CompiledPattern

    public static func == (lhs: Regex, rhs: Regex) -> Bool { lhs.source == rhs.source }
  }

  /// Every path the expression reads.
  public var paths: [Path] {
    switch self {
    case .and(let a, let b), .or(let a, let b): return a.paths + b.paths
    case .not(let a): return a.paths
    case .exists(let path): return [path]
    case .compare(let a, _, let b): return [a, b].compactMap { if case .path(let p) = $0 { p } else { nil } }
    case .matches(let a, _), .isIn(let a, _): return [a].compactMap { if case .path(let p) = $0 { p } else { nil } }
    }
  }
}

extension FilterExpression: CustomStringConvertible {
  /// The expression written back in the language (`status == "approved" and total > 0`).
  public var description: String {
    func operand(_ o: Operand) -> String {
      switch o {
      case .path(let path): return path.description
      case .literal(let value): return JSONWriter.compact(value)
      }
    }
    func grouped(_ e: FilterExpression) -> String {
      switch e {
      case .and, .or: return "(\(e))"
      default: return e.description
      }
    }
    switch self {
    case .and(let a, let b): return "\(grouped(a)) and \(grouped(b))"
    case .or(let a, let b): return "\(grouped(a)) or \(grouped(b))"
    case .not(let a): return "not \(grouped(a))"
    case .exists(let path): return "\(path) exists"
    case .compare(let a, let op, let b): return "\(operand(a)) \(op.rawValue) \(operand(b))"
    case .matches(let a, let regex): return "\(operand(a)) ~ \(JSONWriter.compact(.string(regex.source)))"
    case .isIn(let a, let values):
      return "\(operand(a)) in [\(values.map { JSONWriter.compact($0) }.joined(separator: ", "))]"
    }
  }
}
