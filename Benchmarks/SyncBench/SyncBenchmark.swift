import FormsCore
import FormsStore
import FormsSync
import FormsTestSupport
import Foundation

/// `SyncBench [COUNT]`: a store of COUNT purchase orders synced with a real
/// PostgreSQL started for the run, beside PostgreSQL's own `COPY` of the same rows into a table of
/// the same shape (its trigger included). Prints the first push, a second sync that finds nothing
/// to do, and a sync of 10 documents changed here and 10 rows changed in the database.
enum SyncBenchmark {
  static func run(count: Int, repository: String) throws {
    let server = try PostgresServer()
    defer { server.stop() }
    let directory = NSTemporaryDirectory() + "formsctl-bench-sync-\(getpid())"
    defer { ExampleStore.remove(directory) }
    let paths = try ExampleStore.prepare(count: count, at: directory, repository: repository)
    var configuration = Store.Configuration()
    configuration.user = "bench"
    let store = try Store.open(at: directory, configuration: configuration)
    let url = try DatabaseURL(server.url)
    let sync = try Sync(store: store, url: url)
    _ = try sync.initialize()
    print(
      "\(count) purchase orders; PostgreSQL \(try server.psql("SHOW server_version"))".trimmingCharacters(
        in: .whitespacesAndNewlines))

    // The peer: COPY of the same rows (id, version, jsonb, text, hash, author) into a table of the
    // same shape in another schema, from a file written beforehand.
    _ = try Sync(store: store, url: url, schema: "peer").initialize()
    let rows = directory + ".copy"
    defer { unlink(rows) }
    var text = ""
    for path in paths {
      let bytes = try FileIO.read(FilePath(path))
      let document = String(decoding: bytes, as: UTF8.self)
      let id = String(FilePath(path).name.dropLast(5))
      let escaped = SyncState.Table.escaped(document)
      text += [id, "1.1.0", escaped, escaped, SyncState.hash(bytes), "bench"].joined(separator: "\t") + "\n"
    }
    try Data(text.utf8).write(to: URL(fileURLWithPath: rows))
    chmod(rows, 0o644)
    let (copy, _) = try timed {
      try server.psql(
        "\\copy peer.purchase_order (id, schema_version, document, canonical, content_sha256, updated_by) FROM '\(rows)'"
      )
    }
    let (push, pushed) = try timed { try sync.run(.push) }
    print(
      String(
        format: "first push of %d documents: %.2f s (%.0f/s); COPY of the same rows: %.2f s; ratio %.2fx (goal ≤ 2x)",
        pushed.count, push, Double(pushed.count) / push, copy, push / copy))
    // Files written within two seconds of their record are read again once (and their signature
    // recorded); after that an unchanged file costs one stat.
    let (settling, _) = try timed { try sync.run() }
    Thread.sleep(forTimeInterval: 2.5)
    let (refreshing, _) = try timed { try sync.run() }
    let (idle, nothing) = try timed { try sync.run() }
    // FORMSBENCH_REPEAT=N: N more idle syncs (for a profiler).
    for _ in 0..<(Int(ProcessInfo.processInfo.environment["FORMSBENCH_REPEAT"] ?? "") ?? 0) { _ = try sync.run() }
    print(
      String(
        format:
          "syncs with nothing changed: %.3f s right after the push, %.3f s when the files are 2 s old (signatures recorded), then %.3f s (%d entries)",
        settling, refreshing, idle, nothing.count))
    /// 10 documents changed here and 10 other rows in the database.
    func change(round: Int) throws {
      for k in 0..<10 {
        let id = "PO-\(pad(k * (count / 10), 6))"
        _ = try store.update(
          kind: "purchase-order", id: id, assignments: [try Assignment("delivery_note=bench \(k) \(round)")])
        _ = try server.psql(
          "UPDATE formsctl.purchase_order SET document = jsonb_set(document, '{notes}', '\"db \(k) \(round)\"') WHERE id = 'PO-\(pad(k * (count / 10) + 1, 6))'"
        )
      }
    }
    try change(round: 0)
    let (incremental, changed) = try timed { try sync.run() }
    for round in 0..<(Int(ProcessInfo.processInfo.environment["FORMSBENCH_REPEAT_CHANGES"] ?? "") ?? 0) {
      try change(round: round + 1)
      _ = try sync.run()
    }
    print(
      String(
        format: "sync of 10 local and 10 remote changes at %d documents: %.3f s (%d entries; goal < 1 s)", count,
        incremental, changed.count))
  }

  /// `body`'s wall time in seconds, and what it returned.
  static func timed<T>(_ body: () throws -> T) rethrows -> (Double, T) {
    let start = DispatchTime.now().uptimeNanoseconds
    let result = try body()
    return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, result)
  }
}
