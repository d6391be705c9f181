import FormsCore
import FormsTestSupport
import Foundation
import Testing

@testable import FormsStore

/// `snapshot push` and `pull` (copies on a mounted drive, or over SSH), with the real rsync.
@Suite(Rsync.enabled)
struct SnapshotCopyTests {
  /// Two snapshots of the fixture, the second after one note changed.
  func twoSnapshots(_ dir: String) throws -> (SnapshotFixture, [Snapshots.Info]) {
    let fixture = try SnapshotFixture(dir + "/store")
    let first = try fixture.take()
    try writeFile(#"{"_schema":"note@1.0.0","id":"n1","text":"changed"}"#, to: dir + "/store/data/notes/n1.json")
    return (fixture, [first, try fixture.take()])
  }

  func inode(_ path: String) -> UInt64? { FileStamp(FilePath(path))?.inode }

  @Test func pushCopiesWhatTheCopyLacksKeepingLinksAndChecksIt() throws {
    try withTemporaryDirectory { dir in
      let (fixture, snapshots) = try twoSnapshots(dir)
      let backup = dir + "/backup"
      try FileManager.default.createDirectory(atPath: backup, withIntermediateDirectories: true)
      let place = try Snapshots.Place(backup)
      let pushed = try fixture.snapshots.push(to: place, wait: 0)
      #expect(pushed.copied == snapshots.map(\.name) && pushed.problems.isEmpty)
      // Unchanged files are one file at the copy too; the changed one is not.
      let (a, b) = (backup + "/" + snapshots[0].name, backup + "/" + snapshots[1].name)
      #expect(inode(a + "/data/notes/n2.json") == inode(b + "/data/notes/n2.json"))
      #expect(inode(a + "/data/notes/n1.json") != inode(b + "/data/notes/n1.json"))
      #expect(try fixture.snapshots.verify(try Snapshots.copies(in: backup), full: true).isEmpty)
      // A second push copies nothing.
      let again = try fixture.snapshots.push(to: place, wait: 0)
      #expect(again.copied.isEmpty && again.present == snapshots.map(\.name))
      // An interrupted push (no manifest yet) is completed by the next; a damaged copy is found.
      try FileManager.default.removeItem(atPath: b + "/manifest.json")
      #expect(try fixture.snapshots.push(to: place, wait: 0).copied == [snapshots[1].name])
      // (Replaced, not written in place: the file is shared with the other copy.)
      try FileManager.default.removeItem(atPath: a + "/data/notes/n3.json")
      try writeFile("{}", to: a + "/data/notes/n3.json")
      let problems = try fixture.snapshots.verify(try Snapshots.copies(in: backup), full: true)
      #expect(problems.map(\.path) == ["data/notes/n3.json"], "\(problems)")
    }
  }

  /// A keep mark set after a snapshot was pushed reaches the copy at the next push, and its
  /// removal too; a store that pulls the copy has the snapshot kept, so its retention keeps it
  /// (issue 63).
  @Test func keepMarksAndTheirRemovalTravelWithPushAndPull() throws {
    try withTemporaryDirectory { dir in
      let (fixture, snapshots) = try twoSnapshots(dir)
      let backup = dir + "/backup"
      try FileManager.default.createDirectory(atPath: backup, withIntermediateDirectories: true)
      let place = try Snapshots.Place(backup)
      _ = try fixture.snapshots.push(to: place, wait: 0)
      _ = try fixture.snapshots.setKept(snapshots[0].name, true, wait: 0)
      let marked = try fixture.snapshots.push(to: place, wait: 0)
      #expect(marked.marked == [snapshots[0].name] && marked.present == snapshots.map(\.name), "\(marked)")
      #expect(try fixture.snapshots.push(to: place, wait: 0).marked.isEmpty, "sent once")
      let copyMark = FilePath(backup + "/" + snapshots[0].name + "/keep.json")
      #expect(FileIO.entry(copyMark) == .file, "the mark set after the push reached the copy")
      // Pulled into another store, the snapshot is kept: a year on, its retention keeps it.
      let other = try SnapshotFixture(dir + "/other")
      let pulled = try other.snapshots.pull(from: place, wait: 0)
      #expect(pulled.copied == snapshots.map(\.name) && pulled.marked == [snapshots[0].name], "\(pulled)")
      #expect(try readFile(other.snapshots.info(snapshots[0].name).path + "/keep.json") == readFile(copyMark.string))
      other.clock += 365 * 86400
      _ = try other.snapshots.createManual(message: nil, label: nil, wait: 0)
      #expect(try other.snapshots.list().map(\.name).contains(snapshots[0].name), "kept after the pull")
      #expect(try !other.snapshots.list().map(\.name).contains(snapshots[1].name), "the unkept one is pruned")
      // The mark taken off in the store is taken off the copy at the next push.
      _ = try fixture.snapshots.setKept(snapshots[0].name, false, wait: 0)
      #expect(try fixture.snapshots.push(to: place, wait: 0).unmarked == [snapshots[0].name])
      #expect(FileIO.entry(copyMark) == .missing, "the removal travelled")
      // A mark set at the copy (another store pushed it) comes back to a store that has the snapshot.
      try writeFile(#"{"kept_since":"2026-11-22T08:00:00Z"}"#, to: copyMark.string)
      _ = try fixture.snapshots.pull(from: place, wait: 0)
      #expect(FileIO.entry(FilePath(snapshots[0].path + "/keep.json")) == .file, "pull brought the mark back")
    }
  }

  /// A keep mark that is a symbolic link (in the store or at the copy) still keeps its snapshot
  /// at the other end: a regular mark is written there, never the link's target read or followed,
  /// and the damaged mark is reported.
  @Test func aKeepMarkThatIsALinkIsReportedNeverDroppedNorFollowed() throws {
    try withTemporaryDirectory { dir in
      let (fixture, snapshots) = try twoSnapshots(dir)
      let backup = dir + "/backup"
      try FileManager.default.createDirectory(atPath: backup, withIntermediateDirectories: true)
      try writeFile("outside", to: dir + "/outside")
      try FileManager.default.createSymbolicLink(
        atPath: snapshots[1].path + "/keep.json", withDestinationPath: dir + "/outside")
      let place = try Snapshots.Place(backup)
      let pushed = try fixture.snapshots.push(to: place, wait: 0)
      #expect(pushed.problems.isEmpty, "\(pushed.problems)")
      #expect(pushed.damagedMarks == [snapshots[1].name] && pushed.marked == [snapshots[1].name], "\(pushed)")
      let copied = backup + "/" + snapshots[1].name + "/keep.json"
      #expect(FileIO.entry(FilePath(copied)) == .file, "the kept snapshot is kept at the copy")
      #expect(try readFile(copied) != "outside", "the link's target is never read")
      // A link at the copy: the pulled snapshot is kept with a regular mark of its own.
      try FileManager.default.removeItem(atPath: copied)
      try FileManager.default.createSymbolicLink(atPath: copied, withDestinationPath: dir + "/outside")
      let other = try SnapshotFixture(dir + "/other")
      let transfer = try other.snapshots.pull(from: place, wait: 0)
      #expect(transfer.damagedMarks == [snapshots[1].name] && transfer.problems.isEmpty, "\(transfer)")
      let pulled = other.snapshots.info(snapshots[1].name)
      #expect(FileIO.entry(pulled.directory / "keep.json") == .file, "kept after the pull")
      #expect(try readFile(pulled.path + "/keep.json") != "outside")
      #expect(try readFile(dir + "/outside") == "outside", "never written through the link")
    }
  }

  @Test func pullBringsInOnlyWhatMatchesItsManifest() throws {
    try withTemporaryDirectory { dir in
      let (fixture, snapshots) = try twoSnapshots(dir)
      let backup = dir + "/backup"
      try FileManager.default.createDirectory(atPath: backup, withIntermediateDirectories: true)
      _ = try fixture.snapshots.push(to: try Snapshots.Place(backup), wait: 0)
      // The second copy is damaged, the first a stray file richer.
      let damaged = backup + "/" + snapshots[1].name + "/data/notes/n5.json"
      try FileManager.default.removeItem(atPath: damaged)
      try writeFile("{}", to: damaged)
      try writeFile("x", to: backup + "/" + snapshots[0].name + "/data/notes/extra.json")
      let other = try SnapshotFixture(dir + "/other")
      var pulled = try other.snapshots.pull(from: try Snapshots.Place(backup), wait: 0)
      #expect(pulled.copied.isEmpty)
      #expect(
        Set(pulled.problems.map { "\($0.snapshot)/\($0.path)" })
          == [snapshots[0].name + "/data/notes/extra.json", snapshots[1].name + "/data/notes/n5.json"])
      #expect(try other.snapshots.list().isEmpty)
      #expect(
        try FileIO.entries(of: FilePath(other.layout.stateDirectory + "/snapshots")).isEmpty, "no half-pulled leftovers"
      )
      // Mended, both arrive, verified, and restore reads them.
      try FileManager.default.removeItem(atPath: backup + "/" + snapshots[0].name + "/data/notes/extra.json")
      try FileManager.default.removeItem(atPath: damaged)
      try FileManager.default.copyItem(
        atPath: snapshots[1].path + "/data/notes/n5.json", toPath: damaged)
      pulled = try other.snapshots.pull(from: try Snapshots.Place(backup), wait: 0)
      #expect(pulled.copied == snapshots.map(\.name) && pulled.problems.isEmpty)
      #expect(try other.snapshots.verify(try other.snapshots.list(), full: true).isEmpty)
      let restored = try other.snapshots.restore(snapshots[1].name, wait: 0)
      #expect(restored.plan.rewritten == ["data/notes/n1.json"])
    }
  }

  /// `host:path` goes through rsync's remote shell: here one that runs the command locally, so
  /// rsync's own protocol is what carries the files.
  @Test func aRemotePlaceGoesThroughTheRemoteShell() throws {
    try withTemporaryDirectory { dir in
      let (fixture, snapshots) = try twoSnapshots(dir)
      try writeFile("#!/bin/sh\nshift\nexec \"$@\"\n", to: dir + "/remote-shell")
      chmod(dir + "/remote-shell", 0o755)
      setenv("RSYNC_RSH", dir + "/remote-shell", 1)
      defer { unsetenv("RSYNC_RSH") }
      try FileManager.default.createDirectory(atPath: dir + "/far", withIntermediateDirectories: true)
      let place = try Snapshots.Place("backup-host:" + dir + "/far")
      #expect(place.isRemote)
      let pushed = try fixture.snapshots.push(to: place, wait: 0)
      #expect(pushed.copied == snapshots.map(\.name) && pushed.problems.isEmpty)
      // Marks travel through the remote shell too, and come back with a pull.
      _ = try fixture.snapshots.setKept(snapshots[1].name, true, wait: 0)
      #expect(try fixture.snapshots.push(to: place, wait: 0).marked == [snapshots[1].name])
      #expect(FileIO.entry(FilePath(dir + "/far/" + snapshots[1].name + "/keep.json")) == .file)
      let other = try SnapshotFixture(dir + "/other")
      let pulled = try other.snapshots.pull(from: place, wait: 0)
      #expect(pulled.copied == snapshots.map(\.name) && pulled.marked == [snapshots[1].name], "\(pulled)")
      _ = try fixture.snapshots.setKept(snapshots[1].name, false, wait: 0)
      #expect(try fixture.snapshots.push(to: place, wait: 0).unmarked == [snapshots[1].name])
      #expect(FileIO.entry(FilePath(dir + "/far/" + snapshots[1].name + "/keep.json")) == .missing)
      #expect(throws: StoreError.self) {
        try fixture.snapshots.push(to: try Snapshots.Place("backup-host:" + dir + "/nowhere/deeper"), wait: 0)
      }
    }
  }

  @Test func badPlacesAreRefusedBeforeAnythingIsCopied() throws {
    try withTemporaryDirectory { dir in
      let (fixture, _) = try twoSnapshots(dir)
      #expect(throws: StoreError.usage("\"-e\" is not a place for copies; name a directory or host:path")) {
        try Snapshots.Place("-e")
      }
      #expect(throws: StoreError.fileNotFound(dir + "/missing")) {
        try fixture.snapshots.push(to: try Snapshots.Place(dir + "/missing"), wait: 0)
      }
      #expect(throws: StoreError.refused(.copyInsideStore(path: dir + "/store/data"))) {
        try fixture.snapshots.push(to: try Snapshots.Place(dir + "/store/data"), wait: 0)
      }
      #expect(try !Snapshots.Place("./a:b").isRemote && Snapshots.Place("host:a/b").isRemote)
    }
  }
}
