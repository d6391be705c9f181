import FormsCore
import FormsStore
import FormsTestSupport
import Foundation
import Testing

/// `new --template`: a document from `templates/KIND/NAME.json`, its placeholders filled by --set;
/// `schema check` checks the templates.
struct TemplateCommandTests {
  @Test func aTemplateIsFilledOrNothingIsWritten() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      func run(_ arguments: [String]) throws -> RunResult { try Formsctl.run(arguments, in: store, environment: env) }
      let before = try treeContents(store)
      for (arguments, message) in [
        (["--set", "form_number=X"], "leaves {{acquisition}} at acquisition_id to be filled; nothing written"),
        (
          ["--set", "acquisition_id=ACQ-2026-001", "--set", "form_number=X", "--set", "fields.amendment_number=1"],
          "leaves {{what changes}} at fields.description_of_change"
        ),
      ] {
        let result = try run(["new", "form", "--template", "sf30-amendment"] + arguments)
        #expect(result.status == 65 && result.stderr.contains(message), "\(result.stderr)")
      }
      let unknown = try run(["new", "form", "--template", "nope"])
      #expect(
        unknown.status == 65 && unknown.stderr.contains("form has no template \"nope\" (templates: sf30-amendment)"))
      let both = try run(["new", "form", "x.json", "--template", "sf30-amendment"])
      #expect(both.status == 64 && both.stderr.contains("give one"), "\(both.stderr)")
      let escape = try run(["new", "form", "--template", "../../formsctl"])
      #expect(escape.status == 65, "a name is never a path: \(escape.stderr)")
      #expect(try treeContents(store) == before, "nothing written")
      let made = try run([
        "new", "form", "--template", "sf30-amendment", "--set", "acquisition_id=ACQ-2026-001", "--set",
        "form_number=SF30-0042", "--set", "fields.amendment_number=0001", "--set",
        "fields.description_of_change=Extends the due date", "--format", "json",
      ])
      #expect(made.status == 0, "\(made.stderr)")
      let document = try JSONParser().parse(Array(made.stdout.utf8))
      #expect(document["form_type"] == .string("SF30") && document["status"] == .string("draft"))
      #expect(document["metadata"]?["purpose"] == .string("Amendment of the solicitation"))
      #expect(Store.placeholders(in: document).isEmpty)
    }
  }

  @Test func schemaCheckChecksTemplates() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      #expect(try Formsctl.run(["schema", "check"], in: store, environment: env).status == 0)
      try writeFile(
        #"{"form_type": "SF99", "bogus": 1, "form_number": "{{n}}"}"#, to: store + "/templates/form/bad.json")
      try writeFile("{", to: store + "/templates/form/broken.json")
      try writeFile("{}", to: store + "/templates/nokind/x.json")
      let check = try Formsctl.run(["schema", "check"], in: store, environment: env)
      #expect(check.status == 1)
      #expect(
        check.stdout.contains("templates/form/bad.json:1:15: error: form_type: \"SF99\" is not one of"),
        "\(check.stdout)")
      #expect(check.stdout.contains("templates/form/bad.json:1:23: error: bogus: unknown field \"bogus\""))
      #expect(check.stdout.contains("templates/form/broken.json:1:2: error:"), "\(check.stdout)")
      #expect(check.stdout.contains("templates/nokind: error: templates of nokind, which no descriptor defines"))
      #expect(!check.stdout.contains("form_number"), "a placeholder is not a problem: \(check.stdout)")
    }
  }
}
