import Foundation

/// Runs a program (found on PATH) with `posix_spawnp`; no shell unless asked for. Input and output
/// go through pipes, so nothing is written to disk, least of all outside the store.
enum Subprocess {
  struct Result {
    /// The exit status, or 128 + the signal that ended it (`exitStatus`).
    let status: Int32
    let stdout: [UInt8]
    let stderr: String
    /// True when the time limit ran out and the program was killed.
    let timedOut: Bool
  }

  /// Runs `arguments` with `input` on its standard input and collects what it prints. `environment`
  /// nil passes formsctl's own; past `timeout` seconds the program is killed. Nil when it cannot start.
  static func run(
    _ arguments: [String], input: [UInt8] = [], environment: [String: String]? = nil, timeout: Double? = nil
  ) -> Result? {
    // stdin is a socket pair, so writing to a program that stopped reading fails with EPIPE
    // (Platform.socketPair, Platform.sendFlags) instead of raising SIGPIPE in formsctl; stdout and
    // stderr are pipes.
    var stdinPair: [Int32] = [-1, -1]
    var stdoutPipe: [Int32] = [-1, -1]
    var stderrPipe: [Int32] = [-1, -1]
    guard Platform.socketPair(&stdinPair) else { return nil }
    guard pipe(&stdoutPipe) == 0, pipe(&stderrPipe) == 0 else {
      for fd in stdinPair + stdoutPipe where fd >= 0 { close(fd) }
      return nil
    }
    let parentEnds = [stdinPair[0], stdoutPipe[0], stderrPipe[0]]
    let childEnds = [stdinPair[1], stdoutPipe[1], stderrPipe[1]]
    for fd in parentEnds + childEnds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    var actions = Platform.spawnActions()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for (target, fd) in childEnds.enumerated() { posix_spawn_file_actions_adddup2(&actions, fd, Int32(target)) }
    let pid = spawn(arguments, actions: &actions, environment: environment)
    for fd in childEnds { close(fd) }
    guard let pid else {
      for fd in parentEnds { close(fd) }
      return nil
    }
    for fd in parentEnds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
    // A monotonic clock, so a wall clock that jumps neither kills early nor waits forever.
    let deadline = timeout.map { ContinuousClock.now.advanced(by: .milliseconds(Int64($0 * 1000))) }
    var (stdout, stderr) = ([UInt8](), [UInt8]())
    var written = 0
    var open: [Int32: Bool] = [stdinPair[0]: true, stdoutPipe[0]: true, stderrPipe[0]: true]
    func isOpen(_ fd: Int32) -> Bool { open[fd] ?? false }
    if input.isEmpty {
      shutdown(stdinPair[0], Int32(SHUT_WR))
      open[stdinPair[0]] = false
    }
    var timedOut = false
    var buffer = [UInt8](repeating: 0, count: 65536)
    while isOpen(stdoutPipe[0]) || isOpen(stderrPipe[0]) {
      var fds = [
        pollfd(fd: isOpen(stdinPair[0]) ? stdinPair[0] : -1, events: Int16(POLLOUT), revents: 0),
        pollfd(fd: isOpen(stdoutPipe[0]) ? stdoutPipe[0] : -1, events: Int16(POLLIN), revents: 0),
        pollfd(fd: isOpen(stderrPipe[0]) ? stderrPipe[0] : -1, events: Int16(POLLIN), revents: 0),
      ]
      let wait =
        deadline.map { Int32(max(0, min(1000, Self.milliseconds(ContinuousClock.now.duration(to: $0))))) } ?? 1000
      let ready = poll(&fds, 3, wait)
      if ready < 0 && errno != EINTR { break }
      if let deadline, ContinuousClock.now >= deadline {
        timedOut = true
        kill(pid, SIGKILL)
        break
      }
      if fds[0].revents != 0 {
        let n = input.withUnsafeBytes {
          send(stdinPair[0], $0.baseAddress.map { $0 + written }, input.count - written, Platform.sendFlags)
        }
        if n > 0 { written += n }
        if n < 0 && errno != EAGAIN && errno != EINTR || written == input.count {
          shutdown(stdinPair[0], Int32(SHUT_WR))
          open[stdinPair[0]] = false
        }
      }
      for (index, fd) in [(1, stdoutPipe[0]), (2, stderrPipe[0])] where fds[index].revents != 0 {
        let n = buffer.withUnsafeMutableBytes { Platform.read(fd, $0.baseAddress, $0.count) }
        if n > 0 {
          if index == 1 { stdout += buffer[0..<n] } else { stderr += buffer[0..<n] }
        } else if n == 0 || (errno != EAGAIN && errno != EINTR) {
          open[fd] = false
        }
      }
    }
    for fd in parentEnds { close(fd) }
    let status = wait(for: pid)
    return Result(
      status: status, stdout: stdout,
      stderr: String(decoding: stderr, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines),
      timedOut: timedOut)
  }

  /// Runs `arguments` on formsctl's own terminal (an editor) and returns its status; 127 when it
  /// cannot start.
  static func runAttached(_ arguments: [String]) -> Int32 {
    var actions = Platform.spawnActions()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    guard let pid = spawn(arguments, actions: &actions, environment: nil) else { return 127 }
    return wait(for: pid)
  }

  private static func spawn(
    _ arguments: [String], actions: inout Platform.SpawnActions, environment: [String: String]?
  ) -> pid_t? {
    var cArguments = arguments.map { strdup($0) } + [nil]
    defer { for argument in cArguments { free(argument) } }
    let cEnvironment = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
    defer { for entry in cEnvironment ?? [] { free(entry) } }
    var pid: pid_t = 0
    let result: Int32
    if var given = cEnvironment {
      result = posix_spawnp(&pid, arguments[0], &actions, nil, &cArguments, &given)
    } else {
      result = posix_spawnp(&pid, arguments[0], &actions, nil, &cArguments, Platform.environment)
    }
    return result == 0 ? pid : nil
  }

  /// Waits for `pid`; its exit status, or 128 + the signal that ended it (as shells report it).
  private static func wait(for pid: pid_t) -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
  }

  /// A duration in whole milliseconds (negative when past).
  static func milliseconds(_ duration: Duration) -> Int64 {
    duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
  }
}
