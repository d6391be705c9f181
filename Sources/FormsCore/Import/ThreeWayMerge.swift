/// A three-way structural merge of one document, for git's merge driver (`formsctl merge-file`).
///
/// Members merge independently; lists with a `unique` key merge element by element by key; a change
/// on one side is taken; the same change on both sides is taken once. An `updated` timestamp (the
/// document's, or one a named type declares) that both sides changed becomes the later of the two,
/// never a conflict (docs/design.md §12); a `created` one that differs stays a conflict. A document's
/// `_approvals` (signed records, only appended) merge as the union of both sides. When both sides
/// changed one value differently, the result carries git conflict markers around exactly that
/// member's lines (everything else merged), written so that keeping either side, or deleting
/// either block as git tools do for "take ours" and "take theirs", leaves valid JSON. With
/// `preferNewer`, a conflict inside a record with an `updated` timestamp goes to the side whose
/// record is newer instead.
public struct ThreeWayMerge: Sendable {
  public let schema: Schema?
  public let preferNewer: Bool

  public init(schema: Schema?, preferNewer: Bool = false) {
    self.schema = schema
    self.preferNewer = preferNewer
  }

  /// The merged text (canonical when clean) and the number of conflicts.
  public func merge(base: JSONValue?, ours: JSONValue, theirs: JSONValue) -> (text: String, conflicts: Int) {
    var conflicts: [(ours: JSONValue?, theirs: JSONValue?)] = []
    let merged =
      mergeValue(base, ours, theirs, type: schema?.root, newer: nil, conflicts: &conflicts) ?? .object(JSONObject())
    guard !conflicts.isEmpty else { return (JSONWriter.canonicalString(merged), 0) }
    return (
      ConflictRenderer(conflicts: conflicts).lines(merged, indent: "").joined(separator: "\n") + "\n", conflicts.count
    )
  }

  /// A conflict's placeholder in the merged tree, until `ConflictRenderer` writes its block.
  static let sentinelPrefix = "\u{1}formsctl-conflict-"

  static func sentinel(_ index: Int) -> String { sentinelPrefix + "\(index)\u{1}" }

  func mergeValue(
    _ base: JSONValue?, _ ours: JSONValue?, _ theirs: JSONValue?, type: SchemaType?, newer: Bool?,
    conflicts: inout [(ours: JSONValue?, theirs: JSONValue?)]
  ) -> JSONValue? {
    if ours == theirs { return ours }
    if base == ours { return theirs }
    if base == theirs { return ours }
    // Inside a record with an `updated` timestamp, which side is newer (for --prefer newer).
    var newer = newer
    if preferNewer, let field = schema?.timestamps.updated, let order = Instant.order(ours?[field], theirs?[field]),
      order != 0
    {
      newer = order > 0
    }
    switch (ours, theirs) {
    case (.object(let o)?, .object(let t)?):
      let b = base?.objectValue
      var result = JSONObject()
      let keys = Set(o.keys).union(t.keys).union(b?.keys ?? [])
      for key in keys.sorted(by: codePointLess) {
        if key == type?.timestamps.updated, let later = Self.later(b?[key], o[key], t[key]) {
          result[key] = later
          continue
        }
        // A document's approvals are signed records only ever appended: the union of both sides.
        if key == "_approvals", o["_schema"] != nil, let union = Self.union(b?[key], o[key], t[key]) {
          result[key] = union
          continue
        }
        let fieldType = type?.kind == .object ? type?.fields[key]?.type : nil
        if let value = mergeValue(b?[key], o[key], t[key], type: fieldType, newer: newer, conflicts: &conflicts) {
          result[key] = value
        }
      }
      return .object(result)
    case (.array(let o)?, .array(let t)?):
      if let type, type.kind == .list, let keys = type.unique {
        return .array(
          mergeKeyed(
            base?.arrayValue ?? [], o, t, keys: keys, element: type.element, newer: newer, conflicts: &conflicts))
      }
    default:
      break
    }
    if let newer { return newer ? ours : theirs }
    conflicts.append((ours, theirs))
    return .string(Self.sentinel(conflicts.count - 1))
  }

  func mergeKeyed(
    _ base: [JSONValue], _ ours: [JSONValue], _ theirs: [JSONValue], keys: [String], element: SchemaType?, newer: Bool?,
    conflicts: inout [(ours: JSONValue?, theirs: JSONValue?)]
  ) -> [JSONValue] {
    func key(_ value: JSONValue) -> [JSONValue] { keys.map { value[$0] ?? .null } }
    let baseByKey = Dictionary(base.map { (key($0), $0) }, uniquingKeysWith: { a, _ in a })
    let theirsByKey = Dictionary(theirs.map { (key($0), $0) }, uniquingKeysWith: { a, _ in a })
    let oursKeys = Set(ours.map(key))
    let elementType = element
    var result: [JSONValue] = []
    // Our order first, then elements only they have, in their order.
    for element in ours {
      let k = key(element)
      if let merged = mergeValue(
        baseByKey[k], element, theirsByKey[k], type: elementType, newer: newer, conflicts: &conflicts)
      {
        result.append(merged)
      }
    }
    for element in theirs where !oursKeys.contains(key(element)) {
      let k = key(element)
      if let merged = mergeValue(baseByKey[k], nil, element, type: elementType, newer: newer, conflicts: &conflicts) {
        result.append(merged)
      }
    }
    return result
  }

  /// The later of two `updated` stamps both sides changed (nil when that is not the case).
  /// The base's records, then those either side added (by time, then signature, so both
  /// directions of a merge agree); nil when a side is not a list.
  static func union(_ base: JSONValue?, _ ours: JSONValue?, _ theirs: JSONValue?) -> JSONValue? {
    guard let ours = ours?.arrayValue ?? (ours == nil ? [] : nil),
      let theirs = theirs?.arrayValue ?? (theirs == nil ? [] : nil)
    else { return nil }
    let kept = base?.arrayValue ?? []
    var added: [JSONValue] = []
    for record in ours + theirs where !kept.contains(record) && !added.contains(record) { added.append(record) }
    added.sort {
      let a = ($0["time"]?.stringValue ?? "", $0["signature"]?.stringValue ?? "")
      let b = ($1["time"]?.stringValue ?? "", $1["signature"]?.stringValue ?? "")
      return a < b
    }
    return .array(kept.filter { ours.contains($0) || theirs.contains($0) } + added)
  }

  static func later(_ base: JSONValue?, _ ours: JSONValue?, _ theirs: JSONValue?) -> JSONValue? {
    guard ours != theirs, base != ours, base != theirs, let order = Instant.order(ours, theirs) else { return nil }
    return order >= 0 ? ours : theirs
  }
}

/// Writes a merged document whose conflicts are sentinel strings: canonical layout, with each
/// conflict as a git conflict block holding that member's (or element's) lines on each side.
///
/// Separators are placed so that each side, kept alone, is valid JSON: entries before the last
/// entry both sides share end with a comma (something follows them on either side); conflicting
/// entries after it start with one instead (`, "b": 2`), since something precedes them on either
/// side; in a container with no shared entry, each side's commas are its own.
struct ConflictRenderer {
  let conflicts: [(ours: JSONValue?, theirs: JSONValue?)]

  /// The conflict a value stands for, when it is a sentinel.
  func conflict(_ value: JSONValue) -> Int? {
    let prefix = ThreeWayMerge.sentinelPrefix
    guard case .string(let text) = value, text.hasPrefix(prefix), text.hasSuffix("\u{1}") else { return nil }
    return Int(text.dropFirst(prefix.count).dropLast())
  }

  func containsConflict(_ value: JSONValue) -> Bool {
    switch value {
    case .object(let object): return object.members.contains { containsConflict($0.value) }
    case .array(let elements): return elements.contains(where: containsConflict)
    default: return conflict(value) != nil
    }
  }

  /// The lines of `value` at `indent`; the first carries no indentation (it follows a key).
  func lines(_ value: JSONValue, indent: String) -> [String] {
    guard containsConflict(value) else {
      let text = JSONWriter.canonicalString(value).dropLast()
      return text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map {
        $0.offset == 0 ? String($0.element) : indent + $0.element
      }
    }
    let entries: [(key: String, value: JSONValue)]
    let (open, close): (String, String)
    switch value {
    case .object(let object):
      entries = object.members.map { (JSONWriter.compact(.string($0.key)) + ": ", $0.value) }
      (open, close) = ("{", "}")
    case .array(let elements):
      entries = elements.map { ("", $0) }
      (open, close) = ("[", "]")
    default:
      return [JSONWriter.compact(value)]
    }
    let inner = indent + "  "
    let lastShared = entries.lastIndex { conflict($0.value) == nil }
    func entry(_ key: String, _ value: JSONValue, leading: Bool, trailing: Bool) -> [String] {
      var body = lines(value, indent: inner)
      body[0] = inner + (leading ? ", " : "") + key + body[0]
      if trailing { body[body.count - 1] += "," }
      return body
    }
    var out = [open]
    for (index, item) in entries.enumerated() {
      guard let number = conflict(item.value) else {
        out += entry(item.key, item.value, leading: false, trailing: index < (lastShared ?? -1))
        continue
      }
      func side(_ pick: ((ours: JSONValue?, theirs: JSONValue?)) -> JSONValue?) -> [String] {
        guard let version = pick(conflicts[number]) else { return [] }
        if let lastShared {
          return entry(item.key, version, leading: index > lastShared, trailing: index < lastShared)
        }
        let followed = entries[(index + 1)...].contains { later in
          conflict(later.value).map { pick(conflicts[$0]) != nil } ?? true
        }
        return entry(item.key, version, leading: false, trailing: followed)
      }
      out += ["<<<<<<< ours"] + side(\.ours) + ["======="] + side(\.theirs) + [">>>>>>> theirs"]
    }
    return out + [indent + close]
  }
}
