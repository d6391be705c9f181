import FormsCore
import FormsTestSupport
import Foundation
import Testing

@testable import FormsStore

/// `validate`'s job as the library does it: the verdict, the diagnostics, and when there is none.
struct StoreValidationTests {
  static func request(_ fixture: StoreFixture) -> StoreValidation.Request {
    StoreValidation.Request(workingDirectory: fixture.root, environment: [:])
  }

  @Test func aValidStoreAndAnInvalidDocument() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir)
      _ = try fixture.acquisition()
      let valid = try StoreValidation.run(fixture.store.layout, Self.request(fixture)) { $0 }
      #expect(valid.verdict == .valid && valid.report?.documents == 1, "\(String(describing: valid.report))")
      let path = dir + "/data/acquisitions/ACQ-2026-001.json"
      try writeFile(try readFile(path).replacingOccurrences(of: "\"GSA\"", with: "17"), to: path)
      let invalid = try StoreValidation.run(fixture.store.layout, Self.request(fixture)) { $0 }
      #expect(invalid.verdict == .invalid && invalid.report?.diagnostics.first?.file == path)
      var named = Self.request(fixture)
      named.paths = ["data/acquisitions/ACQ-2026-001.json"]
      #expect(try StoreValidation.run(fixture.store.layout, named) { $0 }.verdict == .invalid)
      try writeFile("{", to: path)
      #expect(try StoreValidation.run(fixture.store.layout, Self.request(fixture)) { $0 }.verdict == .unreadable)
    }
  }

  /// Descriptors with problems stop the run before any document; an operation awaiting
  /// `recover` leaves the diagnostics but no verdict.
  @Test func descriptorProblemsAndAnInterruptedOperation() throws {
    try withTemporaryDirectory { top in
      let dir = top + "/store"
      let fixture = try StoreFixture(dir)
      _ = try fixture.acquisition()
      _ = try fixture.form()
      _ = try fixture.form()
      try fixture.order("PO-1", acquisition: "ACQ-2026-001")
      try writeFile("kind: broken\nversion: 1.0.0\nfields: {id: nope}\n", to: dir + "/schemas/broken/1.0.0.yaml")
      let stopped = try StoreValidation.run(fixture.store.layout, Self.request(fixture)) { $0 }
      #expect(stopped.verdict == .descriptorsInvalid && stopped.report == nil && !stopped.descriptorProblems.isEmpty)
      try FileManager.default.removeItem(atPath: dir + "/schemas/broken")
      // A cascade (journaled) stopped by its first rename after the commit record; the store is
      // opened again, since its rules' folder changed.
      let store = try Store.open(at: dir, configuration: fixture.store.configuration)
      let armed = FaultInjection.arm(FilePath(fixture.root), fault: .init(call: .rename, nth: 1, persistent: true))
      let error = storeError { _ = try store.delete(kind: "acquisition", id: "ACQ-2026-001") }
      armed.disarm()
      let pending = try StoreValidation.run(fixture.store.layout, Self.request(fixture)) { $0 }
      #expect(
        pending.verdict == .noVerdict && pending.pending != nil && pending.report != nil,
        "\(String(describing: error)) \(String(describing: pending.pending))")
    }
  }
}
