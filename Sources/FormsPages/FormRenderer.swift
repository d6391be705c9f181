import FormsCore

/// The inputs of a document's form, generated from its descriptor: a widget per type, only the
/// fields people may edit as inputs (the rest shown), required fields marked, and each
/// diagnostic beside the field it is about.
public struct FormRenderer: Sendable {
  /// The choices of a relation field: ids of the target kind with their titles.
  public struct Choices: Sendable {
    public var kind: String
    public var options: [(id: String, title: String)]
    public init(kind: String, options: [(id: String, title: String)]) {
      self.kind = kind
      self.options = options
    }
  }

  public let schema: Schema
  /// The document as stored (nil: a new one), for what `editable:` allows.
  public let stored: JSONValue?
  public var raw: [String: String] = [:]
  public var diagnostics: [Diagnostic] = []
  public var choices: [String: Choices] = [:]
  /// Top-level fields holding sealed values the server cannot open: shown sealed, never inputs.
  public var sealed: Set<String> = []
  /// What to type where a template left a placeholder, by pointer.
  public var hints: [String: String] = [:]

  public init(schema: Schema, stored: JSONValue?) {
    self.schema = schema
    self.stored = stored
  }

  /// Where a diagnostic belongs: a missing required field at the field, not at its parent.
  public static func place(_ diagnostic: Diagnostic) -> JSONPointer {
    let prefix = "missing required field \""
    if diagnostic.rule == "required", diagnostic.message.hasPrefix(prefix), diagnostic.message.hasSuffix("\"") {
      return diagnostic.pointer.appending(String(diagnostic.message.dropFirst(prefix.count).dropLast()))
    }
    return diagnostic.pointer
  }

  /// The fields of `draft`, in the descriptor's order.
  public func fields(of draft: JSONValue) -> HTML {
    let placed = Dictionary(grouping: diagnostics, by: { Self.place($0).description })
    var html: HTML = ""
    // What the form cannot place (a rule about the whole document) is listed first.
    let known = Set(allPointers(schema.root, draft, .root))
    let unplaced = diagnostics.filter { !known.contains(Self.place($0).description) }
    if !unplaced.isEmpty { html += Self.problemList(unplaced) }
    html += object(schema.root, value: draft, at: .root, placed: placed, newElement: false)
    return html
  }

  func allPointers(_ type: SchemaType, _ value: JSONValue?, _ pointer: JSONPointer) -> [String] {
    var out = [pointer.description]
    for name in type.fieldOrder {
      guard let field = type.fields[name] else { continue }
      let resolved = field.type.resolved(parent: value, value: value?[name])
      let at = pointer.appending(name)
      if resolved.kind == .object {
        out += allPointers(resolved, value?[name], at)
      } else if resolved.kind == .list, let element = resolved.element,
        element.kind == .object || element.kind == .oneOf
      {
        out.append(at.description)
        for (index, item) in (value?[name]?.arrayValue ?? []).enumerated() {
          out += allPointers(element.resolved(parent: nil, value: item), item, at.appending(index: index))
        }
      } else {
        out.append(at.description)
      }
    }
    return out
  }

  /// Diagnostics as a list, each with its pointer, message and rule.
  public static func problemList(_ diagnostics: [Diagnostic]) -> HTML {
    let items = diagnostics.map { diagnostic -> HTML in
      let at = diagnostic.pointer == .root ? "" : diagnostic.pointer.description + ": "
      return "<li>\(at)\(diagnostic.message) <span class=\"rule\">[\(diagnostic.rule)]</span></li>"
    }
    return "<ul class=\"problems\" role=\"alert\">\(items.joined())</ul>"
  }

  func object(
    _ type: SchemaType, value: JSONValue?, at pointer: JSONPointer, placed: [String: [Diagnostic]], newElement: Bool
  ) -> HTML {
    var html: HTML = ""
    for name in type.fieldOrder {
      guard let field = type.fields[name] else { continue }
      html += self.field(field, parent: value, at: pointer.appending(name), placed: placed, newElement: newElement)
    }
    return html
  }

  /// May a person change the value at `pointer` (member names from the root)?
  func isEditable(_ pointer: JSONPointer, newElement: Bool) -> Bool {
    if pointer.tokens.first?.hasPrefix("_") == true { return false }
    if pointer.tokens.count == 1, let top = pointer.tokens.first {
      if top == schema.timestamps.created || top == schema.timestamps.updated || top == schema.workflow?.field {
        return false
      }
      if top == schema.idField && stored != nil { return false }
      // What a complete approval chain fills in (who approved it, and when) is the signature's to write.
      if let fills = schema.approvals?.fills, top == fills.by || top == fills.on { return false }
      if sealed.contains(top) { return false }
    }
    guard let editable = schema.editable else { return true }
    let members = pointer.tokens.filter { Int($0) == nil }
    return editable.contains { path in
      members.starts(with: path.members) && (!path.appendOnly || newElement || members.count == path.members.count)
    }
  }

  func field(
    _ field: Field, parent: JSONValue?, at pointer: JSONPointer, placed: [String: [Diagnostic]], newElement: Bool
  )
    -> HTML
  {
    let value = parent?[field.name]
    let type = field.type.resolved(parent: parent, value: value)
    let key = pointer.description
    let required = !field.optional && field.defaultValue == nil
    let mark: HTML = required ? " <abbr class=\"required\" title=\"required\">*</abbr>" : ""
    let help: HTML = field.description.map { "<small class=\"help\">\($0)</small>" } ?? ""
    let problems = placed[key].map(Self.fieldProblems) ?? .empty
    let invalid: HTML = placed[key] == nil ? "" : " aria-invalid=\"true\""
    let label = Self.label(field.name)
    switch type.kind {
    case _ where (type.kind == .object || type.kind == .list) && raw[key] != nil:
      // JSON typed for the whole object that did not parse: shown again as typed, to fix.
      return """
        <div class="field" data-pointer="\(key)"><label for="f\(key)">\(label)\(mark)</label>\
        <textarea id="f\(key)" name="\(key)" rows="4" class="json" spellcheck="false"\(invalid)>\(raw[key] ?? "")</textarea>\
        \(help)\(problems)</div>
        """
    case .object:
      return """
        <fieldset class="object" data-pointer="\(key)"><legend>\(label)\(mark)</legend>\(problems)\
        \(object(type, value: value, at: pointer, placed: placed, newElement: newElement))</fieldset>
        """
    case .list where type.element?.kind == .object || type.element?.kind == .oneOf:
      return list(field, type: type, value: value, at: pointer, placed: placed, mark: mark, problems: problems)
    default:
      let editable = isEditable(pointer, newElement: newElement)
      let widget =
        editable
        ? input(type, field: field, value: value, key: key, invalid: invalid, required: required)
        : shown(value, top: pointer.tokens.first)
      return """
        <div class="field" data-pointer="\(key)"><label for="f\(key)">\(label)\(mark)</label>\
        \(widget)\(help)\(problems)</div>
        """
    }
  }

  func shown(_ value: JSONValue?, top: String?) -> HTML {
    if let top, sealed.contains(top) { return "<span class=\"value sealed\">sealed</span>" }
    guard let value else { return "<span class=\"value missing\">—</span>" }
    return "<span class=\"value\">\(HTML.value(value))</span>"
  }

  static func fieldProblems(_ diagnostics: [Diagnostic]) -> HTML {
    let items = diagnostics.map { "<li>\($0.message) <span class=\"rule\">[\($0.rule)]</span></li>" as HTML }
    return "<ul class=\"field-problems\" role=\"alert\">\(items.joined())</ul>"
  }

  /// "delivery_note" → "Delivery note".
  public static func label(_ name: String) -> String {
    let words = name.replacingUnderscores
    return words.prefix(1).uppercased() + words.dropFirst()
  }

  func input(_ type: SchemaType, field: Field, value: JSONValue?, key: String, invalid: HTML, required: Bool) -> HTML {
    let hint: HTML = hints[key].map { " placeholder=\"\($0)\" required" } ?? ""
    let id: HTML = "id=\"f\(key)\" name=\"\(key)\"\(invalid)\(hint)"
    let text = raw[key] ?? value.map(Self.inputText) ?? ""
    switch type.kind {
    case .enumeration:
      let empty: HTML = required ? "" : "<option value=\"\"></option>"
      let options = type.values.map { option -> HTML in
        let selected: HTML = option == text ? " selected" : ""
        return "<option value=\"\(option)\"\(selected)>\(option)</option>"
      }
      // A value the descriptor does not list is kept (and shown), so that saving does not change it.
      let other: HTML =
        !text.isEmpty && !type.values.contains(text) ? "<option value=\"\(text)\" selected>\(text)</option>" : ""
      return "<select \(id)>\(empty)\(options.joined())\(other)</select>"
    case .boolean:
      let options = (required ? ["true", "false"] : ["", "true", "false"]).map { option -> HTML in
        let selected: HTML = option == text ? " selected" : ""
        return "<option value=\"\(option)\"\(selected)>\(option.isEmpty ? "—" : option)</option>"
      }
      return "<select \(id)>\(options.joined())</select>"
    case .date:
      return "<input type=\"date\" \(id) value=\"\(text)\">"
    case .datetime:
      return "<input type=\"text\" \(id) value=\"\(text)\" placeholder=\"2026-01-31T09:00:00Z\" class=\"datetime\">"
    case .integer:
      return "<input type=\"text\" inputmode=\"numeric\" \(id) value=\"\(text)\" class=\"number\">"
    case .decimal, .number:
      return "<input type=\"text\" inputmode=\"decimal\" \(id) value=\"\(text)\" class=\"number\">"
    case .string where key.dropFirst().contains("/") == false && schema.relations.contains { $0.field == field.name }:
      let choices = self.choices[field.name]
      let listID = "choices-\(field.name)"
      let options = (choices?.options ?? []).map { option -> HTML in
        "<option value=\"\(option.id)\">\(option.title)</option>"
      }
      let lookup = choices.map { HTML(" data-lookup=\"\(Link(["lookup", $0.kind]))\"") } ?? ""
      return """
        <input type="text" \(id) value="\(text)" list="\(listID)" autocomplete="off"\(lookup)>\
        <datalist id="\(listID)">\(options.joined())</datalist>
        """
    case .string where (type.maxLength ?? 0) > 200:
      return "<textarea \(id) rows=\"4\">\(text)</textarea>"
    case .string, .uuid:
      return "<input type=\"text\" \(id) value=\"\(text)\">"
    case .jsonString:
      return "<textarea \(id) rows=\"4\" class=\"json\" spellcheck=\"false\">\(text)</textarea>"
    default:
      // Maps, lists of values, `any`: the value as JSON text, checked as JSON on save.
      let json = raw[key] ?? value.map { String(decoding: JSONWriter.canonical($0), as: UTF8.self) } ?? ""
      return "<textarea \(id) rows=\"4\" class=\"json\" spellcheck=\"false\">\(json)</textarea>"
    }
  }

  /// A value as an input shows it: text as it is, a number's digits as written.
  static func inputText(_ value: JSONValue) -> String {
    switch value {
    case .string(let text): text
    case .number(let number): number.text
    case .bool(let flag): flag ? "true" : "false"
    case .null: ""
    default: JSONWriter.compact(value)
    }
  }

  func list(
    _ field: Field, type: SchemaType, value: JSONValue?, at pointer: JSONPointer, placed: [String: [Diagnostic]],
    mark: HTML, problems: HTML
  ) -> HTML {
    let key = pointer.description
    let element = type.element ?? type
    let elements = value?.arrayValue ?? []
    let storedCount = pointer.tokens.count == 1 ? stored?[field.name]?.arrayValue?.count ?? 0 : Int.max
    let canAdd = isEditable(pointer.appending(index: elements.count), newElement: true)
    var rows: HTML = ""
    for (index, item) in elements.enumerated() {
      let at = pointer.appending(index: index)
      let isNew = stored == nil || index >= storedCount
      let editable = isEditable(at, newElement: isNew)
      let original = isNew ? "" : String(index)
      let remove: HTML =
        editable
        ? "<button type=\"submit\" name=\"_action\" value=\"remove \(at.description)\" class=\"remove\" formnovalidate>Remove row</button>"
        : ""
      rows += """
        <fieldset class="row" data-pointer="\(at.description)"><legend>\(Self.label(field.name)) \(index + 1)</legend>\
        <input type="hidden" name="\(at.description + FormDecoder.rowSuffix)" value="\(original)">\
        \(placed[at.description].map(Self.fieldProblems) ?? .empty)\
        \(object(element.resolved(parent: nil, value: item), value: item, at: at, placed: placed, newElement: isNew))\(remove)</fieldset>
        """
    }
    let add: HTML =
      canAdd
      ? "<button type=\"submit\" name=\"_action\" value=\"add \(key)\" class=\"add\" formnovalidate>Add a row</button>"
      : ""
    return """
      <fieldset class="list" data-pointer="\(key)"><legend>\(Self.label(field.name))\(mark)</legend>\
      <input type="hidden" name="\(key + FormDecoder.listSuffix)" value="">\(problems)\(rows)\(add)</fieldset>
      """
  }
}

extension String {
  var replacingUnderscores: String { String(map { $0 == "_" ? " " : $0 }) }
}
