import FormsCore
import FormsStore
import FormsTestSupport
import Foundation

/// The rows of the performance table, each formsctl beside its peer in one run with
/// their ratio, on a store made from the example purchase orders (`ExampleStore`):
///
///   validate   formsctl validate vs fastjsonschema (2 processes, the exported schema), and the floor
///              of reading + parsing every file with formsctl's parser on 2 threads
///   list       list --where --sort --limit 20 vs a jq pipeline (2 processes)
///   snapshot   snapshot create with nothing changed vs cp -al of the data
///   import     import of 1,000 new records into the store (safety copy included)
///   migrate    migrate of every order (one rename + one add) vs cp -a of the data
///
/// Every timed step starts with nothing dirty on the file system (`sync` before it).
enum Comparisons {
  static let rows = ["validate", "list", "snapshot", "import", "migrate"]

  struct Row {
    var work: String
    var ours: Double
    var peer: String
    var theirs: Double?
    var note: String

    var ratio: String {
      guard let theirs else { return "—" }
      return theirs >= ours
        ? String(format: "%.1fx faster", theirs / ours) : String(format: "%.2fx the time", ours / theirs)
    }
  }

  static func run(rows wanted: [String], counts: [Int], repository: String) throws {
    let formsctl = repository + "/.build/release/formsctl"
    guard FileManager.default.isExecutableFile(atPath: formsctl) else {
      print("build formsctl in release mode first: swift build -c release")
      exit(66)
    }
    for count in counts {
      let directory = NSTemporaryDirectory() + "formsctl-bench-\(count)-\(getpid())"
      defer { ExampleStore.remove(directory) }
      let paths = try ExampleStore.prepare(count: count, at: directory, repository: repository)
      let bytes = paths.map { (try? FileIO.read(FilePath($0)).count) ?? 0 }.reduce(0, +)
      print(
        "\n\(count) purchase orders made from examples/acquisitions (\(bytes / 1_048_576) MB of JSON, \(bytes / count) bytes each)"
      )
      let bench = Bench(formsctl: formsctl, store: directory, paths: paths, repository: repository)
      var table: [Row] = []
      for row in rows where wanted.contains(row) {
        let result: Row
        switch row {
        case "validate": result = try bench.validate()
        case "list": result = try bench.list()
        case "snapshot": result = try bench.snapshot()
        case "import": result = try bench.importFeed()
        default: result = try bench.migrate()
        }
        print(
          String(
            format: "%@ formsctl %7.3f s   %@ %@   %@",
            row.padding(toLength: 9, withPad: " ", startingAt: 0) as NSString, result.ours, result.peer as NSString,
            result.theirs.map { String(format: "%7.3f s", $0) } ?? "", result.ratio as NSString))
        if !result.note.isEmpty { print("           " + result.note) }
        table.append(result)
      }
      print("\n| work (\(count)) | formsctl | the peer | ratio |\n| --- | --- | --- | --- |")
      for row in table {
        print(
          "| \(row.work) | \(String(format: "%.2f s", row.ours)) | \(row.peer)\(row.theirs.map { String(format: ": %.2f s", $0) } ?? "") | \(row.ratio) |"
        )
      }
    }
  }

  struct Bench {
    let formsctl: String
    let store: String
    let paths: [String]
    let repository: String

    var data: String { store + "/data/purchase-orders" }

    /// Runs formsctl on the store; the run must succeed.
    @discardableResult
    func formsctl(_ arguments: [String], allow: Set<Int32> = [0], measuringMemory: Bool = true) -> (
      status: Int32, output: String
    ) {
      let result =
        (try? Shell.run([formsctl] + arguments + ["--store", store], measuringMemory: measuringMemory))
        ?? (status: -1, output: "")
      if !allow.contains(result.status) {
        print("formsctl \(arguments.joined(separator: " ")) exited \(result.status):\n\(result.output)")
        exit(1)
      }
      return result
    }

    /// Seconds of `body`, the median of `runs`, each after a `sync`.
    func timed(runs: Int = 3, _ body: () -> Void) -> Double {
      var seconds: [Double] = []
      for _ in 0..<runs {
        sync()
        let start = DispatchTime.now().uptimeNanoseconds
        body()
        seconds.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
      }
      return seconds.sorted()[runs / 2]
    }

    /// `cp -al` of the data (the unchanged snapshot's peer): the median of `runs`, each into a copy
    /// of its own after a `sync`; the copies are removed after the last run.
    func timedLinkCopy(runs: Int = 3) -> Double {
      var k = 0
      let seconds = timed(runs: runs) {
        k += 1
        _ = try? Shell.run(["cp", "-al", data, store + "/copy-al-\(k)"])
      }
      for j in 1...k { try? FileManager.default.removeItem(atPath: store + "/copy-al-\(j)") }
      return seconds
    }

    /// `ours` and `theirs`, each run `runs` times in turn (ours first in the first round, the order
    /// swapped each round), every run after a `sync`: the seconds of each run, in order. Each is
    /// given its round.
    func inTurn(runs: Int = 3, _ ours: (Int) -> Void, _ theirs: (Int) -> Void) -> (ours: [Double], theirs: [Double]) {
      var (mine, peer) = ([Double](), [Double]())
      for k in 0..<runs {
        for isOurs in k % 2 == 0 ? [true, false] : [false, true] {
          let seconds = timed(runs: 1) { isOurs ? ours(k) : theirs(k) }
          if isOurs { mine.append(seconds) } else { peer.append(seconds) }
        }
      }
      return (mine, peer)
    }

    /// Prints each run of `inTurn` under `label` and returns the two medians.
    func medians(_ label: String, _ runs: (ours: [Double], theirs: [Double]), peer: String) -> (Double, Double) {
      func list(_ seconds: [Double]) -> String { seconds.map { String(format: "%.2f s", $0) }.joined(separator: ", ") }
      print("\(label): \(list(runs.ours)); \(peer): \(list(runs.theirs)) (in turn, formsctl first in the 1st round)")
      return (runs.ours.sorted()[runs.ours.count / 2], runs.theirs.sorted()[runs.theirs.count / 2])
    }

    /// The first snapshot (seconds, peak MB) and its peer, `cp -a` of the data and a `sync`
    /// (seconds): each the median of `runs`, taken in turn (``inTurn(runs:_:_:)``). Nothing is
    /// removed between runs: each first snapshot's directory is renamed aside before the next
    /// (the last stays in place), and the copies stay until the store goes. On this machine's
    /// disk, removing a million files made the next heavy write 4–5x slower for minutes, whichever
    /// program wrote, so a run after a removal measured the removal.
    func timedFirstSnapshots(runs: Int = 3) -> (seconds: Double, peakMB: Int, copySeconds: Double) {
      let snapshots = store + "/.formsctl/snapshots"
      var peak = 0
      let times = inTurn(
        runs: runs,
        { k in
          if k > 0, rename(snapshots, store + "/first-snapshots-\(k - 1)") != 0 {
            print("could not set aside \(snapshots): errno \(errno)")
            exit(1)
          }
          formsctl(["snapshot", "create", "-m", "first"])
          peak = max(peak, Shell.lastPeakKilobytes / 1024)
        },
        { k in
          _ = try? Shell.run(["cp", "-a", data, store + "/copy-a-\(k)"])
          sync()
        })
      let (ours, copy) = medians("first snapshots", times, peer: "cp -a + sync")
      return (ours, peak, copy)
    }

    /// Runs `commands` at once (one process each) and waits for all.
    func together(_ commands: [[String]]) -> [String] {
      parallelChunks(count: commands.count, chunkSize: 1) { range in
        range.map { k in (try? Shell.run(commands[k], output: "-\(k)").output) ?? "" }
      }
    }

    func validate() throws -> Row {
      formsctl(["schema", "export", "--json-schema", "--out", store + "/exported"])
      try Data(Shell.judge.utf8).write(to: URL(fileURLWithPath: store + "/judge.py"))
      let schema = store + "/exported/purchase-order-1.1.0.schema.json"
      var summary = ""
      var peak = 0
      let ours = timed {
        summary =
          formsctl(["validate"]).output.split(separator: "\n").first { $0.hasPrefix("checked") }.map(String.init) ?? "?"
        peak = max(peak, Shell.lastPeakKilobytes / 1024)
      }
      var peerOutputs: [String] = []
      let theirs = timed {
        peerOutputs = together((0..<2).map { ["python3", store + "/judge.py", schema, data, "\($0)/2"] })
      }
      let floor = timed {
        _ = parallelMap(paths) { path -> Bool in
          (try? FileIO.read(FilePath(path))).flatMap { try? JSONParser().parse($0) } != nil
        }
      }
      let read = timed { _ = parallelMap(paths) { (try? FileIO.read(FilePath($0)))?.count ?? 0 } }
      return Row(
        work: "`validate` (whole store)", ours: ours, peer: "fastjsonschema, 2 processes", theirs: theirs,
        note: String(
          format:
            "%@; peak %d MB; fastjsonschema valid/total %@; read+parse floor %.3f s (validate %.1fx it); plain read %.3f s",
          summary, peak,
          peerOutputs.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.joined(separator: " + "), floor,
          ours / floor, read))
    }

    func list() throws -> Row {
      var ours = ""
      let formsctlTime = timed {
        ours =
          formsctl([
            "list", "purchase-order", "--where", "status == \"open\"", "--sort", "-last_updated", "--limit", "20",
            "--format", "ndjson", "--fields", "last_updated",
          ]).output
      }
      // Each jq keeps its own top 20 (one short line each, so the two never interleave), the last merges them.
      let top = "[inputs | select(.status == \"open\") | .last_updated] | sort | reverse | .[:20]"
      let script =
        "find \(data) -name '*.json' -print0 | xargs -0 -P2 -n \(paths.count / 2 + 1) jq -n -c '\(top)' | jq -s -c 'add | sort | reverse | .[:20] | .[]'"
      var theirs = ""
      let jqTime = timed { theirs = (try? Shell.run(["sh", "-c", script]).output) ?? "" }
      // Ties may order differently; the 20 timestamps must be the same.
      let mine = ours.split(separator: "\n").map {
        $0.replacingOccurrences(of: "{\"last_updated\":", with: "").dropLast()
      }
      let same = mine.count == 20 && mine == theirs.split(separator: "\n").map { Substring($0) }
      return Row(
        work: "`list --where 'status == \"open\"' --sort -last_updated --limit 20`", ours: formsctlTime,
        peer: "a jq pipeline, 2 processes", theirs: jqTime, note: "same 20 results: \(same ? "yes" : "NO")")
    }

    func snapshot() throws -> Row {
      let (first, _, copy) = timedFirstSnapshots()
      sleep(2)  // past the stat cache's racy window, as a real second snapshot would be
      let ours = timed { formsctl(["snapshot", "create"]) }
      let theirs = timedLinkCopy()
      return Row(
        work: "`snapshot create`, nothing changed", ours: ours, peer: "`cp -al` of the data", theirs: theirs,
        note: String(
          format: "first snapshot %.3f s; cp -a of the data and a sync %.3f s (%.2fx; medians of 3)", first, copy,
          first / copy))
    }

    func importFeed() throws -> Row {
      var generator = PurchaseOrderGenerator(seed: 7)
      let lines = (0..<1000).map {
        JSONWriter.compact(ExampleStore.order(paths.count + $0, from: generator.next(number: 0)))
      }
      let feed = store + "/feed.ndjson"
      try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: feed))
      // The floor: the same 1,000 documents made in the same directory, each written to a temporary
      // name and renamed into place, then one sync (what the import's commit makes durable).
      let documents = lines.map { line in
        (try? JSONParser().parse(line)).map { Data(JSONWriter.canonical($0)) } ?? Data(line.utf8)
      }
      let floor = timed(runs: 1) {
        for (k, bytes) in documents.enumerated() {
          let path = data + "/FLOOR-\(k).json"
          // A floor of writes that failed would be no floor: stop the benchmark instead.
          do { try bytes.write(to: URL(fileURLWithPath: path + ".tmp")) } catch {
            print("the import floor could not write \(path).tmp: \(error)")
            exit(1)
          }
          guard rename(path + ".tmp", path) == 0 else {
            print("the import floor could not rename \(path).tmp: \(String(cString: strerror(errno)))")
            exit(1)
          }
        }
        sync()
      }
      for k in documents.indices where unlink(data + "/FLOOR-\(k).json") != 0 {
        print("the import floor could not remove FLOOR-\(k).json: \(String(cString: strerror(errno)))")
        exit(1)
      }
      var output = ""
      let ours = timed(runs: 1) { output = formsctl(["import", "purchase-order", feed]).output }
      return Row(
        work: "`import` of 1,000 new records into the store", ours: ours,
        peer: "1,000 files made in that directory (write, rename, one sync)", theirs: floor,
        note: String(
          format: "%.0f records/s against %.0f files/s (%.2fx the floor); %@", 1000 / ours, 1000 / floor,
          floor / ours, output.split(separator: "\n").last.map(String.init) ?? ""))
    }

    func migrate() throws -> Row {
      let schemas = store + "/schemas"
      let next =
        try String(contentsOfFile: schemas + "/purchase-order/1.1.0.yaml", encoding: .utf8)
        .replacingOccurrences(of: "version: 1.1.0", with: "version: 2.0.0")
        .replacingOccurrences(of: "from: 1.0.0", with: "from: 1.1.0")
        .replacingOccurrences(of: "editable: [delivery_note,", with: "editable: [note,")
        .replacingOccurrences(
          of: "  delivery_note: {type: string, optional: true, max_length: 2000}",
          with:
            "  note: {type: string, optional: true, max_length: 2000}\n  priority: {type: enum, values: [low, normal, high]}"
        )
        + "changes:\n  - rename: {from: delivery_note, to: note, if_present: true}\n  - add: {field: priority, value: normal}\n"
      try Data(next.utf8).write(to: URL(fileURLWithPath: schemas + "/purchase-order/2.0.0.yaml"))
      let theirs = timed(runs: 1) { _ = try? Shell.run(["cp", "-a", data, store + "/copy-a"]) }
      try? FileManager.default.removeItem(atPath: store + "/copy-a")
      var output = ""
      let ours = timed(runs: 1) { output = formsctl(["migrate", "--kind", "purchase-order"]).output }
      let valid = formsctl(["validate", "-q"], allow: [0, 1]).status == 0
      return Row(
        work: "`migrate` (one rename + one add, every sync)", ours: ours, peer: "`cp -a` of the data", theirs: theirs,
        note:
          "\(output.split(separator: "\n").last.map(String.init) ?? ""); afterwards validate: \(valid ? "all valid" : "PROBLEMS")"
      )
    }
  }
}
