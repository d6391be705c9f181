import FormsCore
import FormsStore
import Foundation

/// What a dry run of a change says: how to write exactly what it showed.
let dryRunNote =
  "dry run: nothing written; call again with apply: true and this expected_hash to write it "
  + "(refused if the document changed meanwhile)"

/// `expected_hash`: the hash a dry run returned, the version the change was judged on.
let expectedHashProperty = property(
  "string",
  "The expected_hash the dry run returned: with apply, the write is refused if the document changed since "
    + "the dry run showed it.")

extension Assistant {
  /// `create_KIND`: a new document through the store's write path; a dry run unless `apply`.
  static func create(_ schema: Schema) -> AssistantTool {
    AssistantTool(
      name: "create_" + schema.kind,
      description: "Create a \(schema.kind) (\(schema.title ?? schema.kind)) through formsctl's write path: "
        + "defaults, timestamps, the workflow's first state, validation against the store, one audit "
        + "record. A dry run unless apply is true: it returns the change plan and the diagnostics.",
      inputSchema: draftInput(schema, apply: true), readOnly: false
    ) { assistant, arguments throws(AssistantError) in
      let kind = schema.kind
      let document = try assistant.draft(arguments, schema: try assistant.schema(kind))
      let apply = try arguments.bool("apply")
      let id = document[schema.idField].flatMap(DocumentID.text)
      if let id, !DocumentID.isValid(id) { throw .badArguments(DocumentID.problem(id)) }
      let writer = assistant.writer(["create_" + kind] + (id.map { [$0] } ?? []))
      let created = try storeCall { () throws(StoreError) in
        try writer.create(kind: kind, base: document, dryRun: !apply)
      }
      try assistant.recordShown([created], kind: kind)
      var answer = JSONObject()
      answer["applied"] = .bool(apply)
      answer["kind"] = .string(kind)
      answer["id"] = .string(created.id)
      answer["plan"] = .array([
        object([
          "action": .string("create"), "kind": .string(kind), "id": .string(created.id),
          "path": .string(assistant.shown(path: created.path)),
        ])
      ])
      answer["diagnostics"] = .array([])
      answer["document"] = assistant.shown(created)
      if !apply { answer["note"] = .string("dry run: nothing written; call again with apply: true to write it") }
      return Answer(.object(answer))
    }
  }

  static let update = AssistantTool(
    name: "update",
    description: "Change fields of a document as formsctl set does (workflow, immutable fields, validation, "
      + "timestamps, one audit record). set maps field paths (a.b, items[0].quantity, items[+] to "
      + "append) to JSON values; remove lists paths to delete. A change that would void approvals is "
      + "refused. A dry run unless apply is true: it returns the changed JSON Pointers, the diagnostics and "
      + "expected_hash; pass that expected_hash with apply, so that only what the dry run showed is written "
      + "(refused if the document changed since).",
    inputSchema: inputSchema(
      [
        "kind": kindProperty, "id": idProperty,
        "set": object([
          "type": .string("object"),
          "description": .string("Field path to its new JSON value, e.g. {\"fields.effective_date\": \"2026-12-01\"}."),
        ]),
        "remove": object([
          "type": .string("array"), "items": object(["type": .string("string")]),
          "description": .string("Field paths to remove."),
        ]),
        "apply": applyProperty, "expected_hash": expectedHashProperty,
      ], required: ["kind", "id"]), readOnly: false
  ) { assistant, arguments throws(AssistantError) in
    let kind = try arguments.required("kind")
    _ = try assistant.schema(kind)
    let id = try assistant.id(try arguments.required("id"), kind: kind)
    let apply = try arguments.bool("apply")
    var assignments: [Assignment] = []
    for member in try arguments.object("set")?.members ?? [] {
      guard FilterExpression.Path(member.key.replacingOccurrences(of: "[+]", with: "[0]")) != nil,
        !member.key.contains("=")
      else { throw .badArguments("set: \(member.key) is not a field path") }
      assignments.append(try assignment(member.key + "=" + JSONWriter.compact(member.value), json: true))
    }
    for path in try arguments.strings("remove") {
      guard FilterExpression.Path(path) != nil, !path.contains("=") else {
        throw .badArguments("remove: \(path) is not a field path")
      }
      assignments.append(try assignment(path + "-", json: false))
    }
    guard !assignments.isEmpty else { throw .badArguments("update: give set or remove (nothing to change)") }
    let expected = try arguments.string("expected_hash")
    let store = assistant.store
    let before = try storeCall { () throws(StoreError) in try store.read(kind: kind, id: id) }
    let writer = assistant.writer(["update", kind, id] + assignments.map(\.source))
    let saved = try shownCall(kind: kind, id: id, expected: expected) { () throws(StoreError) in
      try writer.update(
        kind: kind, id: id, assignments: assignments, voidingApprovals: false, dryRun: !apply, shown: expected)
    }
    var answer = JSONObject()
    answer["applied"] = .bool(apply)
    answer["kind"] = .string(kind)
    answer["id"] = .string(id)
    answer["path"] = .string(assistant.shown(path: saved.path))
    try assistant.recordShown([before], kind: kind)
    answer["changed"] = .array(before.value.changedPointers(to: saved.value).map { .string($0.description) })
    answer["diagnostics"] = .array([])
    answer["document"] = assistant.shown(saved)
    answer["expected_hash"] = .string(before.contentHash)
    if !apply { answer["note"] = .string(dryRunNote) }
    return Answer(.object(answer))
  }

  static let transition = AssistantTool(
    name: "transition",
    description: "Move a document along its workflow (as formsctl status KIND ID STATE): only the moves the "
      + "descriptor lists. Never signs: a move that needs a person's signature (a submission into an "
      + "approval chain) is refused, and approve and reject are not tools. A dry run unless apply is true; "
      + "pass the expected_hash the dry run returned with apply (refused if the document changed since).",
    inputSchema: inputSchema(
      [
        "kind": kindProperty, "id": idProperty,
        "to": property("string", "The state to move to (list_kinds gives each state's moves)."),
        "apply": applyProperty, "expected_hash": expectedHashProperty,
      ], required: ["kind", "id", "to"]), readOnly: false
  ) { assistant, arguments throws(AssistantError) in
    let kind = try arguments.required("kind")
    _ = try assistant.schema(kind)
    let id = try assistant.id(try arguments.required("id"), kind: kind)
    let state = try arguments.required("to")
    let apply = try arguments.bool("apply")
    let expected = try arguments.string("expected_hash")
    let store = assistant.store
    let before = try storeCall { () throws(StoreError) in try store.read(kind: kind, id: id) }
    let writer = assistant.writer(["transition", kind, id, state])
    // No identity: this door never signs (a submission that needs one is refused by the store).
    let saved = try shownCall(kind: kind, id: id, expected: expected) { () throws(StoreError) in
      try writer.transition(
        kind: kind, id: id, to: state, identity: nil, voidingApprovals: false, dryRun: !apply, shown: expected)
    }
    let schema = try assistant.schema(kind)
    try assistant.recordShown([before], kind: kind)
    var answer = JSONObject()
    answer["applied"] = .bool(apply)
    answer["kind"] = .string(kind)
    answer["id"] = .string(id)
    answer["from"] = schema.workflowState(of: before.value).map(JSONValue.string) ?? .null
    answer["to"] = .string(state)
    answer["document"] = assistant.shown(saved)
    answer["expected_hash"] = .string(before.contentHash)
    if !apply { answer["note"] = .string(dryRunNote) }
    return Answer(.object(answer))
  }

  static let delete = AssistantTool(
    name: "delete",
    description: "Show what deleting a document would do (as formsctl rm --dry-run): the documents its "
      + "relations delete (cascade), rewrite (nullify) or that block it (restrict). With apply, deletes "
      + "it only when that is the one document deleted: this door never deletes more than one per call.",
    inputSchema: inputSchema(
      ["kind": kindProperty, "id": idProperty, "apply": applyProperty], required: ["kind", "id"]),
    readOnly: false
  ) { assistant, arguments throws(AssistantError) in
    let kind = try arguments.required("kind")
    _ = try assistant.schema(kind)
    let id = try assistant.id(try arguments.required("id"), kind: kind)
    let apply = try arguments.bool("apply")
    let store = assistant.store
    let plan = try storeCall { () throws(StoreError) in try store.planDelete(kind: kind, id: id) }
    if apply {
      if !plan.blockers.isEmpty {
        throw .refused(
          "\(kind) \(id) is protected by \(plural(plan.blockers.count, "document")) (restrict); nothing deleted")
      }
      if plan.deletes.count > 1 {
        throw .refused(
          "deleting \(kind) \(id) would delete \(plural(plan.deletes.count, "document")) (its relations cascade); "
            + "this door deletes one document per call, so nothing was deleted: a person can run formsctl rm \(kind) \(id)"
        )
      }
      // The plan checked here is the one the store must make under the lock: a document that came
      // to depend on this one meanwhile (a cascade) is refused there, never deleted unseen.
      let writer = assistant.writer(["delete", kind, id])
      let done = try storeCall { () throws(StoreError) in try writer.delete(kind: kind, id: id, expecting: plan) }
      return Answer(assistant.json(done, applied: true))
    }
    return Answer(assistant.json(plan, applied: false))
  }

  static let planRename = AssistantTool(
    name: "plan_rename",
    description: "Show what renaming a document would do (as formsctl mv --dry-run): the file renamed and every "
      + "document whose relations are rewritten to the new id. Never writes.",
    inputSchema: inputSchema(
      ["kind": kindProperty, "id": idProperty, "new_id": property("string", "The new id.")],
      required: ["kind", "id", "new_id"]), readOnly: true
  ) { assistant, arguments throws(AssistantError) in
    let kind = try arguments.required("kind")
    _ = try assistant.schema(kind)
    let id = try assistant.id(try arguments.required("id"), kind: kind)
    let newID = try arguments.required("new_id")
    guard DocumentID.isValid(newID) else { throw .badArguments(DocumentID.problem(newID)) }
    let store = assistant.store
    let plan = try storeCall { () throws(StoreError) in try store.planMove(kind: kind, from: id, to: newID) }
    return Answer(assistant.json(plan, applied: false))
  }
}

/// Runs `body`, a write that passes `expected` (an `expected_hash`) to the store as what was
/// shown: the store checks it under the lock, and a document changed since is refused in words
/// that say what to do.
func shownCall<T>(kind: String, id: String, expected: String?, _ body: () throws(StoreError) -> T)
  throws(AssistantError) -> T
{
  do throws(StoreError) {
    return try body()
  } catch .refused(.changedMeanwhile) where expected != nil {
    throw .refused(
      "\(kind) \(id) changed since the dry run that returned this expected_hash; nothing written. "
        + "Call again without apply to see it as it is now")
  } catch {
    throw .store(error)
  }
}

/// The assignment `text` says (`PATH=JSON` or `PATH-`), its problem a bad argument.
func assignment(_ text: String, json: Bool) throws(AssistantError) -> Assignment {
  do throws(Assignment.Problem) {
    return try Assignment(text, json: json)
  } catch {
    throw .badArguments(error.description)
  }
}
