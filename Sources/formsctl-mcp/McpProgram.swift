import ArgumentParser
import FormsAssistant
import FormsCommandLine
import FormsCore
import FormsStore
import Foundation
import MCP
import Synchronization

/// The program formsctl-mcp: `formsctl mcp` runs it from beside formsctl, with the same
/// arguments (`formsctl-mcp mcp --store DIR` is `formsctl mcp --store DIR`), and it serves.
@main
struct McpProgram: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "formsctl",
    abstract: "The program behind `formsctl mcp` (run it as formsctl mcp ...).",
    version: formsctlVersion,
    subcommands: [McpCommand.self]
  )

  static func main() {
    // Set by formsctl for the program it runs; not for what this one runs in turn.
    unsetenv(Door.environmentKey)
    McpCommand.performer.withLock { $0 = perform }
    CommandLineMain.run(McpProgram.self, words: ["mcp"])
  }

  @Sendable static func perform(_ command: McpCommand) throws {
    // Long-lived: a watcher of its own vouches for what changed between its queries.
    let store = try command.options.open(watching: true)
    let server = AssistantServer(
      assistant: Assistant(store: store, allowSealed: command.allowSealed), version: formsctlVersion)
    // A client that goes away fails the next write (EPIPE), which ends the server cleanly.
    signal(SIGPIPE, SIG_IGN)
    let failure = Failure()
    let done = DispatchSemaphore(value: 0)
    Task {
      do {
        try await server.start(transport: DrainingTransport(LineTransport()))
        await server.waitUntilCompleted()
      } catch {
        failure.set("the MCP server stopped: \(error)")
      }
      done.signal()
    }
    done.wait()
    if let message = failure.message {
      printError(message)
      throw ExitStatus.exit(ExitStatus.code(for: .ioError))
    }
  }
}

/// What ended the server, if something did.
final class Failure: Sendable {
  private let text = Mutex<String?>(nil)
  func set(_ message: String) { text.withLock { $0 = message } }
  var message: String? { text.withLock { $0 } }
}
