/// Plans migrations between versions of one kind (pure).
///
/// Each version with `from: F` (or, without `from:`, the version before it) is reached from F by
/// its `changes:`, or, when it has none, by an inferred step that adds the new defaulted fields.
/// Going down runs the inverse of each step and is refused at the first step with no inverse.
public enum MigrationPlanner {
  /// One hop between two adjacent versions.
  public struct Step: Sendable, Equatable {
    public let kind: String
    public let from: SemanticVersion
    public let to: SemanticVersion
    public let changes: [ChangeOp]
    public let inferred: Bool

    public var description: String { "\(kind) \(from) → \(to)\(inferred ? " (inferred)" : "")" }
  }

  /// The version each version comes from: its `from:`, else the next lower version.
  public static func parents(_ versions: [SemanticVersion: Schema]) -> [SemanticVersion: SemanticVersion] {
    let sorted = versions.keys.sorted()
    var parents: [SemanticVersion: SemanticVersion] = [:]
    for (index, version) in sorted.enumerated() {
      if let from = versions[version]?.from {
        parents[version] = from
      } else if index > 0 {
        parents[version] = sorted[index - 1]
      }
    }
    return parents
  }

  /// The upward step into `version` from its parent.
  public static func stepInto(
    _ version: SemanticVersion, from parent: SemanticVersion, versions: [SemanticVersion: Schema]
  )
    throws(MigrationError) -> Step
  {
    guard let schema = versions[version], let old = versions[parent] else {
      throw MigrationError(
        "\(versions.values.first?.kind ?? "?") \(version) comes from \(parent), which does not exist")
    }
    if let raw = schema.changes {
      var changes: [ChangeOp] = []
      for (index, step) in raw.enumerated() {
        do throws(MigrationError) {
          changes.append(try ChangeOp.parse(step))
        } catch {
          throw MigrationError("\(schema.kind) \(version), change \(index + 1): \(error.message)")
        }
      }
      if let problem = changeProblems(changes, old: old.root, new: schema.root).first {
        throw MigrationError("\(schema.kind) \(parent) → \(version), \(problem)")
      }
      return Step(kind: schema.kind, from: parent, to: version, changes: changes, inferred: false)
    }
    let problems = inferredProblems(old: old, new: schema)
    guard problems.isEmpty else {
      throw MigrationError(
        "\(schema.kind) \(parent) → \(version) has no `changes:` and cannot be inferred: \(problems.joined(separator: "; "))"
      )
    }
    let adds = schema.root.fieldOrder.compactMap { name -> ChangeOp? in
      guard old.root.fields[name] == nil, let value = schema.root.fields[name]?.defaultValue, let path = FieldPath(name)
      else { return nil }
      return .add(field: path, value: value, copy: nil)
    }
    return Step(kind: schema.kind, from: parent, to: version, changes: adds, inferred: true)
  }

  /// What is wrong with `changes` between two versions, found without a document: a step that
  /// reads a field the old version does not have (a misspelt rename would silently do nothing),
  /// and a step that carries a sensitive value into a field that is not sensitive and not
  /// `declassified: true` (it would be written in plain text). Paths through a map, `any` or an
  /// object with `additional: true` are not judged; `jq` steps cannot be (the migration refuses,
  /// per document, a sealed value it finds outside the sensitive fields).
  public static func changeProblems(_ changes: [ChangeOp], old: SchemaType, new: SchemaType) -> [String] {
    // (exists, sensitive, declassified) of a path: nil when the schema does not fix it.
    func look(_ path: FieldPath, in root: SchemaType) -> (exists: Bool, sensitive: Bool, declassified: Bool)? {
      var current = root
      var sensitive = false
      for name in path.names {
        let objects = current.alternatives.filter { $0.kind == .object }
        guard !objects.isEmpty, !objects.contains(where: \.additional) else { return nil }
        guard let field = objects.lazy.compactMap({ $0.fields[name] }).first else { return (false, sensitive, false) }
        sensitive = sensitive || field.sensitive
        if field.declassified { return (true, sensitive, true) }
        current = field.type
      }
      return (true, sensitive, false)
    }
    var problems: [String] = []
    for (index, change) in changes.enumerated() {
      let at = "change \(index + 1) (\(change.description))"
      var source: FieldPath?
      var target: FieldPath?
      switch change {
      case .rename(let from, let to, _), .move(let from, let to, _): (source, target) = (from, to)
      case .add(let field, _, let copy?): (source, target) = (copy, field)
      case .remove(let field, _), .convert(let field, _, _), .map(let field, _, _): source = field
      case .each(let list, let inner):
        guard case .list? = old.type(at: list.names)?.kind, case .list? = new.type(at: list.names)?.kind,
          let from = old.type(at: list.names)?.element, let to = new.type(at: list.names)?.element
        else { continue }
        problems += changeProblems(inner, old: from, new: to).map { "\(at): \($0)" }
        continue
      case .add, .jq: continue
      }
      guard let source, let read = look(source, in: old) else { continue }
      if !read.exists {
        problems.append("\(at): the version before has no field \(source)")
        continue
      }
      if read.sensitive, let target, let written = look(target, in: new), !written.sensitive, !written.declassified {
        problems.append(
          "\(at): \(source) is sensitive, and \(target) is not: its value would be stored in plain text; "
            + "make \(target) sensitive, or mark it `declassified: true` if that is intended")
      }
    }
    return problems
  }

  /// The steps that take a document at `from` to `to`, or an error naming the gap or the step
  /// that cannot be undone.
  public static func plan(_ versions: [SemanticVersion: Schema], from: SemanticVersion, to: SemanticVersion)
    throws(MigrationError) -> [Step]
  {
    let kind = versions.values.first?.kind ?? "?"
    guard versions[to] != nil else {
      throw MigrationError(
        "\(kind) has no version \(to) (versions: \(versions.keys.sorted().map(\.description).joined(separator: ", ")))")
    }
    guard versions[from] != nil else { throw MigrationError("\(kind) has no version \(from)") }
    if from == to { return [] }
    let parents = parents(versions)
    // Up: walk from the target down its parents until we meet `from`.
    var chain: [SemanticVersion] = [to]
    while let last = chain.last, last != from, let parent = parents[last], !chain.contains(parent) {
      chain.append(parent)
    }
    if chain.last == from {
      var steps: [Step] = []
      for (child, parent) in zip(chain.dropLast(), chain.dropFirst()).reversed() {
        steps.append(try stepInto(child, from: parent, versions: versions))
      }
      return steps
    }
    let upward = chain
    // Down: walk from `from` down its parents until we meet `to`, inverting each step.
    chain = [from]
    while let last = chain.last, last != to, let parent = parents[last], !chain.contains(parent) {
      chain.append(parent)
    }
    guard chain.last == to else {
      // The upward walk stops at the version a `from:` names but no descriptor defines.
      var missing = ""
      if upward.count >= 2, let last = upward.last, versions[last] == nil {
        missing = " (\(upward[upward.count - 2]) comes from \(last), which does not exist)"
      }
      throw MigrationError("\(kind): no migration path from \(from) to \(to)\(missing)")
    }
    var steps: [Step] = []
    for (child, parent) in zip(chain.dropLast(), chain.dropFirst()) {
      let up = try stepInto(child, from: parent, versions: versions)
      let addedFields = Set(versions[child]?.root.fieldOrder ?? []) != Set(versions[parent]?.root.fieldOrder ?? [])
      if up.inferred && addedFields {
        throw MigrationError(
          "\(kind) \(child) → \(parent): the inferred step that added fields cannot be undone",
          remedy: .restoreSnapshot)
      }
      var inverse: [ChangeOp] = []
      for (index, change) in up.changes.enumerated().reversed() {
        guard let undo = change.inverse else {
          throw MigrationError(
            "\(kind) \(child) → \(parent): change \(index + 1) (\(change)) cannot be undone",
            remedy: .restoreSnapshot)
        }
        inverse.append(undo)
      }
      steps.append(Step(kind: kind, from: child, to: parent, changes: inverse, inferred: false))
    }
    return steps
  }

  /// Why `new` cannot be reached from `old` without `changes:`: only optional fields and fields
  /// with defaults may be added (as Core Data's lightweight migration); a new major version always
  /// spells its changes out.
  public static func inferredProblems(old: Schema, new: Schema) -> [String] {
    var problems: [String] = []
    if new.version.major != old.version.major {
      problems.append("a new major version (\(old.version) → \(new.version)) needs `changes:`")
    }
    compare(old.root, new.root, at: "", into: &problems)
    return problems
  }

  static func compare(_ old: SchemaType, _ new: SchemaType, at prefix: String, into problems: inout [String]) {
    for name in old.fieldOrder where new.fields[name] == nil {
      problems.append("it removes the field \(prefix)\(name)")
    }
    for name in new.fieldOrder {
      guard let field = new.fields[name] else { continue }
      guard let before = old.fields[name] else {
        if !field.optional && field.defaultValue == nil {
          problems.append("it adds the required field \(prefix)\(name) without a default")
        }
        continue
      }
      if before.type.kind != field.type.kind {
        problems.append(
          "it changes the type of \(prefix)\(name) from \(before.type.kind.rawValue) to \(field.type.kind.rawValue)")
      } else if field.type.kind == .object {
        compare(before.type, field.type, at: prefix + name + ".", into: &problems)
      } else if field.type.kind == .list, let a = before.type.element, let b = field.type.element, a.kind == .object,
        b.kind == .object
      {
        compare(a, b, at: prefix + name + "[].", into: &problems)
      }
      if before.optional && !field.optional && field.defaultValue == nil {
        problems.append("it makes \(prefix)\(name) required")
      }
    }
  }
}
