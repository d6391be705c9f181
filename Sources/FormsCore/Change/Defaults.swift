extension SchemaType {
  /// Fills every missing field that has a default, in this object and in every object it holds
  /// (nested objects, list elements, map values, the case of a `one_of`), as `new` and `import` do.
  public func fillDefaults(_ value: inout JSONValue) {
    fillDefaults(&value, parent: nil)
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
