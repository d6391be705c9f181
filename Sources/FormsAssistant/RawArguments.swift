import FormsCore
import Synchronization

/// Tool arguments and answers as formsctl's lossless JSON, kept beside the SDK's messages.
///
/// The SDK decodes a request's arguments into its `Value`, whose numbers are `Int` or `Double`:
/// `1234567890123456.78` comes out `1234567890123456.8`, `1.0000000000000001` comes out `1`, and
/// `12.0` comes out `12` (a change of a value that was not changed). ``DrainingTransport`` reads
/// each `tools/call` line with formsctl's parser, keeps its arguments here and hands the SDK a
/// token in their place; the tool takes them back by the token. An answer goes the other way:
/// its structured content is a token the transport replaces with the answer's text as written.
/// Number text is never converted to a binary number through this door, as through the command
/// line.
public final class RawArguments: Sendable {
  /// The one member of the arguments the SDK is handed: the token of the arguments kept here.
  public static let argumentsKey = "formsctl.arguments"
  /// The one member of an answer's structured content on its way out: the token of the answer.
  public static let answerKey = "formsctl.answer"

  private struct Kept {
    var arguments: [String: (request: String, value: JSONObject)] = [:]
    var answers: [String: JSONValue] = [:]
    var next = 0
  }
  private let kept = Mutex(Kept())

  public init() {}

  /// Keeps `arguments` of the request whose id is `request` (its JSON text); the token for them.
  func keep(_ arguments: JSONObject, request: String) -> String {
    kept.withLock { kept in
      kept.next += 1
      let token = "a\(kept.next)"
      kept.arguments[token] = (request, arguments)
      return token
    }
  }

  /// The arguments kept under `token`, taken out (nil when there are none).
  func take(_ token: String) -> JSONObject? {
    kept.withLock { $0.arguments.removeValue(forKey: token)?.value }
  }

  /// Forgets the arguments of the request `request` that no tool took (it was refused before).
  func forget(request: String) {
    kept.withLock { kept in
      for (token, entry) in kept.arguments where entry.request == request { kept.arguments[token] = nil }
    }
  }

  /// Keeps an answer's structured content until the transport writes it; its token.
  func keep(answer: JSONValue) -> String {
    kept.withLock { kept in
      kept.next += 1
      let token = "r\(kept.next)"
      kept.answers[token] = answer
      return token
    }
  }

  /// The answer kept under `token`, taken out.
  func takeAnswer(_ token: String) -> JSONValue? {
    kept.withLock { $0.answers.removeValue(forKey: token) }
  }
}
