/// A path of the descriptor's `editable:` list: a field (and everything inside it) people may
/// change, or with `[+]`, a list people may only add elements to (`items[+]`).
public struct EditablePath: Sendable, Equatable, CustomStringConvertible {
  /// Member names from the document down.
  public let members: [String]
  /// True for `list[+]`: elements may be appended; the ones there stay as they are.
  public let appendOnly: Bool

  /// Parses `delivery_note`, `metadata.note`, `items[+]`; nil when it is none of these.
  public init?(_ text: String) {
    appendOnly = text.hasSuffix("[+]")
    let body = appendOnly ? String(text.dropLast(3)) : text
    let parts = body.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    guard !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty && !$0.contains("[") && !$0.contains("]") }) else {
      return nil
    }
    members = parts
  }

  public var description: String { members.joined(separator: ".") + (appendOnly ? "[+]" : "") }

  /// The field path, for checking it against the descriptor.
  public var path: FilterExpression.Path { FilterExpression.Path(steps: members.map { .member($0) }) }

  /// True when this path lets a person make the change at `pointer` (one of `changedPointers`).
  /// `before` is the stored document (nil for a new one).
  func allows(_ pointer: JSONPointer, before: JSONValue?) -> Bool {
    let tokens = pointer.tokens
    guard tokens.count >= members.count, Array(tokens.prefix(members.count)) == members else { return false }
    guard appendOnly else { return true }
    let listPointer = JSONPointer(tokens: members)
    let existing = before?[pointer: listPointer]?.arrayValue
    // The whole list, new (a new document, or a list that did not exist): all its elements are added.
    if tokens.count == members.count { return existing == nil }
    // An element past the end of the stored list: added.
    guard let index = Int(tokens[members.count]) else { return false }
    return index >= (existing?.count ?? 0)
  }
}

extension ChangeRules {
  /// The changes from `old` (nil: a new document) to `new` that the descriptor's `editable:` does
  /// not let people make; none when it has no `editable:`. The id, `_schema`, the updated
  /// timestamp and a new document's created one are formsctl's to write, not people's changes
  /// (a stored document's created timestamp is a field like any other: changing it is a change);
  /// `_attachments` is not a field: the descriptor's `attachments:` says what people attach (and
  /// only `attach` and `detach` change it); nor is `_approvals`: its records are signed, only
  /// grow, and are judged by the approvals step (a submission must be able to add one).
  public static func notEditable(old: JSONValue?, new: JSONValue, schema: Schema) -> [JSONPointer] {
    guard let editable = schema.editable else { return [] }
    let created = old == nil ? schema.timestamps.created : nil
    let exempt = Set(["_schema", schema.idField, created, schema.timestamps.updated].compactMap { $0 })
    let changed: [JSONPointer]
    if let old {
      changed = old.changedPointers(to: new)
    } else {
      changed = (new.objectValue?.keys ?? []).map { JSONPointer.root.appending($0) }
    }
    return changed.filter { pointer in
      guard let first = pointer.tokens.first, !(pointer.tokens.count == 1 && exempt.contains(first)),
        first != "_attachments", first != "_approvals"
      else {
        return false
      }
      return !editable.contains { $0.allows(pointer, before: old) }
    }
  }
}
