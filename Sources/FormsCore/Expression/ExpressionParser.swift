/// A syntax error in an expression, with the 1-based column where it is.
public struct ExpressionError: Error, Sendable, Equatable, CustomStringConvertible {
  public let message: String
  public let column: Int

  public var description: String { "column \(column): \(message)" }
}

/// Parses the expression language:
/// ```
/// expr    := and ('or' and)*
/// and     := unary ('and' unary)*
/// unary   := 'not' unary | '(' expr ')' | operand ('exists' | op operand | '~' string | 'in' '[' literal, ... ']')
/// operand := path | string | number | true | false | null
/// path    := name ('.' name | '[]' | '[' digits ']')*
/// ```
public enum ExpressionParser {
  /// The deepest nesting of `not` and parentheses accepted (evaluation recurses that deep).
  public static let maxNesting = 64
  /// The most `and`/`or` operators in one expression (each adds a level to the tree).
  public static let maxOperators = 1024

  public static func parse(_ text: String) throws(ExpressionError) -> FilterExpression {
    var lexer = Lexer(text)
    var parser = Parser(tokens: try lexer.tokens(), end: text.unicodeScalars.count + 1)
    let expression = try parser.orExpression()
    if let token = parser.peek {
      throw ExpressionError(
        message: "unexpected \(token.kind.shown) after the end of the expression", column: token.column)
    }
    return expression
  }
}

struct Token {
  enum Kind: Equatable {
    case name(String)
    case string(String)
    case number(String)
    case symbol(String)

    var shown: String {
      switch self {
      case .name(let s): return "'\(s)'"
      case .string(let s): return "string \"\(s)\""
      case .number(let s): return "number \(s)"
      case .symbol(let s): return "'\(s)'"
      }
    }
  }

  let kind: Kind
  let column: Int
}

struct Lexer {
  let scalars: [Unicode.Scalar]
  var i = 0

  init(_ text: String) { scalars = Array(text.unicodeScalars) }

  mutating func tokens() throws(ExpressionError) -> [Token] {
    var out: [Token] = []
    while i < scalars.count {
      let c = scalars[i]
      let column = i + 1
      if c == " " || c == "\t" || c == "\n" {
        i += 1
      } else if c == "\"" || c == "'" {
        out.append(Token(kind: .string(try string(quote: c)), column: column))
      } else if isNameStart(c) {
        var name = ""
        while i < scalars.count && (isNameStart(scalars[i]) || ("0"..."9").contains(scalars[i]) || scalars[i] == "-") {
          name.unicodeScalars.append(scalars[i])
          i += 1
        }
        out.append(Token(kind: .name(name), column: column))
      } else if ("0"..."9").contains(c) || (c == "-" && i + 1 < scalars.count && ("0"..."9").contains(scalars[i + 1])) {
        var text = ""
        while i < scalars.count && "-+.eE0123456789".unicodeScalars.contains(scalars[i]) {
          text.unicodeScalars.append(scalars[i])
          i += 1
        }
        guard JSONNumber.isValid(text) else { throw ExpressionError(message: "invalid number \(text)", column: column) }
        out.append(Token(kind: .number(text), column: column))
      } else {
        let two = i + 1 < scalars.count ? String(c) + String(scalars[i + 1]) : ""
        let followsPath =
          out.last.map { token in
            if case .name = token.kind { return true }
            return token.kind == .symbol("]") || token.kind == .symbol("[]")
          } ?? false
        if c == ".", !followsPath, i + 1 < scalars.count, isNameStart(scalars[i + 1]) {
          // `.status` as jq writes it: a path here starts with the field's name.
          throw ExpressionError(
            message: "unexpected '.'; a path starts with the field's name (write status, not .status)", column: column)
        }
        if ["==", "!=", "<=", ">=", "[]"].contains(two) {
          out.append(Token(kind: .symbol(two), column: column))
          i += 2
        } else if "<>~()[],.".unicodeScalars.contains(c) {
          out.append(Token(kind: .symbol(String(c)), column: column))
          i += 1
        } else if c == "=" {
          throw ExpressionError(message: "unexpected '='; compare with '=='", column: column)
        } else if let hint = Self.habits[two] ?? Self.habits[String(c)] {
          throw ExpressionError(
            message: "unexpected '\(two.isEmpty || Self.habits[two] == nil ? String(c) : two)'; \(hint)", column: column
          )
        } else {
          throw ExpressionError(message: "unexpected character '\(c)'", column: column)
        }
      }
    }
    return out
  }

  /// Operators from other languages, and what this one writes instead.
  static let habits = [
    "&&": "write 'and'", "||": "write 'or'", "!": "write 'not' (or '!=' to compare)", "&": "write 'and'",
    "|": "write 'or'",
  ]

  func isNameStart(_ c: Unicode.Scalar) -> Bool {
    ("a"..."z").contains(c) || ("A"..."Z").contains(c) || c == "_"
  }

  mutating func string(quote: Unicode.Scalar) throws(ExpressionError) -> String {
    let start = i + 1
    i += 1
    var out = ""
    while i < scalars.count {
      let c = scalars[i]
      if c == quote {
        i += 1
        return out
      }
      if c == "\\" && i + 1 < scalars.count {
        i += 1
        switch scalars[i] {
        case "n": out.append("\n")
        case "t": out.append("\t")
        default: out.unicodeScalars.append(scalars[i])
        }
      } else {
        out.unicodeScalars.append(c)
      }
      i += 1
    }
    throw ExpressionError(message: "unterminated string", column: start)
  }
}

struct Parser {
  let tokens: [Token]
  let end: Int
  var k = 0
  var nesting = 0
  var operators = 0

  init(tokens: [Token], end: Int) {
    self.tokens = tokens
    self.end = end
  }

  var peek: Token? { k < tokens.count ? tokens[k] : nil }

  func isWord(_ word: String) -> Bool { peek?.kind == .name(word) }
  func isSymbol(_ symbol: String) -> Bool { peek?.kind == .symbol(symbol) }

  func fail(_ expected: String) -> ExpressionError {
    guard let token = peek else {
      return ExpressionError(message: "unexpected end of expression; expected \(expected)", column: end)
    }
    return ExpressionError(message: "unexpected \(token.kind.shown); expected \(expected)", column: token.column)
  }

  mutating func orExpression() throws(ExpressionError) -> FilterExpression {
    var left = try andExpression()
    while isWord("or") {
      try countOperator()
      left = .or(left, try andExpression())
    }
    return left
  }

  mutating func andExpression() throws(ExpressionError) -> FilterExpression {
    var left = try unary()
    while isWord("and") {
      try countOperator()
      left = .and(left, try unary())
    }
    return left
  }

  mutating func countOperator() throws(ExpressionError) {
    operators += 1
    if operators > ExpressionParser.maxOperators {
      throw ExpressionError(
        message: "more than \(ExpressionParser.maxOperators) 'and'/'or' in one expression", column: peek?.column ?? end)
    }
    k += 1
  }

  mutating func unary() throws(ExpressionError) -> FilterExpression {
    let nests = isWord("not") || isSymbol("(")
    if nests {
      nesting += 1
      if nesting > ExpressionParser.maxNesting {
        throw ExpressionError(
          message: "nested more than \(ExpressionParser.maxNesting) deep ('not' and parentheses)",
          column: peek?.column ?? end)
      }
    }
    defer { if nests { nesting -= 1 } }
    if isWord("not") {
      k += 1
      return .not(try unary())
    }
    if isSymbol("(") {
      k += 1
      let inner = try orExpression()
      guard isSymbol(")") else { throw fail("')'") }
      k += 1
      return inner
    }
    let leftColumn = peek?.column ?? end
    let left = try operand()
    if isWord("exists") {
      guard case .path(let path) = left else {
        throw ExpressionError(message: "'exists' follows a path, not a value", column: leftColumn)
      }
      k += 1
      return .exists(path)
    }
    if isSymbol("~") {
      k += 1
      guard let token = peek, case .string(let source) = token.kind else {
        throw fail("a regular expression in quotes")
      }
      k += 1
      let compiled: CompiledPattern
      do {
        compiled = try CompiledPattern(source)
      } catch {
        throw ExpressionError(message: "regular expression \"\(source)\" \(error)", column: token.column)
      }
      return .matches(left, FilterExpression.Regex(source: source, compiled: compiled))
    }
    if isWord("in") {
      k += 1
      guard isSymbol("[") else { throw fail("'[' to start the list") }
      k += 1
      var values: [JSONValue] = []
      while !isSymbol("]") {
        guard case .literal(let value) = try operand(allowPath: false) else { throw fail("a value") }
        values.append(value)
        if isSymbol(",") { k += 1 } else if !isSymbol("]") { throw fail("',' or ']'") }
      }
      k += 1
      return .isIn(left, values)
    }
    if let token = peek, case .symbol(let s) = token.kind, let op = FilterExpression.ComparisonOperator(rawValue: s) {
      k += 1
      return .compare(left, op, try operand())
    }
    throw fail("a comparison (==, !=, <, <=, >, >=, ~, in) or 'exists'")
  }

  mutating func operand(allowPath: Bool = true) throws(ExpressionError) -> FilterExpression.Operand {
    guard let token = peek else { throw fail("a path or a value") }
    switch token.kind {
    case .string(let s):
      k += 1
      return .literal(.string(s))
    case .number(let n):
      k += 1
      return .literal(.number(JSONNumber(unchecked: n)))
    case .name("true"):
      k += 1
      return .literal(.bool(true))
    case .name("false"):
      k += 1
      return .literal(.bool(false))
    case .name("null"):
      k += 1
      return .literal(.null)
    case .name(let name) where allowPath && !["and", "or", "not", "in", "exists"].contains(name):
      k += 1
      return .path(try pathRest(first: name))
    default:
      throw fail(allowPath ? "a path or a value" : "a value")
    }
  }

  mutating func pathRest(first: String) throws(ExpressionError) -> FilterExpression.Path {
    var steps: [FilterExpression.Path.Step] = [.member(first)]
    while true {
      if isSymbol(".") {
        k += 1
        guard let token = peek, case .name(let name) = token.kind else { throw fail("a field name after '.'") }
        k += 1
        steps.append(.member(name))
      } else if isSymbol("[]") {
        k += 1
        steps.append(.each)
      } else if isSymbol("[") {
        k += 1
        guard let token = peek, case .number(let n) = token.kind, let index = Int(n), index >= 0 else {
          throw fail("an index or ']'")
        }
        k += 1
        guard isSymbol("]") else { throw fail("']'") }
        k += 1
        steps.append(.index(index))
      } else {
        return FilterExpression.Path(steps: steps)
      }
    }
  }
}
