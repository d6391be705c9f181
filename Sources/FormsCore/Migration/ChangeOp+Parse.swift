extension ChangeOp {
  /// Reads one step from a descriptor's `changes:` (already converted to JSON).
  public static func parse(_ step: JSONValue) throws(MigrationError) -> ChangeOp {
    guard case .object(let object) = step, object.count == 1, let member = object.members.first else {
      throw MigrationError("a change step is a mapping with one operation")
    }
    let op = member.key
    let body = member.value
    func path(_ key: String) throws(MigrationError) -> FieldPath {
      guard let text = body[key]?.stringValue, let path = FieldPath(text) else {
        throw MigrationError("\(op) needs `\(key):`, a field name or dotted path")
      }
      return path
    }
    func flag(_ key: String) -> Bool { body[key]?.boolValue ?? false }
    func allowOnly(_ keys: [String]) throws(MigrationError) {
      for key in body.objectValue?.keys ?? [] where !keys.contains(key) {
        throw MigrationError("\(op) has no option `\(key)` (it takes \(keys.joined(separator: ", ")))")
      }
    }
    switch op {
    case "rename", "move":
      try allowOnly(["from", "to", "if_present"])
      let from = try path("from")
      let to = try path("to")
      return op == "rename"
        ? .rename(from: from, to: to, ifPresent: flag("if_present"))
        : .move(from: from, to: to, ifPresent: flag("if_present"))
    case "add":
      try allowOnly(["field", "value", "copy"])
      let copy = body["copy"]?.stringValue.flatMap(FieldPath.init)
      guard body["value"] != nil || copy != nil else { throw MigrationError("add needs `value:` or `copy:`") }
      return .add(field: try path("field"), value: body["value"], copy: copy)
    case "remove":
      try allowOnly(["field", "if_present"])
      return .remove(field: try path("field"), ifPresent: flag("if_present"))
    case "map":
      try allowOnly(["field", "values", "keep_unmapped"])
      guard let values = body["values"]?.objectValue else { throw MigrationError("map needs `values:`, old: new") }
      var pairs: [(String, String)] = []
      for member in values.members {
        guard let to = member.value.stringValue else {
          throw MigrationError("map values must be strings (\(member.key))")
        }
        pairs.append((member.key, to))
      }
      return .map(field: try path("field"), values: pairs, keepUnmapped: flag("keep_unmapped"))
    case "convert":
      try allowOnly(["field", "to", "if_present"])
      guard let text = body["to"]?.stringValue, let to = Conversion(rawValue: text) else {
        throw MigrationError("convert needs `to:` object, json, number, string, date or datetime")
      }
      return .convert(field: try path("field"), to: to, ifPresent: flag("if_present"))
    case "each":
      try allowOnly(["list", "changes"])
      guard let steps = body["changes"]?.arrayValue else {
        throw MigrationError("each needs `changes:`, a list of steps")
      }
      var changes: [ChangeOp] = []
      for step in steps { changes.append(try parse(step)) }
      return .each(list: try path("list"), changes: changes)
    case "jq":
      guard let filter = body.stringValue, !filter.isEmpty else { throw MigrationError("jq takes a filter string") }
      return .jq(filter: filter)
    default:
      throw MigrationError("unknown operation \"\(op)\" (rename, add, remove, map, move, convert, each, jq)")
    }
  }
}
