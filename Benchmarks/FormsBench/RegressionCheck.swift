import FormsCore
import FormsStore
import FormsTestSupport
import Foundation

/// `FormsBench check [COUNT]`: CI's performance regression check, in under a minute. On a small
/// generated store (default 5,000 orders), each row times formsctl and a peer in the same run
/// (so the machine's speed cancels out) and fails when their ratio leaves the band recorded in
/// `Benchmarks/bands.json`, printing the figures. Only coreutils and the release formsctl are
/// needed; the peers are the floor of reading and parsing every file in-process, and `cp -al`.
enum RegressionCheck {
  /// A row's band: the largest ratio of formsctl's time to its peer's that passes.
  struct Band: Decodable {
    let max: Double
    let why: String
  }

  static func run(count: Int, repository: String) throws -> Int32 {
    let bands = try JSONDecoder().decode(
      [String: Band].self, from: Data(contentsOf: URL(fileURLWithPath: repository + "/Benchmarks/bands.json")))
    let formsctl = repository + "/.build/release/formsctl"
    guard FileManager.default.isExecutableFile(atPath: formsctl) else {
      print("build formsctl in release mode first: swift build -c release")
      return 66
    }
    let directory = NSTemporaryDirectory() + "formsctl-check-\(count)-\(getpid())"
    defer { ExampleStore.remove(directory) }
    let paths = try ExampleStore.prepare(count: count, at: directory, repository: repository)
    let bench = Comparisons.Bench(formsctl: formsctl, store: directory, paths: paths, repository: repository)

    let floor = bench.timed(runs: 5) {
      _ = parallelMap(paths) { path -> Bool in
        (try? FileIO.read(FilePath(path))).flatMap { try? JSONParser().parse($0) } != nil
      }
    }
    var measured: [(row: String, ours: Double, peer: String, theirs: Double)] = []
    let validate = bench.timed(runs: 5) { bench.formsctl(["validate", "-q"]) }
    measured.append(("validate", validate, "read + parse floor", floor))
    // Past the index's racy window (files written within 2 s of a look are read again), as a
    // store being queried is: timed on files made a moment ago, list re-reads and re-saves every
    // entry on each run, which measures the machine's noise more than list.
    sleep(2)
    let list = bench.timed(runs: 5) {
      bench.formsctl([
        "list", "purchase-order", "--where", #"status == "open""#, "--sort", "-last_updated", "--limit", "20",
      ])
    }
    measured.append(("list", list, "read + parse floor", floor))
    bench.formsctl(["snapshot", "create", "-q"])
    sleep(2)  // past the stat cache's racy window, as a real second snapshot would be
    let snapshot = bench.timed(runs: 5) { bench.formsctl(["snapshot", "create", "-q"]) }
    let links = bench.timedLinkCopy(runs: 5)
    measured.append(("snapshot", snapshot, "cp -al of the data", links))

    var failed = 0
    print("performance check on \(count) purchase orders (ratio = formsctl's time / the peer's, in the same run)")
    for row in measured {
      let ratio = row.ours / row.theirs
      guard let band = bands[row.row] else {
        print("\(row.row): no band in Benchmarks/bands.json")
        failed += 1
        continue
      }
      let pass = ratio <= band.max
      if !pass { failed += 1 }
      print(
        String(
          format: "%@ %@ formsctl %.3f s, %@ %.3f s: ratio %.2f (band ≤ %.2f)", pass ? "ok  " : "FAIL",
          row.row.padding(toLength: 9, withPad: " ", startingAt: 0) as NSString, row.ours, row.peer as NSString,
          row.theirs, ratio, band.max))
    }
    return failed == 0 ? 0 : 1
  }
}
