import Testing

@testable import FormsCore

struct RetentionPlannerTests {
  static func time(_ text: String) -> Int64 { Instant(text)!.seconds }

  @Test(arguments: [
    ("2026-11-22", "2026-W47"), ("2021-01-03", "2020-W53"), ("2021-01-04", "2021-W01"), ("2020-12-31", "2020-W53"),
    ("2024-12-30", "2025-W01"), ("2027-01-01", "2026-W53"), ("1970-01-01", "1970-W01"), ("1969-12-29", "1970-W01"),
  ])
  func isoWeeks(_ date: String, _ week: String) {
    #expect(RetentionPlanner.isoWeek(Self.time(date)) == week)
    #expect(RetentionPlanner.isoWeek(Self.time(date) + 86399) == week)
  }

  @Test func policyTable() {
    let now = Self.time("2027-01-05T12:00:00Z")
    let snapshots = [
      "2027-01-05T10:00:00Z", "2027-01-01T09:00:00Z",  // within 7 days
      "2026-12-28T09:00:00Z",  // week 2026-W53, whose newest (2027-01-01) is already kept
      "2026-12-27T23:00:00Z", "2026-12-26T09:00:00Z",  // week 2026-W52: Sunday is the newest
      "2026-12-21T08:00:00Z",  // 2026-W52 too (Monday), older
      "2026-12-08T09:00:00Z",  // 28 days old: newest of 2026-W50
      "2026-12-05T09:00:00Z",  // 31 days old
    ].map { RetentionPlanner.Snapshot(name: $0, time: Self.time($0)) }
    let decisions = RetentionPlanner.decide(
      snapshots.shuffled(), now: now, keepWithin: 7 * 86400, keepWeeklyWithin: 30 * 86400)
    #expect(
      decisions.map { "\($0.keep ? "keep" : "delete") \($0.reason)" } == [
        "keep newest", "keep within 7d", "delete not the newest of week 2026-W53", "keep newest of week 2026-W52",
        "delete not the newest of week 2026-W52", "delete not the newest of week 2026-W52",
        "keep newest of week 2026-W50",
        "delete older than 30d",
      ])
  }

  @Test func newestIsAlwaysKeptAndKeepLastCounts() {
    let now = Self.time("2026-11-22T00:00:00Z")
    let old = ["2025-01-01T00:00:00Z", "2025-01-02T00:00:00Z", "2025-01-03T00:00:00Z"].map {
      RetentionPlanner.Snapshot(name: $0, time: Self.time($0))
    }
    #expect(
      RetentionPlanner.decide(old, now: now, keepWithin: 0, keepWeeklyWithin: 0).map(\.keep) == [true, false, false])
    #expect(
      RetentionPlanner.decide(old, now: now, keepWithin: 0, keepWeeklyWithin: 0, keepLast: 2).map(\.keep) == [
        true, true, false,
      ])
  }
}

/// Partial snapshots (an import's safety copy) never stand for a whole-store one.
struct RetentionPartialSnapshotTests {
  static func time(_ text: String) -> Int64 { Instant(text)!.seconds }

  /// A daily feed: an import's partial snapshot every day at 06:00, a whole-store snapshot each
  /// Monday at 01:00. Every week keeps its whole-store snapshot; partial ones go after 7 days.
  @Test func aDailyFeedDoesNotPruneTheWeeklyWholeSnapshots() {
    let now = Self.time("2026-11-30T12:00:00Z")  // a Monday
    var snapshots: [RetentionPlanner.Snapshot] = []
    for day in 0..<29 {
      let date = now - Int64(day) * 86400
      let midnight = date - (date % 86400)
      snapshots.append(.init(name: "import-\(day)", time: midnight + 6 * 3600, whole: false))
      if RetentionPlanner.isoWeek(midnight) != RetentionPlanner.isoWeek(midnight - 86400) {
        snapshots.append(.init(name: "whole-\(day)", time: midnight + 3600, whole: true))
      }
    }
    let decisions = RetentionPlanner.decide(
      snapshots.shuffled(), now: now, keepWithin: 7 * 86400, keepWeeklyWithin: 30 * 86400)
    let kept = Set(decisions.filter(\.keep).map(\.name))
    let wholes = snapshots.filter(\.whole).map(\.name)
    #expect(wholes.count == 5)
    #expect(wholes.allSatisfy(kept.contains), "\(decisions.filter { !$0.keep })")
    for day in 0..<29 where !kept.contains("import-\(day)") {
      #expect(day >= 7, "import-\(day) is younger than 7 days")
    }
    #expect(kept.filter { $0.hasPrefix("import-") }.count == 7)
    let reason = decisions.first { $0.name == "import-10" }?.reason
    #expect(reason == "partial, older than 7d (only whole-store snapshots keep a week)")
  }

  @Test func theNewestWholeSnapshotAndTheLastNCountOnlyWholeOnes() {
    let now = Self.time("2026-11-22T00:00:00Z")
    let snapshots: [RetentionPlanner.Snapshot] = [
      .init(name: "w1", time: Self.time("2025-01-01T00:00:00Z")),
      .init(name: "w2", time: Self.time("2025-01-02T00:00:00Z")),
      .init(name: "p1", time: Self.time("2025-01-03T00:00:00Z"), whole: false),
      .init(name: "p2", time: Self.time("2025-01-04T00:00:00Z"), whole: false),
    ]
    let plain = RetentionPlanner.decide(snapshots, now: now, keepWithin: 7 * 86400, keepWeeklyWithin: 30 * 86400)
    #expect(plain.map { "\($0.name) \($0.keep)" } == ["p2 true", "p1 false", "w2 true", "w1 false"])
    let lastTwo = RetentionPlanner.decide(snapshots, now: now, keepWithin: 0, keepWeeklyWithin: 0, keepLast: 2)
    #expect(lastTwo.map { "\($0.name) \($0.keep)" } == ["p2 true", "p1 false", "w2 true", "w1 true"])
    // A clock set back (snapshots "from the future"): their age is negative, so they are young.
    let skewed = RetentionPlanner.decide(
      snapshots + [.init(name: "future", time: Self.time("2027-01-01T00:00:00Z"), whole: false)],
      now: now, keepWithin: 7 * 86400, keepWeeklyWithin: 30 * 86400)
    #expect(skewed.filter(\.keep).map(\.name) == ["future", "w2"])
  }

  @Test func keptAndKeepLabelledSnapshotsAreNeverRemoved() {
    let now = Self.time("2026-11-22T00:00:00Z")
    let snapshots: [RetentionPlanner.Snapshot] = [
      .init(name: "marked", time: Self.time("2024-01-01T00:00:00Z"), kept: true),
      .init(name: "audit", time: Self.time("2024-02-01T00:00:00Z"), label: "release-2024.1"),
      .init(name: "partial-marked", time: Self.time("2024-03-01T00:00:00Z"), whole: false, kept: true),
      .init(name: "nightly", time: Self.time("2024-04-01T00:00:00Z"), label: "nightly"),
      .init(name: "newest", time: Self.time("2026-11-21T00:00:00Z")),
    ]
    let decisions = RetentionPlanner.decide(
      snapshots, now: now, keepWithin: 7 * 86400, keepWeeklyWithin: 30 * 86400, keepLabels: ["release-*", "q4"])
    #expect(
      decisions.map { "\($0.name) \($0.keep) \($0.reason)" } == [
        "newest true newest", "nightly false older than 30d", "partial-marked true kept (marked by a person)",
        "audit true kept (label release-2024.1 matches keep_labels release-*)",
        "marked true kept (marked by a person)",
      ])
    // Without the marks and labels, the same snapshots go.
    let plain = RetentionPlanner.decide(
      snapshots.map { .init(name: $0.name, time: $0.time, whole: $0.whole) }, now: now, keepWithin: 7 * 86400,
      keepWeeklyWithin: 30 * 86400)
    #expect(plain.filter(\.keep).map(\.name) == ["newest"])
  }

  @Test func aPartialSnapshotNewerInTheWeekDoesNotTakeTheWholeOnesSlot() {
    let now = Self.time("2026-11-30T12:00:00Z")
    let snapshots: [RetentionPlanner.Snapshot] = [
      .init(name: "whole", time: Self.time("2026-11-09T01:00:00Z")),  // Monday of 2026-W46
      .init(name: "partial", time: Self.time("2026-11-14T01:00:00Z"), whole: false),  // Saturday, same week
      .init(name: "newest", time: Self.time("2026-11-30T01:00:00Z")),
    ]
    let decisions = RetentionPlanner.decide(snapshots, now: now, keepWithin: 7 * 86400, keepWeeklyWithin: 30 * 86400)
    #expect(
      decisions.map { "\($0.name) \($0.keep)" } == ["newest true", "partial false", "whole true"],
      "\(decisions)")
  }

  @Test(arguments: [
    ("release-1", "release-*", true), ("release-", "release-*", true), ("q4", "q4", true), ("q4x", "q4", false),
    ("nightly", "release-*", false), ("a-b-c", "a*c", true), ("ac", "a*c", true), ("a", "a*a", false),
    ("x-audit-y", "*audit*", true), ("x-y", "*audit*", false), ("anything", "*", true), ("ab", "a*b*", true),
  ])
  func labelPatterns(_ label: String, _ pattern: String, _ expected: Bool) {
    #expect(RetentionPlanner.matches(label, pattern: pattern) == expected)
  }
}

extension RetentionPlannerTests {
  @Test func monthlySlotsKeepTheNewestWholeSnapshotOfEachMonth() {
    let day: Int64 = 86400
    let now = Int64(1_795_000_000)  // 2026-11-18
    let snapshots = [
      RetentionPlanner.Snapshot(name: "aug-whole", time: now - 100 * day),
      RetentionPlanner.Snapshot(name: "aug-older", time: now - 101 * day),
      RetentionPlanner.Snapshot(name: "sep-whole", time: now - 70 * day),
      RetentionPlanner.Snapshot(name: "sep-partial", time: now - 69 * day, whole: false),
      RetentionPlanner.Snapshot(name: "old", time: now - 400 * day),
      RetentionPlanner.Snapshot(name: "newest", time: now),
    ]
    let decisions = RetentionPlanner.decide(
      snapshots, now: now, keepWithin: 7 * Int(day), keepWeeklyWithin: 30 * Int(day),
      keepMonthlyWithin: 365 * Int(day))
    let kept = Set(decisions.filter(\.keep).map(\.name))
    #expect(kept == ["newest", "aug-whole", "sep-whole"])
    #expect(decisions.first { $0.name == "sep-whole" }?.reason == "newest of month 2026-09")
    #expect(decisions.first { $0.name == "aug-older" }?.reason == "not the newest of month 2026-08")
    #expect(decisions.first { $0.name == "old" }?.reason == "older than 365d")
    // Without a monthly window nothing changes.
    let weekly = RetentionPlanner.decide(snapshots, now: now, keepWithin: 7 * Int(day), keepWeeklyWithin: 30 * Int(day))
    #expect(Set(weekly.filter(\.keep).map(\.name)) == ["newest"])
  }
}
