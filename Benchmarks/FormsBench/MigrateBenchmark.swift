import FormsCore
import FormsStore
import Foundation

/// `formsctl migrate` across one rename + one add (whole process: snapshot, staging, syncfs,
/// commit, renames), beside `cp -a` of the same data and the jq loops a user would write.
enum MigrateBenchmark {
  static let filter = #".delivery_note as $n | del(.delivery_note) | .note = $n | .priority = "normal" | ._schema = "purchase-order@2.0.0""#

  static func run(counts: [Int], repository: String, jqLoopsUpTo: Int) throws {
    let formsctl = repository + "/.build/release/formsctl"
    for count in counts {
      let directory = NSTemporaryDirectory() + "formsctl-bench-migrate-\(count)-\(getpid())"
      defer { try? FileManager.default.removeItem(atPath: directory) }
      try FileManager.default.createDirectory(atPath: directory + "/schemas", withIntermediateDirectories: true)
      try FileManager.default.copyItem(atPath: repository + "/schemas/purchase-order", toPath: directory + "/schemas/purchase-order")
      try FileManager.default.copyItem(atPath: repository + "/schemas/acquisition", toPath: directory + "/schemas/acquisition")
      let next = try String(contentsOfFile: directory + "/schemas/purchase-order/1.1.0.yaml", encoding: .utf8)
        .replacingOccurrences(of: "version: 1.1.0", with: "version: 2.0.0")
        .replacingOccurrences(of: "from: 1.0.0", with: "from: 1.1.0")
        .replacingOccurrences(of: "  delivery_note: {type: string, optional: true, max_length: 2000}",
          with: "  note: {type: string, optional: true, max_length: 2000}\n  priority: {type: enum, values: [low, normal, high]}")
        + "changes:\n  - rename: {from: delivery_note, to: note, if_present: true}\n  - add: {field: priority, value: normal}\n"
      try Data(next.utf8).write(to: URL(fileURLWithPath: directory + "/schemas/purchase-order/2.0.0.yaml"))
      try Data("formsctl: 1\n".utf8).write(to: URL(fileURLWithPath: directory + "/formsctl.yaml"))
      let paths = try generateStore(count: count, at: directory)
      let data = directory + "/data/purchase-orders"
      let bytes = paths.map { (try? FileIO.read($0).count) ?? 0 }.reduce(0, +)
      print("\n\(count) purchase orders (\(bytes / 1_048_576) MB), one rename + one add")
      sync()
      let copy = ValidateBenchmark.measureOnce { _ = try? ValidateBenchmark.shell(["cp", "-a", data, directory + "/copy"]) }
      report("cp -a of the data directory (no fsync)", seconds: copy.seconds, bytes: bytes, documents: count)
      try? FileManager.default.removeItem(atPath: directory + "/copy")
      sync()
      var output = ""
      let migrate = ValidateBenchmark.measureOnce { output = (try? ValidateBenchmark.shell([formsctl, "migrate", "--store", directory]))?.output ?? "" }
      report("formsctl migrate (snapshot + journal + syncfs)", seconds: migrate.seconds, bytes: bytes, documents: count)
      print("  \(output.split(separator: "\n").last ?? "")")
      let valid = (try? ValidateBenchmark.shell([formsctl, "validate", "--store", directory, "-q"]))?.status == 0
      print("  afterwards formsctl validate: \(valid ? "all valid" : "PROBLEMS")")
      print(String(format: "  throughput: %.0f docs/s; %.1fx the time of cp -a", Double(count) / migrate.seconds, migrate.seconds / copy.seconds))
      guard count <= jqLoopsUpTo else { continue }
      let loop = "for f in \(data)/*.json; do jq -S --indent 2 '\(filter)' \"$f\" > \"$f.tmp\" && mv \"$f.tmp\" \"$f\"; done"
      sync()
      let jqLoop = ValidateBenchmark.measureOnce { _ = try? ValidateBenchmark.shell(["bash", "-c", loop]) }
      report("jq loop (for f in ...; jq > tmp && mv)", seconds: jqLoop.seconds, bytes: bytes, documents: count)
      let parallel = "find \(data) -name '*.json' -print0 | xargs -0 -P2 -n1 sh -c 'jq -S --indent 2 \"$0\" \"$1\" > \"$1.tmp\" && mv \"$1.tmp\" \"$1\"' '\(filter)'"
      sync()
      let jqParallel = ValidateBenchmark.measureOnce { _ = try? ValidateBenchmark.shell(["bash", "-c", parallel]) }
      report("jq with xargs -P2", seconds: jqParallel.seconds, bytes: bytes, documents: count)
      print(String(format: "  formsctl migrate is %.1fx faster than the jq loop, %.1fx faster than xargs -P2 (which fsync nothing)",
        jqLoop.seconds / migrate.seconds, jqParallel.seconds / migrate.seconds))
    }
  }
}
