import Foundation

/// Runs a program (found on PATH) with posix_spawn and collects its output; no shell involved.
enum Subprocess {
  struct Result {
    let status: Int32
    let stdout: [UInt8]
    let stderr: String
  }

  /// Runs `arguments` with stdin from `input` (a file; /dev/null when nil); nil when it cannot start.
  static func run(_ arguments: [String], input: String? = nil) -> Result? {
    let out = NSTemporaryDirectory() + "formsctl-sub-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    defer {
      unlink(out)
      unlink(out + ".err")
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, input ?? "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, out + ".err", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    var cArguments = arguments.map { strdup($0) } + [nil]
    defer { for argument in cArguments { free(argument) } }
    var pid: pid_t = 0
    guard posix_spawnp(&pid, arguments[0], &actions, nil, &cArguments, environ) == 0 else { return nil }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return Result(
      status: (status >> 8) & 0xff, stdout: (try? FileIO.read(out, limit: Int.max)) ?? [],
      stderr: String(decoding: (try? FileIO.read(out + ".err", limit: Int.max)) ?? [], as: UTF8.self)
        .trimmingCharacters(in: .whitespacesAndNewlines))
  }
}
