import FormsCore

/// One record of the audit log as its readers use it: who, when, which operation, and per
/// document what changed (or, for an access record, what was read; for a signature, its step).
/// ``json`` is the record as the log holds it (narrowed by a query), which `--format json` prints
/// unchanged; the typed members are read from it once. A member the record lacks, or holds in
/// another shape (a hand-edited line, a record from before the log named documents), is nil, and
/// an element of `documents` or `access` that is not an entry is kept in ``unreadable``.
public struct AuditRecord: Sendable {
  /// An approval or a rejection, as its audit record names it (the document keeps the signature).
  public struct Approval: Sendable, Equatable {
    public var action: String?
    public var step: String?
    public var role: String?
    public var signer: String?
    public var comment: String?
  }

  public let json: JSONValue
  public let time: String?
  public let user: String?
  public let operation: String?
  public let command: String?
  /// The documents a change touched; nil for an access record, or a record from before the log
  /// named documents.
  public let documents: [AuditEntry]?
  /// The sealed values an access record says were read; nil for a change.
  public let access: [AccessEntry]?
  public let approval: Approval?
  /// Elements of `documents` or `access` that are not entries, as the log holds them.
  public let unreadable: [JSONValue]

  public init(_ json: JSONValue) {
    self.json = json
    func text(_ name: String) -> String? { json[name]?.stringValue }
    time = text("time")
    user = text("user")
    operation = text("operation")
    command = text("command")
    var unreadable: [JSONValue] = []
    func entries<Item>(_ name: String, _ read: (JSONValue) -> Item?) -> [Item]? {
      guard case .array(let elements)? = json[name] else { return nil }
      return elements.compactMap { element in
        guard let entry = read(element) else {
          unreadable.append(element)
          return nil
        }
        return entry
      }
    }
    documents = entries("documents", AuditEntry.init(json:))
    access = entries("access", AccessEntry.init(json:))
    self.unreadable = unreadable
    approval = json["approval"].map { approval in
      Approval(
        action: approval["action"]?.stringValue, step: approval["step"]?.stringValue,
        role: approval["role"]?.stringValue, signer: approval["signer"]?.stringValue,
        comment: approval["comment"]?.stringValue)
    }
  }

  /// True for a record of reads of sealed values (`formsctl log --access`).
  public var isAccess: Bool { operation == AuditLog.accessOperation }
}

extension AuditEntry {
  /// The entry `json` holds (as ``json`` writes it); nil when it is not one.
  public init?(json: JSONValue) {
    guard let kind = json["kind"]?.stringValue, let id = json["id"]?.stringValue,
      let action = json["action"]?.stringValue.flatMap(Action.init(rawValue:)),
      let pointers = Self.pointers(json["pointers"])
    else { return nil }
    self.init(
      kind: kind, id: id, action: action, pointers: pointers, from: json["from"]?.stringValue,
      to: json["to"]?.stringValue, previousID: json["previous_id"]?.stringValue)
  }

  /// A list of JSON Pointers as the log writes them; nil when any is not one.
  static func pointers(_ json: JSONValue?) -> [JSONPointer]? {
    guard let elements = json?.arrayValue else { return nil }
    var out: [JSONPointer] = []
    for element in elements {
      guard let text = element.stringValue, let pointer = JSONPointer(text) else { return nil }
      out.append(pointer)
    }
    return out
  }
}

extension AccessEntry {
  /// The entry `json` holds (as ``json`` writes it); nil when it is not one.
  public init?(json: JSONValue) {
    guard let kind = json["kind"]?.stringValue, let id = json["id"]?.stringValue,
      let pointers = AuditEntry.pointers(json["pointers"])
    else { return nil }
    self.init(kind: kind, id: id, pointers: pointers)
  }
}
