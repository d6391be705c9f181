import FormsTestSupport
import Foundation
import Testing

/// A small tmpfs, so writes run out of space; needs root (skipped elsewhere).
struct SmallDisk {
  let path: String

  static let available: Bool = {
    guard getuid() == 0 else { return false }
    let probe = "/tmp/formsctl-tmpfs-probe-\(getpid())"
    try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: probe) }
    guard run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", probe]) == 0 else { return false }
    _ = run(["umount", probe])
    return true
  }()

  @discardableResult
  static func run(_ arguments: [String]) -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return -1 }
    process.waitUntilExit()
    return process.terminationStatus
  }

  init(kilobytes: Int) throws {
    path = "/tmp/formsctl-tmpfs-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    #expect(Self.run(["mount", "-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", path]) == 0)
  }

  func unmount() {
    Self.run(["umount", path])
    try? FileManager.default.removeItem(atPath: path)
  }
}

@Suite(.enabled(if: SmallDisk.available, "needs root to mount a small tmpfs; full-disk tests skipped"))
struct FullDiskTests {
  /// 200 documents (a 4 KB page each on tmpfs); the ballast then takes all but about 40 KB.
  static func fill(_ disk: SmallDisk) throws -> [String: Data] {
    try itemStore(disk.path, count: 200)
    for k in 0..<200 {
      try Data(
        ("{\n  \"_schema\": \"item@1.0.0\",\n  \"id\": \"i\(k)\",\n  \"note\": \"" + String(repeating: "n", count: 400)
          + "\",\n  \"qty\": \(k)\n}\n").utf8
      )
      .write(to: URL(fileURLWithPath: disk.path + "/data/items/i\(k).json"))
    }
    return try treeContents(disk.path)
  }

  @Test func snapshotCreateFailsCleanly() throws {
    let disk = try SmallDisk(kilobytes: 4096)
    defer { disk.unmount() }
    let before = try Self.fill(disk)
    // Eat most of what is left, so the copies cannot fit.
    let free = try FileManager.default.attributesOfFileSystem(forPath: disk.path)[.systemFreeSize] as! Int
    try Data(count: max(0, free - 40_000)).write(to: URL(fileURLWithPath: disk.path + "/ballast"))
    let result = try Formsctl.run(["snapshot", "create"], in: disk.path)
    #expect(result.status == 74, "exit 74: a full disk: \(result.stderr)")
    // Refused up front with the figures (the space check), or by the disk itself while staging.
    #expect(
      result.stderr.contains("free on the file system of") || result.stderr.contains("No space left on device"),
      "\(result.stderr)")
    let snapshots = (try? FileManager.default.contentsOfDirectory(atPath: disk.path + "/.formsctl/snapshots")) ?? []
    #expect(snapshots.filter { !$0.hasPrefix(".hash") }.isEmpty, "no partial snapshot: \(snapshots)")
    #expect(try treeContents(disk.path) == before)
  }

  @Test func migrateOnAFullDiskAbortsAndLeavesTheStore() throws {
    let disk = try SmallDisk(kilobytes: 4096)
    defer { disk.unmount() }
    let before = try Self.fill(disk)
    let free = try FileManager.default.attributesOfFileSystem(forPath: disk.path)[.systemFreeSize] as! Int
    try Data(count: max(0, free - 40_000)).write(to: URL(fileURLWithPath: disk.path + "/ballast"))
    let result = try Formsctl.run(["migrate", "--no-snapshot"], in: disk.path)
    #expect(result.status == 74, "exit 74: a full disk: \(result.stderr)")
    // Refused up front with the figures (the space check), or by the disk itself while staging.
    #expect(
      result.stderr.contains("free on the file system of") || result.stderr.contains("No space left on device"),
      "\(result.stderr)")
    #expect(try treeContents(disk.path) == before, "every document is still at its old version")
    #expect(try Formsctl.run(["recover"], in: disk.path).stdout == "nothing to recover\n")
    let staged = try FileManager.default.subpathsOfDirectory(atPath: disk.path + "/data").filter {
      $0.contains("formsctl-journal")
    }
    #expect(staged.isEmpty)
    // With room again, the same migration goes through.
    try FileManager.default.removeItem(atPath: disk.path + "/ballast")
    #expect(try Formsctl.run(["migrate", "--no-snapshot"], in: disk.path).status == 0)
    #expect(try Formsctl.run(["validate"], in: disk.path).status == 0)
  }

  /// Many small documents take a block each: a dry run that counted their bytes promised room the
  /// run then did not find (ENOSPC). The dry runs count blocks, and say what the run says.
  @Test func dryRunsCountTheBlocksSmallDocumentsTake() throws {
    let disk = try SmallDisk(kilobytes: 16384)
    defer { disk.unmount() }
    try itemStore(disk.path, count: 1500)
    let feed = disk.path + ".feed.ndjson"
    defer { try? FileManager.default.removeItem(atPath: feed) }
    try writeFile(
      (0..<1500).map { #"{"_schema":"item@2.0.0","id":"j\#($0)","quantity":1,"note":"n","unit":"EA"}"# }.joined(
        separator: "\n"),
      to: feed)
    // About 3 MB left: the documents' bytes (under 200 kB) fit many times, their blocks (6 MB) do not.
    let free = try FileManager.default.attributesOfFileSystem(forPath: disk.path)[.systemFreeSize] as! Int
    try Data(count: max(0, free - 3_000_000)).write(to: URL(fileURLWithPath: disk.path + "/ballast"))
    let before = try treeContents(disk.path)
    let plan = try Formsctl.run(["snapshot", "create", "--dry-run"], in: disk.path)
    #expect(plan.status == 74 && plan.stderr.contains("free on the file system of"), "\(plan.transcript)")
    let create = try Formsctl.run(["snapshot", "create"], in: disk.path)
    #expect(create.status == 74 && create.stderr.contains("free on the file system of"), "\(create.transcript)")
    let dry = try Formsctl.run(["import", "item", feed, "--dry-run", "--no-snapshot"], in: disk.path)
    let figure = dry.stdout.range(of: #"needs about [0-9.]+ MB"#, options: .regularExpression).map {
      Double(dry.stdout[$0].split(separator: " ")[2]) ?? 0
    }
    #expect((figure ?? 0) >= 6.1, "the estimate counts 1,500 blocks of 4 kB: \(dry.transcript)")
    let run = try Formsctl.run(["import", "item", feed, "--no-snapshot"], in: disk.path)
    #expect(run.status == 74 && run.stderr.contains("free on the file system of"), "\(run.transcript)")
    #expect(try treeContents(disk.path) == before)
  }

  @Test func longWorkIsRefusedUpFrontWithTheFigures() throws {
    let disk = try SmallDisk(kilobytes: 4096)
    defer { disk.unmount() }
    let before = try Self.fill(disk)
    let free = try FileManager.default.attributesOfFileSystem(forPath: disk.path)[.systemFreeSize] as! Int
    try Data(count: max(0, free - 40_000)).write(to: URL(fileURLWithPath: disk.path + "/ballast"))
    for command in [["snapshot", "create"], ["migrate"]] {
      let result = try Formsctl.run(command, in: disk.path)
      #expect(result.status == 74)
      #expect(
        result.stderr.range(
          of: #"needs [0-9.]+ [kM]B, [0-9.]+ kB free on the file system of "#, options: .regularExpression) != nil,
        "\(command): \(result.stderr)")
      #expect(try treeContents(disk.path) == before)
    }
    let status = try Formsctl.run(["migrate", "status"], in: disk.path)
    #expect(status.stdout.contains("migrate would rewrite 200 documents ("), "\(status.stdout)")
  }
}
