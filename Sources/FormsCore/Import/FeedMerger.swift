/// The merge rules of `import` (DESIGN §9), one generic recursion driven by the descriptor: the
/// kind's `updated` timestamp decides between a stored document and a feed record, and, below
/// the document, between elements of lists that have a `unique` key (compared by their own field
/// of the same name).
///
/// - no stored document: create it;
/// - the feed record is newer: replace the whole document, its lists included;
/// - otherwise, in every keyed list: a newer feed element replaces the stored one whole; an element
///   only in the feed is added; one only in the store is kept; an element not replaced has its own
///   keyed lists merged by the same rule;
/// - equal timestamps keep the stored version; a feed timestamp more than `skew` seconds in the
///   future is applied, with a warning.
public struct FeedMerger: Sendable {
  public let schema: Schema
  /// The current time (seconds since 1970) and the tolerated clock skew, for future timestamps.
  public let now: Int64
  public let skew: Int64

  public init(schema: Schema, now: Int64, skew: Int64 = 300) {
    self.schema = schema
    self.now = now
    self.skew = skew
  }

  /// What the merge did to one record.
  public enum Action: Sendable, Equatable {
    case create
    case replace
    /// Element-level changes, as `update items[product_item_id=3]`, `add invoices[invoice_number=INV-9]`.
    case update([String])
    /// Nothing to do; the reason says why (`keep (local newer)`, `unchanged`).
    case keep(String)

    public var description: String {
      switch self {
      case .create: return "create"
      case .replace: return "replace"
      case .update(let changes): return changes.joined(separator: ", ")
      case .keep(let reason): return reason
      }
    }
  }

  /// The merged document (nil when nothing changes), the action, and warnings.
  public func merge(stored: JSONValue?, feed: JSONValue) -> (result: JSONValue?, action: Action, warnings: [String]) {
    guard let updated = schema.timestamps.updated else {
      return stored == nil ? (feed, .create, []) : (stored == feed ? nil : feed, stored == feed ? .keep("unchanged") : .replace, [])
    }
    var warnings: [String] = []
    if let time = feed[updated]?.stringValue.flatMap(Instant.init), time.seconds > now + skew {
      warnings.append("\(updated) \(feed[updated]!.stringValue!) is in the future; applied anyway")
    }
    guard let stored else { return (feed, .create, warnings) }
    switch Self.compareTimes(feed[updated], stored[updated]) {
    case .some(1):
      return (feed == stored ? nil : feed, feed == stored ? .keep("unchanged") : .replace, warnings)
    default:
      var changes: [String] = []
      let merged = mergeLists(stored: stored, feed: feed, type: schema.root, updated: updated, prefix: "", changes: &changes)
      if changes.isEmpty || merged == stored {
        let newer = Self.compareTimes(stored[updated], feed[updated]) == 1
        return (nil, .keep(newer ? "keep (local newer)" : "unchanged"), warnings)
      }
      return (merged, .update(changes), warnings)
    }
  }

  /// 1 when `a` is a later instant than `b`, 0 when equal, -1 when earlier; nil when either is missing.
  static func compareTimes(_ a: JSONValue?, _ b: JSONValue?) -> Int? {
    guard let x = a?.stringValue.flatMap(Instant.init), let y = b?.stringValue.flatMap(Instant.init) else { return nil }
    return x == y ? 0 : (y < x ? 1 : -1)
  }

  /// Merges every keyed list of `type` found in both objects; other members stay as stored.
  func mergeLists(stored: JSONValue, feed: JSONValue, type: SchemaType, updated: String, prefix: String, changes: inout [String])
    -> JSONValue
  {
    guard case .object(var object) = stored else { return stored }
    for name in type.fieldOrder {
      guard let field = type.fields[name], field.type.kind == .list, let keys = field.type.unique, let element = field.type.element,
        case .array(let storedElements)? = object[name], case .array(let feedElements)? = feed[name]
      else { continue }
      var result = storedElements
      func key(_ value: JSONValue) -> [JSONValue] { keys.map { value[$0] ?? .null } }
      func label(_ value: JSONValue) -> String {
        "\(prefix)\(name)[" + zip(keys, key(value)).map { "\($0)=\(Self.plain($1))" }.joined(separator: ",") + "]"
      }
      for feedElement in feedElements {
        if let index = result.firstIndex(where: { key($0) == key(feedElement) }) {
          let current = result[index]
          if Self.compareTimes(feedElement[updated], current[updated]) == 1 {
            if feedElement != current {
              result[index] = feedElement
              changes.append("update \(label(feedElement))")
            }
          } else {
            let inner = mergeLists(stored: current, feed: feedElement, type: element, updated: updated,
              prefix: label(feedElement) + ".", changes: &changes)
            result[index] = inner
          }
        } else {
          result.append(feedElement)
          changes.append("add \(label(feedElement))")
        }
      }
      object[name] = .array(result)
    }
    return .object(object)
  }

  static func plain(_ value: JSONValue) -> String {
    switch value {
    case .string(let s): return s
    case .number(let n): return n.text
    default: return JSONWriter.compact(value)
    }
  }

  /// Removes members the schema does not know (recursively), counting them by path.
  public static func dropUnknown(_ value: JSONValue, type: SchemaType, prefix: String = "", dropped: inout [String: Int]) -> JSONValue {
    switch (type.kind, value) {
    case (.object, .object(let object)):
      var kept = JSONObject()
      for member in object.members {
        let path = prefix.isEmpty ? member.key : prefix + "." + member.key
        if let field = type.fields[member.key] {
          kept[member.key] = dropUnknown(member.value, type: field.type, prefix: path, dropped: &dropped)
        } else if type.additional || (prefix.isEmpty && member.key == "_schema") {
          kept[member.key] = member.value
        } else {
          dropped[path, default: 0] += 1
        }
      }
      return .object(kept)
    case (.list, .array(let elements)):
      guard let element = type.element else { return value }
      return .array(elements.map { dropUnknown($0, type: element, prefix: prefix + "[]", dropped: &dropped) })
    default:
      return value
    }
  }
}
