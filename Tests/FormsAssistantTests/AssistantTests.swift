import FormsAssistant
import FormsCore
import FormsStore
import FormsTestSupport
import Foundation
import Testing

struct AssistantToolTests {
  /// Each kind gets a check and a create tool whose `document` is the kind's JSON Schema, with its
  /// enums; the references into named types resolve in the input's own `$defs`.
  @Test func toolsAreDescribedWithSchemasFromTheDescriptors() throws {
    try withTemporaryDirectory { dir in
      let assistant = Assistant(store: try openStore(try exampleStore(in: dir)), allowSealed: false)
      let names = assistant.tools.map(\.name)
      for kind in ["acquisition", "form", "purchase-order"] {
        #expect(names.contains("check_" + kind) && names.contains("create_" + kind), "\(names)")
      }
      #expect(!names.contains { $0.contains("approve") || $0.contains("reject") || $0.contains("sign") })
      let create = try #require(assistant.tools.first { $0.name == "create_form" })
      let document = try #require(create.inputSchema["properties"]?["document"])
      let types = document["properties"]?["form_type"]?["enum"]?.arrayValue?.compactMap(\.stringValue) ?? []
      #expect(types.contains("SF30") && types.contains("SF1449"), "\(types)")
      #expect(create.inputSchema["properties"]?["apply"]?["type"]?.stringValue == "boolean")
      #expect(create.inputSchema["additionalProperties"]?.boolValue == false)
      // id is a uuid: generated when left out, so not required; _schema is filled.
      let required = document["required"]?.arrayValue?.compactMap(\.stringValue) ?? []
      #expect(
        required.contains("form_type") && !required.contains("id") && !required.contains("_schema"), "\(required)")
      let text = JSONWriter.compact(create.inputSchema)
      let definitions = create.inputSchema["$defs"]?.objectValue?.keys ?? []
      for reference in text.components(separatedBy: "\"$ref\":\"#/$defs/").dropFirst() {
        let name = String(reference.prefix { $0 != "\"" })
        #expect(definitions.contains(name), "$ref #/$defs/\(name) does not resolve in \(definitions)")
      }
      #expect(!definitions.isEmpty)
      let check = try #require(assistant.tools.first { $0.name == "check_form" })
      #expect(check.readOnly && check.inputSchema["properties"]?["apply"] == nil)
    }
  }

  @Test func listKindsTellsFieldsEnumsAndWorkflow() throws {
    try withTemporaryDirectory { dir in
      let assistant = Assistant(store: try openStore(try exampleStore(in: dir)), allowSealed: false)
      let answer = assistant.call("list_kinds", arguments: JSONObject())
      #expect(!answer.isError)
      let kinds = answer.value["kinds"]?.arrayValue ?? []
      let form = try #require(kinds.first { $0["kind"]?.stringValue == "form" })
      let fields = form["fields"]?.arrayValue ?? []
      let status = try #require(fields.first { $0["name"]?.stringValue == "status" })
      #expect(
        status["values"]?.arrayValue?.compactMap(\.stringValue) == ["draft", "in_review", "approved", "rejected"])
      #expect(form["workflow"]?["moves"]?["draft"]?.arrayValue?.compactMap(\.stringValue) == ["in_review"])
      #expect(form["descriptor"]?.stringValue == "formsctl://form")
    }
  }

  @Test func queryFiltersAndSortsAsListDoes() throws {
    try withTemporaryDirectory { dir in
      let assistant = Assistant(store: try openStore(try exampleStore(in: dir)), allowSealed: false)
      let answer = assistant.call(
        "query",
        arguments: args([
          "kind": .string("form"), "where": .array([.string("status == \"draft\"")]),
          "sort": .array([.string("-created_date")]),
        ]))
      #expect(!answer.isError, "\(answer.value)")
      let documents = answer.value["documents"]?.arrayValue ?? []
      #expect(!documents.isEmpty)
      #expect(documents.allSatisfy { $0["document"]?["status"]?.stringValue == "draft" })
      let dates = documents.compactMap { $0["document"]?["created_date"]?.stringValue }
      #expect(dates == dates.sorted(by: >))
      let limited = assistant.call(
        "query", arguments: args(["kind": .string("form"), "limit": .number(JSONNumber(2))]))
      #expect(limited.value["documents"]?.arrayValue?.count == 2 && limited.value["more"]?.boolValue == true)
    }
  }

  /// Bad inputs are answered as errors that say what is wrong, as the command line says it.
  @Test func badInputsAreRefusedWithTheReason() throws {
    try withTemporaryDirectory { dir in
      let root = try exampleStore(in: dir)
      let store = try openStore(root)
      let assistant = Assistant(store: store, allowSealed: false)
      let cases: [(String, JSONObject, String)] = [
        ("query", args(["kind": .string("froms")]), "unknown kind \"froms\""),
        ("query", args(["kind": .string("froms")]), "kinds: acquisition, forecast, form"),
        ("query", args(["kind": .string("form"), "where": .array([.string("stauts == \"draft\"")])]), "status"),
        ("query", args(["kind": .string("form"), "where": .array([.string("status == ")])]), "where #1 at column"),
        ("query", args(["kind": .string("form"), "sort": .array([.string("-nope")])]), "sort -nope"),
        ("query", args(["kind": .string("form"), "limit": .number(JSONNumber(100_000))]), "limit must be"),
        ("get", args(["kind": .string("form"), "id": .string("../acquisitions/ACQ-2026-001")]), "id"),
        ("get", args(["kind": .string("form"), "id": .string("..")]), ".."),
        ("get", args(["kind": .string("form"), "id": .string("0000dead")]), "no form"),
        ("get", args(["kind": .string("form")]), "\"id\" is required"),
        (
          "get", args(["kind": .string("form"), "id": .string(draftForm), "colour": .string("red")]),
          "no argument \"colour\""
        ),
        (
          "update", args(["kind": .string("form"), "id": .string(draftForm), "apply": .string("yes")]), "apply must be"
        ),
        ("update", args(["kind": .string("form"), "id": .string(draftForm)]), "nothing to change"),
        ("create_form", args(["document": .string("not an object")]), "must be a JSON object"),
        (
          "create_form",
          args(["document": sf30(acquisition: "ACQ-2026-003"), "apply": .bool(true), "id": .string("x")]), "no argument"
        ),
        ("nope", JSONObject(), "no tool \"nope\""),
        (
          "create_form",
          args(["document": .object(JSONObject(["id": .string("../../etc/passwd"), "form_type": .string("SF30")]))]),
          "../../etc/passwd"
        ),
      ]
      let before = try directoryListing(root)
      for (tool, arguments, says) in cases {
        let answer = assistant.call(tool, arguments: arguments)
        let error = answer.value["error"]?.stringValue ?? ""
        #expect(answer.isError && error.contains(says), "\(tool) \(JSONWriter.compact(.object(arguments))): \(error)")
      }
      #expect(try directoryListing(root) == before)
      #expect(try changes(store).isEmpty)
    }
  }

  /// An argument beyond the bound is refused before it is read.
  @Test func aHugeArgumentIsRefused() throws {
    try withTemporaryDirectory { dir in
      let root = try exampleStore(in: dir)
      let store = try openStore(root)
      let assistant = Assistant(store: store, allowSealed: false)
      var draft = sf30(acquisition: "ACQ-2026-003")
      draft["fields"]?["description_of_change"] = .string(String(repeating: "x", count: Assistant.argumentLimit))
      let answer = assistant.call("create_form", arguments: args(["document": draft, "apply": .bool(true)]))
      #expect(
        answer.isError && answer.value["error"]?.stringValue?.contains("at most 262144") == true, "\(answer.value)")
      #expect(try changes(store).isEmpty)
    }
  }

  @Test func getShowsADocumentOrAField() throws {
    try withTemporaryDirectory { dir in
      let assistant = Assistant(store: try openStore(try exampleStore(in: dir)), allowSealed: false)
      let whole = assistant.call(
        "get", arguments: args(["kind": .string("form"), "id": .string(String(draftForm.prefix(8)))]))
      #expect(whole.value["id"]?.stringValue == draftForm && whole.value["document"]?["status"]?.stringValue == "draft")
      #expect(whole.value["uri"]?.stringValue == "formsctl://form/" + draftForm)
      let field = assistant.call(
        "get", arguments: args(["kind": .string("form"), "id": .string(draftForm), "field": .string("status")]))
      #expect(field.value["values"]?.arrayValue == [.string("draft")], "\(field.value)")
    }
  }

  /// A draft with one mistake: its diagnostic by JSON Pointer; the fixed draft is valid.
  @Test func checkGivesValidatesDiagnosticsByPointer() throws {
    try withTemporaryDirectory { dir in
      let root = try exampleStore(in: dir)
      let store = try openStore(root)
      let assistant = Assistant(store: store, allowSealed: false)
      let bad = assistant.call("check_form", arguments: args(["document": sf30(acquisition: "ACQ-26-1")]))
      #expect(!bad.isError && bad.value["valid"]?.boolValue == false)
      let diagnostics = bad.value["diagnostics"]?.arrayValue ?? []
      // The one mistake: the id breaks the pattern, and so names no acquisition.
      #expect(
        !diagnostics.isEmpty && diagnostics.allSatisfy { $0["pointer"]?.stringValue == "/acquisition_id" },
        "\(diagnostics)")
      #expect(diagnostics.first?["rule"]?.stringValue == "pattern")
      let missing = assistant.call("check_form", arguments: args(["document": sf30(acquisition: "ACQ-2026-999")]))
      #expect(missing.value["valid"]?.boolValue == false, "a relation to a missing acquisition: \(missing.value)")
      let good = assistant.call("check_form", arguments: args(["document": sf30(acquisition: "ACQ-2026-003")]))
      #expect(good.value["valid"]?.boolValue == true, "\(good.value)")
      #expect(try changes(store).isEmpty)
    }
  }

  /// create is a dry run unless apply: the plan and no file; then one write, recorded as mcp's.
  @Test func createIsADryRunUntilApplied() throws {
    try withTemporaryDirectory { dir in
      let root = try exampleStore(in: dir)
      let store = try openStore(root)
      let assistant = Assistant(store: store, allowSealed: false)
      let forms = try directoryListing(root + "/data/forms")
      let dry = assistant.call("create_form", arguments: args(["document": sf30(acquisition: "ACQ-2026-003")]))
      #expect(!dry.isError && dry.value["applied"]?.boolValue == false, "\(dry.value)")
      #expect(dry.value["plan"]?.arrayValue?.first?["action"]?.stringValue == "create")
      #expect(dry.value["document"]?["status"]?.stringValue == "draft", "the default state filled")
      #expect(try directoryListing(root + "/data/forms") == forms)
      #expect(try changes(store).isEmpty)

      let bad = assistant.call(
        "create_form", arguments: args(["document": sf30(acquisition: "ACQ-26-1"), "apply": .bool(true)]))
      #expect(
        bad.isError && bad.value["diagnostics"]?.arrayValue?.first?["pointer"]?.stringValue == "/acquisition_id",
        "\(bad.value)")
      #expect(try directoryListing(root + "/data/forms") == forms)

      let done = assistant.call(
        "create_form", arguments: args(["document": sf30(acquisition: "ACQ-2026-003"), "apply": .bool(true)]))
      #expect(!done.isError && done.value["applied"]?.boolValue == true, "\(done.value)")
      let id = try #require(done.value["id"]?.stringValue)
      #expect(try store.read(kind: "form", id: id).value["form_type"]?.stringValue == "SF30")
      let record = try #require(try changes(store).first)
      #expect(record.command == "formsctl mcp create_form" && record.operation == "new", "\(record.json)")
      #expect(record.user == "Assistant Test <test@example.org>")
      #expect(record.documents?.first?.id == id)
    }
  }

  @Test func updateShowsTheChangedPointersThenWrites() throws {
    try withTemporaryDirectory { dir in
      let root = try exampleStore(in: dir)
      let store = try openStore(root)
      let assistant = Assistant(store: store, allowSealed: false)
      let before = try readFile(root + "/data/forms/\(draftForm).json")
      let set = args([
        "kind": .string("form"), "id": .string(draftForm),
        "set": .object(JSONObject(["revision": .string("B"), "metadata.purpose": .string("Quotes for tools")])),
      ])
      let dry = assistant.call("update", arguments: set)
      #expect(!dry.isError && dry.value["applied"]?.boolValue == false, "\(dry.value)")
      let changed = dry.value["changed"]?.arrayValue?.compactMap(\.stringValue) ?? []
      #expect(changed.contains("/revision") && changed.contains("/metadata/purpose"), "\(changed)")
      #expect(try readFile(root + "/data/forms/\(draftForm).json") == before)

      var applied = set
      applied["apply"] = .bool(true)
      let done = assistant.call("update", arguments: applied)
      #expect(!done.isError, "\(done.value)")
      #expect(try store.read(kind: "form", id: draftForm).value["revision"]?.stringValue == "B")
      #expect(try changes(store).first?.command == "formsctl mcp update form \(draftForm) metadata.purpose revision")

      let wrong = assistant.call(
        "update",
        arguments: args([
          "kind": .string("form"), "id": .string(draftForm),
          "set": .object(JSONObject(["status": .string("approved")])),
          "apply": .bool(true),
        ]))
      #expect(wrong.isError, "a move the workflow does not list: \(wrong.value)")
      let unknown = assistant.call(
        "update",
        arguments: args([
          "kind": .string("form"), "id": .string(draftForm), "set": .object(JSONObject(["revison": .string("C")])),
        ]))
      #expect(unknown.isError && unknown.value["error"]?.stringValue?.contains("revision") == true, "\(unknown.value)")
      #expect(try changes(store).count == 1)
    }
  }

  @Test func transitionMovesOnlyAlongTheWorkflow() throws {
    try withTemporaryDirectory { dir in
      let root = try exampleStore(in: dir)
      let store = try openStore(root)
      let assistant = Assistant(store: store, allowSealed: false)
      let skip = assistant.call(
        "transition", arguments: args(["kind": .string("form"), "id": .string(draftForm), "to": .string("approved")]))
      #expect(skip.isError, "\(skip.value)")
      let dry = assistant.call(
        "transition", arguments: args(["kind": .string("form"), "id": .string(draftForm), "to": .string("in_review")]))
      // The draft lacks what review needs (its rules), or moves: either way nothing is written.
      #expect(try changes(store).isEmpty)
      if !dry.isError {
        #expect(dry.value["from"]?.stringValue == "draft" && dry.value["applied"]?.boolValue == false)
      }
      // A draft SF 30 that has what review needs moves, through the write path.
      let created = assistant.call(
        "create_form", arguments: args(["document": sf30(acquisition: "ACQ-2026-003"), "apply": .bool(true)]))
      let id = try #require(created.value["id"]?.stringValue)
      let moved = assistant.call(
        "transition",
        arguments: args(["kind": .string("form"), "id": .string(id), "to": .string("in_review"), "apply": .bool(true)]))
      #expect(!moved.isError, "\(moved.value)")
      #expect(try store.read(kind: "form", id: id).value["status"]?.stringValue == "in_review")
      let record = try #require(try changes(store).first)
      #expect(record.command == "formsctl mcp transition form \(id) in_review" && record.operation == "status")
    }
  }

  /// A delete that cascades is shown, never done; a delete of one document is done when applied.
  @Test func deleteRemovesAtMostOneDocument() throws {
    try withTemporaryDirectory { dir in
      let root = try exampleStore(in: dir)
      let store = try openStore(root)
      let assistant = Assistant(store: store, allowSealed: false)
      let plan = assistant.call(
        "delete", arguments: args(["kind": .string("acquisition"), "id": .string("ACQ-2026-003")]))
      #expect(!plan.isError && (plan.value["deletes"]?.arrayValue?.count ?? 0) > 1, "\(plan.value)")
      let refused = assistant.call(
        "delete",
        arguments: args(["kind": .string("acquisition"), "id": .string("ACQ-2026-003"), "apply": .bool(true)]))
      #expect(refused.isError && refused.value["error"]?.stringValue?.contains("one document per call") == true)
      #expect(FileManager.default.fileExists(atPath: root + "/data/acquisitions/ACQ-2026-003.json"))
      #expect(try changes(store).isEmpty)

      let one = assistant.call(
        "delete", arguments: args(["kind": .string("form"), "id": .string(draftForm), "apply": .bool(true)]))
      #expect(!one.isError && one.value["deletes"]?.arrayValue?.count == 1, "\(one.value)")
      #expect(!FileManager.default.fileExists(atPath: root + "/data/forms/\(draftForm).json"))
      #expect(try changes(store).first?.command == "formsctl mcp delete form \(draftForm)")
    }
  }

  @Test func planRenameNeverWrites() throws {
    try withTemporaryDirectory { dir in
      let root = try exampleStore(in: dir)
      let store = try openStore(root)
      let assistant = Assistant(store: store, allowSealed: false)
      let plan = assistant.call(
        "plan_rename",
        arguments: args([
          "kind": .string("acquisition"), "id": .string("ACQ-2026-003"), "new_id": .string("ACQ-2026-103"),
        ]))
      #expect(!plan.isError, "\(plan.value)")
      let rewrites = plan.value["rewrites"]?.arrayValue ?? []
      #expect(rewrites.contains { $0["kind"]?.stringValue == "form" }, "the forms that name it: \(rewrites)")
      #expect(FileManager.default.fileExists(atPath: root + "/data/acquisitions/ACQ-2026-003.json"))
      #expect(try changes(store).isEmpty)
      let bad = assistant.call(
        "plan_rename",
        arguments: args(["kind": .string("acquisition"), "id": .string("ACQ-2026-003"), "new_id": .string("../x")]))
      #expect(bad.isError)
    }
  }

  /// Sealed values read «encrypted» even for a key holder, unless --allow-sealed, which records the read.
  @Test func sealedValuesStaySealedUnlessAllowed() throws {
    try withTemporaryDirectory { dir in
      let root = try exampleStore(in: dir)
      let store = try openStore(root, identity: true)
      let sealed = Assistant(store: store, allowSealed: false)
      let shown = sealed.call("get", arguments: args(["kind": .string("acquisition"), "id": .string("ACQ-2026-001")]))
      let officer = shown.value["document"]?["contracting_officer"]?.stringValue
      #expect(officer == "«encrypted»", "\(shown.value)")
      let field = sealed.call(
        "get",
        arguments: args([
          "kind": .string("acquisition"), "id": .string("ACQ-2026-001"), "field": .string("contracting_officer"),
        ]))
      #expect(field.isError, "\(field.value)")
      let query = sealed.call(
        "query",
        arguments: args(["kind": .string("acquisition"), "where": .array([.string("contracting_officer exists")])]))
      #expect(query.isError, "\(query.value)")
      let resource = try sealed.read("formsctl://acquisition/ACQ-2026-001")
      #expect(!resource.text.contains("contracting_officer\": \"") || resource.text.contains("«encrypted»"))
      #expect(try AuditLog.query(store.layout, AuditLog.Query(access: true)).records.isEmpty)

      let allowed = Assistant(store: store, allowSealed: true)
      let opened = allowed.call(
        "get", arguments: args(["kind": .string("acquisition"), "id": .string("ACQ-2026-001")]))
      let plain = opened.value["document"]?["contracting_officer"]?.stringValue ?? ""
      #expect(!plain.isEmpty && plain != "«encrypted»", "\(opened.value)")
      let reads = try AuditLog.query(store.layout, AuditLog.Query(access: true)).records
      #expect(reads.count == 1 && reads.first?.access?.first?.id == "ACQ-2026-001")
    }
  }

  /// An apply after a dry run carries the hash the dry run returned: a change made meanwhile (a
  /// person's `set`) refuses it, saying so, and nothing is written; the hash as it is now goes through.
  @Test func anApplyCarriesTheHashOfWhatItsDryRunShowed() throws {
    try withTemporaryDirectory { dir in
      let root = try exampleStore(in: dir)
      let store = try openStore(root)
      let assistant = Assistant(store: store, allowSealed: false)
      let set = args([
        "kind": .string("form"), "id": .string(draftForm), "set": .object(JSONObject(["revision": .string("B")])),
      ])
      let dry = assistant.call("update", arguments: set)
      let shown = try #require(dry.value["expected_hash"]?.stringValue, "\(dry.value)")
      let stored = try store.read(kind: "form", id: draftForm).contentHash
      #expect(shown == stored)
      try store.update(kind: "form", id: draftForm, assignments: [try Assignment("metadata.purpose=Changed by hand")])
      let after = try readFile(root + "/data/forms/\(draftForm).json")
      var stale = set
      stale["apply"] = .bool(true)
      stale["expected_hash"] = .string(shown)
      let refused = assistant.call("update", arguments: stale)
      #expect(refused.isError, "\(refused.value)")
      #expect(refused.value["error"]?.stringValue?.contains("changed since the dry run") == true, "\(refused.value)")
      #expect(try readFile(root + "/data/forms/\(draftForm).json") == after)

      let moved = assistant.call(
        "transition",
        arguments: args([
          "kind": .string("form"), "id": .string(draftForm), "to": .string("in_review"), "apply": .bool(true),
          "expected_hash": .string(shown),
        ]))
      #expect(moved.value["error"]?.stringValue?.contains("changed since the dry run") == true, "\(moved.value)")
      #expect(try readFile(root + "/data/forms/\(draftForm).json") == after)

      let again = assistant.call("update", arguments: set)
      stale["expected_hash"] = try #require(again.value["expected_hash"])
      let done = assistant.call("update", arguments: stale)
      #expect(!done.isError, "\(done.value)")
      #expect(try store.read(kind: "form", id: draftForm).value["revision"]?.stringValue == "B")
      let dryMove = assistant.call(
        "transition", arguments: args(["kind": .string("form"), "id": .string(draftForm), "to": .string("in_review")]))
      #expect(dryMove.isError || dryMove.value["expected_hash"]?.stringValue != nil, "\(dryMove.value)")
    }
  }
}
