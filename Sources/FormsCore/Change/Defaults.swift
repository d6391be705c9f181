extension SchemaType {
  /// Fills every missing field that has a default, in this object and in every object it holds
  /// (nested objects, list elements, map values, the case of a `one_of`), as `new` and `import` do.
  public func fillDefaults(_ value: inout JSONValue) {
    fillDefaults(&value, parent: nil)
  }

  /// Fills defaults only in the objects of `value` that `before` does not have (a list element
  /// added by `set items[2].x=...`, a new map entry), leaving the rest as it was written.
  public func fillDefaults(_ value: inout JSONValue, newSince before: JSONValue) {
    fillDefaults(&value, parent: nil, before: before)
  }

  func fillDefaults(_ value: inout JSONValue, parent: JSONValue?, before: JSONValue) {
    let type = resolved(parent: parent, value: value)
    switch (type.kind, value, before) {
    case (.object, .object(var object), .object(let old)):
      let original = value
      for name in type.fieldOrder {
        guard let field = type.fields[name], var child = object[name] else { continue }
        if let oldChild = old[name] {
          field.type.fillDefaults(&child, parent: original, before: oldChild)
        } else {
          field.type.fillDefaults(&child, parent: original)
        }
        object[name] = child
      }
      value = .object(object)
    case (.list, .array(var elements), .array(let old)):
      guard let element = type.element else { return }
      for index in elements.indices {
        let counterpart =
          type.unique == nil
          ? (index < old.count ? old[index] : nil) : type.keyedCounterpart(of: elements[index], in: old)
        if let counterpart {
          element.fillDefaults(&elements[index], parent: value, before: counterpart)
        } else {
          element.fillDefaults(&elements[index], parent: value)
        }
      }
      value = .array(elements)
    case (.map, .object(var object), .object(let old)):
      guard let element = type.element else { return }
      for key in object.keys {
        guard var child = object[key] else { continue }
        if let oldChild = old[key] {
          element.fillDefaults(&child, parent: value, before: oldChild)
        } else {
          element.fillDefaults(&child, parent: value)
        }
        object[key] = child
      }
      value = .object(object)
    default:
      break
    }
  }

  func fillDefaults(_ value: inout JSONValue, parent: JSONValue?) {
    let type = resolved(parent: parent, value: value)
    switch (type.kind, value) {
    case (.object, .object(var object)):
      let original = value
      for name in type.fieldOrder {
        guard let field = type.fields[name] else { continue }
        if object[name] == nil, let defaultValue = field.defaultValue { object[name] = defaultValue }
        if var child = object[name] {
          field.type.fillDefaults(&child, parent: original)
          object[name] = child
        }
      }
      value = .object(object)
    case (.list, .array(var elements)):
      guard let element = type.element else { return }
      for index in elements.indices { element.fillDefaults(&elements[index], parent: value) }
      value = .array(elements)
    case (.map, .object(var object)):
      guard let element = type.element else { return }
      for key in object.keys {
        guard var child = object[key] else { continue }
        element.fillDefaults(&child, parent: value)
        object[key] = child
      }
      value = .object(object)
    default:
      break
    }
  }
}
