import FormsTestSupport
import Foundation
import Testing

struct SnapshotCommandTests {
  /// A store of the bundled examples, with a fixed clock.
  static func exampleStore(_ dir: String) throws -> (String, [String: String]) {
    let store = dir + "/store"
    try FileManager.default.copyItem(
      atPath: Formsctl.packageRoot.appendingPathComponent("examples/acquisitions").path, toPath: store)
    // A relative path through a symlink, so the golden output does not depend on where the clone is.
    try FileManager.default.createSymbolicLink(
      atPath: dir + "/schemas", withDestinationPath: Formsctl.packageRoot.appendingPathComponent("schemas").path)
    try writeFile(exampleManifest(schemas: "../schemas"), to: store + "/formsctl.yaml")
    return (store, ["FORMSCTL_NOW": "2026-11-22T08:00:00Z"])
  }

  @Test func commandsGolden() throws {
    try withTemporaryDirectory { dir in
      var (store, env) = try Self.exampleStore(dir)
      var transcript = ""
      func run(_ args: [String]) throws {
        let result = try Formsctl.run(args, in: store, environment: env)
        transcript += "$ formsctl \(args.joined(separator: " "))\n" + result.transcript + "\n"
      }
      try run(["snapshot", "create", "-m", "before the review", "--label", "review"])
      env["FORMSCTL_NOW"] = "2026-11-29T08:00:00Z"
      try run(["set", "acquisition", "ACQ-2026-001", "title=Renamed acquisition"])
      try run(["rm", "form", "0adc90c4-92fd-5ab8-8b08-ceb26b213e40"])
      try run(["snapshot", "diff", "latest"])
      try run([
        "snapshot", "restore", "2026-11-22T08-00-00Z-review", "data/acquisitions/ACQ-2026-001.json", "--dry-run",
      ])
      try run(["snapshot", "restore", "2026-11-22T08-00-00Z-review"])
      try run(["snapshot", "list"])
      try run(["snapshot", "show", "2026-11-22T08-00-00Z-review"])
      try run(["snapshot", "verify"])
      env["FORMSCTL_NOW"] = "2027-01-30T08:00:00Z"
      try run(["snapshot", "prune", "--dry-run"])
      try run(["snapshot", "create", "--label", "new-year"])
      try run(["snapshot", "prune", "--keep-within", "0d", "--keep-weekly-within", "0d"])
      try run(["snapshot", "restore", "nope"])
      try run(["snapshot", "restore", "latest", "formsctl.yaml"])
      try run(["validate"])
      try assertSnapshot(RunResult(status: 0, stdout: transcript, stderr: ""), named: "snapshot-commands")
      let history = try readFile(store + "/.formsctl/history.jsonl")
      #expect(
        history.contains("\"operation\":\"snapshot restore\"")
          && history.contains("\"pre_restore_snapshot\":\"2026-11-29T08-00-00Z\""))
    }
  }

  /// push and pull from the command line: what they say, and each bad place's one line and code.
  @Test(Rsync.enabled) func pushAndPullSayWhatTheyCopied() throws {
    try withTemporaryDirectory { dir in
      var env = try makeStore(dir)
      let store = dir + "/store"
      let quiet = try Formsctl.run(["snapshot", "create", "--label", "one", "-q"], in: store, environment: env)
      #expect(quiet.status == 0 && quiet.stdout.isEmpty && quiet.stderr.isEmpty, "\(quiet.transcript)")
      try FileManager.default.createDirectory(atPath: dir + "/backup", withIntermediateDirectories: true)
      let pushed = try Formsctl.run(["snapshot", "push", "../backup"], in: store, environment: env)
      #expect(
        pushed.status == 0
          && pushed.stdout.hasSuffix(
            "pushed 1 snapshot (0 already there); every copied file matches its manifest\n"),
        "\(pushed.transcript)")
      let verified = try Formsctl.run(["snapshot", "verify", "../backup/"], in: store, environment: env)
      #expect(verified.status == 0 && verified.stdout == "verified 1 snapshot: all files match\n")
      #expect(try Formsctl.run(["init", "other"], in: dir).status == 0)
      let pulled = try Formsctl.run(["snapshot", "pull", "../backup", "--format", "json"], in: dir + "/other")
      #expect(
        pulled.status == 0 && pulled.stdout.contains("\"copied\": [\n    \"2026-11-22T08-00-00Z-one\"\n  ]"),
        "\(pulled.stdout)")
      for (arguments, code, message) in [
        (["push", "../nowhere"], 66, "formsctl: error: ../nowhere: no such file or directory"),
        (
          ["push", "data"], 65,
          "formsctl: error: data is inside the store; copies of its snapshots go to a directory outside it (a mounted drive)"
        ),
        (["pull", "../backup", "2026-01-01T00-00-00Z"], 65, "formsctl: error: no snapshot \"2026-01-01T00-00-00Z\""),
        (
          ["push", "unreachable.invalid:/x"], 74,
          "formsctl: error: copying snapshots with unreachable.invalid:/x failed:"
        ),
      ] {
        env["RSYNC_RSH"] = "false"  // a remote shell that fails at once, as an unreachable host does
        let result = try Formsctl.run(["snapshot"] + arguments, in: store, environment: env)
        #expect(result.status == code && result.stderr.hasPrefix(message), "\(arguments): \(result.transcript)")
      }
      // Without rsync on PATH: one line that says how to get it.
      env["PATH"] = dir + "/empty"
      let missing = try Formsctl.run(["snapshot", "push", "../backup"], in: store, environment: env)
      #expect(
        missing.status == 65
          && missing.stderr.hasPrefix(
            "formsctl: error: rsync is not installed; snapshot push and pull copy with it"),
        "\(missing.transcript)")
    }
  }

  /// `verify host:path` checks a remote copy (it was refused, 66), and a push finds a
  /// damaged copy already there, sends it again and says so (it reported "already there", 0).
  @Test(Rsync.enabled) func verifyReachesARemoteAndPushMendsADamagedCopy() throws {
    try withTemporaryDirectory { dir in
      var env = try makeStore(dir)
      let store = dir + "/store"
      #expect(try Formsctl.run(["snapshot", "create", "--label", "one"], in: store, environment: env).status == 0)
      // A remote shell that runs the command here: rsync's own protocol carries the files.
      try writeFile("#!/bin/sh\nshift\nexec \"$@\"\n", to: dir + "/remote-shell")
      chmod(dir + "/remote-shell", 0o755)
      env["RSYNC_RSH"] = dir + "/remote-shell"
      func run(_ arguments: [String]) throws -> RunResult { try Formsctl.run(arguments, in: store, environment: env) }
      for backup in ["backup-host:" + dir + "/far", "../near"] {
        let local = backup.hasPrefix("..") ? dir + "/near" : dir + "/far"
        try FileManager.default.createDirectory(atPath: local, withIntermediateDirectories: true)
        #expect(try run(["snapshot", "push", backup]).status == 0)
        let clean = try run(["snapshot", "verify", backup])
        #expect(clean.status == 0 && clean.stdout == "verified 1 snapshot: all files match\n", "\(clean.transcript)")
        // The copy's formsctl.yaml is damaged at the destination.
        let damaged = local + "/2026-11-22T08-00-00Z-one/formsctl.yaml"
        try FileManager.default.removeItem(atPath: damaged)
        try writeFile("formsctl: 1\n# scribbled\n", to: damaged)
        let found = try run(["snapshot", "verify", backup])
        #expect(found.status == 1, "\(backup): \(found.transcript)")
        #expect(
          found.stdout.hasPrefix("2026-11-22T08-00-00Z-one/formsctl.yaml: ")
            && found.stdout.hasSuffix("verified 1 snapshot: 1 problem(s)\n"), "\(backup): \(found.stdout)")
        #expect(
          !FileManager.default.fileExists(atPath: store + "/.formsctl/snapshots/.verifying-2026-11-22T08-00-00Z-one"))
        let mended = try run(["snapshot", "push", backup])
        #expect(mended.status == 0, "\(backup): \(mended.transcript)")
        #expect(
          mended.stdout.hasPrefix("repaired 2026-11-22T08-00-00Z-one/formsctl.yaml: ")
            && mended.stdout.contains("pushed 0 snapshots (1 already there, 1 of them repaired)"),
          "\(backup): \(mended.stdout)")
        #expect(try run(["snapshot", "verify", backup]).status == 0, "\(backup)")
        #expect(
          try readFile(damaged) == (try readFile(store + "/.formsctl/snapshots/2026-11-22T08-00-00Z-one/formsctl.yaml"))
        )
      }
    }
  }

  /// Found attacking push: a destination that is a symbolic link was written through (and only
  /// then refused, 65); one of its snapshot names linked elsewhere had the copy written there; a
  /// file was "no such file or directory".
  @Test(Rsync.enabled) func pushNeverWritesThroughASymbolicLink() throws {
    try withTemporaryDirectory { dir in
      let env = try makeStore(dir)
      let store = dir + "/store"
      #expect(try Formsctl.run(["snapshot", "create", "--label", "one"], in: store, environment: env).status == 0)
      func run(_ arguments: [String]) throws -> RunResult { try Formsctl.run(arguments, in: store, environment: env) }
      let fm = FileManager.default
      try fm.createDirectory(atPath: dir + "/elsewhere", withIntermediateDirectories: true)
      try fm.createSymbolicLink(atPath: dir + "/link", withDestinationPath: dir + "/elsewhere")
      let linked = try run(["snapshot", "push", "../link"])
      #expect(
        linked.status == 65 && linked.stderr.contains("../link is a symbolic link, not a directory"),
        "\(linked.transcript)")
      try writeFile("x", to: dir + "/afile")
      let file = try run(["snapshot", "push", "../afile"])
      #expect(file.status == 65 && file.stderr.contains("../afile is a file, not a directory"), "\(file.transcript)")
      try fm.createDirectory(atPath: dir + "/backup", withIntermediateDirectories: true)
      try fm.createSymbolicLink(
        atPath: dir + "/backup/2026-11-22T08-00-00Z-one", withDestinationPath: dir + "/elsewhere")
      let inside = try run(["snapshot", "push", "../backup"])
      #expect(
        inside.status == 65
          && inside.stderr.contains("../backup/2026-11-22T08-00-00Z-one is a symbolic link, not a directory"),
        "\(inside.transcript)")
      #expect(try fm.contentsOfDirectory(atPath: dir + "/elsewhere").isEmpty, "nothing was written through a link")
    }
  }

  /// Found attacking retention: with the clock set back, the snapshot just taken is older than
  /// the newest, and automatic pruning removed it at once ("created ... (0 files)", then pruned).
  @Test func aClockSetBackNeverPrunesTheSnapshotJustTaken() throws {
    try withTemporaryDirectory { dir in
      var env = try makeStore(dir)
      let store = dir + "/store"
      let manifest = try readFile(store + "/formsctl.yaml")
      try writeFile(
        manifest.replacingOccurrences(of: "keep_within: 7d", with: "keep_within: 0d").replacingOccurrences(
          of: "keep_weekly_within: 30d", with: "keep_weekly_within: 0d"), to: store + "/formsctl.yaml")
      env["FORMSCTL_NOW"] = "2027-01-01T00:00:00Z"
      #expect(try Formsctl.run(["snapshot", "create", "--label", "ahead"], in: store, environment: env).status == 0)
      env["FORMSCTL_NOW"] = "2026-06-01T00:00:00Z"
      let taken = try Formsctl.run(["snapshot", "create", "--label", "now"], in: store, environment: env)
      #expect(
        taken.status == 0 && taken.stdout == "created snapshot 2026-06-01T00-00-00Z-now (12 files)\n",
        "\(taken.transcript)")
      let list = try Formsctl.run(["snapshot", "list"], in: store, environment: env)
      #expect(list.stdout.contains("2026-06-01T00-00-00Z-now") && list.stdout.contains("2027-01-01T00-00-00Z-ahead"))
      // The next one prunes it by the policy, as any older snapshot.
      let next = try Formsctl.run(["snapshot", "create", "--label", "later"], in: store, environment: env)
      #expect(
        next.stdout.contains("pruned 1 snapshot") && next.stdout.contains("2026-06-01T00-00-00Z-now"),
        "\(next.transcript)")
    }
  }

  @Test func aBrokenDescriptorCanBeRestoredFromASnapshot() throws {
    try withTemporaryDirectory { dir in
      let env = try makeStore(dir)
      let store = dir + "/store"
      #expect(try Formsctl.run(["snapshot", "create"], in: store, environment: env).status == 0)
      let descriptor = store + "/schemas/acquisition/1.0.0.yaml"
      let good = try readFile(descriptor)
      try writeFile(good.replacingOccurrences(of: "title: {type: string", with: "title: {type: strng"), to: descriptor)
      #expect(try Formsctl.run(["validate"], in: store, environment: env).status == 65)
      let restore = try Formsctl.run(["snapshot", "restore", "latest"], in: store, environment: env)
      #expect(restore.status == 0, "\(restore.stderr)")
      #expect(restore.stdout.hasPrefix("rewrite  schemas/acquisition/1.0.0.yaml\n"))
      #expect(try readFile(descriptor) == good)
      #expect(try Formsctl.run(["validate"], in: store, environment: env).status == 0)
    }
  }

  @Test func killedCreateLeavesNoSnapshotThatLooksValid() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try Self.exampleStore(dir)
      let process = try startPaused(["snapshot", "create"], at: "snapshot-before-rename", in: store, environment: env)
      let second = try Formsctl.run(["snapshot", "create", "--wait", "0.2"], in: store, environment: env)
      #expect(second.status == 75, "a second writer waits, then gives up")
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      let list = try Formsctl.run(["snapshot", "list"], in: store, environment: env)
      #expect(list.stdout == "ID  LABEL  REASON  SCOPE  FILES  MESSAGE\n")
      let next = try Formsctl.run(["snapshot", "create"], in: store, environment: env)
      #expect(next.status == 0)
      let entries = try FileManager.default.contentsOfDirectory(atPath: store + "/.formsctl/snapshots").filter {
        !$0.hasPrefix(".hash")
      }
      #expect(entries == ["2026-11-22T08-00-00Z"], "the interrupted one was cleaned up")
    }
  }

  @Test(arguments: ["after-stage", "after-commit"])
  func killedRestoreIsRecovered(_ point: String) throws {
    try withTemporaryDirectory { dir in
      var (store, env) = try Self.exampleStore(dir)
      #expect(try Formsctl.run(["snapshot", "create", "--label", "base"], in: store, environment: env).status == 0)
      env["FORMSCTL_NOW"] = "2026-11-22T09:00:00Z"
      let acquisitions = try FileManager.default.contentsOfDirectory(atPath: store + "/data/acquisitions")
      for name in acquisitions { try writeFile("{\"scribbled\": true}\n", to: store + "/data/acquisitions/" + name) }
      let scribbled = try readFile(store + "/data/acquisitions/ACQ-2026-001.json")
      let process = try startPaused(
        ["snapshot", "restore", "2026-11-22T08-00-00Z-base"], at: point, in: store, environment: env)
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      #expect(
        try Formsctl.run(["set", "acquisition", "ACQ-2026-001", "title=x"], in: store, environment: env).status == 75)
      #expect(try Formsctl.run(["recover"], in: store, environment: env).status == 0)
      // Every file is wholly old (rolled back) or wholly new (finished), never a mix.
      for name in acquisitions {
        let text = try readFile(store + "/data/acquisitions/" + name)
        if point == "after-stage" {
          #expect(text == scribbled)
        } else {
          #expect(text.contains("\"_schema\": \"acquisition@1.1.0\""))
        }
      }
      let leftovers = try FileManager.default.subpathsOfDirectory(atPath: store + "/data").filter {
        $0.contains(".formsctl-journal")
      }
      #expect(leftovers.isEmpty)
    }
  }
}
