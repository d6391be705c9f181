import FormsCore
import Foundation

/// The sealed values of one document that a command showed in plain text.
public struct AccessEntry: Sendable, Equatable {
  public var kind: String
  public var id: String
  /// Where the values were (JSON Pointers into the document).
  public var pointers: [JSONPointer]

  public init(kind: String, id: String, pointers: [JSONPointer]) {
    self.kind = kind
    self.id = id
    self.pointers = pointers
  }

  /// `{kind, id, pointers}`.
  public var json: JSONValue {
    .object(
      JSONObject([
        "kind": .string(kind), "id": .string(id), "pointers": .array(pointers.map { .string($0.description) }),
      ]))
  }
}

extension AuditLog {
  /// The operation name of an access record.
  public static let accessOperation = "access"

  /// The record of one command's reads of sealed values: `time`, `user`, `operation` (`access`),
  /// `command`, `access` (no `documents`: nothing changed).
  public static func accessRecord(time: Date, user: String, command: String, entries: [AccessEntry]) -> [UInt8] {
    let object = JSONObject([
      "time": .string(Instant(time).rfc3339), "user": .string(user), "operation": .string(accessOperation),
      "command": .string(command), "access": .array(entries.map(\.json)),
    ])
    return Array((JSONWriter.compact(.object(object)) + "\n").utf8)
  }
}

extension Store {
  /// What `get` shows of the document `id`: the whole document, or the values at `field`, with
  /// sealed values opened for a key holder (the access record written before they are returned).
  /// A field the document lacks, or whose values stay sealed, is refused: a placeholder is not
  /// the value, and a script must not take «encrypted» for data.
  public func shownValues(kind: String, id: String, field: FilterExpression.Path?) throws(StoreError) -> [JSONValue] {
    guard let field else { return [shown(try readToShow(kind: kind, id: id))] }
    let read = try read(kind: kind, id: id)
    let values = field.values(in: shown(read))
    guard !values.isEmpty else { throw .refused(.noSuchField(kind: kind, id: id, field: field.description)) }
    if field.values(in: read.value).contains(where: SealedText.isSealed) {
      throw .refused(.sealedField(kind: kind, id: id, field: field.description))
    }
    try recordAccess([access(read, kind: kind, shown: field.located(in: read.value).map(\.pointer))].compactMap { $0 })
    return values
  }

  /// The document `id` read to be shown whole (a page, a print view, `get`): its opened sealed
  /// values are recorded first (``recordAccess(_:)``), as ``read(kind:id:)`` alone does not.
  public func readToShow(kind: String, id: String) throws(StoreError) -> Document {
    let read = try read(kind: kind, id: id)
    try recordShowing(read, kind: kind)
    return read
  }

  /// Records the opened sealed values of `document`, about to be shown whole.
  public func recordShowing(_ document: Document, kind: String) throws(StoreError) {
    try recordAccess([access(document, kind: kind)].compactMap { $0 })
  }

  /// What of `document` is shown in plain text when the values at `shown` (and below) are:
  /// the opened sealed values among them. Nil when none is.
  public func access(_ document: Document, kind: String, shown: [JSONPointer] = [.root]) -> AccessEntry? {
    let pointers = document.opened.filter { opened in
      shown.contains { $0.tokens.starts(with: opened.tokens) || opened.tokens.starts(with: $0.tokens) }
    }
    return pointers.isEmpty ? nil : AccessEntry(kind: kind, id: document.id, pointers: pointers)
  }

  /// Appends one access record naming `entries` to the audit log, under the store lock, before
  /// anything is shown: a read of sealed values that cannot be recorded is not made (the error
  /// is thrown and the caller shows nothing). Nothing is written when `entries` is empty.
  public func recordAccess(_ entries: [AccessEntry]) throws(StoreError) {
    guard !entries.isEmpty else { return }
    try withWriteLock(Self.accessOperation) { () throws(StoreError) in try appendAccess(entries) }
  }

  /// ``recordAccess(_:)`` for a command that already holds the store lock (a write session
  /// whose journal is not yet begun, such as `set`/`rm --where` reading its matches): the lock
  /// is not taken again (a second `flock` on another descriptor would wait on this process).
  func recordAccess(_ entries: [AccessEntry], in session: WriteSession) throws(StoreError) {
    guard !entries.isEmpty else { return }
    guard !session.dryRun else { return try recordAccess(entries) }
    try appendAccess(entries)
  }

  private func appendAccess(_ entries: [AccessEntry]) throws(StoreError) {
    let record = AuditLog.accessRecord(
      time: now(), user: auditUser(), command: commandLine ?? Self.accessOperation, entries: entries)
    let path = layout.historyPath
    let size = AuditLog.size(path)
    do throws(StoreError) {
      try AuditLog.appendOnce(record, layout: layout, at: size)
    } catch {
      // No journal holds this record: a failed append is cut off again (a log left torn is
      // the truncation's own error).
      if FileIO.entry(path) != .missing && AuditLog.size(path) != size {
        try AuditLog.truncate(layout, to: size)
      }
      throw error
    }
  }

  static let accessOperation = AuditLog.accessOperation
}
