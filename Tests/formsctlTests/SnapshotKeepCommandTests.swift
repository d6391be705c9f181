import FormsTestSupport
import Foundation
import Testing

/// Snapshots a person keeps are never pruned; `snapshot create --dry-run` says what it would do.
struct SnapshotKeepCommandTests {
  @Test func aKeptSnapshotOutlivesTheRetentionPolicyUntilUnkept() throws {
    try withTemporaryDirectory { dir in
      var (store, env) = try SnapshotCommandTests.exampleStore(dir)
      func run(_ args: [String]) throws -> RunResult { try Formsctl.run(args, in: store, environment: env) }
      let kept = try run(["snapshot", "create", "--label", "audit", "--keep"])
      #expect(kept.status == 0 && kept.stdout.hasSuffix(", kept\n"), "\(kept.transcript)")
      #expect(try run(["snapshot", "create", "--label", "plain"]).status == 0)
      // Months later, a new snapshot's pruning removes the plain one, never the kept one.
      env["FORMSCTL_NOW"] = "2027-03-01T08:00:00Z"
      let later = try run(["snapshot", "create", "--label", "later"])
      #expect(later.status == 0 && later.stdout.contains("pruned 1 snapshot"), "\(later.transcript)")
      #expect(later.stdout.contains("plain") && !later.stdout.contains("audit"), "\(later.stdout)")
      let list = try run(["snapshot", "list"])
      #expect(list.stdout.contains("manual, kept"), "\(list.stdout)")
      let json = try run(["snapshot", "list", "--format", "json"])
      let records = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]] ?? []
      #expect(records.map { $0["kept"] as? Bool } == [true, false], "\(json.stdout)")
      let prune = try run(["snapshot", "prune", "--dry-run"])
      #expect(prune.stdout.contains("kept (marked by a person)"), "\(prune.stdout)")
      // Unkept, the policy decides again.
      let off = try run(["snapshot", "keep", "--off", "audit"])
      #expect(off.status == 0 && off.stdout.contains("is no longer kept"), "\(off.transcript)")
      #expect(try run(["snapshot", "prune"]).status == 0)
      #expect(try run(["snapshot", "list", "--format", "json"]).stdout.contains("audit") == false)
      // Marked later, by name; a name that is no snapshot is refused.
      #expect(try run(["snapshot", "keep", "later"]).stdout.contains("is kept"))
      let unknown = try run(["snapshot", "keep", "no-such-snapshot"])
      #expect(unknown.status == 65 && unknown.stderr.contains("no-such-snapshot"), "\(unknown.transcript)")
      #expect(try run(["snapshot", "verify"]).status == 0, "a keep mark is not a stray file")
    }
  }

  /// Anything at keep.json's name keeps the snapshot (a directory, a symbolic link, dangling or
  /// not): a damaged mark never lets the policy delete what a person kept.
  @Test func aDamagedKeepMarkStillKeeps() throws {
    try withTemporaryDirectory { dir in
      var (store, env) = try SnapshotCommandTests.exampleStore(dir)
      func run(_ args: [String]) throws -> RunResult { try Formsctl.run(args, in: store, environment: env) }
      for label in ["directory", "dangling", "link"] {
        #expect(try run(["snapshot", "create", "--label", label]).status == 0)
      }
      let json = try run(["snapshot", "list", "--format", "json"])
      let names = (try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]] ?? [])
        .compactMap { $0["name"] as? String }
      #expect(names.count == 3, "\(json.stdout)")
      let marks = names.map { store + "/.formsctl/snapshots/" + $0 + "/keep.json" }
      try FileManager.default.createDirectory(atPath: marks[0], withIntermediateDirectories: false)
      try FileManager.default.createSymbolicLink(atPath: marks[1], withDestinationPath: "../nowhere")
      try writeFile("{}", to: dir + "/target")
      try FileManager.default.createSymbolicLink(atPath: marks[2], withDestinationPath: dir + "/target")
      env["FORMSCTL_NOW"] = "2027-06-01T08:00:00Z"
      #expect(try run(["snapshot", "create", "--label", "later"]).status == 0)
      let after = try run(["snapshot", "list", "--format", "json"]).stdout
      for label in ["directory", "dangling", "link"] { #expect(after.contains(label), "\(label): \(after)") }
      // --off takes even a directory-shaped mark off; then the policy decides again.
      let off = try run(["snapshot", "keep", "--off", names[0]])
      #expect(off.status == 0, "\(off.transcript)")
      #expect(try run(["snapshot", "prune"]).status == 0)
      #expect(!(try run(["snapshot", "list", "--format", "json"]).stdout.contains("directory")))
      #expect(try readFile(dir + "/target") == "{}", "never written through the link")
      // Marked again, a link is replaced by a regular mark, never written through.
      let again = try run(["snapshot", "keep", names[2]])
      #expect(again.status == 0, "\(again.transcript)")
      #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: marks[2])) == nil, "a regular mark now")
      #expect(try readFile(dir + "/target") == "{}" && readFile(marks[2]).contains("kept_since"))
    }
  }

  @Test func keepLabelsKeepMatchingSnapshotsAndBadEntriesAreManifestErrors() throws {
    try withTemporaryDirectory { dir in
      var (store, env) = try SnapshotCommandTests.exampleStore(dir)
      func run(_ args: [String]) throws -> RunResult { try Formsctl.run(args, in: store, environment: env) }
      let manifest = try readFile(store + "/formsctl.yaml")
      func policy(_ text: String) throws {
        try writeFile(
          manifest.replacingOccurrences(of: "formsctl: 1\n", with: "formsctl: 1\nsnapshots:\n  \(text)\n"),
          to: store + "/formsctl.yaml")
      }
      try policy("keep_labels: [release-*, q4]")
      #expect(try run(["snapshot", "create", "--label", "release-2026.4"]).status == 0)
      #expect(try run(["snapshot", "create", "--label", "nightly"]).status == 0)
      env["FORMSCTL_NOW"] = "2027-03-01T08:00:00Z"
      #expect(try run(["snapshot", "create"]).status == 0)
      let names = try run(["snapshot", "list", "--format", "json"]).stdout
      #expect(names.contains("release-2026.4") && !names.contains("nightly"), "\(names)")
      for (bad, at) in [("keep_labels: {a: b}", 3), ("keep_labels: [[x]]", 3), ("keep_labels: [\"a b\"]", 3)] {
        try policy(bad)
        let result = try run(["snapshot", "list"])
        #expect(result.status == 65, "\(bad): \(result.transcript)")
        #expect(result.stderr.contains("formsctl.yaml:\(at):"), "\(bad): \(result.stderr)")
        #expect(result.stderr.contains("keep_labels is a label or a list of labels"), "\(bad): \(result.stderr)")
      }
    }
  }

  /// A snapshot kept by its label (`keep_labels`) is kept to every command: `list` shows it kept,
  /// `keep --off` says it is still kept by its label, and prune keeps it (issue 63).
  @Test func aSnapshotKeptByItsLabelIsShownKeptAndKeepOffSaysTheTruth() throws {
    try withTemporaryDirectory { dir in
      var (store, env) = try SnapshotCommandTests.exampleStore(dir)
      func run(_ args: [String]) throws -> RunResult { try Formsctl.run(args, in: store, environment: env) }
      let manifest = try readFile(store + "/formsctl.yaml")
      try writeFile(
        manifest.replacingOccurrences(of: "formsctl: 1\n", with: "formsctl: 1\nsnapshots:\n  keep_labels: release-*\n"),
        to: store + "/formsctl.yaml")
      #expect(try run(["snapshot", "create", "--label", "release-1", "--keep"]).status == 0)
      env["FORMSCTL_NOW"] = "2026-11-23T08:00:00Z"
      #expect(try run(["snapshot", "create", "--label", "nightly"]).status == 0)
      let off = try run(["snapshot", "keep", "--off", "release-1"])
      #expect(off.status == 0, "\(off.transcript)")
      #expect(
        !off.stdout.contains("is no longer kept")
          && off.stdout.contains("still kept by its label release-1 (keep_labels release-*)"), "\(off.stdout)")
      let list = try run(["snapshot", "list"])
      let release = list.stdout.split(separator: "\n").first { $0.contains("release-1") } ?? ""
      let nightly = list.stdout.split(separator: "\n").first { $0.contains("nightly") } ?? ""
      #expect(release.contains("manual, kept") && !nightly.contains("kept"), "\(list.stdout)")
      let json = try run(["snapshot", "list", "--format", "json"])
      let records = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]] ?? []
      #expect(records.map { $0["kept"] as? Bool } == [true, false], "\(json.stdout)")
      let prune = try run(["snapshot", "prune", "--dry-run", "--keep-last", "1", "--keep-within", "0s"])
      #expect(prune.stdout.contains("kept (label release-1 matches keep_labels release-*)"), "\(prune.stdout)")
      // A snapshot neither marked nor labelled: --off says it is no longer kept.
      let plain = try run(["snapshot", "keep", "--off", "nightly"])
      #expect(plain.stdout.contains("is no longer kept"), "\(plain.stdout)")
    }
  }

  @Test func aDryRunSaysWhatItWouldCopyAndLinkAndTakesNothing() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      func run(_ args: [String]) throws -> RunResult { try Formsctl.run(args, in: store, environment: env) }
      let first = try run(["snapshot", "create", "--dry-run", "--keep"])
      #expect(first.status == 0, "\(first.transcript)")
      #expect(
        first.stdout.contains("and hard-link 0 files (0 bytes) (no earlier snapshot to link to)"), "\(first.stdout)")
      #expect(first.stdout.contains("it would be kept") && first.stdout.hasSuffix("dry run: nothing written\n"))
      #expect(try run(["snapshot", "list", "--format", "json"]).stdout == "[]\n", "a dry run takes nothing")
      let taken = try run(["snapshot", "create"])
      #expect(taken.status == 0)
      let files = Int(taken.stdout.split(separator: "(").last?.split(separator: " ").first ?? "") ?? -1
      let same = try run(["snapshot", "create", "--dry-run"])
      #expect(same.stdout.hasPrefix("would copy 0 files (0 bytes) and hard-link \(files) files"), "\(same.stdout)")
      #expect(try run(["set", "acquisition", "ACQ-2026-001", "title=Renamed"]).status == 0)
      let one = try run(["snapshot", "create", "--dry-run"])
      #expect(one.stdout.hasPrefix("would copy 1 file ("), "\(one.stdout)")
      #expect(one.stdout.contains("hard-link \(files - 1) files"), "\(one.stdout)")
      let list =
        try JSONSerialization.jsonObject(
          with: Data(try run(["snapshot", "list", "--format", "json"]).stdout.utf8)) as? [Any]
      #expect(list?.count == 1, "dry runs take nothing")
    }
  }
}
