/// A three-way structural merge of one document, for git's merge driver (`formsctl merge-file`).
///
/// Members merge independently; lists with a `unique` key merge element by element by key; a change
/// on one side is taken; the same change on both sides is taken once. When both sides changed one
/// value differently, the result carries git conflict markers around exactly that member's lines of
/// the canonical output (everything else merged). With `preferNewer`, a conflict inside a record
/// with an `updated` timestamp goes to the side whose record is newer instead.
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
    let merged = mergeValue(base, ours, theirs, type: schema?.root, newer: nil, conflicts: &conflicts) ?? .object(JSONObject())
    let text = JSONWriter.canonicalString(merged)
    guard !conflicts.isEmpty else { return (text, 0) }
    return (Self.expand(text, conflicts), conflicts.count)
  }

  static func sentinel(_ index: Int) -> String { "\u{1}formsctl-conflict-\(index)\u{1}" }

  func mergeValue(
    _ base: JSONValue?, _ ours: JSONValue?, _ theirs: JSONValue?, type: SchemaType?, newer: Bool?,
    conflicts: inout [(ours: JSONValue?, theirs: JSONValue?)]
  ) -> JSONValue? {
    if ours == theirs { return ours }
    if base == ours { return theirs }
    if base == theirs { return ours }
    // Inside a record with an `updated` timestamp, which side is newer (for --prefer newer).
    var newer = newer
    if preferNewer, let field = schema?.timestamps.updated,
      let a = ours?[field]?.stringValue.flatMap(Instant.init), let b = theirs?[field]?.stringValue.flatMap(Instant.init), a != b
    {
      newer = b < a
    }
    switch (ours, theirs) {
    case (.object(let o)?, .object(let t)?):
      let b = base?.objectValue
      var result = JSONObject()
      let keys = Set(o.keys).union(t.keys).union(b?.keys ?? [])
      for key in keys.sorted(by: codePointLess) {
        let fieldType = type?.kind == .object ? type?.fields[key]?.type : nil
        if let value = mergeValue(b?[key], o[key], t[key], type: fieldType, newer: newer, conflicts: &conflicts) {
          result[key] = value
        }
      }
      return .object(result)
    case (.array(let o)?, .array(let t)?):
      if let type, type.kind == .list, let keys = type.unique {
        return .array(mergeKeyed(base?.arrayValue ?? [], o, t, keys: keys, element: type.element, newer: newer, conflicts: &conflicts))
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
      if let merged = mergeValue(baseByKey[k], element, theirsByKey[k], type: elementType, newer: newer, conflicts: &conflicts) {
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

  /// Replaces each sentinel line with git conflict markers around both sides' versions of that line.
  static func expand(_ text: String, _ conflicts: [(ours: JSONValue?, theirs: JSONValue?)]) -> String {
    var lines: [String] = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      guard let range = line.range(of: "\"\\u0001formsctl-conflict-"), let end = line[range.upperBound...].range(of: "\\u0001\"") else {
        lines.append(String(line))
        continue
      }
      let index = Int(line[range.upperBound..<end.lowerBound]) ?? 0
      let prefix = String(line[..<range.lowerBound])  // indentation and `"key": ` (empty for list elements)
      let suffix = String(line[end.upperBound...])  // `,` or nothing
      let indent = String(prefix.prefix { $0 == " " })
      func render(_ value: JSONValue?) -> [String] {
        guard let value else { return [] }
        let body = JSONWriter.canonicalString(value).dropLast().split(separator: "\n", omittingEmptySubsequences: false)
        return body.enumerated().map { k, part in (k == 0 ? prefix : indent) + part + (k == body.count - 1 ? suffix : "") }
      }
      lines.append("<<<<<<< ours")
      lines += render(conflicts[index].ours)
      lines.append("=======")
      lines += render(conflicts[index].theirs)
      lines.append(">>>>>>> theirs")
    }
    return lines.joined(separator: "\n")
  }
}
