import FormsCore

/// A YAML node with the 1-based position where it starts.
public struct YAMLNode: Sendable {
  /// What the node holds.
  public enum Content: Sendable {
    case scalar(YAMLScalar)
    case sequence([YAMLNode])
    case mapping([YAMLPair])
  }

  public let content: Content
  public let position: SourcePosition
  /// The node count of this subtree with every alias expanded; bounded by the parser's budget.
  public let expandedSize: Int
  /// The bytes of scalar text in this subtree with every alias expanded; bounded the same way.
  public let expandedBytes: Int

  public init(content: Content, position: SourcePosition, expandedSize: Int = 1, expandedBytes: Int? = nil) {
    self.content = content
    self.position = position
    self.expandedSize = expandedSize
    if let expandedBytes {
      self.expandedBytes = expandedBytes
    } else if case .scalar(let scalar) = content {
      self.expandedBytes = scalar.text.utf8.count
    } else {
      self.expandedBytes = 0
    }
  }

  /// The scalar, when this is one.
  public var scalar: YAMLScalar? {
    if case .scalar(let scalar) = content { return scalar }
    return nil
  }

  /// The scalar's value when it is a string (quoted, or plain and not null, boolean or number).
  public var string: String? {
    if case .scalar(let scalar) = content, case .string(let s) = scalar.value { return s }
    return nil
  }

  /// The elements, when this is a sequence.
  public var sequence: [YAMLNode]? {
    if case .sequence(let elements) = content { return elements }
    return nil
  }

  /// The key-value pairs in file order, when this is a mapping.
  public var mapping: [YAMLPair]? {
    if case .mapping(let pairs) = content { return pairs }
    return nil
  }

  /// The value of the pair whose key is the string `key`, in a mapping.
  public subscript(key: String) -> YAMLNode? {
    mapping?.first { $0.key.string == key }?.value
  }

  /// The kind of node, for messages: `mapping`, `list`, `string`, `number`...
  public var kindName: String {
    switch content {
    case .mapping: return "mapping"
    case .sequence: return "list"
    case .scalar(let scalar): return scalar.value.kindName
    }
  }

  /// The node as a JSON value: mappings with string keys become objects.
  public func jsonValue() throws(YAMLError) -> JSONValue {
    switch content {
    case .scalar(let scalar): return scalar.value.json
    case .sequence(let elements):
      var out: [JSONValue] = []
      for element in elements { out.append(try element.jsonValue()) }
      return .array(out)
    case .mapping(let pairs):
      var object = JSONObject()
      for pair in pairs {
        guard let key = pair.key.scalar?.text else {
          throw YAMLError(message: "a mapping key must be a scalar here", position: pair.key.position)
        }
        object[key] = try pair.value.jsonValue()
      }
      return .object(object)
    }
  }
}

/// One entry of a YAML mapping.
public struct YAMLPair: Sendable {
  public let key: YAMLNode
  public let value: YAMLNode
}

/// A scalar's text as written and its value under the YAML 1.2 core schema, restricted as
/// formsctl documents it: only JSON-style numbers are numbers; `yes`, `no`, `on`, `off`, `0755`,
/// `0x1F`, `1_000` and `.inf` stay strings.
public struct YAMLScalar: Sendable {
  /// The typed value.
  public enum Value: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)

    var json: JSONValue {
      switch self {
      case .null: return .null
      case .bool(let b): return .bool(b)
      case .number(let n): return .number(n)
      case .string(let s): return .string(s)
      }
    }

    var kindName: String {
      switch self {
      case .null: return "null"
      case .bool: return "boolean"
      case .number: return "number"
      case .string: return "string"
      }
    }
  }

  /// The text as written (after YAML unquoting and folding).
  public let text: String
  /// True for a plain (unquoted) scalar.
  public let isPlain: Bool
  /// The typed value.
  public let value: Value
}
