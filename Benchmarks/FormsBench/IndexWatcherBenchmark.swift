import FormsTestSupport
import Foundation

/// Issue 55's figures: a warm `list --where --sort --limit 20` from the command line with and
/// without `formsctl watch --serve-index` (the peer: the same command without a watcher, timed in
/// the same run); a `set` followed by a `list` that sees it; the watcher's memory while it serves.
enum IndexWatcherBenchmark {
  static func run(count: Int, repository: String, rounds: Int = 11, directory given: String? = nil) throws {
    let directory = given ?? NSTemporaryDirectory() + "formsctl-bench-index-\(count)-\(getpid())"
    if given == nil {
      _ = try ExampleStore.prepare(count: count, at: directory, repository: repository)
    }
    defer { if given == nil { ExampleStore.remove(directory) } }
    let formsctl = URL(fileURLWithPath: repository + "/.build/release/formsctl")
    guard FileManager.default.isExecutableFile(atPath: formsctl.path) else {
      print("build .build/release/formsctl first (swift build -c release --product formsctl)")
      exit(66)
    }
    func formsctlRun(_ arguments: [String]) throws -> Double {
      let process = Process()
      process.executableURL = formsctl
      process.arguments = arguments + ["--store", directory]
      process.standardOutput = FileHandle.nullDevice
      let started = DispatchTime.now().uptimeNanoseconds
      try process.run()
      process.waitUntilExit()
      guard process.terminationStatus == 0 else { throw CocoaError(.executableLoad) }
      return Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
    }
    let list = ["list", "purchase-order", "--where", #"status == "open""#, "--sort", "-issue_date", "--limit", "20"]
    print("\(count) purchase orders; `formsctl \(list.joined(separator: " "))`, \(rounds) runs each")
    // Warm: the index built, the files in the page cache.
    for _ in 0..<2 { _ = try formsctlRun(list) }
    let peer = try (0..<rounds).map { _ in try formsctlRun(list) }
    WriteBenchmark.printFigures("peer: warm list, no watcher", peer)

    let watcher = Process()
    watcher.executableURL = formsctl
    watcher.arguments = ["watch", "--serve-index", "--store", directory]
    watcher.standardOutput = FileHandle.nullDevice
    watcher.standardError = FileHandle.nullDevice
    try watcher.run()
    defer {
      watcher.terminate()
      watcher.waitUntilExit()
    }
    while !FileManager.default.fileExists(atPath: directory + "/.formsctl/watcher/socket") { usleep(10_000) }
    print(
      String(
        format: "watcher started: %.0f MB resident", WatchBenchmark.residentMegabytes(String(watcher.processIdentifier))
      ))
    // The first query through it checks every file and leaves the record.
    _ = try formsctlRun(list)
    let watched = try (0..<rounds).map { _ in try formsctlRun(list) }
    WriteBenchmark.printFigures("warm list through the watcher", watched)
    var together: [Double] = []
    for k in 0..<rounds {
      let id = "PO-\(pad(1 + k * 13 % (count - 1), 6))"
      let set = try formsctlRun(["set", "purchase-order", id, "delivery_note=bench \(k)"])
      let seen = try formsctlRun([
        "list", "purchase-order", "--where", #"delivery_note == "bench \#(k)""#, "--limit", "20",
      ])
      together.append(set + seen)
    }
    WriteBenchmark.printFigures("set, then a list that sees it", together)
    let before = WatchBenchmark.residentMegabytes(String(watcher.processIdentifier))
    for k in 0..<200 {
      _ = try formsctlRun(["set", "purchase-order", "PO-\(pad(1 + k % (count - 1), 6))", "delivery_note=m \(k)"])
    }
    _ = try formsctlRun(list)
    print(
      String(
        format: "watcher memory: %.0f MB after the timed runs, %.0f MB after 200 more sets", before,
        WatchBenchmark.residentMegabytes(String(watcher.processIdentifier))))
  }
}
