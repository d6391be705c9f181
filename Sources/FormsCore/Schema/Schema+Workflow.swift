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

  /// The states a new document may be created in: the field's default, and the states (of the
  /// field's enum, or named in the workflow) that no transition leads into.
  public var creationStates: [String] {
    guard let workflow, let field = root.fields[workflow.field] else { return [] }
    let named = Array(workflow.transitions.keys).sorted() + workflow.transitions.values.joined()
    var states = field.type.values.isEmpty ? named : field.type.values
    states = states.enumerated().filter { !states[..<$0.offset].contains($0.element) }.map(\.element)
    let initial = workflow.initialStates(among: states)
    guard let first = field.defaultValue?.stringValue else { return initial }
    return [first] + initial.filter { $0 != first }
  }
}
