import Foundation
import Testing

@testable import FormsCore

struct InstantTests {
  /// The stamp formsctl writes agrees with Foundation's formatter and parses back to itself,
  /// across leap years, century rules and times before 1970.
  @Test func rfc3339AgreesWithFoundationAndReadsBack() throws {
    let formatter = ISO8601DateFormatter()
    formatter.timeZone = TimeZone(identifier: "UTC")
    var state: UInt64 = 2026
    var seconds: [Int64] = [0, -1, 86399, 86400, 951_782_400, 4_107_542_400, -2_208_988_800, 1_795_000_000]
    for _ in 0..<2000 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      seconds.append(Int64(state >> 33) % 8_000_000_000 - 2_000_000_000)
    }
    for second in seconds {
      let date = Date(timeIntervalSince1970: TimeInterval(second) + 0.75)
      let text = Instant(date).rfc3339
      #expect(text == formatter.string(from: date), "\(second)")
      #expect(Instant(text) == Instant(seconds: second, fraction: ""), "\(text)")
    }
    #expect(Instant(seconds: 5, fraction: "5").rfc3339 == "1970-01-01T00:00:05.5Z")
  }
}
