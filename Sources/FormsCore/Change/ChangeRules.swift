/// The rules about how a document may change from one version to the next, which a single version
/// cannot show: `immutable` and `immutable_when` fields, and the workflow's transitions. Used by
/// `validate --against REV` (edits made in files) and by every write a person makes.
public enum ChangeRules {
  /// Findings for `new` against `old`: immutable fields that changed (`immutable_when` is
  /// evaluated on the old version: once signed, an amount stays), and a workflow state that
  /// moved along no declared transition.
  public static func findings(old: JSONValue, new: JSONValue, schema: Schema) -> [Finding] {
    var findings: [Finding] = []
    checkImmutable(old, new, type: schema.root, oldDocument: old, at: .root, into: &findings)
    if let finding = workflowFinding(old: old, new: new, schema: schema) { findings.append(finding) }
    return findings
  }

  /// The workflow transition from `old` to `new` when the workflow does not list it (and the new
  /// state is one of the field's values: other values are the validator's to report).
  public static func workflowFinding(old: JSONValue, new: JSONValue, schema: Schema) -> Finding? {
    guard let workflow = schema.workflow, let from = schema.workflowState(of: old),
      let to = schema.workflowState(of: new),
      schema.forbidsTransition(from: from, to: to)
    else { return nil }
    return Finding(
      pointer: JSONPointer.root.appending(workflow.field), rule: "workflow",
      message: "changed from \(from) to \(to), which the workflow does not allow; "
        + (workflow.next(from: from).isEmpty
          ? "\(from) is final" : "from \(from) it may move to \(workflow.next(from: from).joined(separator: ", "))"))
  }

  static func checkImmutable(
    _ old: JSONValue, _ new: JSONValue, type: SchemaType, oldDocument: JSONValue, at pointer: JSONPointer,
    into findings: inout [Finding]
  ) {
    guard type.kind == .object else { return }
    for name in type.fieldOrder {
      guard let field = type.fields[name] else { continue }
      let before = old[name]
      let after = new[name]
      let locked = field.immutable || (field.immutableWhen?.evaluate(oldDocument) ?? false)
      if locked && before != after {
        let was = before.map { JSONWriter.compact($0) } ?? "absent"
        let now = after.map { JSONWriter.compact($0) } ?? "absent"
        let why =
          field.immutable
          ? "it is immutable" : "it is immutable once the document was \(field.immutableWhen.map { "`\($0)`" } ?? "")"
        findings.append(
          Finding(
            pointer: pointer.appending(name), rule: "immutable", message: "changed from \(was) to \(now), but \(why)"))
      } else if let before, let after, field.type.kind == .object {
        checkImmutable(
          before, after, type: field.type, oldDocument: oldDocument, at: pointer.appending(name), into: &findings)
      }
    }
  }
}
