import FormsCore
import FormsStore

/// What `formsctl mcp` offers an assistant, apart from the protocol: its tools, each with an input
/// JSON Schema generated from the descriptors, and the store's documents and descriptors as
/// resources. Every write goes through the store's public write API (the one write pipeline:
/// lock, validation, journal, audit record) with the command line `formsctl mcp TOOL KIND ID`, so
/// the audit log tells these changes from a person's. A write is a dry run unless `apply` is true.
///
/// What this door never does: sign (an approval is a person's signature, so no identity is ever
/// passed to a transition, and approve and reject are not tools), show a sealed value (unless
/// ``allowSealed``, when each read is recorded as `get` records it), delete more than one
/// document in a call, or name a file outside the store (ids are checked as the command line
/// checks them).
public final class Assistant: Sendable {
  /// The largest arguments a tool call takes, as compact JSON (bytes).
  public static let argumentLimit = 256 * 1024
  /// The most documents `query` returns in one call.
  public static let queryLimit = 200

  /// The store as opened: its descriptors, layout and keyring.
  public let store: Store
  /// Sealed values are shown opened (the keyring's identity permitting), each read recorded.
  public let allowSealed: Bool
  /// The tools, generated from the store's descriptors as it opened.
  public let tools: [AssistantTool]

  /// An assistant over `store`. Unless `allowSealed`, the store's keyring is set aside for one that
  /// opens nothing, so no sealed value can be shown whatever identity the environment names.
  public init(store: Store, allowSealed: Bool) {
    self.allowSealed = allowSealed
    self.store =
      allowSealed
      ? store
      : Store(layout: store.layout, registry: store.registry, configuration: store.configuration, keyring: nil)
    tools = Self.tools(for: store.registry)
  }

  /// The store that makes one write: the audit record's command is `formsctl mcp` and `words`.
  func writer(_ words: [String]) -> Store {
    var configuration = store.configuration
    configuration.arguments = ["mcp"] + words
    return Store(layout: store.layout, registry: store.registry, configuration: configuration, keyring: store.keyring)
  }

  /// The answer of one tool call: a JSON object, and whether it is a refusal or an error.
  public struct Answer: Sendable {
    public var value: JSONValue
    public var isError: Bool

    public init(_ value: JSONValue, isError: Bool = false) {
      self.value = value
      self.isError = isError
    }
  }

  /// Runs the tool `name` with `arguments`; every problem is an answer with `isError`, never a throw.
  public func call(_ name: String, arguments: JSONObject) -> Answer {
    let size = JSONWriter.compact(.object(arguments)).utf8.count
    if size > Self.argumentLimit {
      return Self.refusal(
        "the arguments are \(size) bytes; a call takes at most \(Self.argumentLimit) (send a smaller document)")
    }
    guard let tool = tools.first(where: { $0.name == name }) else {
      return Self.refusal(
        "no tool \"\(name)\"\(didYouMean(name, among: tools.map(\.name))) (tools: \(tools.map(\.name).joined(separator: ", ")))"
      )
    }
    do throws(AssistantError) {
      let arguments = try Arguments(arguments, tool: tool)
      return try tool.run(self, arguments)
    } catch {
      return error.answer
    }
  }

  /// A refusal's answer: `{"error": message}`, with diagnostics when there are any.
  static func refusal(_ message: String, diagnostics: [Diagnostic] = []) -> Answer {
    var object = JSONObject()
    object["error"] = .string(message)
    if !diagnostics.isEmpty { object["diagnostics"] = .array(diagnostics.map(Self.json)) }
    return Answer(.object(object), isError: true)
  }

  /// A diagnostic as tools return it: where (a JSON Pointer), the rule, the message, the severity.
  static func json(_ diagnostic: Diagnostic) -> JSONValue {
    var object = JSONObject()
    object["pointer"] = .string(diagnostic.pointer.description)
    object["rule"] = .string(diagnostic.rule)
    object["message"] = .string(diagnostic.message)
    object["severity"] = .string(diagnostic.severity.rawValue)
    return .object(object)
  }

  /// A finding as `check_KIND` returns it: as a diagnostic, without a position.
  static func json(_ finding: Finding) -> JSONValue {
    json(Diagnostic(file: "", position: nil, pointer: finding.pointer, rule: finding.rule, message: finding.message))
  }

  /// A path as a tool shows it: relative to the store's root.
  func shown(path: String) -> String {
    let root = store.layout.root.hasSuffix("/") ? store.layout.root : store.layout.root + "/"
    return path.hasPrefix(root) ? String(path.dropFirst(root.count)) : path
  }
}

/// Why a tool call was not carried out.
public enum AssistantError: Error {
  /// The arguments are not what the tool takes.
  case badArguments(String)
  /// The door refuses (a signature, more than one deletion...).
  case refused(String)
  /// The store refused or failed.
  case store(StoreError)

  var answer: Assistant.Answer {
    switch self {
    case .badArguments(let message): return Assistant.refusal(message)
    case .refused(let message): return Assistant.refusal(message)
    case .store(let error):
      switch error {
      case .invalidDocument(_, let diagnostics), .unreadableDocument(_, let diagnostics):
        return Assistant.refusal(
          "the document is not valid; nothing written (\(plural(diagnostics.count, "problem")) in diagnostics)",
          diagnostics: diagnostics)
      default:
        return Assistant.refusal(error.description)
      }
    }
  }
}

/// Runs `body`, a store call, its error as the tool's.
func storeCall<T>(_ body: () throws(StoreError) -> T) throws(AssistantError) -> T {
  do throws(StoreError) {
    return try body()
  } catch {
    throw .store(error)
  }
}
