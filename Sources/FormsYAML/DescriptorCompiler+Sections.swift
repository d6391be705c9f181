import FormsCore

extension DescriptorCompiler {
  mutating func expression(_ node: YAMLNode, _ what: String) -> FilterExpression? {
    guard let text = string(node, what) else { return nil }
    do {
      return try ExpressionParser.parse(text)
    } catch {
      let quoted = node.scalar?.isPlain == false ? 1 : 0
      let at = SourcePosition(line: node.position.line, column: node.position.column + quoted + error.column - 1)
      self.error("invalid expression in \(what): \(error.message)", at: at)
      return nil
    }
  }

  mutating func compileTimestamps(_ node: YAMLNode?, fields: [Field]) -> Schema.Timestamps {
    var timestamps = Schema.Timestamps()
    guard let node else { return timestamps }
    for pair in node.mapping ?? [] {
      let key = pair.key.scalar?.text ?? ""
      guard ["created", "updated"].contains(key) else {
        unknownKey(pair.key, allowed: ["created", "updated"], context: "timestamps")
        continue
      }
      guard let name = string(pair.value, key) else { continue }
      if let field = fields.first(where: { $0.name == name }) {
        if ![.datetime, .date].contains(field.type.kind) {
          error("timestamp field \"\(name)\" must be a datetime or a date", at: pair.value.position)
        }
      } else {
        error("timestamp field \"\(name)\" is not among the fields", at: pair.value.position)
      }
      if key == "created" { timestamps.created = name } else { timestamps.updated = name }
    }
    if node.mapping == nil { error("timestamps must be a mapping {created: FIELD, updated: FIELD}", at: node.position) }
    return timestamps
  }

  mutating func compileRelations(_ node: YAMLNode?, _ root: SchemaType) -> [Schema.Relation] {
    guard let node else { return [] }
    guard let entries = node.sequence else {
      error("relations must be a list of {field, kind, on_delete}", at: node.position)
      return []
    }
    var out: [Schema.Relation] = []
    for entry in entries {
      for pair in entry.mapping ?? [] where !["field", "kind", "on_delete"].contains(pair.key.scalar?.text ?? "") {
        unknownKey(pair.key, allowed: ["field", "kind", "on_delete"], context: "a relation")
      }
      guard let field = string(entry["field"], "field"), let kind = string(entry["kind"], "kind") else {
        error("a relation needs `field` and `kind`", at: entry.position)
        continue
      }
      if root.fields[field] == nil {
        error("relation field \"\(field)\" is not among the fields", at: (entry["field"] ?? entry).position)
      }
      var onDelete = Schema.Relation.OnDelete.restrict
      if let node = entry["on_delete"] {
        if let text = node.string, let parsed = Schema.Relation.OnDelete(rawValue: text) {
          onDelete = parsed
        } else {
          error("on_delete must be cascade, nullify or restrict", at: node.position)
        }
      }
      if onDelete == .nullify, let f = root.fields[field], !f.optional && !f.nullable {
        error(
          "on_delete: nullify needs \"\(field)\" to be optional or nullable", at: (entry["on_delete"] ?? entry).position
        )
      }
      out.append(Schema.Relation(field: field, kind: kind, onDelete: onDelete))
    }
    return out
  }

  mutating func compileWorkflow(_ node: YAMLNode?, _ root: SchemaType) -> Schema.Workflow? {
    guard let node else { return nil }
    for pair in node.mapping ?? [] where !["field", "transitions"].contains(pair.key.scalar?.text ?? "") {
      unknownKey(pair.key, allowed: ["field", "transitions"], context: "workflow")
    }
    guard let field = string(node["field"], "workflow field"), let transitions = node["transitions"]?.mapping else {
      error("workflow needs `field` and `transitions`", at: node.position)
      return nil
    }
    let states = root.fields[field].flatMap { $0.type.kind == .enumeration ? $0.type.values : nil }
    if states == nil {
      error("workflow field \"\(field)\" must be an enum field", at: (node["field"] ?? node).position)
    }
    var table: [String: [String]] = [:]
    for pair in transitions {
      guard let from = pair.key.scalar?.text else { continue }
      if let states, !states.contains(from) { error("\"\(from)\" is not a value of \(field)", at: pair.key.position) }
      var targets: [String] = []
      for target in pair.value.sequence ?? [] {
        guard let to = string(target, "a state") else { continue }
        if let states, !states.contains(to) { error("\"\(to)\" is not a value of \(field)", at: target.position) }
        targets.append(to)
      }
      if pair.value.sequence == nil { error("transitions from \"\(from)\" must be a list", at: pair.value.position) }
      table[from] = targets
    }
    return Schema.Workflow(field: field, transitions: table)
  }

  mutating func compileRules(_ node: YAMLNode?, _ root: SchemaType) -> [Schema.Rule] {
    guard let node else { return [] }
    guard let entries = node.sequence else {
      error("rules must be a list of {when, require, message}", at: node.position)
      return []
    }
    var out: [Schema.Rule] = []
    for entry in entries {
      for pair in entry.mapping ?? [] where !["when", "require", "message"].contains(pair.key.scalar?.text ?? "") {
        unknownKey(pair.key, allowed: ["when", "require", "message"], context: "a rule")
      }
      guard let requireNode = entry["require"] else {
        error("a rule needs `require:`", at: entry.position)
        continue
      }
      let when = entry["when"].flatMap { expression($0, "when") }
      guard let require = expression(requireNode, "require"), entry["when"] == nil || when != nil else { continue }
      for (expr, exprNode) in [(when, entry["when"]), (Optional(require), Optional(requireNode))] {
        for path in expr?.paths ?? [] {
          if case .member(let first) = path.steps.first, root.fields[first] == nil, first != "_schema", let exprNode {
            error("the rule refers to \"\(first)\", which is not a field", at: exprNode.position)
          }
        }
      }
      out.append(
        Schema.Rule(when: when, require: require, source: requireNode.string ?? "", message: entry["message"]?.string))
    }
    return out
  }

  /// `references: [{field: PATH, to: PATH, message: TEXT}]`: each path a path of the schema; the
  /// target reaches the same kind of value (the check compares values, not types).
  mutating func compileReferences(_ node: YAMLNode, _ schema: Schema) -> [Schema.Reference] {
    pathPairs(node, section: "references", second: "to", what: "a reference", example: "items[].product_item_id") {
      Schema.pathProblem($1, in: [schema])
    }.map { Schema.Reference(field: $0.field, to: $0.other, message: $0.message) }
  }

  /// `derived: [{field: PATH, from: PATH, message: TEXT}]`: `field` a path of the schema; `from`
  /// one too, or a `json_string` field followed by a path of the type its text holds.
  mutating func compileDerived(_ node: YAMLNode, _ schema: Schema) -> [Schema.Derived] {
    pathPairs(node, section: "derived", second: "from", what: "a derived field", example: "outputsJSON.intrinsic_value")
    {
      $0 == "from" ? Schema.textPathProblem($1, in: schema) : Schema.pathProblem($1, in: [schema])
    }.map { Schema.Derived(field: $0.field, from: $0.other, message: $0.message) }
  }

  /// A list of `{field: PATH, <second>: PATH, message: TEXT}`, each path checked by `problem`
  /// (given the key and the path); entries with a path missing or wrong are reported and left out.
  mutating func pathPairs(
    _ node: YAMLNode, section: String, second: String, what: String, example: String,
    problem: (String, FilterExpression.Path) -> String?
  ) -> [(field: FilterExpression.Path, other: FilterExpression.Path, message: String?)] {
    let keys = ["field", second, "message"]
    guard let entries = node.sequence else {
      error("\(section) must be a list of {field, \(second), message}", at: node.position)
      return []
    }
    var out: [(field: FilterExpression.Path, other: FilterExpression.Path, message: String?)] = []
    for entry in entries {
      for pair in entry.mapping ?? [] where !keys.contains(pair.key.scalar?.text ?? "") {
        unknownKey(pair.key, allowed: keys, context: what)
      }
      var paths: [FilterExpression.Path] = []
      for key in ["field", second] {
        guard let pathNode = entry[key], let text = pathNode.string else {
          error("\(what) needs `\(key):`, a field path such as \(example)", at: entry.position)
          continue
        }
        guard let path = FilterExpression.Path(text) else {
          error("\(key): \(text) is not a field path", at: pathNode.position)
          continue
        }
        if let problem = problem(key, path) {
          error("\(key): \(text): \(problem)", at: pathNode.position)
          continue
        }
        paths.append(path)
      }
      guard paths.count == 2 else { continue }
      out.append((paths[0], paths[1], entry["message"]?.string))
    }
    return out
  }

  mutating func compileChanges(_ node: YAMLNode?) -> [JSONValue]? {
    guard let node else { return nil }
    guard let steps = node.sequence else {
      error("changes must be a list of steps", at: node.position)
      return nil
    }
    var out: [JSONValue] = []
    for step in steps { if let value = changeStep(step) { out.append(value) } }
    return out
  }

  mutating func changeStep(_ step: YAMLNode) -> JSONValue? {
    guard let pairs = step.mapping, pairs.count == 1, let op = pairs[0].key.scalar?.text else {
      error(
        "a change step is a mapping with one operation: \(Self.changeOps.joined(separator: ", "))", at: step.position)
      return nil
    }
    guard Self.changeOps.contains(op) else {
      unknownKey(pairs[0].key, allowed: Self.changeOps, context: "changes")
      return nil
    }
    if op == "each", let nested = pairs[0].value["changes"]?.sequence { for inner in nested { _ = changeStep(inner) } }
    let value: JSONValue
    do {
      value = try step.jsonValue()
    } catch {
      self.error(error.message, at: error.position)
      return nil
    }
    do {
      _ = try ChangeOp.parse(value)
    } catch {
      if op != "each" { self.error("invalid \(op) step: \(error.message)", at: step.position) }
      return nil
    }
    return value
  }
}

extension DescriptorCompiler {
  /// `approvals: {chains: [{from, to, reject_to, ordered, steps: [{name, role, count}]}], free: [FIELD...],
  /// on_change: refuse|reopen, fills: {by: FIELD, on: FIELD}}`, checked against the workflow: each
  /// chain guards a transition it lists.
  mutating func compileApprovals(_ node: YAMLNode, workflow: Schema.Workflow?, _ root: SchemaType) -> Schema.Approvals?
  {
    let keys = ["chains", "free", "on_change", "fills"]
    for pair in node.mapping ?? [] where !keys.contains(pair.key.scalar?.text ?? "") {
      unknownKey(pair.key, allowed: keys, context: "approvals")
    }
    guard let workflow else {
      error("approvals guard workflow states: the descriptor needs a `workflow:`", at: node.position)
      return nil
    }
    guard let entries = node["chains"]?.sequence, !entries.isEmpty else {
      error("approvals need `chains:`, a list of {from, to, steps}", at: node.position)
      return nil
    }
    var chains: [Schema.Approvals.Chain] = []
    for entry in entries {
      let chainKeys = ["from", "to", "reject_to", "ordered", "steps"]
      for pair in entry.mapping ?? [] where !chainKeys.contains(pair.key.scalar?.text ?? "") {
        unknownKey(pair.key, allowed: chainKeys, context: "an approval chain")
      }
      guard let from = string(entry["from"], "from"), let to = string(entry["to"], "to") else {
        error("an approval chain needs `from:` (the review state) and `to:` (the state it guards)", at: entry.position)
        continue
      }
      if !workflow.allows(from: from, to: to) {
        error(
          "the workflow has no transition \(from) → \(to) for this chain to guard", at: (entry["to"] ?? entry).position)
      }
      if chains.contains(where: { $0.to == to || $0.from == from }) {
        error("another chain already guards \(to) or reviews in \(from)", at: entry.position)
      }
      let rejectTo = string(entry["reject_to"], "reject_to")
      if let rejectTo, !workflow.allows(from: from, to: rejectTo) {
        error(
          "the workflow has no transition \(from) → \(rejectTo) for a rejection",
          at: (entry["reject_to"] ?? entry).position)
      }
      var steps: [Schema.Approvals.Step] = []
      for step in entry["steps"]?.sequence ?? [] {
        let stepKeys = ["name", "role", "count"]
        for pair in step.mapping ?? [] where !stepKeys.contains(pair.key.scalar?.text ?? "") {
          unknownKey(pair.key, allowed: stepKeys, context: "an approval step")
        }
        guard let role = string(step["role"], "role") else {
          error("an approval step needs `role:` (a role of formsctl.yaml)", at: step.position)
          continue
        }
        let name = string(step["name"], "name") ?? role
        let count = step["count"].flatMap { Int($0.string ?? "") } ?? 1
        if count < 1 { error("count must be at least 1", at: (step["count"] ?? step).position) }
        if steps.contains(where: { $0.name == name }) { error("two steps are named \"\(name)\"", at: step.position) }
        steps.append(Schema.Approvals.Step(name: name, role: role, count: max(1, count)))
      }
      if steps.isEmpty { error("an approval chain needs `steps:`, a list of {name, role, count}", at: entry.position) }
      let ordered = entry["ordered"].map { boolean($0, "ordered") } ?? true
      chains.append(Schema.Approvals.Chain(from: from, to: to, rejectTo: rejectTo, ordered: ordered, steps: steps))
    }
    var free: [String] = []
    for item in node["free"]?.sequence ?? [] {
      guard let name = string(item, "a field") else { continue }
      if root.fields[name] == nil { error("\"\(name)\" is not a top-level field", at: item.position) }
      if name == workflow.field { error("the workflow's field is never signed: approvals move it", at: item.position) }
      free.append(name)
    }
    var onChange = Schema.Approvals.OnChange.refuse
    if let text = string(node["on_change"], "on_change") {
      if let value = Schema.Approvals.OnChange(rawValue: text) {
        onChange = value
      } else {
        error("on_change is refuse or reopen, not \"\(text)\"", at: (node["on_change"] ?? node).position)
      }
    }
    var fills: Schema.Approvals.Fills?
    if let node = node["fills"] {
      let fillKeys = ["by", "on"]
      for pair in node.mapping ?? [] where !fillKeys.contains(pair.key.scalar?.text ?? "") {
        unknownKey(pair.key, allowed: fillKeys, context: "approvals: fills")
      }
      if node.mapping == nil { error("fills takes {by: FIELD, on: FIELD}", at: node.position) }
      /// A top-level field of one of `kinds` that the workflow does not own.
      func field(_ key: String, _ kinds: Set<SchemaType.Kind>) -> String? {
        guard let item = node[key], let name = string(item, key) else { return nil }
        guard let type = root.fields[name]?.type else {
          error("\"\(name)\" is not a top-level field", at: item.position)
          return nil
        }
        if name == workflow.field { error("the workflow's field is moved by approvals, not filled", at: item.position) }
        // Only a field with no other use: filled, it is unsigned, so it must not hold anything a
        // signature should cover, a rule constrains, or the store stamps.
        let field = root.fields[name]
        if field?.optional != true {
          error("fills: \(key): \"\(name)\" must be optional (it is empty until approved)", at: item.position)
        }
        if type.pattern != nil {
          error("fills: \(key): \"\(name)\" has a pattern; a filled field takes any name or date", at: item.position)
        }
        if root.sensitiveFieldNames().contains(name) {
          error("fills: \(key): \"\(name)\" is sensitive", at: item.position)
        }
        if [root.timestamps.created, root.timestamps.updated].contains(name) {
          error("fills: \(key): \"\(name)\" is a timestamp the store keeps", at: item.position)
        }
        if !kinds.contains(type.kind) {
          let allowed = kinds.map(\.rawValue).sorted().joined(separator: " or ")
          error("fills: \(key): \"\(name)\" is a \(type.kind.rawValue); it must be a \(allowed)", at: item.position)
        }
        return name
      }
      let by = field("by", [.string])
      let on = field("on", [.date, .datetime, .string])
      if let by, by == on { error("fills: by and on name the same field \"\(by)\"", at: node.position) }
      if by != nil || on != nil {
        fills = Schema.Approvals.Fills(by: by, on: on)
        // What the completing approval fills in is not signed: filling it voids nothing.
        for name in [by, on].compactMap({ $0 }) where !free.contains(name) { free.append(name) }
      }
    }
    return Schema.Approvals(chains: chains, free: free, onChange: onChange, fills: fills)
  }
}
