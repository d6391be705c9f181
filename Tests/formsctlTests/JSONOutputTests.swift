import FormsTestSupport
import Foundation
import Testing

/// Every listing a script might read has `--format json` that parses as one JSON value.
struct JSONOutputTests {
  @Test func planAndReportOutputsAreJSON() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      #expect(try Formsctl.run(["snapshot", "create"], in: store, environment: env).status == 0)
      let feed = Formsctl.packageRoot.appendingPathComponent("examples/feeds/purchase-orders.json").path
      let map = Formsctl.packageRoot.appendingPathComponent("examples/feeds/purchase-orders.map.yaml").path
      let commands: [[String]] = [
        ["rm", "acquisition", "ACQ-2026-001", "--dry-run", "--format", "json"],
        ["mv", "acquisition", "ACQ-2026-001", "ACQ-2026-009", "--dry-run", "--format", "json"],
        ["import", "purchase-order", feed, "--map", map, "--dry-run", "--format", "json"],
        ["snapshot", "restore", "latest", "--dry-run", "--format", "json"],
        ["snapshot", "list", "--format", "json"], ["snapshot", "diff", "latest", "--format", "json"],
        ["migrate", "status", "--format", "json"], ["schema", "list", "--format", "json"],
        ["list", "form", "--format", "json"], ["validate", "--format", "json"],
      ]
      for command in commands {
        let result = try Formsctl.run(command, in: store, environment: env)
        #expect(result.status == 0, "\(command): \(result.stderr)")
        #expect(
          (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) != nil,
          "\(command) printed: \(result.stdout.prefix(200))")
      }
      let rm =
        try JSONSerialization.jsonObject(
          with: Data(try Formsctl.run(commands[0], in: store, environment: env).stdout.utf8)) as! [String: Any]
      #expect((rm["deleted"] as! [[String: Any]]).count == 6, "the acquisition and its five forms")
      #expect((rm["written"] as! [[String: Any]]).count == 1, "one purchase order nullified")
    }
  }
}
