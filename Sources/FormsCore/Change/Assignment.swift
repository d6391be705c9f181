/// `PATH=VALUE` from the command line, typed by the schema: `quantity=5` is an integer, `note=5`
/// a string, `items[2].quantity=7` reaches into a list; `--json PATH=<json>` sets any JSON value.
/// `items[+].quantity=7` appends an element (every `[+]` of one list in one change is the same new
/// element), and `PATH-` removes the field or element.
public struct Assignment: Sendable, Equatable {
  public enum Value: Sendable, Equatable {
    /// Text to convert by the field's type.
    case text(String)
    /// A JSON value, set as it is.
    case json(JSONValue)
    /// `PATH-`: the field or element is removed.
    case remove
  }

  /// Why an assignment cannot be made: bad input (exit 65), or an index past a list's end (64).
  public struct Problem: FormsError, Equatable {
    public let kind: FailureKind
    public let description: String
    /// The next step, when there is one to point at.
    public let remedy: Remedy?

    init(kind: FailureKind = .badInput, _ description: String, remedy: Remedy? = nil) {
      self.kind = kind
      self.description = description
      self.remedy = remedy
    }
  }

  public private(set) var path: FilterExpression.Path
  public let source: String
  public let value: Value
  /// The positions in `path` of the steps written `[+]` (append to the list).
  public private(set) var appending: Set<Int>

  /// Parses `PATH=VALUE` or `PATH-`; with `json`, the value is JSON text.
  public init(_ argument: String, json: Bool = false) throws(Assignment.Problem) {
    let pathText: String
    let valueText: String?
    if let equals = argument.firstIndex(of: "=") {
      pathText = String(argument[..<equals])
      valueText = String(argument[argument.index(after: equals)...])
    } else if argument.hasSuffix("-"), argument.count > 1, !json {
      pathText = String(argument.dropLast())
      valueText = nil
    } else {
      throw Problem(
        "\(argument): expected PATH=VALUE, e.g. status=open or items[0].quantity=5 (or PATH- to remove it)")
    }
    // `[+]` parses as an index; which index steps were written so is read from the text.
    guard let path = FilterExpression.Path(pathText.replacingOccurrences("[+]", "[0]")), !path.steps.contains(.each)
    else {
      throw Problem("\(pathText): not a field path (use name, a.b, items[2].quantity or items[+].quantity)")
    }
    let brackets = pathText.split(separator: "[", omittingEmptySubsequences: false).dropFirst().map {
      $0.hasPrefix("+]")
    }
    let indexSteps = path.steps.indices.filter { if case .index = path.steps[$0] { true } else { false } }
    appending = Set(zip(indexSteps, brackets).filter(\.1).map(\.0))
    self.path = path
    source = pathText
    guard let valueText else {
      value = .remove
      return
    }
    if json {
      do {
        value = .json(try JSONParser().parse(valueText))
      } catch {
        throw Problem(
          "\(pathText): the value is not JSON (\(error.message) at column \(error.location.column))")
      }
    } else {
      value = .text(valueText)
    }
  }

  /// Applies the assignment to `document`, creating missing objects on the way.
  public func apply(to document: inout JSONValue, schema: Schema) throws(Assignment.Problem) {
    var type: SchemaType? = schema.root
    var parent: JSONValue? = nil
    var current: JSONValue? = document
    // Inside a sensitive field, a message never quotes the value (docs/design.md §12).
    var sensitive = false
    for step in path.steps {
      var next: SchemaType? = nil
      if let resolved = type?.resolved(parent: parent, value: current) {
        switch (step, resolved.kind) {
        case (.member(let name), .object):
          guard let field = resolved.fields[name] else {
            if resolved.additional { break }
            let hint = didYouMean(name, among: resolved.fieldOrder)
            throw Problem("\(source): unknown field \"\(name)\"\(hint)")
          }
          // The `updated` timestamp would be replaced by the write's time: refused, not ignored. (A
          // `created` one given is kept: an order's issue date may be set when it is entered.)
          if name == resolved.timestamps.updated {
            throw Problem(
              "\(source): set by formsctl at each write (the descriptor's timestamps: updated); it cannot be given")
          }
          next = field.type
          sensitive = sensitive || field.sensitive
        case (.member, .map), (.index, .list):
          next = resolved.element
        case (.member(let name), _):
          throw Problem("\(source): \"\(name)\" is inside a \(resolved.kind.rawValue), not an object")
        case (.index, _):
          throw Problem("\(source): an index needs a list, not a \(resolved.kind.rawValue)")
        case (.each, _):
          break
        }
      }
      parent = current
      current = current.flatMap { value in
        switch step {
        case .member(let name): return value[name]
        case .index(let i): return value.arrayValue.flatMap { i < $0.count ? $0[i] : nil }
        case .each: return nil
        }
      }
      type = next
    }
    if case .remove = value {
      guard current != nil else { throw Problem("\(source): not there; nothing to remove") }
      return Self.remove(at: path.steps[...], in: &document)
    }
    let newValue = try convert(to: type?.resolved(parent: parent, value: current), sensitive: sensitive)
    try Self.set(newValue, at: path.steps[...], in: &document, source: source)
  }

  /// This assignment with each `[+]` made the index of the element it appends: the list's length
  /// in `document` when a change first appends to it (`appended` remembers it by the list's path,
  /// so `items[+].a=1 items[+].b=2` make one element).
  public func resolvingAppends(in document: JSONValue, appended: inout [String: Int]) -> Assignment {
    var resolved = self
    for position in appending.sorted() {
      let list = FilterExpression.Path(steps: Array(resolved.path.steps[..<position]))
      let index = appended[list.description] ?? list.values(in: document).first?.arrayValue?.count ?? 0
      appended[list.description] = index
      resolved.path.steps[position] = .index(index)
    }
    resolved.appending = []
    return resolved
  }

  /// Removes what `steps` reach in `target` (it is there: `apply` checked).
  static func remove(at steps: ArraySlice<FilterExpression.Path.Step>, in target: inout JSONValue) {
    guard let step = steps.first else { return }
    let last = steps.count == 1
    switch (step, target) {
    case (.member(let name), .object(var object)):
      if last {
        object[name] = nil
      } else if var child = object[name] {
        remove(at: steps.dropFirst(), in: &child)
        object[name] = child
      }
      target = .object(object)
    case (.index(let index), .array(var elements)) where index < elements.count:
      if last {
        elements.remove(at: index)
      } else {
        remove(at: steps.dropFirst(), in: &elements[index])
      }
      target = .array(elements)
    default:
      return
    }
  }

  func convert(to type: SchemaType?, sensitive: Bool = false) throws(Assignment.Problem) -> JSONValue {
    // What a message shows of the value: the text, or for a sensitive field that it is withheld.
    func quoted(_ text: String) -> String { sensitive ? "\(source)=«sensitive value not shown»" : "\(source)=\(text)" }
    switch value {
    case .remove: return .null  // never converted: `apply` removes before it converts
    case .json(let json): return json
    case .text(let text):
      guard let type else { return Self.guess(text) }
      switch type.kind {
      case .string, .date, .datetime, .uuid, .enumeration, .jsonString:
        return .string(text)
      case .integer, .decimal, .number:
        guard let number = JSONNumber(text) else {
          throw Problem("\(quoted(text)): expected a number")
        }
        return .number(number)
      case .boolean:
        switch text {
        case "true": return .bool(true)
        case "false": return .bool(false)
        default: throw Problem("\(quoted(text)): expected true or false")
        }
      case .list, .object, .map, .oneOf:
        throw Problem(
          "\(source) is a \(type.kind == .list ? "list" : "object"); it takes a JSON value", remedy: .giveJSON)
      case .any:
        return Self.guess(text)
      }
    }
  }

  /// Untyped text: JSON when it parses as JSON, else a string.
  static func guess(_ text: String) -> JSONValue {
    (try? JSONParser().parse(text)) ?? .string(text)
  }

  static func set(
    _ value: JSONValue, at steps: ArraySlice<FilterExpression.Path.Step>, in target: inout JSONValue, source: String
  )
    throws(Assignment.Problem)
  {
    guard let step = steps.first else {
      target = value
      return
    }
    switch step {
    case .member(let name):
      var object: JSONObject
      switch target {
      case .object(let existing): object = existing
      case .null: object = JSONObject()
      default: throw Problem("\(source): \"\(name)\" is inside a \(target.typeName), not an object")
      }
      var child = object[name] ?? .null
      try set(value, at: steps.dropFirst(), in: &child, source: source)
      object[name] = child
      target = .object(object)
    case .index(let index):
      // A list that does not exist yet starts empty, so items[0] creates it.
      if target == .null { target = .array([]) }
      guard case .array(var elements) = target else { throw Problem("\(source): not a list") }
      guard index <= elements.count else {
        let has = elements.isEmpty ? "is empty" : "has \(plural(elements.count, "element"))"
        throw Problem(
          kind: .usage,
          "\(source): index \(index) is past the end: the list \(has) (index \(elements.count) appends one)")
      }
      var child = index < elements.count ? elements[index] : .null
      try set(value, at: steps.dropFirst(), in: &child, source: source)
      if index < elements.count { elements[index] = child } else { elements.append(child) }
      target = .array(elements)
    case .each:
      throw Problem("\(source): [] cannot be set; name an index")
    }
  }
}
