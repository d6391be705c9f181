import FormsCore
import FormsStore
import FormsTestSupport
import Foundation

// Benchmarks for formsctl; run in release mode:
//   swift run -c release FormsBench json [COUNT]
// Prints figures; asserts nothing.

let arguments = Array(CommandLine.arguments.dropFirst())
let command = arguments.first ?? "json"
let count = arguments.count > 1 ? Int(arguments[1]) ?? 10_000 : 10_000

/// The median of five runs of `body`, in seconds.
func time(_ body: () throws -> Void) rethrows -> Double {
  var runs: [Double] = []
  for _ in 0..<5 {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    runs.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
  }
  return runs.sorted()[2]
}

func report(_ label: String, seconds: Double, bytes: Int, documents: Int) {
  let mb = Double(bytes) / 1_048_576
  print(
    label.padding(toLength: 44, withPad: " ", startingAt: 0)
      + String(format: "%8.3f s %9.1f MB/s %11.0f docs/s", seconds, mb / seconds, Double(documents) / seconds))
}

/// Writes `count` purchase orders under `directory/data/purchase-orders`, returns their paths.
func generateStore(count: Int, at directory: String) throws -> [String] {
  let data = directory + "/data/purchase-orders"
  try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
  var generator = PurchaseOrderGenerator(seed: 42)
  var paths: [String] = []
  for k in 0..<count {
    let path = data + "/PO-\(pad(k, 6)).json"
    try Data(JSONWriter.canonical(generator.next(number: k))).write(to: URL(fileURLWithPath: path))
    paths.append(path)
  }
  return paths
}

func jsonBenchmark() throws {
  let directory = NSTemporaryDirectory() + "formsctl-bench-json-\(getpid())"
  defer { try? FileManager.default.removeItem(atPath: directory) }
  let paths = try generateStore(count: count, at: directory)
  let sizes = paths.map { (try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) ?? 0 }
  let total = sizes.reduce(0, +)
  print("\(count) purchase orders, \(total / 1024) KB in all, \(total / count) bytes each on average; 2 threads")

  let read = time { _ = parallelMap(paths) { (try? FileIO.read(FilePath($0)))?.count ?? 0 } }
  report("read the files (open/read)", seconds: read, bytes: total, documents: count)
  let readParse = time {
    _ = parallelMap(paths) { path -> Bool in
      guard let bytes = try? FileIO.read(FilePath(path)) else { return false }
      return (try? JSONParser().parse(bytes)) != nil
    }
  }
  report("read + formsctl parse", seconds: readParse, bytes: total, documents: count)
  let readFoundation = time {
    _ = parallelMap(paths) { path -> Bool in
      guard let bytes = try? FileIO.read(FilePath(path)) else { return false }
      return (try? JSONSerialization.jsonObject(with: Data(bytes))) != nil
    }
  }
  report("read + Foundation JSONSerialization parse", seconds: readFoundation, bytes: total, documents: count)

  // The parsers alone, on bytes already in memory.
  let contents = parallelMap(paths) { (try? FileIO.read(FilePath($0))) ?? [] }
  let datas = contents.map { Data($0) }
  let parse = time { _ = parallelMap(contents) { (try? JSONParser().parse($0)) != nil } }
  report("formsctl parse", seconds: parse, bytes: total, documents: count)
  let roundTrip = time {
    _ = parallelMap(contents) { bytes -> Bool in
      guard let value = try? JSONParser().parse(bytes) else { return false }
      return JSONWriter.canonical(value) == bytes
    }
  }
  report("formsctl parse + canonical write", seconds: roundTrip, bytes: total, documents: count)
  let foundation = time { _ = parallelMap(datas) { (try? JSONSerialization.jsonObject(with: $0)) != nil } }
  report("Foundation JSONSerialization parse", seconds: foundation, bytes: total, documents: count)
  print(
    String(
      format: "formsctl parse: %.1fx as fast as Foundation's; %.1fx the read time", foundation / parse, parse / read))
  print(
    String(
      format: "with the read: %.1fx as fast as Foundation's; %.1fx the read time", readFoundation / readParse,
      readParse / read))
}

/// Parses the same files over and over on one thread, for profilers.
func parseLoop() throws {
  let directory = NSTemporaryDirectory() + "formsctl-bench-loop-\(getpid())"
  defer { try? FileManager.default.removeItem(atPath: directory) }
  let files = try generateStore(count: 2000, at: directory).map { try FileIO.read(FilePath($0)) }
  let rounds = max(1, count / 2000)
  let seconds = time {
    for _ in 0..<rounds { for bytes in files { _ = try? JSONParser().parse(bytes) } }
  }
  report(
    "parse only, 1 thread, from memory", seconds: seconds, bytes: files.map(\.count).reduce(0, +) * rounds,
    documents: 2000 * rounds)
}

switch command {
case "json": try jsonBenchmark()
case "parse-loop": try parseLoop()
case "write":
  // FormsBench write [COUNT]: new and set latency on a store of COUNT documents (default 100,000).
  try WriteBenchmark.run(
    count: count == 10_000 && arguments.count < 2 ? 100_000 : count,
    repository: FileManager.default.currentDirectoryPath)
case "watch":
  // FormsBench watch [COUNT]: commit-to-report latency and memory of Store.changes (default 100,000).
  try WatchBenchmark.run(
    count: count == 10_000 && arguments.count < 2 ? 100_000 : count,
    repository: FileManager.default.currentDirectoryPath)
case "serve":
  // FormsBench serve [COUNT [STORE]]: formsctl serve's list and document pages, and commit → page update (default 100,000).
  try ServeBenchmark.run(
    count: count == 10_000 && arguments.count < 2 ? 100_000 : count,
    repository: FileManager.default.currentDirectoryPath, directory: arguments.count > 2 ? arguments[2] : nil)
case "index":
  // FormsBench index [COUNT [STORE]]: a warm list with and without `watch --serve-index` (default 1,000,000).
  try IndexWatcherBenchmark.run(
    count: count == 10_000 && arguments.count < 2 ? 1_000_000 : count,
    repository: FileManager.default.currentDirectoryPath, directory: arguments.count > 2 ? arguments[2] : nil)
case "lsp":
  // FormsBench lsp [COUNT]: formsctl lsp's didChange → publishDiagnostics latency (default 100,000).
  try LanguageServerBenchmark.run(
    count: count == 10_000 && arguments.count < 2 ? 100_000 : count,
    repository: FileManager.default.currentDirectoryPath)
case "million":
  // FormsBench million [COUNT]: the one-million-document table of docs/benchmarks.md (default 1,000,000), with peak memory.
  try MillionBenchmark.run(
    count: count == 10_000 && arguments.count < 2 ? 1_000_000 : count,
    repository: FileManager.default.currentDirectoryPath)
case "check":
  // FormsBench check [COUNT]: CI's regression check against the bands in Benchmarks/bands.json.
  exit(
    try RegressionCheck.run(
      count: arguments.count > 1 ? Int(arguments[1]) ?? 5_000 : 5_000,
      repository: FileManager.default.currentDirectoryPath))
case "floors":
  // FormsBench floors STORE: the million table's two floors measured on an existing store.
  guard arguments.count > 1 else {
    print("usage: FormsBench floors STORE")
    exit(64)
  }
  try Floors.report(arguments[1] + "/data/purchase-orders")
case "generate":
  // FormsBench generate DIR COUNT: a store of COUNT purchase orders made from the example orders.
  _ = try ExampleStore.generate(
    count: arguments.count > 2 ? Int(arguments[2]) ?? 10_000 : 10_000, at: arguments[1],
    repository: FileManager.default.currentDirectoryPath)
case _ where command == "table" || Comparisons.rows.contains(command):
  // FormsBench table|validate|list|snapshot|import|migrate [COUNT...]: formsctl beside its peer.
  let counts = arguments.dropFirst().compactMap { Int($0) }
  try Comparisons.run(
    rows: command == "table" ? Comparisons.rows : [command], counts: counts.isEmpty ? [10_000, 100_000] : counts,
    repository: FileManager.default.currentDirectoryPath)
default:
  print(
    "usage: FormsBench json [COUNT] | parse-loop [COUNT] | table|validate|list|snapshot|import|migrate [COUNT...] | million [COUNT] | floors STORE | write [COUNT] | watch [COUNT] | lsp [COUNT] | check [COUNT] | generate DIR [COUNT]"
  )
  exit(64)
}
