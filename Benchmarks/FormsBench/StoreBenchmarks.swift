import FormsCore
import FormsStore
import Foundation

/// `list`, `new` and `set` (issue 4) and snapshots (issue 5), whole processes, beside jq and cp.
enum StoreBenchmarks {
  static func run(counts: [Int], repository: String) throws {
    let formsctl = repository + "/.build/release/formsctl"
    guard FileManager.default.isExecutableFile(atPath: formsctl) else {
      print("build formsctl in release mode first: swift build -c release")
      exit(66)
    }
    for count in counts {
      let directory = NSTemporaryDirectory() + "formsctl-bench-store-\(count)-\(getpid())"
      defer { try? FileManager.default.removeItem(atPath: directory) }
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      try Data("formsctl: 1\nschemas: \(repository)/schemas\n".utf8).write(to: URL(fileURLWithPath: directory + "/formsctl.yaml"))
      let paths = try generateStore(count: count, at: directory)
      let bytes = paths.map { (try? FileIO.read($0).count) ?? 0 }.reduce(0, +)
      let data = directory + "/data/purchase-orders"
      print("\n\(count) purchase orders (\(bytes / 1_048_576) MB)")

      var listOutput = ""
      let list = ValidateBenchmark.measure {
        listOutput = (try? ValidateBenchmark.shell([formsctl, "list", "purchase-order", "--store", directory, "--where", "status == \"open\"",
          "--sort", "-last_updated", "--limit", "20", "--format", "ndjson", "--fields", "last_updated"]))?.output ?? ""
      }
      report("formsctl list --where --sort --limit 20", seconds: list, bytes: bytes, documents: count)
      let jqScript = "find \(data) -name '*.json' -print0 | xargs -0 jq -c 'select(.status == \"open\") | {n: .purchase_order_number, u: .last_updated}' | jq -s -c 'sort_by(.u) | reverse | .[:20] | .[].u'"
      var jqOutput = ""
      let jq = ValidateBenchmark.measureOnce { jqOutput = (try? ValidateBenchmark.shell(["sh", "-c", jqScript]))?.output ?? "" }
      report("jq pipeline (find | xargs jq | jq -s sort)", seconds: jq.seconds, bytes: bytes, documents: count)
      // Ties may order differently; the 20 timestamps must be the same.
      let ours = listOutput.split(separator: "\n").map { $0.replacingOccurrences(of: "{\"last_updated\":", with: "").dropLast() }
      let theirs = jqOutput.split(separator: "\n").map { Substring($0) }
      print(String(format: "  list is %.1fx faster than jq; same 20 results: %@", jq.seconds / list, ours.count == 20 && ours == theirs ? "yes" : "NO"))

      var k = 0
      let new = ValidateBenchmark.measure {
        k += 1
        _ = try? ValidateBenchmark.shell([formsctl, "new", "purchase-order", "--store", directory, "--set", "purchase_order_number=NEW-\(k)", "--json", "items=[]"])
      }
      print(String(format: "%-44@%8.1f ms", "formsctl new (whole process)" as NSString, new * 1000))
      let set = ValidateBenchmark.measure {
        k += 1
        _ = try? ValidateBenchmark.shell([formsctl, "set", "purchase-order", "PO-000007", "--store", directory, "delivery_note=bench \(k)"])
      }
      print(String(format: "%-44@%8.1f ms", "formsctl set (whole process)" as NSString, set * 1000))

      // Each timed step starts with nothing dirty on the file system: formsctl makes its own writes
      // durable (syncfs), cp does not, and neither should pay for what came before.
      sync()
      let copy = ValidateBenchmark.measureOnce { _ = try? ValidateBenchmark.shell(["cp", "-a", data, directory + "/copy-a"]) }
      report("cp -a of the data directory (no fsync)", seconds: copy.seconds, bytes: bytes, documents: count)
      sync()
      let links = ValidateBenchmark.measureOnce { _ = try? ValidateBenchmark.shell(["cp", "-al", data, directory + "/copy-al"]) }
      report("cp -al of the data directory (no fsync)", seconds: links.seconds, bytes: bytes, documents: count)
      sync()
      let first = ValidateBenchmark.measureOnce { _ = try? ValidateBenchmark.shell([formsctl, "snapshot", "create", "--store", directory]) }
      report("first snapshot (copies + SHA-256 + syncfs)", seconds: first.seconds, bytes: bytes, documents: count)
      sleep(3)  // past the hash cache's racy window, as a real second snapshot would be
      sync()
      let unchanged = ValidateBenchmark.measureOnce { _ = try? ValidateBenchmark.shell([formsctl, "snapshot", "create", "--store", directory]) }
      report("second snapshot, nothing changed", seconds: unchanged.seconds, bytes: bytes, documents: count)
      for path in paths.prefix(count / 100) {
        try? ValidateBenchmark.shell([formsctl, "set", "purchase-order", String(fileName(path).dropLast(5)), "--store", directory, "delivery_note=changed"])
      }
      sleep(3)
      sync()
      let onePercent = ValidateBenchmark.measureOnce { _ = try? ValidateBenchmark.shell([formsctl, "snapshot", "create", "--store", directory]) }
      report("third snapshot, 1% of documents changed", seconds: onePercent.seconds, bytes: bytes, documents: count)
      sync()
      let verify = ValidateBenchmark.measureOnce { _ = try? ValidateBenchmark.shell([formsctl, "snapshot", "verify", "latest", "--store", directory]) }
      report("snapshot verify latest (re-hash everything)", seconds: verify.seconds, bytes: bytes, documents: count)
      let read = ValidateBenchmark.measure { _ = parallelMap(paths) { (try? FileIO.read($0))?.count ?? 0 } }
      report("plain read of the files (2 threads)", seconds: read, bytes: bytes, documents: count)
    }
  }
}
