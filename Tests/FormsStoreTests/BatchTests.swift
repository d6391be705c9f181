import FormsCore
import FormsTestSupport
import Foundation
import Testing

@testable import FormsStore

/// `set --where` and `rm --where`: every match in one journaled operation, all or nothing.
struct BatchTests {
  func forms(_ fixture: StoreFixture) throws -> [String] {
    try fixture.acquisition()
    return [try fixture.form(), try fixture.form(state: "in_review"), try fixture.form(state: "approved")]
  }

  @Test func setWhereChangesEveryMatchInOneRecord() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      let ids = try forms(fixture)
      let before = fixture.history.count
      let written = try fixture.store.update(
        kind: "form", matching: [try ExpressionParser.parse(#"status != "approved""#)],
        assignments: [try Assignment("form_number=SF 30A")])
      #expect(Set(written.map { $0.value["id"]!.stringValue! }) == Set(ids.prefix(2)))
      #expect(try fixture.read("form", ids[2])["form_number"] == .string("SF 30"), "the approved form is not matched")
      #expect(fixture.history.count == before + 1)
      #expect(fixture.history.last?["documents"]?.arrayValue?.count == 2)
    }
  }

  @Test func oneRefusalRefusesAllAndTheDryRunWritesNothing() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      let ids = try forms(fixture)
      let everything = [try ExpressionParser.parse("id exists")]
      // draft → draft is no change, in_review → draft is not a transition the workflow lists.
      let error = storeError {
        _ = try fixture.store.update(kind: "form", matching: everything, assignments: [try Assignment("status=draft")])
      }
      #expect(error?.kind == .badInput)
      #expect(try fixture.read("form", ids[1])["status"] == .string("in_review"))
      let open = [try ExpressionParser.parse(#"status != "approved""#)]
      let dry = try fixture.store.update(
        kind: "form", matching: open, assignments: [try Assignment("form_number=X")], dryRun: true)
      #expect(dry.count == 2)
      #expect(try ids.allSatisfy { try fixture.read("form", $0)["form_number"] == .string("SF 30") })
    }
  }

  @Test func rmWhereFollowsRelationsForEveryMatch() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      let ids = try forms(fixture)
      try fixture.acquisition("ACQ-2026-002")
      let plan = try fixture.store.delete(
        kind: "acquisition", matching: [try ExpressionParser.parse(#"title == "Chairs""#)])
      #expect(plan.deletes.count == 5, "two acquisitions and the three forms of the first")
      for id in ids { #expect(storeError { _ = try fixture.read("form", id) }?.kind == .noInput) }
      #expect(fixture.history.last?["documents"]?.arrayValue?.count == 5)
    }
  }
}
