import FormsCore
import FormsStore
import FormsTestSupport
import Foundation

/// `new` and `set` on a large store: each goes through the whole write path (lock,
/// journal, relation checks by stat under the lock, audit record), so neither may read the store.
/// Whole processes (what a user waits for) and in-process library calls (what an app waits for).
enum WriteBenchmark {
  static func run(count: Int, repository: String, rounds: Int = 21) throws {
    let formsctl = repository + "/.build/release/formsctl"
    guard FileManager.default.isExecutableFile(atPath: formsctl) else {
      print("build formsctl in release mode first: swift build -c release")
      exit(66)
    }
    let directory = NSTemporaryDirectory() + "formsctl-bench-write-\(count)-\(getpid())"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try FileManager.default.createDirectory(atPath: directory + "/data/acquisitions", withIntermediateDirectories: true)
    try Data("formsctl: 1\nschemas: \(repository)/schemas\n".utf8).write(
      to: URL(fileURLWithPath: directory + "/formsctl.yaml"))
    try Data(
      #"{"_schema": "acquisition@1.0.0", "id": "ACQ-2026-001", "title": "Bench", "agency": "GSA", "status": "planning", "created_date": "2026-01-01T00:00:00Z", "last_modified_date": "2026-01-01T00:00:00Z"}"#
        .utf8
    )
    .write(to: URL(fileURLWithPath: directory + "/data/acquisitions/ACQ-2026-001.json"))
    _ = try generateStore(count: count, at: directory)
    print("\(count) purchase orders; medians and 90th percentiles of \(rounds) runs; each run really writes")

    func whole(_ label: String, _ arguments: (Int) -> [String]) throws {
      var runs: [Double] = []
      for k in 0..<rounds {
        let start = DispatchTime.now().uptimeNanoseconds
        let result = try Shell.run([formsctl] + arguments(k) + ["--store", directory])
        runs.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        guard result.status == 0 else {
          print("\(label) failed (exit \(result.status)): \(result.output)")
          exit(70)
        }
      }
      printFigures(label, runs)
    }
    try whole("formsctl get (whole process, reads only)") { k in ["get", "purchase-order", "PO-\(pad(k, 6))"] }
    try whole("formsctl new with a relation (whole process)") { k in
      [
        "new", "purchase-order", "--set", "purchase_order_number=NEW-\(k)", "--set", "acquisition_id=ACQ-2026-001",
        "--json", "items=[]",
      ]
    }
    try whole("formsctl set one item (whole process)") { k in
      ["set", "purchase-order", "PO-\(pad(k, 6))", "items[0].quantity=\(k + 1)"]
    }

    var configuration = Store.Configuration()
    configuration.user = "bench"
    let store = try Store.open(at: directory, configuration: configuration)
    var runs: [Double] = []
    for k in 0..<rounds {
      let start = DispatchTime.now().uptimeNanoseconds
      _ = try store.update(
        kind: "purchase-order", id: "PO-\(pad(100 + k, 6))", assignments: [try Assignment("items[0].quantity=\(k + 1)")]
      )
      runs.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    printFigures("Store.update (library, store open)", runs)
    let records = try AuditLog.read(store.layout).records.count
    print("audit records written: \(records) (expected \(3 * rounds))")
  }

  static func printFigures(_ label: String, _ milliseconds: [Double]) {
    let sorted = milliseconds.sorted()
    let median = sorted[sorted.count / 2]
    let p90 = sorted[min(sorted.count - 1, sorted.count * 9 / 10)]
    print(
      label.padding(toLength: 48, withPad: " ", startingAt: 0)
        + String(format: "%8.1f ms median %8.1f ms p90", median, p90))
  }
}
