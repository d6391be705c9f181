extension ChangeOp {
  /// Applies the step to `document`. `jq` steps need `runJQ`.
  public func apply(to document: inout JSONValue, runJQ: JQRunner?) throws(MigrationError) {
    switch self {
    case .rename(let from, let to, let ifPresent), .move(let from, let to, let ifPresent):
      guard let value = from.get(document) else {
        if ifPresent { return }
        throw MigrationError("\(from) is missing (add `if_present: true` to skip documents without it)")
      }
      if to.get(document) != nil { throw MigrationError("\(to) already exists; not overwriting it") }
      try from.set(nil, in: &document)
      // A move that empties the object it came from removes that object, so moving back is exact.
      var parent = FieldPath(names: Array(from.names.dropLast()))
      while let current = parent, current.get(document)?.objectValue?.isEmpty == true {
        try current.set(nil, in: &document)
        parent = FieldPath(names: Array(current.names.dropLast()))
      }
      try to.set(value, in: &document)
    case .add(let field, let value, let copy):
      if field.get(document) != nil { return }
      if let copy {
        guard let copied = copy.get(document) else { throw MigrationError("add \(field): \(copy) to copy is missing") }
        try field.set(copied, in: &document)
      } else if let value {
        try field.set(value, in: &document)
      }
    case .remove(let field, let ifPresent):
      guard field.get(document) != nil else {
        if ifPresent { return }
        throw MigrationError("\(field) is missing (add `if_present: true` to skip documents without it)")
      }
      try field.set(nil, in: &document)
    case .map(let field, let values, let keepUnmapped):
      guard let value = field.get(document) else { return }
      guard case .string(let old) = value else {
        throw MigrationError("\(field) is a \(value.typeName), not a string to map")
      }
      if let new = values.first(where: { $0.0 == old })?.1 {
        try field.set(.string(new), in: &document)
      } else if !keepUnmapped {
        throw MigrationError("\(field) \"\(old)\" has no mapping (add it to values, or `keep_unmapped: true`)")
      }
    case .convert(let field, let to, let ifPresent):
      guard let value = field.get(document) else {
        if ifPresent { return }
        throw MigrationError("\(field) is missing (add `if_present: true` to skip documents without it)")
      }
      try field.set(try Self.convert(value, to: to, field: field), in: &document)
    case .each(let list, let changes):
      guard let value = list.get(document) else { return }
      guard case .array(var elements) = value else {
        throw MigrationError("\(list) is a \(value.typeName), not a list")
      }
      for index in elements.indices {
        for change in changes {
          do throws(MigrationError) {
            try change.apply(to: &elements[index], runJQ: runJQ)
          } catch {
            throw MigrationError("\(list)[\(index)]: \(error.message)")
          }
        }
      }
      try list.set(.array(elements), in: &document)
    case .jq(let filter):
      guard let runJQ else { throw MigrationError("jq steps need the jq program") }
      let result = try runJQ(filter, document)
      guard case .object = result else {
        throw MigrationError("the jq filter produced a \(result.typeName), not an object")
      }
      document = result
    }
  }

  static func convert(_ value: JSONValue, to: Conversion, field: FieldPath) throws(MigrationError) -> JSONValue {
    switch (to, value) {
    case (.object, .string(let text)):
      guard let parsed = try? JSONParser().parse(text), parsed.objectValue != nil || parsed.arrayValue != nil else {
        throw MigrationError("\(field) is not a JSON object or list in a string")
      }
      return parsed
    case (.object, .object), (.object, .array): return value
    case (.json, .object), (.json, .array): return .string(JSONWriter.compact(value))
    case (.number, .string(let text)):
      guard let number = JSONNumber(text) else { throw MigrationError("\(field) \"\(text)\" is not a number") }
      return .number(number)
    case (.number, .number): return value
    case (.string, .number(let number)): return .string(number.text)
    case (.string, .string): return value
    case (.date, .string(let text)):
      guard text.count >= 10, CalendarDate(String(text.prefix(10))) != nil else {
        throw MigrationError("\(field) \"\(text)\" is not a date or datetime")
      }
      return .string(String(text.prefix(10)))
    case (.datetime, .string(let text)):
      if Instant.parseDateTime(text) != nil { return value }
      guard CalendarDate(text) != nil else { throw MigrationError("\(field) \"\(text)\" is not a date") }
      return .string(text + "T00:00:00Z")
    default:
      throw MigrationError("cannot convert \(field) (a \(value.typeName)) to \(to.rawValue)")
    }
  }

  /// The step that undoes this one, or nil when it cannot be undone (the data it drops is gone).
  public var inverse: ChangeOp? {
    switch self {
    case .rename(let from, let to, let ifPresent): return .rename(from: to, to: from, ifPresent: ifPresent)
    case .move(let from, let to, let ifPresent): return .move(from: to, to: from, ifPresent: ifPresent)
    case .add(let field, _, _): return .remove(field: field, ifPresent: true)
    case .remove, .jq: return nil
    case .map(let field, let values, let keepUnmapped):
      // One-to-one only: two old values mapped to one new value cannot be told apart again.
      guard Set(values.map(\.1)).count == values.count else { return nil }
      return .map(field: field, values: values.map { ($0.1, $0.0) }, keepUnmapped: keepUnmapped)
    case .convert(let field, let to, let ifPresent):
      switch to {
      case .object: return .convert(field: field, to: .json, ifPresent: ifPresent)
      case .json: return .convert(field: field, to: .object, ifPresent: ifPresent)
      case .number: return .convert(field: field, to: .string, ifPresent: ifPresent)
      case .string: return .convert(field: field, to: .number, ifPresent: ifPresent)
      case .date, .datetime: return nil
      }
    case .each(let list, let changes):
      var inverted: [ChangeOp] = []
      for change in changes.reversed() {
        guard let inverse = change.inverse else { return nil }
        inverted.append(inverse)
      }
      return .each(list: list, changes: inverted)
    }
  }
}
