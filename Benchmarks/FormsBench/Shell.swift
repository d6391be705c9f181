import FormsStore
import Foundation
import Synchronization

/// Runs processes for the whole-process benchmarks and keeps what the peers need.
enum Shell {
  /// fastjsonschema on the files of `data` (shard `k/n` of them, sorted by name), with formsctl's
  /// exported JSON Schema; prints `valid total`.
  static let judge = """
    import json, sys, glob, os
    schema_path, data, shard = sys.argv[1], sys.argv[2], sys.argv[3]
    k, n = (int(x) for x in shard.split('/'))
    import fastjsonschema
    text = open(schema_path).read().replace('#/$defs/', '#/definitions/').replace('"$defs"', '"definitions"')
    schema = json.loads(text)
    schema['$schema'] = 'http://json-schema.org/draft-07/schema#'
    validate = fastjsonschema.compile(schema)
    paths = sorted(glob.glob(os.path.join(data, '*.json')))[k::n]
    valid = 0
    for path in paths:
        with open(path, 'rb') as f:
            try:
                validate(json.loads(f.read()))
                valid += 1
            except fastjsonschema.JsonSchemaException:
                pass
    print(f'{valid}/{len(paths)}')
    """

  /// `/usr/bin/time`, which measures a command's peak memory as it is (`-f %M`): a child
  /// `posix_spawn` starts shares this process's memory until it execs, so its own `ru_maxrss`
  /// would include this benchmark's (the paths of a million files).
  static let timeCommand = FileManager.default.isExecutableFile(atPath: "/usr/bin/time") ? "/usr/bin/time" : nil

  /// Runs a command with posix_spawn (Foundation's Process adds tens of milliseconds per spawn on
  /// Linux, which would swamp whole-process timings); stdout and stderr are collected. Its peak
  /// memory is `lastPeakKilobytes` after (measured by `/usr/bin/time` when there is one).
  /// With `measuringMemory: false` the command is started directly, not under `/usr/bin/time`
  /// (one process fewer: what a latency of milliseconds is timed with).
  @discardableResult
  static func run(_ command: [String], output suffix: String = "", measuringMemory: Bool = true) throws -> (
    status: Int32, output: String
  ) {
    let outputPath = NSTemporaryDirectory() + "formsctl-bench-out-\(getpid())\(suffix)"
    let peakPath = outputPath + ".peak"
    defer {
      unlink(outputPath)
      unlink(peakPath)
    }
    let arguments =
      measuringMemory ? timeCommand.map { [$0, "-f", "%M", "-o", peakPath] + command } ?? command : command
    var actions = Platform.spawnActions()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    var pid: pid_t = 0
    var cArguments = arguments.map { strdup($0) } + [nil]
    defer { for argument in cArguments { free(argument) } }
    guard posix_spawnp(&pid, arguments[0], &actions, nil, &cArguments, Platform.environment) == 0 else {
      return (127, "")
    }
    var status: Int32 = 0
    var usage = rusage()
    wait4(pid, &status, 0, &usage)
    let measured = (try? String(contentsOfFile: peakPath, encoding: .utf8)).flatMap {
      Int($0.split(separator: "\n").last.map(String.init) ?? "")
    }
    lastPeak.store(measured ?? Int(usage.ru_maxrss), ordering: .relaxed)
    let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    return ((status >> 8) & 0xff, output)
  }

  /// The largest resident set of the last process `run` waited for, in KB.
  static let lastPeak = Atomic<Int>(0)
  static var lastPeakKilobytes: Int { lastPeak.load(ordering: .relaxed) }

}
