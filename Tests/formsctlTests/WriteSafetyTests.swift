import FormsTestSupport
import Foundation
import Testing

/// Starts `formsctl args` in the background and returns the process (stderr piped).
func startFormsctl(_ args: [String], in directory: String, environment: [String: String]) throws -> (Process, Pipe) {
  let process = Process()
  process.executableURL = Formsctl.binary
  process.arguments = args
  process.currentDirectoryURL = URL(fileURLWithPath: directory)
  process.environment = testEnvironment().merging(environment) { $1 }
  let err = Pipe()
  process.standardError = err
  process.standardOutput = FileHandle.nullDevice
  try process.run()
  return (process, err)
}

/// Starts `formsctl args` with `FORMSCTL_DEBUG_PAUSE=point:60` and returns once it has paused
/// there, to be killed at that moment; throws, with what it said, if it ends without pausing.
func startPaused(
  _ args: [String], at point: String, in directory: String, environment: [String: String] = [:]
) throws -> Process {
  try startPaused(args, at: point, seconds: 60, in: directory, environment: environment).process
}

/// `startPaused` for a pause of `seconds`, after which it goes on: also the rest of its stderr.
func startPaused(
  _ args: [String], at point: String, seconds: Int, in directory: String, environment: [String: String]
) throws -> (process: Process, stderr: FileHandle) {
  let (process, err) = try startFormsctl(
    args, in: directory, environment: environment.merging(["FORMSCTL_DEBUG_PAUSE": "\(point):\(seconds)"]) { $1 })
  var said = Data()
  while !String(decoding: said, as: UTF8.self).contains("paused at \(point)") {
    let more = err.fileHandleForReading.availableData
    if more.isEmpty {
      throw FixtureError(
        "\(args.joined(separator: " ")) ended without pausing at \(point): \(String(decoding: said, as: UTF8.self))")
    }
    said += more
  }
  return (process, err.fileHandleForReading)
}

/// Waits until `path` contains `text` (up to 20 s).
func waitFor(_ text: String, in path: String) {
  for _ in 0..<400 {
    if let contents = try? String(contentsOfFile: path, encoding: .utf8), contents.contains(text) { return }
    usleep(50_000)
  }
}

struct EditCommandTests {
  /// A fake editor: a shell script run as `$EDITOR FILE`.
  static func editor(_ dir: String, _ name: String, _ script: String) throws -> String {
    let path = dir + "/" + name
    try writeFile("#!/bin/sh\n" + script, to: path)
    chmod(path, 0o755)
    return path
  }

  static func store(_ dir: String) throws -> (String, [String: String]) {
    var env = try makeStore(dir)
    let created = try Formsctl.run(
      ["new", "acquisition", "--set", "id=ACQ-2026-001", "--set", "title=Chairs", "--set", "agency=GSA"],
      in: dir + "/store", environment: env)
    #expect(created.status == 0)
    env["FORMSCTL_NOW"] = "2026-11-23T09:30:00Z"
    return (dir + "/store", env)
  }

  @Test func validEditIsSaved() throws {
    try withTemporaryDirectory { dir in
      var (store, env) = try Self.store(dir)
      env["EDITOR"] = try Self.editor(dir, "ed.sh", "sed -i 's/Chairs/Desks/' \"$1\"\n")
      let result = try Formsctl.run(["edit", "acquisition", "ACQ-2026-001"], in: store, environment: env)
      #expect(result == RunResult(status: 0, stdout: "saved data/acquisitions/ACQ-2026-001.json\n", stderr: ""))
      let text = try readFile(store + "/data/acquisitions/ACQ-2026-001.json")
      #expect(text.contains("\"title\": \"Desks\""))
      #expect(text.contains("\"last_modified_date\": \"2026-11-23T09:30:00Z\""))
    }
  }

  @Test func invalidThenFixedReopensWithTheProblems() throws {
    try withTemporaryDirectory { dir in
      var (store, env) = try Self.store(dir)
      // First round: break the status; second round: save what formsctl showed, then fix it.
      env["EDITOR"] = try Self.editor(
        dir, "ed.sh",
        """
        if [ -f "\(dir)/round1" ]; then
          cp "$1" "\(dir)/shown.txt"
          sed -i 's/"bogus"/"solicitation"/' "$1"
        else
          touch "\(dir)/round1"
          sed -i 's/"planning"/"bogus"/' "$1"
        fi

        """)
      let result = try Formsctl.run(["edit", "acquisition", "ACQ-2026-001"], in: store, environment: env)
      #expect(result.status == 0, "\(result.stderr)")
      let shown = try readFile(dir + "/shown.txt")
      #expect(shown.hasPrefix("# formsctl: this document is not valid; fix it, or empty the file to cancel.\n"))
      #expect(shown.contains("#   line 7, column 13: status: \"bogus\" is not one of"), "\(shown)")
      #expect(try readFile(store + "/data/acquisitions/ACQ-2026-001.json").contains("\"status\": \"solicitation\""))
      #expect(!FileManager.default.fileExists(atPath: store + "/.formsctl/edit/acquisition-ACQ-2026-001.json"))
    }
  }

  @Test(arguments: [
    ("true\n", "unchanged; nothing written\n", 0),
    (": > \"$1\"\n", "the file was emptied; edit cancelled, nothing written\n", 0),
  ])
  func unchangedOrEmptiedAborts(_ script: String, _ message: String, _ status: Int32) throws {
    try withTemporaryDirectory { dir in
      var (store, env) = try Self.store(dir)
      let before = try readFile(store + "/data/acquisitions/ACQ-2026-001.json")
      env["EDITOR"] = try Self.editor(dir, "ed.sh", script)
      let result = try Formsctl.run(["edit", "acquisition", "ACQ-2026-001"], in: store, environment: env)
      #expect(result == RunResult(status: status, stdout: message, stderr: ""))
      #expect(try readFile(store + "/data/acquisitions/ACQ-2026-001.json") == before)
    }
  }

  @Test func changedUnderneathIsNotOverwritten() throws {
    try withTemporaryDirectory { dir in
      var (store, env) = try Self.store(dir)
      let binary = Formsctl.binary.path
      env["EDITOR"] = try Self.editor(
        dir, "ed.sh",
        """
        FORMSCTL_NOW=2026-11-24T00:00:00Z \(binary) set acquisition ACQ-2026-001 agency=NASA >/dev/null
        sed -i 's/Chairs/Desks/' "$1"

        """)
      let result = try Formsctl.run(["edit", "acquisition", "ACQ-2026-001"], in: store, environment: env)
      #expect(result.status == 65)
      #expect(result.stderr.contains("changed while it was being edited; nothing written"))
      #expect(
        result.stderr.contains(
          "Your edited text is kept at .formsctl/edit/acquisition-ACQ-2026-001.json; continue with"),
        "\(result.stderr)")
      let text = try readFile(store + "/data/acquisitions/ACQ-2026-001.json")
      #expect(text.contains("NASA") && text.contains("Chairs"))
      #expect(
        try readFile(store + "/.formsctl/edit/acquisition-ACQ-2026-001.json").contains("Desks"), "the edit survives")
    }
  }

  @Test func editorFailureWritesNothing() throws {
    try withTemporaryDirectory { dir in
      var (store, env) = try Self.store(dir)
      env["VISUAL"] = try Self.editor(dir, "ed.sh", "sed -i 's/Chairs/Desks/' \"$1\"; exit 3\n")
      let result = try Formsctl.run(["edit", "acquisition", "ACQ-2026-001"], in: store, environment: env)
      #expect(
        result
          == RunResult(
            status: 65, stdout: "",
            stderr: "formsctl: error: the editor exited with status 3; nothing written. "
              + "Your edited text is kept at .formsctl/edit/acquisition-ACQ-2026-001.json; continue with "
              + "formsctl edit acquisition ACQ-2026-001 --resume .formsctl/edit/acquisition-ACQ-2026-001.json\n"
          ))
      #expect(try readFile(store + "/data/acquisitions/ACQ-2026-001.json").contains("Chairs"))
    }
  }
}

struct WriteSafetyTests {
  /// A store with a `tally` kind whose map takes any number of marks, and a restrict relation.
  static func tallyStore(_ dir: String) throws {
    try writeFile("formsctl: 1\n", to: dir + "/formsctl.yaml")
    try writeFile(
      """
      kind: tally
      version: 1.0.0
      directory: tallies
      fields:
        id: string
        marks: {type: map, of: integer, default: {}}
        owner: string?
      relations:
        - {field: owner, kind: owner, on_delete: restrict}

      """, to: dir + "/schemas/tally/1.0.0.yaml")
    try writeFile(
      "kind: owner\nversion: 1.0.0\ndirectory: owners\nfields:\n  id: string\n", to: dir + "/schemas/owner/1.0.0.yaml")
  }

  @Test func restrictRefusesAndNamesTheDependants() throws {
    try withTemporaryDirectory { dir in
      try Self.tallyStore(dir)
      #expect(try Formsctl.run(["new", "owner", "--set", "id=o1"], in: dir).status == 0)
      #expect(try Formsctl.run(["new", "tally", "--set", "id=t1", "--set", "owner=o1"], in: dir).status == 0)
      let result = try Formsctl.run(["rm", "owner", "o1"], in: dir)
      #expect(
        result
          == RunResult(
            status: 65, stdout: "",
            stderr: "formsctl: error: cannot delete owner o1: tally t1 refers to it with on_delete: restrict\n"))
      #expect(FileManager.default.fileExists(atPath: dir + "/data/owners/o1.json"))
    }
  }

  @Test func concurrentWritersLoseNoUpdate() throws {
    try withTemporaryDirectory { dir in
      try Self.tallyStore(dir)
      #expect(try Formsctl.run(["new", "tally", "--set", "id=shared"], in: dir).status == 0)
      for p in 0..<8 { #expect(try Formsctl.run(["new", "tally", "--set", "id=own\(p)"], in: dir).status == 0) }
      let binary = Formsctl.binary.path
      var processes: [Process] = []
      for p in 0..<8 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
          "-c",
          """
          i=0; while [ $i -lt 100 ]; do
            \(binary) set tally shared marks.p\(p)_$i=$i --wait 60 >/dev/null || exit 1
            \(binary) set tally own\(p) marks.m$i=$i --wait 60 >/dev/null || exit 1
            i=$((i+1)); done
          """,
        ]
        process.currentDirectoryURL = URL(fileURLWithPath: dir)
        try process.run()
        processes.append(process)
      }
      for process in processes {
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
      }
      let shared =
        try JSONSerialization.jsonObject(
          with: Data(contentsOf: URL(fileURLWithPath: dir + "/data/tallies/shared.json"))) as! [String: Any]
      #expect((shared["marks"] as! [String: Any]).count == 800)
      for p in 0..<8 {
        let own =
          try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: dir + "/data/tallies/own\(p).json"))) as! [String: Any]
        #expect((own["marks"] as! [String: Any]).count == 100)
      }
      let validate = try Formsctl.run(["validate"], in: dir)
      #expect(validate.stdout == "checked 9 documents of 1 kind: 9 valid, 0 invalid\n")
      #expect(try Formsctl.run(["fmt", "--check"], in: dir).status == 0)
    }
  }

  @Test func killedLockHolderDoesNotBlockTheNextWriter() throws {
    try withTemporaryDirectory { dir in
      try Self.tallyStore(dir)
      #expect(try Formsctl.run(["new", "tally", "--set", "id=t1"], in: dir).status == 0)
      let (holder, _) = try startFormsctl(
        ["set", "tally", "t1", "marks.a=1"], in: dir, environment: ["FORMSCTL_DEBUG_PAUSE": "after-lock:60"])
      waitFor("formsctl set tally t1", in: dir + "/.formsctl/lock")
      let blocked = try Formsctl.run(["set", "tally", "t1", "marks.b=2", "--wait", "0.3"], in: dir)
      #expect(blocked.status == 75)
      #expect(
        blocked.stderr
          == "formsctl: error: the store is locked by pid \(holder.processIdentifier) (formsctl set tally t1); waited 0 s. Retry, or pass --wait 60\n"
      )
      kill(holder.processIdentifier, SIGKILL)
      holder.waitUntilExit()
      let next = try Formsctl.run(["set", "tally", "t1", "marks.c=3", "--wait", "5"], in: dir)
      #expect(next.status == 0, "\(next.stderr)")
    }
  }

  @Test(arguments: [
    ("after-stage", "rolled back the interrupted rm owner o1; the store is as it was before it", true),
    ("after-commit", "finished the interrupted rm owner o1", false),
  ])
  func killedJournalIsRecovered(_ point: String, _ message: String, _ ownerSurvives: Bool) throws {
    try withTemporaryDirectory { dir in
      try writeFile("formsctl: 1\n", to: dir + "/formsctl.yaml")
      try writeFile(
        "kind: owner\nversion: 1.0.0\ndirectory: owners\nfields:\n  id: string\n", to: dir + "/schemas/owner/1.0.0.yaml"
      )
      try writeFile(
        "kind: pet\nversion: 1.0.0\ndirectory: pets\nfields:\n  id: string\n  owner: string?\n  keeper: string?\nrelations:\n  - {field: owner, kind: owner, on_delete: cascade}\n  - {field: keeper, kind: owner, on_delete: nullify}\n",
        to: dir + "/schemas/pet/1.0.0.yaml")
      for args in [
        ["new", "owner", "--set", "id=o1"], ["new", "owner", "--set", "id=o2"],
        ["new", "pet", "--set", "id=p1", "--set", "owner=o1"],
        ["new", "pet", "--set", "id=p2", "--set", "owner=o2", "--set", "keeper=o1"],
      ] {
        #expect(try Formsctl.run(args, in: dir).status == 0)
      }
      let process = try startPaused(["rm", "owner", "o1"], at: point, in: dir)
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      let refused = try Formsctl.run(["set", "pet", "p2", "keeper=o2"], in: dir)
      #expect(
        refused
          == RunResult(
            status: 75, stdout: "",
            stderr: "formsctl: error: an interrupted rm owner o1 awaits recovery; run `formsctl recover` first\n"))
      let recovered = try Formsctl.run(["recover"], in: dir)
      #expect(recovered == RunResult(status: 0, stdout: message + "\n", stderr: ""))
      #expect(FileManager.default.fileExists(atPath: dir + "/data/owners/o1.json") == ownerSurvives)
      #expect(FileManager.default.fileExists(atPath: dir + "/data/pets/p1.json") == ownerSurvives)
      #expect(try readFile(dir + "/data/pets/p2.json").contains("\"keeper\"") == ownerSurvives)
      let leftovers = try FileManager.default.subpathsOfDirectory(atPath: dir + "/data").filter {
        $0.contains(".formsctl-journal")
      }
      #expect(leftovers.isEmpty)
      #expect(try Formsctl.run(["recover"], in: dir).stdout == "nothing to recover\n")
      #expect(try Formsctl.run(["validate"], in: dir).status == 0)
      // The audit record is part of the commit: finished with it, or rolled back with it.
      let operations = try readFile(dir + "/.formsctl/history.jsonl").split(separator: "\n").filter {
        $0.contains("\"operation\":\"rm\"")
      }
      #expect(operations.count == (ownerSurvives ? 0 : 1))
    }
  }
}
