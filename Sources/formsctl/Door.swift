import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore
import Foundation

/// A command that is a program of its own, as git's are: `formsctl sync` runs `formsctl-sync`
/// from beside this executable (never from `PATH`), so that formsctl itself does not link what
/// only that door uses (sync's PostgreSQL client and TLS). A fresh `swift run formsctl` builds
/// formsctl alone; `swift build` builds every program.
enum Door: String, CaseIterable {
  case sync

  /// The door `word` names, if any.
  static func named(_ word: String?) -> Door? { word.flatMap(Door.init(rawValue:)) }

  /// The program's file name.
  var program: String { "formsctl-" + rawValue }

  /// Replaces this process with the door's program, given `arguments` (after the command word).
  /// Returns only by throwing: the program is not beside formsctl, or cannot be started.
  func run(_ arguments: [String]) throws(CommandError) -> Never {
    // The running executable's own file (/proc/self/exe on Linux: a link to formsctl on PATH
    // resolved), so that the program run is the one built with it.
    guard let executable = Bundle.main.executableURL else {
      throw .missingProgram("cannot tell where this formsctl is, to start \(program) beside it")
    }
    let path = executable.resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent(program).path
    guard FileManager.default.isExecutableFile(atPath: path) else {
      throw .missingProgram(
        "formsctl \(rawValue) is the program \(program), which is not beside formsctl (\(path)); "
          + "build it with `swift build --product \(program)` (or `swift build`)")
    }
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    execv(path, argv)
    let reason = String(cString: strerror(errno))
    throw .missingProgram("cannot start \(path): \(reason)")
  }

  /// `formsctl sync`, as `formsctl --help` lists it; the arguments go to `formsctl-sync` before
  /// this is parsed, so its help and subcommands are that program's.
  struct Sync: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "sync",
      abstract: "Keep the store and a PostgreSQL database in step, both ways (the program formsctl-sync).",
      discussion: """
        Examples:
          formsctl sync --help
        """)
    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []

    func run() throws {
      try Door.sync.run(arguments)
    }
  }
}
