import FormsCore

/// Reads one YAML document into `YAMLNode`s, safely.
///
/// Refuses, with a position: more than one document, nesting deeper than `maxDepth` (counted from
/// the parser's events, so libyaml never builds anything deep), an alias expansion beyond
/// `maxNodes` nodes or `maxBytes` bytes of scalar text (an alias bomb: a few aliases of one large
/// scalar are few nodes but gigabytes), duplicate keys, merge keys (`<<`) and tags other than the
/// core ones.
public struct YAMLReader: Sendable {
  /// The deepest nesting accepted.
  public var maxDepth: Int
  /// The most nodes the document may hold with its aliases expanded.
  public var maxNodes: Int
  /// The most bytes of scalar text the document may hold with its aliases expanded.
  public var maxBytes: Int

  public init(maxDepth: Int = 128, maxNodes: Int = 100_000, maxBytes: Int = 64 << 20) {
    self.maxDepth = maxDepth
    self.maxNodes = maxNodes
    self.maxBytes = maxBytes
  }

  /// The document in `text`, or nil when the stream holds no document at all.
  public func read(_ text: String) throws(YAMLError) -> YAMLNode? {
    try read(Array(text.utf8))
  }

  /// The document in `bytes`, or nil when the stream holds no document at all.
  public func read(_ bytes: [UInt8]) throws(YAMLError) -> YAMLNode? {
    let parser = try LibYAMLParser(bytes: bytes)
    var builder = TreeBuilder(maxDepth: maxDepth, maxNodes: maxNodes, maxBytes: maxBytes)
    var documents = 0
    while true {
      let event = try parser.next()
      switch event.kind {
      case .streamStart, .documentEnd:
        continue
      case .streamEnd:
        return builder.root
      case .documentStart:
        documents += 1
        if documents > 1 {
          throw YAMLError(
            message: "more than one YAML document in the file; keep one per file", position: event.position)
        }
      default:
        try builder.add(event)
      }
    }
  }
}

/// Builds the node tree from events with an explicit stack (no recursion, whatever the depth).
struct TreeBuilder {
  let maxDepth: Int
  let maxNodes: Int
  let maxBytes: Int
  var root: YAMLNode?
  private var stack: [Frame] = []
  private var anchors: [String: YAMLNode] = [:]
  private var totalNodes = 0
  private var totalBytes = 0

  private struct Frame {
    var isMapping: Bool
    var position: SourcePosition
    var anchor: String?
    var children: [YAMLNode] = []
    var size = 1
    var bytes = 0
  }

  init(maxDepth: Int, maxNodes: Int, maxBytes: Int) {
    self.maxDepth = maxDepth
    self.maxNodes = maxNodes
    self.maxBytes = maxBytes
  }

  mutating func add(_ event: YAMLEvent) throws(YAMLError) {
    switch event.kind {
    case .scalar(let text, let plain, let tag):
      let value = try resolve(text: text, plain: plain, tag: tag, at: event.position)
      let node = YAMLNode(
        content: .scalar(YAMLScalar(text: text, isPlain: plain, value: value)), position: event.position)
      try count(1, bytes: node.expandedBytes, at: event.position)
      try finish(node, anchor: event.anchor)
    case .alias(let anchor):
      guard let node = anchors[anchor] else {
        throw YAMLError(message: "unknown alias *\(anchor)", position: event.position)
      }
      try count(node.expandedSize, bytes: node.expandedBytes, at: event.position)
      try finish(node, anchor: nil)
    case .sequenceStart(let tag), .mappingStart(let tag):
      let isMapping: Bool
      if case .mappingStart = event.kind { isMapping = true } else { isMapping = false }
      try checkCollectionTag(tag, isMapping: isMapping, at: event.position)
      if stack.count >= maxDepth {
        throw YAMLError(message: "nesting deeper than \(maxDepth) levels", position: event.position)
      }
      try count(1, bytes: 0, at: event.position)
      stack.append(Frame(isMapping: isMapping, position: event.position, anchor: event.anchor))
    case .sequenceEnd, .mappingEnd:
      let frame = stack.removeLast()
      let content: YAMLNode.Content
      if frame.isMapping {
        content = .mapping(try pairs(frame.children))
      } else {
        content = .sequence(frame.children)
      }
      let node = YAMLNode(
        content: content, position: frame.position, expandedSize: frame.size, expandedBytes: frame.bytes)
      try finish(node, anchor: frame.anchor)
    default:
      break
    }
  }

  /// Counts nodes as the document would hold them with every alias expanded; refuses past the budget.
  private mutating func count(_ nodes: Int, bytes: Int, at position: SourcePosition) throws(YAMLError) {
    totalNodes += nodes
    totalBytes += bytes
    if totalNodes > maxNodes {
      throw YAMLError(
        message: "the document expands to more than \(maxNodes) nodes (an alias bomb?); aliases are limited",
        position: position)
    }
    if totalBytes > maxBytes {
      throw YAMLError(
        message: "the document expands to more than \(maxBytes) bytes of text (an alias bomb?); aliases are limited",
        position: position)
    }
  }

  private mutating func finish(_ node: YAMLNode, anchor: String?) throws(YAMLError) {
    if let anchor { anchors[anchor] = node }
    if stack.isEmpty {
      root = node
    } else {
      stack[stack.count - 1].children.append(node)
      stack[stack.count - 1].size += node.expandedSize
      stack[stack.count - 1].bytes += node.expandedBytes
    }
  }

  private func pairs(_ children: [YAMLNode]) throws(YAMLError) -> [YAMLPair] {
    var result: [YAMLPair] = []
    var seen: [String: SourcePosition] = [:]
    var k = 0
    while k + 1 < children.count {
      let key = children[k]
      guard let scalar = key.scalar else {
        throw YAMLError(message: "a mapping key must be a scalar, not a \(key.kindName)", position: key.position)
      }
      if scalar.isPlain && scalar.text == "<<" {
        throw YAMLError(message: "merge keys (<<) are not supported; write the keys out", position: key.position)
      }
      if let first = seen[scalar.text] {
        throw YAMLError(message: "duplicate key \"\(scalar.text)\" (first at \(first))", position: key.position)
      }
      seen[scalar.text] = key.position
      result.append(YAMLPair(key: key, value: children[k + 1]))
      k += 2
    }
    return result
  }

  private func checkCollectionTag(_ tag: String?, isMapping: Bool, at position: SourcePosition) throws(YAMLError) {
    guard let tag else { return }
    let allowed = isMapping ? "tag:yaml.org,2002:map" : "tag:yaml.org,2002:seq"
    if tag != allowed { throw unsupportedTag(tag, at: position) }
  }

  private func unsupportedTag(_ tag: String, at position: SourcePosition) -> YAMLError {
    let shown = tag.hasPrefix("tag:yaml.org,2002:") ? "!!" + tag.dropFirst("tag:yaml.org,2002:".count) : tag
    return YAMLError(message: "tag \(shown) is not supported; only the YAML core tags are", position: position)
  }

  private func resolve(text: String, plain: Bool, tag: String?, at position: SourcePosition) throws(YAMLError)
    -> YAMLScalar.Value
  {
    switch tag {
    case nil:
      return plain ? Self.resolvePlain(text) : .string(text)
    case "!", "tag:yaml.org,2002:str":
      return .string(text)
    case "tag:yaml.org,2002:null":
      if case .null = Self.resolvePlain(text) { return .null }
    case "tag:yaml.org,2002:bool":
      if case .bool(let b) = Self.resolvePlain(text) { return .bool(b) }
    case "tag:yaml.org,2002:int":
      if let n = JSONNumber(text), n.isInteger { return .number(n) }
    case "tag:yaml.org,2002:float":
      if let n = JSONNumber(text) { return .number(n) }
    default:
      throw unsupportedTag(tag ?? "", at: position)
    }
    throw YAMLError(message: "\"\(text)\" does not match its tag \(tag ?? "")", position: position)
  }

  static func resolvePlain(_ text: String) -> YAMLScalar.Value {
    switch text {
    case "", "~", "null", "Null", "NULL": return .null
    case "true", "True", "TRUE": return .bool(true)
    case "false", "False", "FALSE": return .bool(false)
    default:
      if let first = text.utf8.first, first == UInt8(ascii: "-") || (first >= 48 && first <= 57),
        let number = JSONNumber(text)
      {
        return .number(number)
      }
      return .string(text)
    }
  }
}
