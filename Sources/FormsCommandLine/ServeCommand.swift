import ArgumentParser
import FormsCore
import FormsStore
import Foundation
import Synchronization

/// `formsctl serve`: its arguments, help and completion, known to formsctl; its work is done by
/// the program formsctl-serve (``performer``), which formsctl runs from beside itself, so that
/// formsctl never links the HTTP server.
package struct ServeCommand: ParsableCommand {
  package init() {}

  package static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: "Fill, review and sign the store's documents in a browser (a local web application).",
    discussion: """
      Serves the store it is started in at http://127.0.0.1:PORT and prints the URL to open, which holds a secret token (as Jupyter's does): the browser keeps it as an HttpOnly, SameSite=Strict cookie, and every request without it is refused (403). Pages list each kind (the descriptor's columns and order, a filter that takes --where's expressions, click-to-sort, paging), show a document (its fields, its relations both ways, its approvals and history), and edit it in a form generated from its descriptor; a refused save shows each diagnostic beside its field and keeps what was typed. Every change goes through the same write path as the command line (lock, workflow, validation, journal), and the audit log names the server's user with the command serve. Pages update themselves when the store changes by any means; a save over a document changed since the form was opened is refused (409) with both versions shown. Approvals are signed with the identity FORMSCTL_IDENTITY names (FORMSCTL_IDENTITY=FILE formsctl serve), when the server has one.

      It listens on loopback only, unless --listen names another address and --allow-remote says you mean it: then anyone who can reach the port and holds the token can read and change every document. Stop it with Ctrl-C.

      Exit status: 0 after Ctrl-C, 64 for bad arguments (a non-loopback --listen without --allow-remote), 66 when there is no store, 74 when the port cannot be opened.

      Examples:
        formsctl serve
        formsctl serve --port 8800 --open
        formsctl serve --port 0   # any free port
        formsctl serve --listen 0.0.0.0 --allow-remote --host-name forms.internal
      """
  )

  @OptionGroup package var options: StoreOptions
  @Option(help: "The port (0: any free port).") package var port: Int = 8700
  @Option(help: ArgumentHelp("The address to listen on.", valueName: "ADDR")) package var listen = "127.0.0.1"
  @Flag(
    help: "Allow --listen to name an address other than loopback (anyone who reaches it and holds the token gets in).")
  package var allowRemote = false
  @Option(
    name: .customLong("host-name"),
    help: ArgumentHelp("A further name the browser may call the server by (the Host header).", valueName: "NAME"))
  package var hostNames: [String] = []
  @Flag(help: "Open the URL in the default browser (xdg-open).") package var open = false

  /// Loopback addresses: the ones served without --allow-remote.
  package static func isLoopback(_ address: String) -> Bool {
    address == "localhost" || address == "::1" || address.hasPrefix("127.")
  }

  package func validate() throws {
    guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
    if !Self.isLoopback(listen) && !allowRemote {
      throw ValidationError(
        "--listen \(listen) is not a loopback address: anyone who can reach it and read the token could read and change every document; add --allow-remote if that is what you mean"
      )
    }
    for name in hostNames where name.isEmpty || name.contains(where: { $0 == "/" || $0 == ":" || $0.isWhitespace }) {
      throw ValidationError("--host-name \(name): a host name, without scheme, port or path")
    }
  }

  /// Does a parsed serve command's work: in formsctl-serve, serving; in formsctl, running
  /// formsctl-serve with the same arguments. Set once, as the program starts.
  package static let performer = Mutex<(@Sendable (ServeCommand) throws -> Void)?>(nil)

  package func run() throws {
    guard let perform = Self.performer.withLock({ $0 }) else {
      throw StoreError.internalError("serve has no performer in this program")
    }
    try perform(self)
  }
}
