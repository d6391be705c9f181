import FormsCore
import FormsStore
import Foundation

extension Sync {
  /// Carries out one document's plan; the record is saved after each step, so a run stopped
  /// anywhere is picked up by the next (a side found equal to the other is simply agreed).
  func apply(
    _ plan: Plan, kind: String, id: String, record: SyncState.Record?, bytes: [UInt8]?, table: SyncState.Table,
    database: Database
  ) async throws(SyncError) -> Entry? {
    func entry(_ action: String, _ detail: String = "") -> Entry {
      Entry(kind: kind, id: id, action: action, detail: detail)
    }
    switch plan {
    case .wait(let why):
      return why.isEmpty ? nil : entry("waiting", why)
    case .unsettled(let why):
      return Entry(kind: kind, id: id, action: "waiting", detail: why, unsettled: true)
    case .forget:
      try save { () throws(StoreError) in try table.forget(id) }
      return nil
    case .push, .pull:
      // Carried out in bulk before the rest (`push`, `pull`), each with its report line: one
      // here would be a document silently left unsynced.
      throw SyncError.store(.internalError("sync \(kind) \(id): a \(plan) reached the per-document step"))
    case .adopt:
      guard let bytes, let row = try await fetch(kind, id, database) else { return nil }
      if record?.status == .remoteChanged, record?.remoteRevision == row.revision {
        // The file of a pull that stopped before its record: the pull's, given to the row exactly.
        try agree(kind, id, bytes, revision: try await exact(kind, id, bytes, row, database), table)
        return entry("pulled", "by \(row.user), finished")
      }
      if same(bytes, row.text) {
        try agree(kind, id, bytes, revision: try await exact(kind, id, bytes, row, database), table)
        return entry("matched", "the same on both sides")
      }
      return try conflict(
        kind, id, record, row, "both sides hold a different document and there is no earlier sync to merge from", table)
    case .refreshConflict:
      let row = try await fetch(kind, id, database)
      var refreshed = record ?? SyncState.Record(kind: kind, id: id, status: .conflict)
      refreshed.theirs = row.map { .given($0.text) }
      refreshed.remoteRevision = row?.revision
      try save { () throws(StoreError) in try table.save(refreshed) }
      return entry("conflict", refreshed.problem ?? "")
    case .conflict(let why):
      return try conflict(kind, id, record, try await fetch(kind, id, database), why, table)
    case .merge:
      guard let bytes, let record, let row = try await fetch(kind, id, database) else { return nil }
      let base: String?
      do throws(StoreError) { base = try table.base(record) } catch { throw SyncError.store(error) }
      guard let base else {
        return try conflict(kind, id, record, row, "changed on both sides, and the last synced text is gone", table)
      }
      return try await merge(
        bytes, base: base, row: row, kind: kind, id: id, record: record, table: table, database: database)
    case .deleteHere:
      do throws(StoreError) {
        try store.delete(kind: kind, id: id, operation: "sync", user: nil)
      } catch  where error.kind == .badInput {
        var rejected = record ?? SyncState.Record(kind: kind, id: id, status: .rejected)
        rejected.status = .rejected
        rejected.problem = "deleted in the database, but here: \(Self.oneLine(error))"
        rejected.remoteRevision = nil
        try save { () throws(StoreError) in try table.save(rejected) }
        return entry("rejected", rejected.problem ?? "")
      } catch {
        throw SyncError.store(error)
      }
      try save { () throws(StoreError) in try table.forget(id) }
      return entry("deleted-here", "deleted in the database")
    case .deleteThere:
      guard let revision = record?.revision, try await deleteRow(kind, id, revision: revision, database) else {
        return entry("waiting", "changed in the database meanwhile; the next sync takes it up")
      }
      try save { () throws(StoreError) in try table.forget(id) }
      return entry("deleted-there", "deleted here")
    }
  }

  /// Both sides changed: merged three ways from the last agreed text.
  func merge(
    _ bytes: [UInt8], base: String, row: Row, kind: String, id: String, record: SyncState.Record,
    table: SyncState.Table, database: Database
  ) async throws(SyncError) -> Entry {
    if same(bytes, row.text) {
      try agree(kind, id, bytes, revision: try await exact(kind, id, bytes, row, database), table)
      return Entry(kind: kind, id: id, action: "matched", detail: "the same change on both sides")
    }
    guard let oldBase = try? JSONParser().parse(Array(base.utf8)), let ours = try? JSONParser().parse(bytes),
      let oldTheirs = try? JSONParser().parse(Array(row.text.utf8))
    else {
      return try conflict(kind, id, record, row, "a side does not parse", table)
    }
    // Merged at our version: a side written for an older one is migrated first.
    let baseValue: JSONValue
    let theirs: JSONValue
    do throws(StoreError) {
      baseValue = try brought(oldBase, kind: kind, id: id, to: ours)
      theirs = try brought(oldTheirs, kind: kind, id: id, to: ours)
    } catch {
      return try conflict(kind, id, record, row, Self.oneLine(error), table)
    }
    let merged = ThreeWayMerge(schema: store.registry.schema(of: ours)).merge(
      base: baseValue, ours: ours, theirs: theirs)
    guard merged.conflicts == 0 else {
      let mine = Set(baseValue.changedPointers(to: ours))
      let places = baseValue.changedPointers(to: theirs).filter {
        mine.contains($0) && ours[pointer: $0] != theirs[pointer: $0]
      }
      let show = { (value: JSONValue?) in value.map(JSONWriter.compact) ?? "(absent)" }
      let why = places.map { "\($0): here \(show(ours[pointer: $0])), there \(show(theirs[pointer: $0]))" }
      return try conflict(kind, id, record, row, why.joined(separator: "; "), table)
    }
    let done: Written
    do throws(StoreError) {
      done = try write(kind, id, merged.text, user: row.user)
    } catch  where error.kind == .badInput {
      return try conflict(kind, id, record, row, "the merge is not valid: \(Self.oneLine(error))", table)
    } catch {
      throw SyncError.store(error)
    }
    let written = done.bytes
    guard let revision = try await push(kind, id, written, revision: row.revision, database) else {
      // Merged here; the row moved on meanwhile: the next run merges again from the row we read.
      try agree(kind, id, Array(row.text.utf8), revision: row.revision, table, local: false)
      return Entry(
        kind: kind, id: id, action: "waiting", detail: "changed in the database meanwhile; the next sync takes it up")
    }
    try agree(kind, id, written, revision: revision, table)
    return Entry(
      kind: kind, id: id, action: "merged", detail: "changes from both sides", warnings: done.warnings,
      staleApprovals: done.staleApprovals)
  }

  /// The revision at which the row holds exactly `bytes`: the row's own when its text is
  /// already `bytes`, else the revision of pushing them (a jsonb changed by an SQL writer gets
  /// its canonical text back; a row changed meanwhile keeps its revision, and the next run sees it).
  func exact(_ kind: String, _ id: String, _ bytes: [UInt8], _ row: Row, _ database: Database) async throws(SyncError)
    -> Int64
  {
    guard row.inconsistent || !row.vouched || row.text != String(decoding: bytes, as: UTF8.self) else {
      return row.revision
    }
    return try await push(kind, id, bytes, revision: row.revision, database) ?? row.revision
  }

  /// Records a conflict, with the database's side kept for `resolve`.
  func conflict(
    _ kind: String, _ id: String, _ record: SyncState.Record?, _ row: Row?, _ why: String,
    _ table: SyncState.Table
  )
    throws(SyncError) -> Entry
  {
    var conflict = record ?? SyncState.Record(kind: kind, id: id, status: .conflict)
    conflict.status = .conflict
    conflict.theirs = row.map { .given($0.text) }
    conflict.remoteRevision = row?.revision
    conflict.problem = why
    try save { () throws(StoreError) in try table.save(conflict) }
    return Entry(kind: kind, id: id, action: "conflict", detail: why)
  }

  /// Records that both sides hold `bytes` at `revision`, with the file's signature when the
  /// file holds them. With `local` false, `bytes` is the database's side only (the file differs,
  /// and is pushed next time).
  func agree(
    _ kind: String, _ id: String, _ bytes: [UInt8], revision: Int64, _ table: SyncState.Table, local: Bool = true
  ) throws(SyncError) {
    let hash = sha256(bytes)
    var stamp: SyncState.Stamp?
    if local {
      // Taken before the file is read back: a file that changes after it is read again next time.
      do throws(StoreError) {
        let path = try store.path(kind: kind, id: id)
        stamp = SyncState.Stamp.of(path)
        if try SyncState.fileHash(path, record: nil) != hash { stamp = nil }
      } catch { throw SyncError.store(error) }
    }
    let record = SyncState.Record(
      kind: kind, id: id, status: .synced, lastSynced: Instant(store.now()).rfc3339,
      text: .given(String(decoding: bytes, as: UTF8.self)), sha256: hash, revision: revision, stamp: stamp)
    try save { () throws(StoreError) in try table.save(record) }
  }

  /// `text` written as the document `kind` `id` through the write path (operation `sync`, by
  /// `user`); the file's bytes after.
  func write(_ kind: String, _ id: String, _ text: String, user: String) throws(StoreError) -> Written {
    guard let written = try write(kind, [(id, text)], user: user)[id] else {
      throw StoreError.internalError("sync wrote \(kind) \(id), but the write path did not answer for it")
    }
    return try written.get()
  }

  /// True when `bytes` and `text` hold the same JSON value.
  func same(_ bytes: [UInt8], _ text: String) -> Bool {
    guard let a = try? JSONParser().parse(bytes), let b = try? JSONParser().parse(Array(text.utf8)) else {
      return false
    }
    return a == b
  }

  /// A refusal in one line: an invalid document's diagnostics (pointer and message), else its
  /// whole description; control characters (a newline in an id written in SQL) escaped.
  static func oneLine(_ error: StoreError) -> String {
    if case .invalidDocument(_, let diagnostics) = error, !diagnostics.isEmpty {
      return escaped(diagnostics.map { "\($0.pointer): \($0.message)" }.joined(separator: "; "))
    }
    if case .migrationFailed(_, let diagnostics) = error, !diagnostics.isEmpty {
      return escaped(diagnostics.map(\.message).joined(separator: "; "))
    }
    return escaped(error.description)
  }

  /// `text` with its control characters escaped (`\n`, `\t`, `\u{7}`), so it stays one line.
  static func escaped(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return text }
    var out = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case _ where scalar.properties.generalCategory == .control:
        out += "\\u{" + String(scalar.value, radix: 16) + "}"
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  func save(_ body: () throws(StoreError) -> Void) throws(SyncError) {
    do throws(StoreError) { try body() } catch { throw SyncError.store(error) }
  }
}
