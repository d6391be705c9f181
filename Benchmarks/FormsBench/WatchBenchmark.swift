import FormsCore
import FormsStore
import FormsTestSupport
import Foundation
import Synchronization

/// `Store.changes` on a large store: how long from a commit to the batch that reports
/// it, with the default debounce window, and whether memory stays flat while watching.
enum WatchBenchmark {
  static func run(count: Int, repository: String, rounds: Int = 41) throws {
    let directory = NSTemporaryDirectory() + "formsctl-bench-watch-\(count)-\(getpid())"
    defer { ExampleStore.remove(directory) }
    _ = try ExampleStore.prepare(count: count, at: directory, repository: repository)
    var configuration = Store.Configuration()
    configuration.user = "bench"
    let store = try Store.open(at: directory, configuration: configuration)
    print("\(count) purchase orders; debounce \(Store.ObserveOptions().debounce); \(rounds) changes, one at a time")
    let rssBefore = residentMegabytes()

    let arrivals = Mutex<[UInt64]>([])
    let cancellation = WatchCancellation()
    let startedAt = DispatchTime.now().uptimeNanoseconds
    let watcher = Thread {
      do throws(StoreError) {
        try store.watchChanges(kinds: ["purchase-order"], cancellation: cancellation) { _ in
          arrivals.withLock { $0.append(DispatchTime.now().uptimeNanoseconds) }
        }
      } catch {
        print("the watch failed: \(error)")
        exit(70)
      }
    }
    watcher.start()
    // The first look is done once a change made now is reported (one made during it may be
    // part of what it saw): change a document until one is reported.
    var tries = 0
    while arrivals.withLock({ $0.count }) == 0 {
      tries += 1
      _ = try store.update(
        kind: "purchase-order", id: "PO-000000", assignments: [try Assignment("delivery_note=first \(tries)")])
      for _ in 0..<200 where arrivals.withLock({ $0.count }) == 0 { usleep(1000) }
    }
    let firstLook = Double(DispatchTime.now().uptimeNanoseconds - startedAt) / 1e9
    print(
      String(
        format: "first look and first report: %.2f s; resident %.0f MB (before watching %.0f MB)", firstLook,
        residentMegabytes(), rssBefore))

    func changes(_ rounds: Int, offset: Int) throws -> (fromCall: [Double], fromCommit: [Double]) {
      var fromCall: [Double] = []
      var fromCommit: [Double] = []
      for k in 0..<rounds {
        let seen = arrivals.withLock { $0.count }
        let call = DispatchTime.now().uptimeNanoseconds
        _ = try store.update(
          kind: "purchase-order", id: "PO-\(pad(1 + (offset + k) % (count - 1), 6))",
          assignments: [try Assignment("delivery_note=watch \(offset + k + 1)")])
        let committed = DispatchTime.now().uptimeNanoseconds
        while arrivals.withLock({ $0.count }) == seen { usleep(200) }
        let arrived = arrivals.withLock { $0.last ?? 0 }
        fromCall.append(Double(arrived - call) / 1e6)
        fromCommit.append(Double(arrived - committed) / 1e6)
        usleep(20_000)
      }
      return (fromCall, fromCommit)
    }
    let (call, commit) = try changes(rounds, offset: 1)
    WriteBenchmark.printFigures("commit returned → batch reported", commit)
    WriteBenchmark.printFigures("update called → batch reported", call)
    let afterFirst = residentMegabytes()
    _ = try changes(rounds * 5, offset: 1 + rounds)
    let afterMore = residentMegabytes()
    print(
      String(
        format: "resident while watching: %.0f MB after %d changes, %.0f MB after %d (flat when these agree)",
        afterFirst, rounds + 1, afterMore, rounds * 6 + 1))
    cancellation.cancel()
  }

  /// The process's resident set (VmRSS), in MB; 0 where /proc is not there.
  /// The resident memory of process `pid` (this one by default), in MB.
  static func residentMegabytes(_ pid: String = "self") -> Double {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
    else { return 0 }
    return Double(line.split(separator: " ").dropFirst().first ?? "0").map { $0 / 1024 } ?? 0
  }
}
