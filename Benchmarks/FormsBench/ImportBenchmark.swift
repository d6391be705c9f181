import FormsCore
import FormsStore
import Foundation

/// `import` of a feed (half new records, half updates touching a few items) into a large store,
/// and `validate --changed-since` after 10 changed documents (the store in git).
enum ImportBenchmark {
  static func run(storeSize: Int, feedSize: Int, repository: String) throws {
    let formsctl = repository + "/.build/release/formsctl"
    let directory = NSTemporaryDirectory() + "formsctl-bench-import-\(getpid())"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    try Data("formsctl: 1\nschemas: \(repository)/schemas\n".utf8).write(to: URL(fileURLWithPath: directory + "/formsctl.yaml"))
    let paths = try generateStore(count: storeSize, at: directory)
    print("\n\(storeSize) purchase orders in the store, a feed of \(feedSize) records")
    // The feed: updates of existing orders (newer, one item changed) and new orders.
    var generator = PurchaseOrderGenerator(seed: 7)
    var lines: [String] = []
    for k in 0..<feedSize {
      if k % 2 == 0, let existing = try? JSONParser().parse(FileIO.read(paths[k * (storeSize / feedSize) % storeSize])) {
        var record = existing
        if case .object(var object) = record, case .array(var items)? = object["items"], case .object(var item)? = items.first {
          item["quantity"] = .number(JSONNumber(4242))
          item["last_updated"] = .string("2027-01-0\(1 + k % 9)T10:00:00.000Z")
          items[0] = .object(item)
          object["items"] = .array(items)
          record = .object(object)
        }
        lines.append(JSONWriter.compact(record))
      } else {
        lines.append(JSONWriter.compact(generator.next(number: storeSize + k)))
      }
    }
    let feed = directory + "/feed.ndjson"
    try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: feed))
    sync()
    var output = ""
    let importRun = ValidateBenchmark.measureOnce {
      output = (try? ValidateBenchmark.shell([formsctl, "import", "purchase-order", feed, "--store", directory]))?.output ?? ""
    }
    report("formsctl import (snapshot + journal + syncfs)", seconds: importRun.seconds, bytes: 0, documents: feedSize)
    print("  \(output.split(separator: "\n").last ?? "")")
    print(String(format: "  %.0f records/s", Double(feedSize) / importRun.seconds))

    // In git: commit, change 10 documents, check only those (and what refers to them).
    for arguments in [["init", "-q"], ["add", "-A"], ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "-m", "base"]] {
      _ = try ValidateBenchmark.shell(["git", "-C", directory] + arguments)
    }
    for path in paths.prefix(10) {
      _ = try ValidateBenchmark.shell([formsctl, "set", "purchase-order", String(fileName(path).dropLast(5)), "--store", directory, "delivery_note=changed"])
    }
    var changed = ""
    let since = ValidateBenchmark.measure {
      changed = (try? ValidateBenchmark.shell([formsctl, "validate", "--changed-since", "HEAD", "--store", directory]))?.output ?? ""
    }
    report("formsctl validate --changed-since HEAD", seconds: since, bytes: 0, documents: 10)
    print("  \(changed.trimmingCharacters(in: .whitespacesAndNewlines))")
  }
}
