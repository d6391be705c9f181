/// The merge rules of `import` (docs/design.md §9, §12), one generic recursion driven by the descriptor:
/// the kind's `updated` timestamp decides between a stored document and a feed record, and, below
/// the document, between elements of lists that have a `unique` key (compared by the `updated`
/// timestamp their type declares, else by their own field of the document's name).
///
/// - no stored document: create it;
/// - the feed record is newer: it replaces the document, its lists included;
/// - otherwise, in every keyed list: a newer feed element replaces the stored one; an element
///   only in the feed is added; one only in the store is kept; an element not replaced has its own
///   keyed lists merged by the same rule;
/// - whatever replaces keeps local work: members the feed record (or element) does not carry at
///   all are kept from the stored one, down through objects and the elements of keyed lists;
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
    /// Nothing to do: the store has this version.
    case unchanged
    /// Nothing to do: the stored document is newer.
    case localNewer

    public var description: String {
      switch self {
      case .create: return "create"
      case .replace: return "replace"
      case .update(let changes): return changes.joined(separator: ", ")
      case .unchanged: return "unchanged"
      case .localNewer: return "keep (local newer)"
      }
    }
  }

  /// The outcome for one record.
  public struct Merge: Sendable, Equatable {
    /// The merged document; nil when nothing changes.
    public var result: JSONValue?
    public var action: Action
    public var warnings: [String] = []
    /// Members the feed did not carry, kept from the stored document, by name, with how often.
    public var kept: [String: Int] = [:]

    public init(result: JSONValue?, action: Action, warnings: [String] = [], kept: [String: Int] = [:]) {
      self.result = result
      self.action = action
      self.warnings = warnings
      self.kept = kept
    }

    /// `replace (kept: acquisition_id, unit_price ×3)`.
    public var description: String {
      guard !kept.isEmpty else { return action.description }
      let names = kept.sorted { $0.key < $1.key }.map { $0.value == 1 ? $0.key : "\($0.key) ×\($0.value)" }
      return action.description + " (kept: \(names.joined(separator: ", ")))"
    }
  }

  /// Merges one feed record with the stored document (nil when the store has none).
  public func merge(stored: JSONValue?, feed: JSONValue) -> Merge {
    guard let updated = schema.timestamps.updated else {
      guard let stored else { return Merge(result: feed, action: .create) }
      if stored == feed { return Merge(result: nil, action: .unchanged) }
      var kept: [String: Int] = [:]
      let result = overlay(feed, onto: stored, type: schema.root, parent: nil, kept: &kept)
      return result == stored
        ? Merge(result: nil, action: .unchanged) : Merge(result: result, action: .replace, kept: kept)
    }
    var warnings: [String] = []
    if let text = feed[updated]?.stringValue, let time = Instant(text), time.seconds > now + skew {
      warnings.append("\(updated) \(text) is in the future; applied anyway")
    }
    guard let stored else { return Merge(result: feed, action: .create, warnings: warnings) }
    if Instant.order(feed[updated], stored[updated]) == 1 {
      var kept: [String: Int] = [:]
      let result = overlay(feed, onto: stored, type: schema.root, parent: nil, kept: &kept)
      if result == stored { return Merge(result: nil, action: .unchanged, warnings: warnings) }
      return Merge(result: result, action: .replace, warnings: warnings, kept: kept)
    }
    var changes: [String] = []
    var kept: [String: Int] = [:]
    let merged = mergeLists(
      stored: stored, feed: feed, type: schema.root, updated: updated, prefix: "", changes: &changes, kept: &kept)
    if changes.isEmpty || merged == stored {
      let newer = Instant.order(stored[updated], feed[updated]) == 1
      return Merge(result: nil, action: newer ? .localNewer : .unchanged, warnings: warnings)
    }
    return Merge(result: merged, action: .update(changes), warnings: warnings, kept: kept)
  }

  /// Merges every keyed list of `type` found in both objects; other members stay as stored.
  func mergeLists(
    stored: JSONValue, feed: JSONValue, type declared: SchemaType, updated: String, prefix: String,
    changes: inout [String],
    kept: inout [String: Int]
  ) -> JSONValue {
    let type = declared.resolved(parent: nil, value: stored)
    guard case .object(var object) = stored else { return stored }
    for name in type.fieldOrder {
      guard let field = type.fields[name], field.type.kind == .list, let keys = field.type.unique,
        let element = field.type.element,
        case .array(let storedElements)? = object[name], case .array(let feedElements)? = feed[name]
      else { continue }
      let stamp = element.timestamps.updated ?? updated
      var result = storedElements
      func key(_ value: JSONValue) -> [JSONValue] { keys.map { value[$0] ?? .null } }
      func label(_ value: JSONValue) -> String {
        "\(prefix)\(name)[" + zip(keys, key(value)).map { "\($0)=\(Self.plain($1))" }.joined(separator: ",") + "]"
      }
      for feedElement in feedElements {
        if let index = result.firstIndex(where: { key($0) == key(feedElement) }) {
          let current = result[index]
          if Instant.order(feedElement[stamp], current[stamp]) == 1 {
            var elementKept: [String: Int] = [:]
            let replacement = overlay(feedElement, onto: current, type: element, parent: stored, kept: &elementKept)
            if replacement != current {
              result[index] = replacement
              changes.append("update \(label(feedElement))")
              kept.merge(elementKept, uniquingKeysWith: +)
            }
          } else {
            result[index] = mergeLists(
              stored: current, feed: feedElement, type: element, updated: updated,
              prefix: label(feedElement) + ".", changes: &changes, kept: &kept)
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

  /// `feed` with the members it does not carry at all taken from `stored`, in objects and in the
  /// elements of keyed lists matched by key (a list the feed carries is the feed's: elements only
  /// in the store are dropped, as a newer record says what the list holds).
  public func overlay(
    _ feed: JSONValue, onto stored: JSONValue?, type declared: SchemaType, parent: JSONValue?, kept: inout [String: Int]
  )
    -> JSONValue
  {
    guard let stored else { return feed }
    let type = declared.resolved(parent: parent, value: feed)
    switch (type.kind, feed, stored) {
    case (.object, .object(var object), .object(let old)):
      for member in old.members where object[member.key] == nil {
        object[member.key] = member.value
        kept[member.key, default: 0] += 1
      }
      for name in type.fieldOrder {
        guard let field = type.fields[name], let value = object[name], feed[name] != nil else { continue }
        object[name] = overlay(value, onto: old[name], type: field.type, parent: feed, kept: &kept)
      }
      return .object(object)
    case (.list, .array(var elements), .array(let olds)):
      guard type.unique != nil, let element = type.element else { return feed }
      for index in elements.indices {
        let match = type.keyedCounterpart(of: elements[index], in: olds)
        elements[index] = overlay(elements[index], onto: match, type: element, parent: feed, kept: &kept)
      }
      return .array(elements)
    case (.map, .object(var object), .object(let old)):
      guard let element = type.element else { return feed }
      for key in object.keys {
        guard let value = object[key] else { continue }
        object[key] = overlay(value, onto: old[key], type: element, parent: feed, kept: &kept)
      }
      return .object(object)
    default:
      return feed
    }
  }

  static func plain(_ value: JSONValue) -> String {
    switch value {
    case .string(let s): return s
    case .number(let n): return n.text
    default: return JSONWriter.compact(value)
    }
  }

  /// Removes members the schema does not know (recursively), counting them by path.
  public static func dropUnknown(
    _ value: JSONValue, type: SchemaType, prefix: String = "", dropped: inout [String: Int]
  ) -> JSONValue {
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
