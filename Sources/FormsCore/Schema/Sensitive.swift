import Foundation

/// The text of a sensitive value on disk: `enc:v1:` and the base64 of the sealed value (the format
/// is in docs/decisions/0040-sealed-value-envelope.md; FormsStore seals and opens it).
public enum SealedText {
  public static let prefix = "enc:v1:"
  /// The pattern JSON Schema exports for a sensitive field.
  public static let pattern = "^enc:v1:[A-Za-z0-9+/]+={0,2}$"
  /// What reading commands show for a value they cannot open.
  public static let placeholder = "\u{AB}encrypted\u{BB}"
  /// What the audit log's command line holds in place of a sensitive value.
  public static let redacted = "\u{AB}redacted\u{BB}"

  /// True when `value` is a string that starts like an envelope.
  public static func isSealed(_ value: JSONValue) -> Bool { value.stringValue?.hasPrefix(prefix) ?? false }

  static var jsonSchema: JSONValue {
    .object(
      JSONObject([
        "type": .string("string"), "pattern": .string(pattern),
        "description": .string(
          "sensitive: stored encrypted as an enc:v1 envelope (formsctl shows key holders the value)"),
      ]))
  }
}

/// Where a document holds values of `sensitive: true` fields, which the store keeps encrypted.
extension SchemaType {
  /// True when the field at `members` (declared objects only), or one it lies in, is sensitive.
  public func isSensitive(at members: [String]) -> Bool {
    var type = self
    for member in members {
      guard let field = type.alternatives.lazy.compactMap({ $0.fields[member] }).first else { return false }
      if field.sensitive { return true }
      type = field.type
    }
    return false
  }

  /// `feed` with each sensitive value given as the placeholder (what a reading without the key
  /// shows) replaced by the envelope `stored` holds at the same place, so that a record brought
  /// back as it was shown compares equal to the stored document. A placeholder with no envelope
  /// there stays, for the write path to refuse.
  public func restoringSealed(in feed: JSONValue, from stored: JSONValue) -> JSONValue {
    var out = feed
    for pointer in sensitiveLocations(in: feed) where feed[pointer: pointer] == .string(SealedText.placeholder) {
      if let envelope = stored[pointer: pointer], SealedText.isSealed(envelope) {
        out.replace(at: pointer, with: envelope)
      }
    }
    return out
  }

  /// The pointers of the values of sensitive fields in `value` (present and not null), outermost
  /// only: a sensitive structure is one value, whatever it holds.
  public func sensitiveLocations(in value: JSONValue) -> [JSONPointer] {
    var out: [JSONPointer] = []
    collectSensitive(value, at: .root, parent: nil, into: &out)
    return out
  }

  func collectSensitive(_ value: JSONValue, at pointer: JSONPointer, parent: JSONValue?, into out: inout [JSONPointer])
  {
    let type = resolved(parent: parent, value: value)
    switch (type.kind, value) {
    case (.object, .object(let object)):
      for member in object.members {
        guard let field = type.fields[member.key] else { continue }
        let here = pointer.appending(member.key)
        if field.sensitive {
          if !member.value.isNull { out.append(here) }
        } else {
          field.type.collectSensitive(member.value, at: here, parent: value, into: &out)
        }
      }
    case (.list, .array(let elements)):
      for (index, element) in elements.enumerated() {
        type.element?.collectSensitive(element, at: pointer.appending(index: index), parent: nil, into: &out)
      }
    case (.map, .object(let object)):
      for member in object.members {
        type.element?.collectSensitive(member.value, at: pointer.appending(member.key), parent: nil, into: &out)
      }
    default:
      break
    }
  }
}

extension Schema {
  /// The values `document` holds in plain text where this schema keeps them sealed: read with
  /// every version of a kind, it finds what a snapshot taken before a field became sensitive (or
  /// before `keys reseal`) still exposes.
  public func plaintextSensitive(in document: JSONValue) -> [JSONPointer] {
    guard hasSensitiveFields else { return [] }
    return root.sensitiveLocations(in: document).filter { pointer in
      document[pointer: pointer].map { !SealedText.isSealed($0) } ?? false
    }
  }
}

extension Finding {
  /// The finding with its message withheld when it is about a sensitive value (messages quote
  /// values: `"J. Alvarez" does not match...`), so no diagnostic carries a secret.
  public func withholdingValue(under sensitive: [JSONPointer]) -> Finding {
    guard sensitive.contains(where: { $0.isPrefix(of: pointer) }) else { return self }
    var out = self
    out.message = "a sensitive value breaks its \(rule) rule (the details are not shown, as they would show the value)"
    out.inner = nil
    return out
  }
}

extension [Finding] {
  /// Findings of a document whose sensitive values may still be sealed: those about a sealed
  /// value (or inside it) are dropped, as the envelope is not the value, and those about an
  /// opened one have their message withheld.
  public func aboutSensitive(in document: JSONValue, schema: Schema) -> [Finding] {
    guard schema.hasSensitiveFields, !isEmpty else { return self }
    let locations = schema.root.sensitiveLocations(in: document)
    let sealed = locations.filter { document[pointer: $0].map(SealedText.isSealed) == true }
    return filter { finding in !sealed.contains { $0.isPrefix(of: finding.pointer) } }.map {
      $0.withholdingValue(under: locations)
    }
  }
}

extension JSONPointer {
  /// True when `other` is this pointer or lies under it.
  public func isPrefix(of other: JSONPointer) -> Bool {
    other.tokens.count >= tokens.count && Array(other.tokens.prefix(tokens.count)) == tokens
  }
}

extension JSONValue {
  /// Replaces the value at `pointer` (which must exist) with `replacement`.
  public mutating func replace(at pointer: JSONPointer, with replacement: JSONValue) {
    replace(pointer.tokens[...], with: replacement)
  }

  private mutating func replace(_ tokens: ArraySlice<String>, with replacement: JSONValue) {
    guard let first = tokens.first else {
      self = replacement
      return
    }
    switch self {
    case .object(var object):
      guard var member = object[first] else { return }
      self = .null  // drop this reference so the member is changed in place
      member.replace(tokens.dropFirst(), with: replacement)
      object[first] = member
      self = .object(object)
    case .array(var elements):
      guard let index = Int(first), elements.indices.contains(index) else { return }
      self = .null
      elements[index].replace(tokens.dropFirst(), with: replacement)
      self = .array(elements)
    default:
      return
    }
  }
}

extension SchemaType {
  /// The names of the sensitive fields this type holds, at any depth (for redacting command lines).
  public func sensitiveFieldNames() -> Set<String> {
    var visited = Set<ObjectIdentifier>()
    var names = Set<String>()
    collectSensitiveNames(into: &names, visited: &visited)
    return names
  }

  func collectSensitiveNames(into names: inout Set<String>, visited: inout Set<ObjectIdentifier>) {
    guard visited.insert(ObjectIdentifier(self)).inserted else { return }
    for field in fields.values {
      if field.sensitive { names.insert(field.name) }
      field.type.collectSensitiveNames(into: &names, visited: &visited)
    }
    for type in [element].compactMap({ $0 }) + cases.values {
      type.collectSensitiveNames(into: &names, visited: &visited)
    }
  }
}

/// Command-line words with sensitive values taken out, for the audit log: `name=VALUE` (or
/// `--set=name=VALUE`) whose path names a sensitive field keeps its path, and any other word that
/// names one (a `--where` expression) is replaced whole.
public func redactingSensitive(_ words: [String], names: Set<String>) -> [String] {
  guard !names.isEmpty else { return words }
  return words.map { word in
    guard names.contains(where: { word.contains($0) }) else { return word }
    let parts = word.split(separator: "=", maxSplits: 2, omittingEmptySubsequences: false)
    if parts.count >= 2, !parts[0].hasPrefix("-"), !parts[0].contains(" ") {
      return parts[0] + "=" + SealedText.redacted
    }
    if parts.count == 3, parts[0] == "--set", !parts[1].contains(" ") {
      return "--set=" + parts[1] + "=" + SealedText.redacted
    }
    return SealedText.redacted
  }
}

/// The command line as the audit log records it: `formsctl set form 3f2c 'note=a b'`, each word
/// quoted for a POSIX shell when it needs to be, the values of sensitive fields (`names`)
/// replaced by «redacted».
public func auditCommandLine(_ arguments: [String], redacting names: Set<String> = []) -> String {
  (["formsctl"] + redactingSensitive(arguments, names: names)).map { argument in
    let plain =
      !argument.isEmpty
      && argument.unicodeScalars.allSatisfy {
        ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
          || "-_./=:,@%+[]".unicodeScalars.contains($0)
      }
    return plain ? argument : "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }.joined(separator: " ")
}
