import FormsCore
import FormsTestSupport
import Foundation
import Testing

@testable import FormsStore

/// What an app calls for `stats`: `Store.statistics(kind:_:)` with a request, and workflow times
/// from a chosen source.
struct StatisticsAPITests {
  @Test func anAppGroupsByQuarterAndAveragesExactly() throws {
    try withTemporaryDirectory { dir in
      let fixture = try StoreFixture(dir + "/store")
      for (id, agency, value) in [
        ("ACQ-2026-001", "GSA", "0.10"), ("ACQ-2026-002", "GSA", "0.20"), ("ACQ-2026-003", "VA", "7"),
      ] {
        try fixture.store.create(
          kind: "acquisition",
          assignments: [
            try Assignment("id=\(id)"), try Assignment("title=T"), try Assignment("agency=\(agency)"),
            try Assignment("estimated_value=\(value)"),
          ])
      }
      let request = Store.StatisticsRequest(
        groups: [try StatsGrouping(parsing: "agency"), try StatsGrouping(parsing: "quarter(created_date)")],
        averages: [FilterExpression.Path("estimated_value")!], minimums: [FilterExpression.Path("estimated_value")!])
      let (report, skipped) = try fixture.store.statistics(kind: "acquisition", request)
      #expect(skipped.isEmpty)
      #expect(
        report.columns == [
          "agency", "quarter(created_date)", "count", "percent", "avg estimated_value", "min estimated_value",
          "n estimated_value",
        ])
      // The fixture's clock is 2026-11-18: every stamp is in 2026-Q4.
      #expect(
        report.rows == [
          ["GSA", "2026-Q4", "2", "66.7", "0.15", "0.10", "2"], ["VA", "2026-Q4", "1", "33.3", "7.00", "7", "1"],
        ])
      // Workflow times from the audit log alone: every document was created through the pipeline.
      let (times, warnings) = try fixture.store.workflowStatistics(kind: "acquisition", from: .auditLog)
      #expect(warnings.isEmpty && times.notes.first?.hasPrefix("completion: 0 of 3 acquisition documents") == true)
    }
  }
}
