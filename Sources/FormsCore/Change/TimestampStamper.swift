/// Maintains timestamps at every level (docs/design.md §12): the document's, and those a named type
/// declares with `timestamps: {updated: FIELD}` (purchase-order items, invoices, receipts).
///
/// An object is matched with its counterpart in the stored document by member name, in a list by
/// the list's `unique` key (else by index), in a map by key. An object that differs from its
/// counterpart (anything inside it, its own lists included) gets its `updated` field set to the
/// write time, and so does every object around it up to the document.
public struct TimestampStamper: Sendable {
  /// What a write does to the stamps of objects it touches.
  public enum Mode: Sendable {
    /// A person's or the store's change: changed and new objects get the write time.
    case refresh
    /// A new document, or a feed's record: only missing stamps are filled; given ones are kept.
    case fillMissing
    /// A change from a writer that may keep stamps itself (another clone, through sync): a
    /// changed object whose stamp the writer left as stored gets the write time; a stamp the
    /// writer changed is its own and kept, so clones that exchange a change agree on its time.
    case refreshUnlessGiven
  }

  /// The write time, RFC 3339 in UTC (`2026-11-22T05:37:08Z`); a `date` field gets its day.
  public let time: String
  public let mode: Mode

  public init(time: String, mode: Mode) {
    self.time = time
    self.mode = mode
  }

  /// Stamps `value` (of `type`) against `before`, its stored counterpart (nil when it is new).
  public func stamp(_ value: inout JSONValue, before: JSONValue?, type: SchemaType) {
    stamp(&value, before: before, type: type, parent: nil)
  }

  func stamp(_ value: inout JSONValue, before: JSONValue?, type declared: SchemaType, parent: JSONValue?) {
    let type = declared.resolved(parent: parent, value: value)
    switch (type.kind, value) {
    case (.object, .object(var object)):
      let original = value
      for name in type.fieldOrder {
        guard let field = type.fields[name], var child = object[name] else { continue }
        stamp(&child, before: before?[name], type: field.type, parent: original)
        object[name] = child
      }
      if let updated = type.timestamps.updated {
        switch mode {
        case .refresh:
          if before.map({ $0 != original }) ?? true { object[updated] = stampValue(for: updated, in: type) }
        case .fillMissing: if object[updated] == nil { object[updated] = stampValue(for: updated, in: type) }
        case .refreshUnlessGiven:
          let given = object[updated] != nil && object[updated] != before?[updated]
          if !given, before.map({ $0 != original }) ?? true { object[updated] = stampValue(for: updated, in: type) }
        }
      }
      if let created = type.timestamps.created, before == nil, object[created] == nil {
        object[created] = stampValue(for: created, in: type)
      }
      value = .object(object)
    case (.list, .array(var elements)):
      guard let element = type.element else { return }
      let stored = before?.arrayValue ?? []
      for index in elements.indices {
        let counterpart =
          type.unique == nil
          ? (index < stored.count ? stored[index] : nil) : type.keyedCounterpart(of: elements[index], in: stored)
        stamp(&elements[index], before: counterpart, type: element, parent: value)
      }
      value = .array(elements)
    case (.map, .object(var object)):
      guard let element = type.element else { return }
      for key in object.keys {
        guard var child = object[key] else { continue }
        stamp(&child, before: before?[key], type: element, parent: value)
        object[key] = child
      }
      value = .object(object)
    default:
      break
    }
  }

  func stampValue(for field: String, in type: SchemaType) -> JSONValue {
    .string(type.fields[field]?.type.kind == .date ? String(time.prefix(10)) : time)
  }
}
