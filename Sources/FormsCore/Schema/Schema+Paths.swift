extension Schema {
  /// Members a query may read that no document stores: the store computes them as it reads.
  /// `_awaiting` lists the roles whose approval the document waits for now.
  /// `_sync` is the document's state with the database synced last (`formsctl sync`).
  public static let computedMemberNames: Set<String> = ["_awaiting", "_sync"]

  /// Why `path` can reach nothing in a document of any of `versions` (one kind), or nil when it
  /// can in at least one: `unknown field "stauts"; did you mean "status"?`. For `--where`,
  /// `--sort` and `--fields`, which would otherwise match nothing without a word.
  public static func pathProblem(_ path: FilterExpression.Path, in versions: [Schema]) -> String? {
    if path.steps.first == .member("_schema") && path.steps.count == 1 { return nil }
    if path.steps.first == .member("_sync") {
      return path.steps.count == 1
        ? nil : "_sync is one word: synced, local-changed, remote-changed, conflict or rejected"
    }
    if path.steps.first == .member("_awaiting") {
      guard versions.contains(where: { $0.approvals != nil }) else {
        return "_awaiting is computed only for kinds whose descriptor declares approvals:"
      }
      return path.steps.count == 1 || (path.steps.count == 2 && path.steps[1] == .each)
        ? nil : "_awaiting is a list of role names: _awaiting[] == \"ROLE\""
    }
    var problems: [(depth: Int, message: String)] = []
    for schema in versions {
      guard let problem = schema.root.pathProblem(path.steps[...], walked: []) else { return nil }
      problems.append(problem)
    }
    // The version that got furthest along the path explains best.
    return problems.reduce(nil) { SchemaType.further($0, $1) }?.message
  }

  /// `pathProblem`, except that a top-level `json_string` field may be followed by a path into
  /// the type of the JSON its text holds (a derived field's `from:`).
  public static func textPathProblem(_ path: FilterExpression.Path, in schema: Schema) -> String? {
    guard case .member(let first)? = path.steps.first, path.steps.count > 1,
      let field = schema.root.fields[first], field.type.kind == .jsonString, let element = field.type.element
    else { return pathProblem(path, in: [schema]) }
    return element.pathProblem(path.steps.dropFirst(), walked: [path.steps[0]])?.message
  }
}

extension SchemaType {
  /// The types a value of this type can be (a `one_of` is any of its cases).
  public var alternatives: [SchemaType] { kind == .oneOf ? caseOrder.compactMap { cases[$0] } : [self] }

  /// Why `steps` lead nowhere from a value of this type, with how many steps were fine.
  func pathProblem(_ steps: ArraySlice<FilterExpression.Path.Step>, walked: [FilterExpression.Path.Step]) -> (
    depth: Int, message: String
  )? {
    guard let step = steps.first else { return nil }
    let here = walked.isEmpty ? "" : FilterExpression.Path(steps: walked).description
    var best: (depth: Int, message: String)?
    for type in alternatives {
      let next: SchemaType
      switch (step, type.kind) {
      case (_, .any):
        return nil
      case (.member, .object) where type.additional:
        return nil
      case (.member(let name), .object):
        guard let field = type.fields[name] else {
          let prefix = here.isEmpty ? "" : here + "."
          let near = didYouMean(name, among: type.fieldOrder, prefix: prefix)
          let hint =
            near.isEmpty
            ? " (\(here.isEmpty ? "fields" : here + " has"): \(type.fieldOrder.joined(separator: ", ")))" : near
          best = Self.further(best, (walked.count, "unknown field \"\(prefix)\(name)\"\(hint)"))
          continue
        }
        next = field.type
      case (.member, .map):
        next = type.element ?? SchemaType(kind: .any)
      case (.index, .list), (.each, .list):
        next = type.element ?? SchemaType(kind: .any)
      case (.member(let name), .list):
        best = Self.further(
          best, (walked.count, "\(here) is a list; write \(here)[].\(name) (any element) or \(here)[0].\(name)"))
        continue
      case (.index, _), (.each, _):
        best = Self.further(
          best,
          (walked.count, "\(here) is \(type.kind == .object ? "an object" : "a \(type.kind.rawValue)"), not a list"))
        continue
      default:
        best = Self.further(best, (walked.count, "\(here) is a \(type.kind.rawValue), which has no fields"))
        continue
      }
      guard let problem = next.pathProblem(steps.dropFirst(), walked: walked + [step]) else { return nil }
      best = Self.further(best, problem)
    }
    return best
  }

  /// The explanation that got further along the path; at the same depth, one with a suggestion.
  static func further(_ a: (depth: Int, message: String)?, _ b: (depth: Int, message: String)) -> (
    depth: Int, message: String
  ) {
    guard let a else { return b }
    func score(_ p: (depth: Int, message: String)) -> Int { p.depth * 2 + (p.message.contains("did you mean") ? 1 : 0) }
    return score(b) > score(a) ? b : a
  }
}

extension FilterExpression {
  /// The first path the expression reads that no version of its kind has, explained; a bare word
  /// compared with a path (`status == in_review`) is taken for the unquoted text it probably is.
  public func pathProblem(in versions: [Schema]) -> String? {
    switch self {
    case .and(let a, let b), .or(let a, let b): return a.pathProblem(in: versions) ?? b.pathProblem(in: versions)
    case .not(let a): return a.pathProblem(in: versions)
    case .exists(let path): return Schema.pathProblem(path, in: versions)
    case .matches(let a, _), .isIn(let a, _): return a.pathProblem(in: versions)
    case .compare(let a, let op, let b):
      if let problem = a.pathProblem(in: versions) { return problem }
      guard let problem = b.pathProblem(in: versions) else { return nil }
      if case .path(let left) = a, case .path(let right) = b, right.steps.count == 1,
        case .member(let word) = right.steps[0]
      {
        return "\(word) is not a field; to compare with the text, quote it: \(left) \(op.rawValue) \"\(word)\""
      }
      return problem
    }
  }
}

extension FilterExpression.Operand {
  func pathProblem(in versions: [Schema]) -> String? {
    guard case .path(let path) = self else { return nil }
    return Schema.pathProblem(path, in: versions)
  }
}

extension SchemaType {
  /// The type of the field `members` names from this object type down (nil when a step is not a field).
  public func type(at members: [String]) -> SchemaType? {
    var current: SchemaType = self
    for name in members {
      guard let field = current.alternatives.lazy.compactMap({ $0.fields[name] }).first else { return nil }
      current = field.type
    }
    return current
  }

  /// Every field path below this type (`status`, `items`, `items[].quantity`), the cases of a
  /// `one_of` merged, `depth` levels deep at most: what shell completion offers.
  public func fieldPaths(depth: Int = 4) -> [String] {
    guard depth > 0 else { return [] }
    var out: [String] = []
    for type in alternatives where type.kind == .object {
      for name in type.fieldOrder {
        guard let field = type.fields[name] else { continue }
        out.append(name)
        var inner = field.type
        var joint = "."
        if inner.kind == .list, let element = inner.element {
          inner = element
          joint = "[]."
        }
        out += inner.fieldPaths(depth: depth - 1).map { name + joint + $0 }
      }
    }
    var seen = Set<String>()
    return out.filter { seen.insert($0).inserted }
  }
}
