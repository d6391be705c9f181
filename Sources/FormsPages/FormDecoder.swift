import FormsCore

/// What a form means: the document it describes, built from the stored one (or a new one) and
/// the form's fields, each named by its JSON Pointer and read by the descriptor's type at that
/// place. Nothing is dropped: what cannot be read as its type (a number with letters, JSON that
/// does not parse) is kept as typed, so the form shows it again with the reason beside it.
public struct FormDecoder: Sendable {
  /// The draft: the document to save, or to show again.
  public var draft: JSONValue
  /// Texts typed into JSON fields that do not parse, by pointer: shown as typed.
  public var raw: [String: String] = [:]
  /// What the form itself says is wrong (JSON that does not parse), by pointer.
  public var problems: [Diagnostic] = []

  /// The row marker of a list element: `POINTER#row`, its value the index the row had in the
  /// stored list ("" for a row added in the form).
  public static let rowSuffix = "#row"
  /// The marker of a list of objects: `POINTER#list`, present even when every row was removed.
  public static let listSuffix = "#list"

  /// Reads `input` over `base` (the stored document, or the start of a new one) by `schema`.
  public init(input: FormInput, schema: Schema, base: JSONValue) {
    var values: [String: String] = [:]
    var rows: [String: [(index: Int, original: Int?)]] = [:]
    for (name, value) in input.entries where name.hasPrefix("/") {
      if name.hasSuffix(Self.listSuffix) {
        rows[String(name.dropLast(Self.listSuffix.count)), default: []] += []
      } else if name.hasSuffix(Self.rowSuffix) {
        let element = String(name.dropLast(Self.rowSuffix.count))
        guard let pointer = JSONPointer(element), let last = pointer.last, let index = Int(last),
          let list = pointer.parent
        else { continue }
        rows[list.description, default: []].append((index, Int(value)))
      } else if values[name] == nil {
        values[name] = value
      }
    }
    draft = base
    var reader = Reader(values: values, rows: rows)
    if case .object = base {
      draft = reader.object(schema.root, at: .root, stored: base)
    }
    raw = reader.raw
    problems = reader.problems
  }

  struct Reader {
    let values: [String: String]
    let rows: [String: [(index: Int, original: Int?)]]
    var raw: [String: String] = [:]
    var problems: [Diagnostic] = []

    /// `stored` with each field the form holds read from it.
    mutating func object(_ type: SchemaType, at pointer: JSONPointer, stored: JSONValue?) -> JSONValue {
      var object = stored?.objectValue ?? JSONObject()
      for name in type.fieldOrder {
        guard let field = type.fields[name] else { continue }
        let at = pointer.appending(name)
        let fieldType = field.type.resolved(parent: .object(object), value: object[name])
        if let value = self.value(fieldType, field: field, at: at, stored: object[name]) {
          object[name] = value.isAbsent ? nil : value.json
        }
      }
      return .object(object)
    }

    enum Read {
      case value(JSONValue)
      case absent
      var isAbsent: Bool { if case .absent = self { true } else { false } }
      var json: JSONValue { if case .value(let value) = self { value } else { .null } }
    }

    /// The field's value as the form says it (nil: the form does not hold it; keep what is stored).
    mutating func value(_ type: SchemaType, field: Field?, at pointer: JSONPointer, stored: JSONValue?) -> Read? {
      let key = pointer.description
      switch type.kind {
      case .object where values[key] != nil:
        // An object the form shows as JSON text (a `one_of` whose case it could not yet tell).
        return json(at: key, stored: stored)
      case .object:
        guard
          values.keys.contains(where: { $0.hasPrefix(key + "/") })
            || rows.keys.contains(where: { $0.hasPrefix(key + "/") })
        else { return nil }
        let value = object(type, at: pointer, stored: stored)
        // An optional object left empty in a new document is not written.
        if stored == nil, value.objectValue?.members.isEmpty ?? false { return .absent }
        return .value(value)
      case .list where type.element?.kind == .object || type.element?.kind == .oneOf:
        guard let marked = rows[key], let elementType = type.element else {
          return values[key] != nil ? json(at: key, stored: stored) : nil
        }
        let storedElements = stored?.arrayValue ?? []
        var elements: [JSONValue] = []
        for row in marked.sorted(by: { $0.index < $1.index }) {
          let base = row.original.flatMap { storedElements.indices.contains($0) ? storedElements[$0] : nil }
          let element = elementType.resolved(parent: nil, value: base)
          elements.append(object(element, at: pointer.appending(index: row.index), stored: base))
        }
        if elements.isEmpty && stored == nil && field?.optional == true { return .absent }
        return .value(.array(elements))
      default:
        guard let text = values[key] else { return nil }
        return scalar(type, field: field, text: text, key: key, stored: stored)
      }
    }

    mutating func scalar(_ type: SchemaType, field: Field?, text: String, key: String, stored: JSONValue?) -> Read {
      let empty = text.isEmpty
      switch type.kind {
      case .string, .date, .datetime, .uuid, .enumeration, .jsonString:
        if empty && (field?.optional ?? false || type.kind != .string) {
          return field?.nullable == true ? .value(.null) : .absent
        }
        return .value(.string(text))
      case .integer, .decimal, .number:
        let trimmed = text.trimmingSpaces
        if trimmed.isEmpty { return field?.nullable == true ? .value(.null) : .absent }
        // The digits as typed: a decimal keeps its text; what is not a JSON number stays text,
        // which validation names as the wrong type at this field.
        return .value(JSONNumber(trimmed).map(JSONValue.number) ?? .string(text))
      case .boolean:
        switch text {
        case "true": return .value(.bool(true))
        case "false": return .value(.bool(false))
        case "": return field?.nullable == true ? .value(.null) : .absent
        default: return .value(.string(text))
        }
      default:
        return json(at: key, stored: stored)
      }
    }

    /// A field shown as JSON text: parsed, or kept as typed with the parser's reason.
    mutating func json(at key: String, stored: JSONValue?) -> Read {
      guard let text = values[key] else { return stored.map(Read.value) ?? .absent }
      if text.trimmingSpaces.isEmpty { return .absent }
      do {
        return .value(try JSONParser().parse(Array(text.utf8)))
      } catch {
        raw[key] = text
        problems.append(
          Diagnostic(
            file: "", position: nil, pointer: JSONPointer(key) ?? .root, rule: "json",
            message: "not JSON: \(error.message) (line \(error.location.line), column \(error.location.column))"))
        return stored.map(Read.value) ?? .absent
      }
    }
  }
}

extension String {
  var trimmingSpaces: String {
    var scalars = Substring(self).unicodeScalars
    while let first = scalars.first, first.properties.isWhitespace { scalars.removeFirst() }
    while let last = scalars.last, last.properties.isWhitespace { scalars.removeLast() }
    return String(scalars)
  }
}

extension JSONValue {
  /// Sets the value at `pointer` (nil removes it; a missing object on the way is made); an array
  /// index past the end appends. Does nothing where the path runs through a scalar.
  mutating func put(_ value: JSONValue?, at pointer: JSONPointer) {
    guard let first = pointer.tokens.first else {
      if let value { self = value }
      return
    }
    let rest = JSONPointer(tokens: Array(pointer.tokens.dropFirst()))
    switch self {
    case .object(var object):
      if rest.tokens.isEmpty {
        object[first] = value
      } else {
        var child = object[first] ?? .object(JSONObject())
        child.put(value, at: rest)
        object[first] = child
      }
      self = .object(object)
    case .array(var elements):
      guard let index = Int(first), index >= 0, index <= elements.count else { return }
      if rest.tokens.isEmpty {
        if let value {
          if index == elements.count { elements.append(value) } else { elements[index] = value }
        } else if index < elements.count {
          elements.remove(at: index)
        }
      } else if index < elements.count {
        elements[index].put(value, at: rest)
      }
      self = .array(elements)
    default:
      return
    }
  }
}
