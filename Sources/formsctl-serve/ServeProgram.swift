import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsServer
import FormsStore
import Foundation
import Synchronization

/// The program formsctl-serve: `formsctl serve` runs it from beside formsctl, with the same
/// arguments (`formsctl-serve serve --port 0` is `formsctl serve --port 0`), and it serves.
@main
struct ServeProgram: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "formsctl",
    abstract: "The program behind `formsctl serve` (run it as formsctl serve ...).",
    version: formsctlVersion,
    subcommands: [ServeCommand.self]
  )

  static func main() {
    // Set by formsctl for the program it runs; not for what this one runs in turn.
    unsetenv(Door.environmentKey)
    ServeCommand.performer.withLock { $0 = serve }
    CommandLineMain.run(ServeProgram.self)
  }

  @Sendable static func serve(_ command: ServeCommand) throws {
    let store = try command.options.open(toWrite: true, watching: true)
    let environment = ProcessInfo.processInfo.environment
    let identity: Identity?
    do {
      identity = try store.signingIdentity(environment: environment)
    } catch {
      // No identity is a server that cannot sign, said once; any other problem with one is an error.
      if environment["FORMSCTL_IDENTITY"]?.isEmpty == false { throw error }
      identity = nil
    }
    let user = store.configuration.user ?? AuditLog.currentUser(root: store.layout.root)
    let security = ServerSecurity(
      hosts: ServerSecurity.hosts(listening: command.listen, names: command.hostNames),
      cookieName: ServerSecurity.cookieName(port: command.port))
    let server = FormsServer(store: store, security: security, identity: identity, user: user)
    if command.allowRemote && !ServeCommand.isLoopback(command.listen) {
      printWarning(
        "listening on \(command.listen): anyone who can reach this port and holds the token can read every document (sealed values the identity opens included), change them, and sign as this server's identity"
      )
    }
    if identity == nil {
      printWarning("no signing identity (FORMSCTL_IDENTITY): pages show approvals but cannot sign them")
    }
    let failure = Mutex<(any Error)?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
      do {
        try await run(server, command: command)
      } catch {
        failure.withLock { $0 = error }
      }
      done.signal()
    }
    done.wait()
    if let error = failure.withLock({ $0 }) {
      throw FormsServer.failure(error, address: command.listen, port: command.port)
    }
  }

  static func run(_ server: FormsServer, command: ServeCommand) async throws {
    let host = command.listen.contains(":") ? "[\(command.listen)]" : command.listen
    try await server.run(host: command.listen, port: command.port) { port in
      let url = "http://\(host == "0.0.0.0" ? "127.0.0.1" : host):\(port)/?token=\(server.security.token)"
      printOut("formsctl serve: \(url)")
      printOut("(open it in a browser; Ctrl-C stops the server)")
      if command.open { openBrowser(url) }
    }
  }

  static func openBrowser(_ url: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["xdg-open", url]
    do { try process.run() } catch { printWarning("cannot open a browser (\(error)); open \(url) yourself") }
  }
}
