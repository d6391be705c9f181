import ArgumentParser
import FormsCore
import FormsStore
import Foundation
import Synchronization

/// `formsctl mcp`: its arguments, help and completion, known to formsctl; its work is done by the
/// program formsctl-mcp (``performer``), which formsctl runs from beside itself (as
/// ``SyncCommand``'s), so that formsctl never links the Model Context Protocol SDK.
package struct McpCommand: ParsableCommand {
  package init() {}

  package static let configuration = CommandConfiguration(
    commandName: "mcp",
    abstract: "Run the Model Context Protocol server for AI assistants (JSON-RPC over stdin and stdout).",
    discussion: """
      An assistant that speaks MCP starts it (register the command `formsctl` with the arguments `mcp`, and --store DIR when it does not start in the store) and calls its tools: list_kinds (the kinds, their fields, enums and workflow), query (with --where and --sort expressions), get, check_KIND (validate's diagnostics of a draft, by JSON Pointer), create_KIND, update, transition, delete (one document per call) and plan_rename. Each input schema is generated from the descriptors. create, update, transition and delete are dry runs that return the plan and the diagnostics unless the call says apply: true; then they go through the store's write path, and the audit record's command (formsctl log) is `formsctl mcp TOOL ...` by the user who started the server. Documents are resources formsctl://KIND/ID, descriptors formsctl://KIND, with a notification when a commit changes them.

      Never through this door: an approval or a rejection (a person's signature; a move that needs one is refused), a sealed value in plain text (it reads «encrypted» unless --allow-sealed, which records each read as `get` does), more than one deletion per call, a path outside the store. A call's arguments are at most 256 KiB.

      Examples:
        formsctl mcp < /dev/null
        printf '%s%s%s\\n%s\\n' '{"jsonrpc": "2.0", "id": 1, "method": "initialize",' \\
          ' "params": {"protocolVersion": "2025-06-18", "capabilities": {},' \\
          ' "clientInfo": {"name": "sh", "version": "1"}}}' \\
          '{"jsonrpc": "2.0", "id": 2, "method": "tools/list"}' \\
          | formsctl mcp | jq -r '.result.tools[]?.name'
      """
  )
  @OptionGroup package var options: StoreOptions
  @Flag(help: "Show sealed values opened (with FORMSCTL_IDENTITY), each read recorded as get records it.")
  package var allowSealed = false

  /// Does a parsed mcp command's work: in formsctl-mcp, the server; in formsctl, running
  /// formsctl-mcp with the same arguments. Set once, as the program starts.
  package static let performer = Mutex<(@Sendable (McpCommand) throws -> Void)?>(nil)

  package func run() throws {
    guard let perform = Self.performer.withLock({ $0 }) else {
      throw StoreError.internalError("mcp has no performer in this program")
    }
    try perform(self)
  }
}
