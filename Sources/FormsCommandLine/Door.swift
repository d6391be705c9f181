import FormsCore
import FormsStore
import Foundation

/// A command that is a program of its own, as git's are: `formsctl sync` runs `formsctl-sync`
/// from beside this executable (never from `PATH`), so that formsctl itself does not link what
/// only that door uses (sync's PostgreSQL client and TLS). formsctl knows the command's arguments,
/// help and completion (``SyncCommand``); the program does its work. A fresh `swift run formsctl`
/// builds formsctl alone; `swift build` builds every program.
package enum Door: String, CaseIterable, Sendable {
  case sync
  case serve
  case mcp

  /// Set in the environment of the program formsctl runs: a formsctl that finds it set was run
  /// as a door's program, so that program is formsctl itself (a link or a copy), not the door's.
  package static let environmentKey = "FORMSCTL_DOOR"

  /// The program's file name.
  package var program: String { "formsctl-" + rawValue }

  /// Refuses to go on when this formsctl was started as a door's program (see ``environmentKey``):
  /// it would take the door's arguments for its own commands.
  package static func checkNotStartedAsADoor() throws(CommandError) {
    guard let door = getenv(environmentKey).map({ String(cString: $0) }) else { return }
    let program = Door(rawValue: door)?.program ?? "formsctl-" + door
    throw .missingProgram(
      "the \(program) beside formsctl is formsctl itself, not the \(door) program; "
        + "build it with `swift build --product \(program)`")
  }

  /// Replaces this process with the door's program, given this process's arguments as they came
  /// (bytes unchanged). Returns only by throwing: the program is not beside formsctl, or cannot
  /// be started.
  package func run() throws(CommandError) -> Never {
    // The running executable's own file (/proc/self/exe on Linux: a link to formsctl on PATH
    // resolved), so that the program run is the one built with it.
    guard let executable = Bundle.main.executableURL else {
      throw .missingProgram("cannot tell where this formsctl is, to start \(program) beside it")
    }
    let path = executable.resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent(program).path
    let build = "build it with `swift build --product \(program)` (or `swift build`)"
    // Followed, unlike a store's files: a program installed as a link to it is a program.
    var info = stat()
    guard stat(path, &info) == 0 else {
      throw .missingProgram(
        "formsctl \(rawValue) is the program \(program), which is not beside formsctl (\(path)); \(build)")
    }
    guard info.st_mode & S_IFMT == S_IFREG else {
      throw .missingProgram("\(path) is not a file, so not the program formsctl \(rawValue) runs; \(build)")
    }
    guard access(path, X_OK) == 0 else {
      throw .missingProgram("\(path) is there but not executable (formsctl \(rawValue) runs it); \(build)")
    }
    setenv(Self.environmentKey, rawValue, 1)
    // The program starts as a program started from a shell would: no signal blocked or ignored
    // (a mask and SIG_IGN survive exec; this process's runtime may have set either).
    var none = sigset_t()
    sigemptyset(&none)
    pthread_sigmask(SIG_SETMASK, &none, nil)
    for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD] { _ = Foundation.signal(signal, SIG_DFL) }
    let argv = [strdup(path)] + (1..<Int(CommandLine.argc)).map { CommandLine.unsafeArgv[$0] } + [nil]
    execv(path, argv)
    let reason = String(cString: strerror(errno))
    throw .missingProgram("cannot start \(path): \(reason)")
  }
}
