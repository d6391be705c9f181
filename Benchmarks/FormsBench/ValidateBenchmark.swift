import FormsCore
import FormsStore
import Foundation

/// `formsctl validate` (whole process, release build) beside fastjsonschema and jsonschema using
/// formsctl's own exported JSON Schema on the same files, and a plain read of the files.
enum ValidateBenchmark {
  static let judge = """
    import json, sys, time, glob, os
    which, schema_path, data = sys.argv[1], sys.argv[2], sys.argv[3]
    schema = json.load(open(schema_path))
    paths = sorted(glob.glob(os.path.join(data, '*.json')))
    start = time.time()
    if which == 'fastjsonschema':
        import fastjsonschema
        text = json.dumps(schema).replace('#/$defs/', '#/definitions/').replace('"$defs"', '"definitions"')
        schema = json.loads(text)
        schema['$schema'] = 'http://json-schema.org/draft-07/schema#'
        validate = fastjsonschema.compile(schema)
        def ok(doc):
            try:
                validate(doc)
                return True
            except fastjsonschema.JsonSchemaException:
                return False
    else:
        import jsonschema
        validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
        ok = validator.is_valid
    valid = 0
    for path in paths:
        with open(path, 'rb') as f:
            if ok(json.loads(f.read())):
                valid += 1
    print(f'{valid} {len(paths)}')
    """

  static func run(counts: [Int], repository: String, skipJsonschemaAbove: Int) throws {
    let formsctl = repository + "/.build/release/formsctl"
    guard FileManager.default.isExecutableFile(atPath: formsctl) else {
      print("build formsctl in release mode first: swift build -c release")
      exit(66)
    }
    for count in counts {
      let directory = NSTemporaryDirectory() + "formsctl-bench-validate-\(count)-\(getpid())"
      defer { try? FileManager.default.removeItem(atPath: directory) }
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      try Data("formsctl: 1\nschemas: \(repository)/schemas\n".utf8).write(to: URL(fileURLWithPath: directory + "/formsctl.yaml"))
      let paths = try generateStore(count: count, at: directory)
      let bytes = paths.map { (try? FileIO.read($0).count) ?? 0 }.reduce(0, +)
      print("\n\(count) purchase orders (\(bytes / 1_048_576) MB)")
      let export = try shell([formsctl, "schema", "export", "--json-schema", "--out", directory + "/exported", "--store", directory])
      precondition(export.status == 0, export.output)
      try Data(judge.utf8).write(to: URL(fileURLWithPath: directory + "/judge.py"))
      let schema = directory + "/exported/purchase-order-1.1.0.schema.json"
      let data = directory + "/data/purchase-orders"

      let read = measure { _ = parallelMap(paths) { (try? FileIO.read($0))?.count ?? 0 } }
      report("plain read of the files (2 threads)", seconds: read, bytes: bytes, documents: count)
      var validateRun = (status: Int32(0), output: "")
      var peak = 0
      let ours = measure {
        validateRun = (try? shell([formsctl, "validate", "--store", directory])) ?? (-1, "")
        peak = max(peak, childPeakKilobytes())
      }
      report("formsctl validate (whole process)", seconds: ours, bytes: bytes, documents: count)
      print("  \(validateRun.output.split(separator: "\n").last ?? "?")   peak memory \(peak / 1024) MB")
      let fast = measureOnce { _ = try? shell(["python3", directory + "/judge.py", "fastjsonschema", schema, data]) }
      report("fastjsonschema (1 process)", seconds: fast.seconds, bytes: bytes, documents: count)
      print("  \(fast.output)")
      print(String(format: "  formsctl validate is %.1fx faster than fastjsonschema", fast.seconds / ours))
      if count <= skipJsonschemaAbove {
        let slow = measureOnce { _ = try? shell(["python3", directory + "/judge.py", "jsonschema", schema, data]) }
        report("jsonschema (1 process)", seconds: slow.seconds, bytes: bytes, documents: count)
        print(String(format: "  formsctl validate is %.1fx faster than jsonschema", slow.seconds / ours))
      }
    }
  }

  /// The median of three runs.
  static func measure(_ body: () -> Void) -> Double {
    var runs: [Double] = []
    for _ in 0..<3 {
      let start = DispatchTime.now().uptimeNanoseconds
      body()
      runs.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    return runs.sorted()[1]
  }

  static func measureOnce(_ body: () throws -> Void) rethrows -> (seconds: Double, output: String) {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, lastOutput)
  }

  nonisolated(unsafe) static var lastOutput = ""

  /// Runs a command with posix_spawn (Foundation's Process adds tens of milliseconds per spawn on
  /// Linux, which would swamp whole-process timings); stdout and stderr are collected.
  @discardableResult
  static func shell(_ arguments: [String]) throws -> (status: Int32, output: String) {
    let outputPath = NSTemporaryDirectory() + "formsctl-bench-out-\(getpid())"
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    var pid: pid_t = 0
    var cArguments = arguments.map { strdup($0) } + [nil]
    defer { for argument in cArguments { free(argument) } }
    guard posix_spawnp(&pid, arguments[0], &actions, nil, &cArguments, environ) == 0 else { return (127, "") }
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    lastOutput = output.trimmingCharacters(in: .whitespacesAndNewlines)
    return ((status >> 8) & 0xff, output)
  }

  /// The largest resident set of any child process so far, in KB.
  static func childPeakKilobytes() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_CHILDREN.rawValue, &usage)
    return Int(usage.ru_maxrss)
  }
}
