/// Validation straight from a file's bytes, building no tree: the way `validate` checks a large
/// store, where nearly every document is valid. It only ever answers "valid": anything it finds,
/// or cannot decide alone (a syntax error, keys out of canonical order, a type whose `quickPath`
/// is `none`, a rule that reads more than a top-level scalar), sends the caller to the full path
/// (`parse`, then `validate`), which finds and places every problem. What it judges alone is the
/// data in `QuickPath.decided`; every other scalar is checked by the code the full path runs.
extension Validator {
  /// The names of top-level members a quick check keeps: what the rules read plus `capture`; nil
  /// when a rule reads anything else (then there is no quick check for this schema).
  public func quickCaptures(_ capture: [String]) -> [String]? {
    // References and derived fields read values the byte path does not build (lists, a
    // json_string's text): such kinds take the full path.
    guard schema.references.isEmpty && schema.derived.isEmpty else { return nil }
    var names = Set(capture)
    for rule in schema.rules {
      for path in rule.require.paths + (rule.when?.paths ?? []) {
        guard path.steps.count == 1, case .member(let name) = path.steps[0], let field = schema.root.fields[name],
          field.type.isScalar
        else { return nil }
        names.insert(name)
      }
    }
    return names.sorted()
  }
}

extension SchemaType {
  /// A type whose values are single JSON scalars.
  public var isScalar: Bool { kind.isScalar }
}
