import Foundation

/// One problem the validator found in a document, before it is placed in a file.
public struct Finding: Sendable, Equatable {
  public var pointer: JSONPointer
  public var rule: String
  public var message: String
  /// True when the position should be the member's key (unknown fields), not its value.
  public var atKey: Bool
  /// For a finding inside the text of a `json_string` value: the index (in Unicode scalars) in
  /// that text of what it is about, so the diagnostic points inside the string.
  public var inner: Int?
  /// The next step, when the finding has one (see ``Diagnostic/remedy``).
  public var remedy: Remedy?

  public init(
    pointer: JSONPointer, rule: String, message: String, atKey: Bool = false, inner: Int? = nil, remedy: Remedy? = nil
  ) {
    self.remedy = remedy
    self.pointer = pointer
    self.rule = rule
    self.message = message
    self.atKey = atKey
    self.inner = inner
  }
}

/// Checks a document against a schema and returns every finding, not only the first.
public struct Validator: Sendable {
  public let schema: Schema

  public init(schema: Schema) { self.schema = schema }

  /// Every finding for `document`: types and constraints, unknown fields, `unique` keys, rules.
  public func validate(_ document: JSONValue) -> [Finding] {
    var walk = Walk()
    if schema.approvals != nil { walk.reservedRoot.insert("_approvals") }
    if !schema.attachments.isEmpty { walk.reservedRoot.insert("_attachments") }
    walk.check(document, against: schema.root, parent: nil, isRoot: true)
    var findings = walk.findings
    if findings.isEmpty || !findings.contains(where: { $0.rule == "type" && $0.pointer == .root }) {
      for rule in schema.rules where rule.when?.evaluate(document) ?? true {
        if !rule.require.evaluate(document) {
          findings.append(
            Finding(
              pointer: Self.anchor(of: rule, in: document), rule: "rule",
              message: rule.message ?? "the rule `\(rule.source)` does not hold"))
        }
      }
      findings += referenceFindings(document)
      findings += derivedFindings(document)
      findings += attachmentFindings(document)
    }
    return findings
  }

  /// Each derived field whose value differs from what it is derived from, at its place.
  func derivedFindings(_ document: JSONValue) -> [Finding] {
    var out: [Finding] = []
    for derived in schema.derived {
      let sources = derived.sources(in: document)
      guard let source = sources.first else { continue }
      for (pointer, value) in derived.field.located(in: document)
      where !value.isNull && !FilterExpression.compare(value, .equal, source) {
        out.append(
          Finding(
            pointer: pointer, rule: "derived",
            message: derived.message
              ?? "\(JSONWriter.compact(value)) differs from \(derived.from), which is \(JSONWriter.compact(source))"))
      }
    }
    return out
  }

  /// Each value a `references:` path reaches that none of its target's values equals, at its place.
  func referenceFindings(_ document: JSONValue) -> [Finding] {
    var out: [Finding] = []
    for reference in schema.references {
      let allowed = reference.to.values(in: document)
      for (pointer, value) in reference.field.located(in: document) where !value.isNull && !allowed.contains(value) {
        let shown = allowed.prefix(5).map(JSONWriter.compact).joined(separator: ", ") + (allowed.count > 5 ? ", …" : "")
        out.append(
          Finding(
            pointer: pointer, rule: "reference",
            message: reference.message
              ?? "\(JSONWriter.compact(value)) is none of this document's \(reference.to) (\(allowed.isEmpty ? "there are none" : shown))"
          ))
      }
    }
    return out
  }

  /// Where a broken rule is reported: the first value its `require` reads that exists, else the
  /// first its `when` reads (the status that triggered it), else the document.
  static func anchor(of rule: Schema.Rule, in document: JSONValue) -> JSONPointer {
    for path in rule.require.paths + (rule.when?.paths ?? []) {
      var pointer = JSONPointer.root
      for step in path.steps {
        guard case .member(let name) = step else { break }
        pointer = pointer.appending(name)
      }
      if pointer != .root, document[pointer: pointer] != nil { return pointer }
    }
    return .root
  }

  /// Findings for one value against a type (also used by `schema check` to test defaults).
  public static func check(_ value: JSONValue, against type: SchemaType) -> [Finding] {
    var walk = Walk()
    walk.check(value, against: type, parent: nil)
    return walk.findings
  }
}

/// One pass over a document. The path is a stack of tokens, turned into a JSON Pointer only when a
/// finding is recorded, so a valid document costs no pointer allocations.
struct Walk {
  /// The reserved members a document's root may hold besides its fields.
  var reservedRoot: Set<String> = ["_schema"]
  var path: [String] = []
  var findings: [Finding] = []

  var pointer: JSONPointer { JSONPointer(tokens: path) }

  mutating func fail(_ rule: String, _ message: String) {
    findings.append(Finding(pointer: pointer, rule: rule, message: message))
  }

  mutating func check(_ value: JSONValue, against type: SchemaType, parent: JSONObject?, isRoot: Bool = false) {
    func expected(_ what: String) -> String { "expected \(what), found \(describe(value))" }
    switch type.kind {
    case .any:
      return
    case .string, .date, .datetime, .uuid, .enumeration:
      guard case .string(let s) = value else {
        return fail(
          "type", expected(type.kind == .enumeration ? "one of \(list(type.values))" : "a \(type.kind.rawValue)"))
      }
      checkString(s, type)
    case .integer, .decimal, .number:
      guard case .number(let n) = value else {
        return fail("type", expected(type.kind == .integer ? "an integer" : "a number"))
      }
      if type.kind == .integer && !n.isInteger { return fail("type", "expected an integer, found \(n.text)") }
      if let scale = type.scale, n.scale > scale {
        fail("scale", "\(n.text) has \(n.scale) digits after the point; at most \(scale) allowed")
      }
      if let minimum = type.minimum, n.compare(minimum) == .orderedAscending {
        fail("min", "\(n.text) is less than the minimum \(minimum.text)")
      }
      if let maximum = type.maximum, n.compare(maximum) == .orderedDescending {
        fail("max", "\(n.text) is greater than the maximum \(maximum.text)")
      }
    case .boolean:
      guard case .bool = value else { return fail("type", expected("true or false")) }
    case .list:
      guard case .array(let elements) = value else { return fail("type", expected("a list")) }
      if let minItems = type.minItems, elements.count < minItems {
        fail("min_items", "\(plural(elements.count, "item")); at least \(minItems) required")
      }
      if let maxItems = type.maxItems, elements.count > maxItems {
        fail("max_items", "\(elements.count) items; at most \(maxItems) allowed")
      }
      if let element = type.element {
        for (index, item) in elements.enumerated() {
          path.append(String(index))
          check(item, against: element, parent: nil)
          path.removeLast()
        }
      }
      if let keys = type.unique { checkUnique(elements, keys: keys) }
    case .map:
      guard case .object(let object) = value else { return fail("type", expected("an object")) }
      if let element = type.element {
        for member in object.members {
          path.append(member.key)
          check(member.value, against: element, parent: nil)
          path.removeLast()
        }
      }
    case .object:
      guard case .object(let object) = value else { return fail("type", expected("an object")) }
      checkObject(object, type, isRoot: isRoot)
    case .jsonString:
      guard case .string(let text) = value else { return fail("type", expected("a string holding JSON")) }
      checkJSONText(text, type)
    case .oneOf:
      let by = type.discriminator ?? ""
      guard case .string(let tag)? = parent?[by] ?? value[by] else {
        return fail(
          "one_of", "cannot tell which case applies: \(by) is missing; expected one of \(list(type.caseOrder))")
      }
      guard let chosen = type.cases[tag] else {
        return fail("one_of", "\(by) \"\(tag)\" has no case here; expected one of \(list(type.caseOrder))")
      }
      check(value, against: chosen, parent: parent)
    }
  }

  /// The text of a `json_string`: it must parse, and what it holds must match `of`. Findings
  /// inside it carry where in the text they are.
  mutating func checkJSONText(_ text: String, _ type: SchemaType) {
    let parsed: (JSONValue, JSONSourceMap)
    let bytes = Array(text.utf8)
    do {
      parsed = try JSONParser().parseWithSourceMap(bytes)
    } catch {
      return findings.append(
        Finding(
          pointer: pointer, rule: "json_string", message: "the text is not JSON: \(error.message)",
          inner: text.scalarIndex(of: error.location)))
    }
    guard let element = type.element else { return }
    var inside = Walk()
    inside.check(parsed.0, against: element, parent: nil)
    for finding in inside.findings {
      let place = finding.pointer.path.isEmpty ? "" : finding.pointer.path + ": "
      findings.append(
        Finding(
          pointer: pointer, rule: finding.rule, message: "in its JSON text: \(place)\(finding.message)",
          inner: parsed.1.scalarIndex(of: finding, in: bytes)))
    }
  }

  mutating func checkString(_ s: String, _ type: SchemaType) {
    switch type.kind {
    case .date:
      if CalendarDate(s) == nil { fail("date", "\(quoted(s)) is not a date (YYYY-MM-DD, a day that exists)") }
    case .datetime:
      if Instant.parseDateTime(s) == nil {
        fail("datetime", "\(quoted(s)) is not an RFC 3339 datetime with an offset (2026-11-22T03:48:14Z)")
      }
    case .uuid:
      if !isUUID(s) { fail("uuid", "\(quoted(s)) is not a UUID (8-4-4-4-12 hex digits)") }
    case .enumeration:
      if !type.values.contains(s) {
        let hint = didYouMean(s, among: type.values)
        fail("enum", "\(quoted(s)) is not one of \(list(type.values))\(hint)")
      }
    default:
      break
    }
    if type.minLength != nil || type.maxLength != nil {
      let length = s.unicodeScalars.count
      if let minLength = type.minLength, length < minLength {
        fail("min_length", "\(plural(length, "character")); at least \(minLength) required")
      }
      if let maxLength = type.maxLength, length > maxLength {
        fail("max_length", "\(length) characters; at most \(maxLength) allowed")
      }
    }
    if let pattern = type.pattern, !pattern.matches(s) {
      fail("pattern", "\(quoted(s)) does not match the pattern \(pattern.source)")
    }
  }

  mutating func checkObject(_ object: JSONObject, _ type: SchemaType, isRoot: Bool) {
    guard type.sortedFields.count == type.fields.count, type.requiredFields.count <= 64 else {
      return checkObjectByLookup(object, type, isRoot: isRoot)
    }
    // Members and fields are both in code-point order: one pass over each, no hashing.
    let table = type.sortedFields
    var next = 0
    var seen: UInt64 = 0
    for member in object.members {
      var field: SchemaType.SortedField?
      while next < table.count {
        let order = codePointCompare(table[next].name, member.key)
        if order > 0 { break }
        if order == 0 {
          let found = table[next]
          if found.required >= 0 { seen |= 1 << UInt64(found.required) }
          field = found
        }
        next += 1
        if order == 0 { break }
      }
      check(member, field.map { ($0.type, $0.nullable) }, in: object, type, isRoot: isRoot)
    }
    for (index, name) in type.requiredFields.enumerated() where seen & (1 << UInt64(index)) == 0 {
      fail("required", "missing required field \"\(name)\"")
    }
  }

  /// One member of an object against its field's type (nil: not a field of the type).
  mutating func check(
    _ member: JSONObject.Member, _ field: (type: SchemaType, nullable: Bool)?, in object: JSONObject,
    _ type: SchemaType,
    isRoot: Bool
  ) {
    if let field {
      if member.value.isNull && field.nullable { return }
      path.append(member.key)
      check(member.value, against: field.type, parent: object)
      path.removeLast()
    } else if !(isRoot && reservedRoot.contains(member.key)) && !type.additional {
      let hint = didYouMean(member.key, among: type.fieldOrder)
      findings.append(
        Finding(
          pointer: pointer.appending(member.key), rule: "unknown-field",
          message: "unknown field \"\(member.key)\"\(hint)", atKey: true))
    }
  }

  /// `checkObject` for a type that was not frozen: by dictionary lookup.
  mutating func checkObjectByLookup(_ object: JSONObject, _ type: SchemaType, isRoot: Bool) {
    for member in object.members {
      check(member, type.fields[member.key].map { ($0.type, $0.nullable) }, in: object, type, isRoot: isRoot)
    }
    for name in type.requiredFields where object[name] == nil {
      fail("required", "missing required field \"\(name)\"")
    }
  }

  mutating func checkUnique(_ elements: [JSONValue], keys: [String]) {
    if keys.count == 1 {
      // The common case: one key, so hash the values themselves rather than arrays of them.
      var seen: [JSONValue: Int] = [:]
      seen.reserveCapacity(elements.count)
      for (index, element) in elements.enumerated() {
        let key = element[keys[0]] ?? .null
        if let first = seen.updateValue(index, forKey: key) {
          seen[key] = first
          let base = pointer
          findings.append(
            Finding(
              pointer: base.appending(index: index).appending(keys[0]), rule: "unique",
              message: "duplicate \(keys[0])=\(JSONWriter.compact(key)) (also at \(base.appending(index: first).path))")
          )
        }
      }
      return
    }
    var seen: [[JSONValue]: Int] = [:]
    for (index, element) in elements.enumerated() {
      let key = keys.map { element[$0] ?? .null }
      if let first = seen[key] {
        let shown = zip(keys, key).map { "\($0)=\(JSONWriter.compact($1))" }.joined(separator: ", ")
        let base = pointer
        findings.append(
          Finding(
            pointer: base.appending(index: index).appending(keys[0]), rule: "unique",
            message: "duplicate \(shown) (also at \(base.appending(index: first).path))"))
      } else {
        seen[key] = index
      }
    }
  }
}

func describe(_ value: JSONValue) -> String {
  switch value {
  case .string(let s): return "the string \"\(s.count > 40 ? String(s.prefix(40)) + "…" : s)\""
  case .number(let n): return "the number \(n.text)"
  case .bool(let b): return b ? "true" : "false"
  case .null: return "null"
  case .array: return "a list"
  case .object: return "an object"
  }
}

func list(_ values: [String]) -> String {
  values.map { "\"\($0)\"" }.joined(separator: ", ")
}

func isUUID(_ s: String) -> Bool {
  let b = Array(s.utf8)
  guard b.count == 36 else { return false }
  for (k, byte) in b.enumerated() {
    if k == 8 || k == 13 || k == 18 || k == 23 {
      if byte != UInt8(ascii: "-") { return false }
    } else if !((48...57).contains(byte) || (97...102).contains(byte) || (65...70).contains(byte)) {
      return false
    }
  }
  return true
}

/// The closest candidate within a small edit distance, for "did you mean" hints.
public func suggestion(for word: String, among candidates: [String]) -> String? {
  // An edit distance of at most 3 to a name: nothing much longer than the longest name is close,
  // and a megabyte of text would cost seconds of work.
  guard word.utf8.count <= (candidates.map(\.utf8.count).max() ?? 0) + 3 else { return nil }
  let limit = max(1, min(3, word.count / 3))
  var best: (String, Int)?
  for candidate in candidates {
    let distance = editDistance(Array(word.lowercased().unicodeScalars), Array(candidate.lowercased().unicodeScalars))
    let prefix = candidate.hasPrefix(word) || word.hasPrefix(candidate) || isAbbreviation(word, of: candidate)
    let score = prefix && min(word.count, candidate.count) >= 3 ? min(distance, limit) : distance
    if score <= limit && score < (best?.1 ?? Int.max) { best = (candidate, score) }
  }
  return best?.0
}

/// `qty` of `quantity`: same first letter, every letter in order.
func isAbbreviation(_ short: String, of long: String) -> Bool {
  let a = Array(short.lowercased())
  let b = Array(long.lowercased())
  guard a.count >= 2, a.count < b.count, a.first == b.first else { return false }
  var k = 0
  for c in b where k < a.count && c == a[k] { k += 1 }
  return k == a.count
}

func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
  // Levenshtein with adjacent transpositions counted as one edit (`lsit` → `list`, `stauts` → `status`).
  if a.isEmpty { return b.count }
  if b.isEmpty { return a.count }
  var beforePrevious = Array(0...b.count)
  var previous = Array(0...b.count)
  for i in 1...a.count {
    var current = [i] + Array(repeating: 0, count: b.count)
    for j in 1...b.count {
      current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
      if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
        current[j] = min(current[j], beforePrevious[j - 2] + 1)
      }
    }
    beforePrevious = previous
    previous = current
  }
  return previous[b.count]
}
