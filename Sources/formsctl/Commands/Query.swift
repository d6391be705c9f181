import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore

/// `--where` texts parsed and checked against every version of `kind`: a syntax error shows the
/// text with a caret; a path the kind does not have is a usage error with a suggestion.
func parseFilters(_ texts: [String], kind: String, store: Store) throws -> [FilterExpression] {
  _ = try store.schema(kind)  // an unknown kind is named before any path of its filters
  let versions = store.registry.schemas(of: kind)
  return try texts.enumerated().map { k, text in
    let expression: FilterExpression
    do throws(ExpressionError) {
      expression = try ExpressionParser.parse(text)
    } catch {
      throw CommandError.usage(
        "--where #\(k + 1) at column \(error.column): \(error.message)",
        excerpt: text + "\n" + String(repeating: " ", count: max(0, error.column - 1)) + "^")
    }
    if let problem = expression.pathProblem(in: versions) { throw CommandError.usage("--where #\(k + 1): \(problem)") }
    return expression
  }
}

/// The documents a command acts on: one id, or every match of --where (or --all).
enum Selection {
  case one(String)
  case matching([String])

  /// From an id argument and --where/--all; refuses both or neither.
  static func from(id: String?, filters: [String], all: Bool) throws -> Selection {
    if filters.isEmpty && !all {
      guard let id else {
        throw CommandError.usage("name a document's id, or select documents with --where EXPR (--all for every one)")
      }
      return .one(id)
    }
    if all && !filters.isEmpty { throw CommandError.usage("--all selects every document; drop it to use --where") }
    if filters.contains(where: { $0.allSatisfy(\.isWhitespace) }) {
      throw CommandError.usage("an empty --where would match every document; pass --all to mean that")
    }
    return .matching(filters)
  }
}
