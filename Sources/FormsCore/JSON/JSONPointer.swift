/// An RFC 6901 JSON Pointer (`/items/2/unit_price`), the address of a value in a document.
public struct JSONPointer: Sendable, Hashable, CustomStringConvertible {
  /// The unescaped reference tokens, outermost first.
  public private(set) var tokens: [String]

  /// The pointer to the whole document.
  public static let root = JSONPointer(tokens: [])

  public init(tokens: [String]) { self.tokens = tokens }

  /// Parses `""`, `/a/b`, `/a~1b/0`; nil when the text is not a pointer (does not start with `/`, bad `~`).
  public init?(_ text: String) {
    if text.isEmpty {
      tokens = []
      return
    }
    guard text.hasPrefix("/") else { return nil }
    var tokens: [String] = []
    for raw in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
      guard let token = unescapePointerToken(raw) else { return nil }
      tokens.append(token)
    }
    self.tokens = tokens
  }

  /// The RFC 6901 text, as in `--format json` output.
  public var description: String { tokens.map { "/" + escapePointerToken($0) }.joined() }

  /// The dotted path a person reads (`items[2].unit_price`); empty for the root.
  public var path: String {
    var out = ""
    for token in tokens {
      if !token.isEmpty, token.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
        out += "[\(token)]"
      } else if token.utf8.allSatisfy({ isPlainPathByte($0) }) && !token.isEmpty {
        out += out.isEmpty ? token : "." + token
      } else {
        out += "[\"" + token.replacingOccurrences("\\", "\\\\").replacingOccurrences("\"", "\\\"") + "\"]"
      }
    }
    return out
  }

  /// The pointer one level up; nil for the root.
  public var parent: JSONPointer? {
    tokens.isEmpty ? nil : JSONPointer(tokens: Array(tokens.dropLast()))
  }

  /// The last token; nil for the root.
  public var last: String? { tokens.last }

  /// This pointer extended by one member key or array index.
  public func appending(_ token: String) -> JSONPointer {
    var copy = self
    copy.tokens.append(token)
    return copy
  }

  /// This pointer extended by an array index.
  public func appending(index: Int) -> JSONPointer { appending(String(index)) }
}

func isPlainPathByte(_ byte: UInt8) -> Bool {
  switch byte {
  case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
    return true
  default:
    return false
  }
}

func escapePointerToken(_ token: String) -> String {
  guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return token }
  return token.replacingOccurrences("~", "~0").replacingOccurrences("/", "~1")
}

func unescapePointerToken(_ raw: Substring) -> String? {
  guard raw.contains("~") else { return String(raw) }
  var out = ""
  var iterator = raw.makeIterator()
  while let c = iterator.next() {
    if c == "~" {
      switch iterator.next() {
      case "0": out.append("~")
      case "1": out.append("/")
      default: return nil
      }
    } else {
      out.append(c)
    }
  }
  return out
}

extension String {
  /// Replaces every occurrence of `target` (compared by scalar), without Foundation.
  func replacingOccurrences(_ target: String, _ replacement: String) -> String {
    guard !target.isEmpty else { return self }
    var out = ""
    var rest = Substring(self)
    while let range = rest.firstRange(of: target) {
      out += rest[..<range.lowerBound]
      out += replacement
      rest = rest[range.upperBound...]
    }
    out += rest
    return out
  }
}

extension JSONValue {
  /// The value at `pointer`, or nil when it does not exist.
  public subscript(pointer pointer: JSONPointer) -> JSONValue? {
    var current = self
    for token in pointer.tokens {
      switch current {
      case .object(let object):
        guard let next = object[token] else { return nil }
        current = next
      case .array(let elements):
        guard let index = arrayIndex(token), index < elements.count else { return nil }
        current = elements[index]
      default:
        return nil
      }
    }
    return current
  }
}

/// An RFC 6901 array index: `0` or digits without a leading zero.
func arrayIndex(_ token: String) -> Int? {
  guard !token.isEmpty, token.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
  if token.utf8.count > 1 && token.utf8.first == UInt8(ascii: "0") { return nil }
  return Int(token)
}
