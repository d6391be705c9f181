import FormsTestSupport
import Testing

@testable import FormsCore

struct MigrationPlannerTests {
  static func versions(_ descriptors: [String]) throws -> [SemanticVersion: Schema] {
    var out: [SemanticVersion: Schema] = [:]
    for text in descriptors {
      let schema = try compile(text)
      out[schema.version] = schema
    }
    return out
  }

  static let v1 = "kind: k\nversion: 1.0.0\nfields:\n  id: string\n  a: string\n"
  static let v11 =
    "kind: k\nversion: 1.1.0\nfields:\n  id: string\n  a: string\n  c: {type: string, default: x}\n  d: string?\n"
  static let v2 =
    "kind: k\nversion: 2.0.0\nfrom: 1.1.0\nfields:\n  id: string\n  b: string\n  c: string\n  d: string?\nchanges:\n  - rename: {from: a, to: b}\n"
  static let v3 = "kind: k\nversion: 3.0.0\nfrom: 2.5.0\nfields:\n  id: string\nchanges:\n  - remove: {field: b}\n"

  @Test func chainsUpThroughInferredAndExplicitSteps() throws {
    let versions = try Self.versions([Self.v1, Self.v11, Self.v2])
    let steps = try MigrationPlanner.plan(versions, from: SemanticVersion("1.0.0")!, to: SemanticVersion("2.0.0")!)
    #expect(steps.map(\.description) == ["k 1.0.0 → 1.1.0 (inferred)", "k 1.1.0 → 2.0.0"])
    #expect(steps[0].changes.map(\.description) == ["add c = \"x\""])
  }

  @Test func goesDownOnlyThroughInvertibleSteps() throws {
    let versions = try Self.versions([Self.v1, Self.v11, Self.v2])
    let down = try MigrationPlanner.plan(versions, from: SemanticVersion("2.0.0")!, to: SemanticVersion("1.1.0")!)
    #expect(down.map(\.changes.description) == ["[rename b → a]"])
    let error = #expect(throws: MigrationError.self) {
      try MigrationPlanner.plan(versions, from: SemanticVersion("1.1.0")!, to: SemanticVersion("1.0.0")!)
    }
    #expect(error?.remedy == .restoreSnapshot, "a value the caller words, not a command")
    #expect(error?.message.contains("formsctl") == false)
  }

  @Test func namesTheGap() throws {
    let versions = try Self.versions([Self.v1, Self.v11, Self.v2, Self.v3])
    #expect(
      throws: MigrationError("k: no migration path from 2.0.0 to 3.0.0 (3.0.0 comes from 2.5.0, which does not exist)")
    ) {
      try MigrationPlanner.plan(versions, from: SemanticVersion("2.0.0")!, to: SemanticVersion("3.0.0")!)
    }
    #expect(throws: MigrationError("k has no version 9.0.0 (versions: 1.0.0, 1.1.0, 2.0.0, 3.0.0)")) {
      try MigrationPlanner.plan(versions, from: SemanticVersion("1.0.0")!, to: SemanticVersion("9.0.0")!)
    }
  }

  @Test func inferredStepsMayOnlyAddOptionalOrDefaultedFields() throws {
    let old = try compile(Self.v1)
    let bad = try compile("kind: k\nversion: 1.1.0\nfields:\n  id: string\n  a: integer\n  e: string\n")
    #expect(
      MigrationPlanner.inferredProblems(old: old, new: bad) == [
        "it changes the type of a from string to integer", "it adds the required field e without a default",
      ])
    let major = try compile("kind: k\nversion: 2.0.0\nfields:\n  id: string\n")
    #expect(
      MigrationPlanner.inferredProblems(old: old, new: major) == [
        "a new major version (1.0.0 → 2.0.0) needs `changes:`", "it removes the field a",
      ])
  }
}
