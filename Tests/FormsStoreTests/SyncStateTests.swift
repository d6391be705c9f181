import FormsCore
import FormsTestSupport
import Foundation
import Testing

@testable import FormsStore

/// The sync records of a kind: lines that read back as written, a log replayed over them, texts
/// kept apart and rewritten when stale, and file signatures trusted only when they can be.
struct SyncStateTests {
  func state(_ dir: String) throws -> SyncState {
    try writeFile("formsctl: 1\n", to: dir + "/formsctl.yaml")
    try FileManager.default.createDirectory(atPath: dir + "/schemas", withIntermediateDirectories: true)
    return SyncState(layout: try StoreLayout(root: dir), identity: "test")
  }

  @Test func recordsReadBackAsSavedThroughTheLogAndTheFold() throws {
    try withTemporaryDirectory { dir in
      let state = try state(dir)
      let table = try state.table("note")
      let odd = "a\ttab, a\nnewline, a \\ backslash, a\r\nCRLF and ü"
      try table.save([
        SyncState.Record(
          kind: "note", id: "n1", status: .synced, lastSynced: "2026-11-24T10:00:00Z", text: .given("{}"),
          sha256: sha256Hex(Array("{}".utf8)), revision: 3),
        SyncState.Record(
          kind: "note", id: "n2", status: .conflict, text: .given(odd), theirs: .given("{\"x\":1}"),
          problem: odd, remoteRevision: 7),
      ])
      try table.forget("n1")
      try table.save(SyncState.Record(kind: "note", id: "n3", status: .rejected, problem: "no"))
      func check(_ table: SyncState.Table, _ context: String) throws {
        #expect(table.records["n1"] == nil && table.records["n3"]?.problem == "no", "\(context)")
        let n2 = try #require(table.records["n2"])
        #expect(n2.problem == odd && n2.remoteRevision == 7 && n2.status == .conflict, "\(context)")
        #expect(try table.string(n2.text) == odd && table.string(n2.theirs) == "{\"x\":1}", "\(context)")
      }
      try check(try state.table("note"), "from the log")
      try table.finish()  // a short log stays a log, made durable
      try check(try state.table("note"), "after a short run")
      // Many records: the log is folded into the records file.
      try table.save((0..<1_200).map { SyncState.Record(kind: "note", id: "m\($0)", status: .synced) })
      try table.finish()
      #expect(!FileIO.exists(FilePath(dir + "/.formsctl/sync/\(state.database)/note.log")))
      let folded = try state.table("note")
      try check(folded, "after the fold")
      #expect(folded.records.count == 1_202)
      // A torn last line (power lost mid-append) is dropped; the rest stands.
      let log = dir + "/.formsctl/sync/\(state.database)/note.log"
      try writeFile("0\tn9\tsynced\t\t\t4\n0\tn8\tsyn", to: log)
      #expect(try state.table("note").records["n8"] == nil)
    }
  }

  @Test func staleTextsAreRewrittenAndALeftoverLogIsNotReplayedAgainstThem() throws {
    try withTemporaryDirectory { dir in
      let state = try state(dir)
      let table = try state.table("note")
      let big = String(repeating: "x", count: 600_000)
      for round in 0..<4 {
        try table.save(SyncState.Record(kind: "note", id: "n1", status: .synced, text: .given(big + "\(round)")))
      }
      try table.save((0..<1_000).map { SyncState.Record(kind: "note", id: "m\($0)", status: .synced) })
      let directory = dir + "/.formsctl/sync/\(state.database)"
      try table.finish()
      #expect(
        !FileIO.exists(FilePath(directory + "/note.texts.0")) && FileIO.exists(FilePath(directory + "/note.texts.1")))
      let read = try state.table("note")
      #expect(try read.string(read.records["n1"]?.text) == big + "3")
      // A log of the old texts file, left by a run stopped before it was removed, is ignored.
      try writeFile("0\tn1\tsynced\t\t\t\t\t\t0:5\t\t\n", to: directory + "/note.log")
      #expect(try state.table("note").string(read.records["n1"]?.text) == big + "3")
      #expect(try state.table("note").records["n1"]?.text == read.records["n1"]?.text)
    }
  }

  /// A signature vouches for a file only when the file was written two seconds before its record.
  @Test func aSignatureVouchesOnlyForAFileOlderThanItsRecord() throws {
    try withTemporaryDirectory { dir in
      let path = dir + "/doc.json"
      try writeFile("{\"a\":1}", to: path)
      let hash = sha256Hex(Array("{\"a\":1}".utf8))
      let now = try #require(FileStamp(FilePath(path)))
      var record = SyncState.Record(
        kind: "note", id: "doc", status: .synced, sha256: "recorded",
        stamp: SyncState.Stamp(file: now, recorded: now.mtimeNanoseconds + 3_000_000_000))
      #expect(try SyncState.fileHash(path, record: record) == "recorded", "old enough: not read")
      record.stamp = SyncState.Stamp(file: now, recorded: now.mtimeNanoseconds + 1_000_000_000)
      #expect(try SyncState.fileHash(path, record: record) == hash, "written in the same tick: read")
      try writeFile("{\"a\":2}", to: path)
      record.stamp = SyncState.Stamp(file: now, recorded: now.mtimeNanoseconds + 3_000_000_000)
      #expect(try SyncState.fileHash(path, record: record) == sha256Hex(Array("{\"a\":2}".utf8)), "changed: read")
    }
  }
}
