extension Schema.Workflow {
  /// The states a transition may lead to from `state`.
  public func next(from state: String) -> [String] { transitions[state] ?? [] }

  /// True when the workflow lists `from → to`.
  public func allows(from: String, to: String) -> Bool { next(from: from).contains(to) }

  /// Of `states`, those no transition leads into: where a new document may start.
  public func initialStates(among states: [String]) -> [String] {
    let targets = Set(transitions.values.joined())
    return states.filter { !targets.contains($0) }
  }

  /// `is in_review; it cannot move to draft. Allowed next: approved, rejected`, the refusal a
  /// person gets for a transition the workflow does not list.
  public func refusal(from: String, to: String) -> String {
    let allowed = next(from: from)
    let list = allowed.isEmpty ? "none (\(from) is final)" : allowed.joined(separator: ", ")
    return "is \(from); it cannot move to \(to). Allowed next: \(list)"
  }
}

extension Schema {
  /// The workflow state of `document`: its field's value, else the field's default.
  public func workflowState(of document: JSONValue) -> String? {
    guard let workflow else { return nil }
    return document[workflow.field]?.stringValue ?? root.fields[workflow.field]?.defaultValue?.stringValue
  }

  /// The values the workflow field may hold: its enum's, else the states the workflow names.
  public var workflowStates: [String] {
    guard let workflow else { return [] }
    if let values = root.fields[workflow.field]?.type.values, !values.isEmpty { return values }
    var states: [String] = []
    for state in workflow.transitions.keys.sorted() + workflow.transitions.values.joined() where !states.contains(state)
    {
      states.append(state)
    }
    return states
  }

  /// The states a new document may be created in: the field's default, and the workflow states
  /// that no transition leads into.
  public var creationStates: [String] {
    guard let workflow else { return [] }
    let initial = workflow.initialStates(among: workflowStates)
    guard let first = root.fields[workflow.field]?.defaultValue?.stringValue else { return initial }
    return [first] + initial.filter { $0 != first }
  }

  /// True when moving the workflow field from `from` to `to` is a change the workflow does not
  /// list. A value that is not a state at all is the validator's to report, not a transition.
  public func forbidsTransition(from: String?, to: String?) -> Bool {
    guard let workflow, let from, let to, from != to, workflowStates.contains(to) else { return false }
    return !workflow.allows(from: from, to: to)
  }
}
