import FormsCore
import Foundation

/// Off-site copies of the snapshots (`snapshot push DEST`, `snapshot pull SRC`): a directory (a
/// mounted drive) or `[user@]host:path` over SSH, both through rsync. A copy is a directory of
/// snapshot directories, as `.formsctl/snapshots/` is; a snapshot there counts once its
/// `manifest.json` is, which is copied last, so an interrupted push is completed by the next.
/// Files unchanged between snapshots stay hard links at the other end (`--link-dest` to the
/// newest older snapshot already there), so a copy costs what the store's snapshots cost.
extension Snapshots {
  /// What a push or a pull did.
  public struct Transfer: Sendable, Equatable {
    /// The snapshots copied, oldest first.
    public var copied: [String] = []
    /// The snapshots the other end had already.
    public var present: [String] = []
    /// Files of a copied snapshot that do not match its manifest after the copy (pull: the
    /// snapshot was not put in place), and of a copy already there that a push could not mend.
    public var problems: [Problem] = []
    /// What a push found damaged in the copies already there and sent again from the store
    /// (each file as it was found), the copy matching since.
    public var repaired: [Problem] = []
    /// The snapshots whose keep mark was set at the other end (the store's mark sent by a push,
    /// the copy's brought by a pull), copied now or already there.
    public var marked: [String] = []
    /// The snapshots whose mark a push took off the copy (the store has none since).
    public var unmarked: [String] = []
    /// The snapshots whose mark at the source is not a regular file (a symbolic link, a
    /// directory): still kept, so a regular mark was written at the other end; the damaged one
    /// was never read or followed (`snapshot keep NAME` in the store writes it anew).
    public var damagedMarks: [String] = []
  }

  /// Where copies go or come from: a local directory, or `host:path` (rsync over SSH; `RSYNC_RSH`
  /// names another remote shell).
  public struct Place: Sendable, Equatable, CustomStringConvertible {
    public let text: String
    /// True for `[user@]host:path`.
    public let isRemote: Bool

    public init(_ text: String) throws(StoreError) {
      guard !text.isEmpty, !text.hasPrefix("-") else {
        throw StoreError.usage("\"\(text)\" is not a place for copies; name a directory or host:path")
      }
      // As rsync reads it: a colon before any slash makes it remote (`./a:b` is a local path).
      let colon = text.firstIndex(of: ":")
      isRemote = colon.map { !text[..<$0].contains("/") && $0 != text.startIndex } ?? false
      self.text = text.hasSuffix("/") && text.count > 1 ? String(text.dropLast()) : text
    }

    public var description: String { text }

    func path(_ name: String) -> String { (FilePath(text) / name).string }
  }

  /// Copies the snapshots `place` lacks (or only `names`) to it, then checks every copied file
  /// there against its manifest (a directory: re-hashed here; a remote: rsync compares
  /// checksums). Holds the store's lock, so no snapshot is pruned or taken meanwhile.
  public func push(to place: Place, names: [String]? = nil, wait: Double) throws(StoreError) -> Transfer {
    try checkPlace(place)
    return try layout.withWriteLock("snapshot push", wait: wait) { () throws(StoreError) -> Transfer in
      let local = try complete(list(), names: names)
      let there = try Self.snapshotNames(at: place)
      var transfer = Transfer()
      var held = there
      try Self.requireNoOtherEntries(local.map(\.name).filter { !there.contains($0) }, at: place)
      for info in local {
        if there.contains(info.name) {
          transfer.present.append(info.name)
          continue
        }
        try Self.copy(info.path, to: place.path(info.name), linkingTo: Self.newest(in: held, before: info), place)
        held.insert(info.name)
        transfer.copied.append(info.name)
      }
      transfer.problems = try checkCopies(transfer.copied, at: place)
      // A copy already there is checked too (a damaged one is no backup): what differs is sent
      // again from the store's snapshot, when that one is whole, and checked once more.
      let damaged = try checkCopies(transfer.present, at: place)
      var mended: [String] = []
      for info in local where damaged.contains(where: { $0.snapshot == info.name }) {
        let own = try verify([info], full: false)
        if let failure = own.lazy.compactMap(\.failure).first { throw failure }
        guard own.isEmpty else {
          // Sending a damaged snapshot again would not mend its copy: both are named.
          transfer.problems +=
            damaged.filter { $0.snapshot == info.name }
            + own.map { problem in
              Problem(snapshot: problem.snapshot, path: problem.path, problem: problem.problem + " (in the store)")
            }
          continue
        }
        try Self.resend(info.path, to: place.path(info.name), place)
        mended.append(info.name)
      }
      let left = try checkCopies(mended, at: place)
      transfer.problems += left
      transfer.repaired = damaged.filter { problem in
        mended.contains(problem.snapshot) && !left.contains { $0.snapshot == problem.snapshot }
      }
      // Marks last, for every snapshot pushed or already there: one set or taken off since.
      try pushMarks(local.filter { held.contains($0.name) }, to: place, &transfer)
      return transfer
    }
  }

  /// Checks every copy at `place` against its own manifest (`snapshot verify DIR` or `host:path`):
  /// the copies checked, oldest first, and what does not match. A directory is re-hashed here. A
  /// remote, where nothing of formsctl runs, is fetched one snapshot at a time under a hidden name
  /// in the store's snapshots directory (rsync compares checksums on both ends: files equal to the
  /// store's copy of the same or an older snapshot are linked to it, not sent), re-hashed against
  /// the manifest it came with, and removed. Holds the store's lock while it does.
  public func verifyCopies(at place: Place, full: Bool, wait: Double) throws(StoreError) -> (
    checked: [String], problems: [Problem]
  ) {
    guard place.isRemote else {
      let copies = try Self.copies(in: place.text)
      return (copies.map(\.name), try verify(copies, full: full))
    }
    return try layout.withWriteLock("snapshot verify", wait: wait) { () throws(StoreError) in
      try FileIO.makeDirectories(directory)
      try removeStaleTemporaries()
      let here = Set(try list().map(\.name))
      let there = try Self.snapshotDirectories(at: place).map { Info(name: $0, directory: FilePath("")) }.sorted {
        ($0.time, $0.name) < ($1.time, $1.name)
      }
      var problems: [Problem] = []
      for copy in there {
        let fetched = Info(name: copy.name, directory: directory / (".verifying-" + copy.name))
        let base = here.contains(copy.name) ? copy.name : Self.newest(in: here, before: copy)
        do throws(StoreError) {
          _ = try Self.rsync(
            ["-rtpc", "-H"] + (base.map { ["--link-dest=../" + $0] } ?? [])
              + [place.path(copy.name) + "/", fetched.path + "/"], place: place)
          let found = try verify([fetched], full: true)
          if let failure = found.lazy.compactMap(\.failure).first { throw failure }
          problems += found
        } catch {
          do throws(StoreError) { try Self.removeTree(fetched.directory) } catch let cleanup {
            throw StoreError.rollBackFailed(
              operation: "snapshot verify", cause: error.description, failure: cleanup.description)
          }
          throw error
        }
        try Self.removeTree(fetched.directory)
      }
      return (there.map(\.name), problems)
    }
  }

  /// Copies the snapshots `place` has and the store lacks (or only `names`) into the store. Each
  /// arrives under a hidden name, is checked against its manifest and made durable, then renamed
  /// into place; one that does not match is removed again and reported.
  package func pull(from place: Place, names: [String]? = nil, wait: Double) throws(StoreError) -> Transfer {
    try checkPlace(place)
    return try layout.withWriteLock("snapshot pull", wait: wait) { () throws(StoreError) -> Transfer in
      try FileIO.makeDirectories(directory)
      try removeStaleTemporaries()
      let there = try Self.snapshotNames(at: place)
      let here = Set(try list().map(\.name))
      if let names, let missing = names.first(where: { !there.contains($0) }) {
        throw StoreError.refused(
          .noSuchSnapshot(reference: missing, newest: Array(there.sorted().suffix(3).reversed())))
      }
      var transfer = Transfer()
      var held = here
      let marks = try Self.marks(at: place)
      let oldestFirst = there.map { Info(name: $0, directory: FilePath("")) }.sorted {
        ($0.time, $0.name) < ($1.time, $1.name)
      }
      for name in oldestFirst.map(\.name) where names?.contains(name) ?? true {
        if here.contains(name) {
          transfer.present.append(name)
          continue
        }
        let arriving = Info(name: name, directory: directory / (".pulling-" + name))
        let problems = try arrive(
          arriving, from: place, linkingTo: Self.newest(in: held, before: arriving), mark: marks[name])
        guard problems.isEmpty else {
          transfer.problems += problems
          continue
        }
        held.insert(name)
        transfer.copied.append(name)
        if let mark = marks[name] {
          transfer.marked.append(name)
          if mark == .damaged { transfer.damagedMarks.append(name) }
        }
      }
      try pullMarks(transfer.present, from: place, there: marks, &transfer)
      return transfer
    }
  }

  /// The snapshots of a copy in a directory (`snapshot verify DIR`), oldest first.
  public static func copies(in directory: String) throws(StoreError) -> [Info] {
    try requireDirectory(directory)
    return try FileIO.entries(of: FilePath(directory)).filter { $0.kind == .directory && isSnapshotName($0.name) }
      .map { Info(name: $0.name, directory: FilePath(directory) / $0.name) }.sorted {
        ($0.time, $0.name) < ($1.time, $1.name)
      }
  }

  // MARK: -

  /// Copies a snapshot from `place` into `arriving` (a hidden name), checks it against its
  /// manifest, makes it durable and renames it into place. A copy that does not match is removed
  /// and its problems returned; on any error the hidden copy is removed (what cannot be is a
  /// leftover the next pull, create or `recover` removes). `mark`: the copy's keep mark, brought
  /// in before the rename, so a kept snapshot never appears unkept.
  func arrive(_ arriving: Info, from place: Place, linkingTo base: String?, mark: MarkState? = nil) throws(StoreError)
    -> [Problem]
  {
    let name = arriving.name
    do throws(StoreError) {
      try Self.copy(place.path(name), to: arriving.path, linkingTo: base, place)
      let problems = try verify([arriving], full: true)
      // A file this machine cannot read is an error here, not a fault of the copy.
      if let failure = problems.lazy.compactMap(\.failure).first { throw failure }
      guard problems.isEmpty else {
        try Self.removeTree(arriving.directory)
        return problems
      }
      if let mark { try bringMark(mark, of: name, into: arriving.directory, from: place) }
      let tree = try FileIO.tree(arriving.directory)
      try FileIO.sync(tree, orFileSystemOf: arriving.directory)
      if POSIX.rename(arriving.directory, directory / name) != 0 {
        throw StoreError.io(arriving.path, operation: "rename", errno: Errno(errno))
      }
    } catch {
      do throws(StoreError) {
        try Self.removeTree(arriving.directory)
      } catch let cleanup {
        throw StoreError.rollBackFailed(
          operation: "snapshot pull", cause: error.description, failure: cleanup.description)
      }
      throw error
    }
    try AtomicWriter.syncDirectory(directory)
    return []
  }

  /// The snapshots of `infos` with a manifest, restricted to `names` (each must be one). The
  /// manifest's presence is enough here (a manifest is large, and rsync copies it whole): the
  /// check after the copy re-hashes against it.
  func complete(_ infos: [Info], names: [String]?) throws(StoreError) -> [Info] {
    let usable = infos.filter { FileIO.entry($0.directory / "manifest.json") == .file }
    guard let names else { return usable }
    for name in names where !usable.contains(where: { $0.name == name }) {
      throw StoreError.refused(.noSuchSnapshot(reference: name, newest: usable.suffix(3).reversed().map(\.name)))
    }
    return usable.filter { names.contains($0.name) }
  }

  /// Checks what a push copied: re-hashed against the manifests in a directory; compared by
  /// checksum with the store's copy at a remote (rsync lists any file that differs or is missing).
  func checkCopies(_ names: [String], at place: Place) throws(StoreError) -> [Problem] {
    guard !place.isRemote else {
      var problems: [Problem] = []
      for name in names {
        let listed = try Self.rsync(
          [
            "-rcn", "--out-format=%n", "--exclude=/" + Self.keepFileName, directory.string + "/" + name + "/",
            place.path(name) + "/",
          ], place: place)
        problems += listed.split(separator: "\n").map {
          Problem(snapshot: name, path: String($0), problem: "differs from the store's copy after the push")
        }
      }
      return problems
    }
    let copies = try Self.copies(in: place.text).filter { names.contains($0.name) }
    return try verify(copies, full: false)
  }

  /// The names of complete snapshots at `place` (those with a manifest).
  static func snapshotNames(at place: Place) throws(StoreError) -> Set<String> {
    let listing = try rsync(
      [
        "-r", "--list-only", "--include=/*/", "--include=/*/manifest.json", "--exclude=*", place.text + "/",
      ], place: place)
    var names = Set<String>()
    for line in listing.split(separator: "\n") {
      // `-r--r--r--  1,234 2026/11/22 08:00:00 NAME/manifest.json`
      guard let path = line.split(separator: " ").last, path.hasSuffix("/manifest.json") else { continue }
      let name = String(path.dropLast("/manifest.json".count))
      if isSnapshotName(name) { names.insert(name) }
    }
    return names
  }

  /// The names of every snapshot directory at `place`, with a manifest or not (`verify` names
  /// one without as a problem).
  static func snapshotDirectories(at place: Place) throws(StoreError) -> Set<String> {
    let listing = try rsync(["--list-only", "--include=/*/", "--exclude=*", place.text + "/"], place: place)
    var names = Set<String>()
    for line in listing.split(separator: "\n") where line.hasPrefix("d") {
      // `drwxr-xr-x  4,096 2026/11/22 08:00:00 NAME`
      guard let name = line.split(separator: " ").last.map(String.init), isSnapshotName(name) else { continue }
      names.insert(name)
    }
    return names
  }

  /// Sends again the files of the snapshot `source` whose content differs at `target` (or is
  /// missing there), compared by checksum; each arrives under a temporary name and is renamed
  /// over the damaged one, so the copies other snapshots there link to are left as they are.
  static func resend(_ source: String, to target: String, _ place: Place) throws(StoreError) {
    _ = try rsync(["-rtpc", "--exclude=/" + keepFileName, source + "/", target + "/"], place: place)
  }

  /// The newest of `names` older than `info`: the snapshot a copy of `info` links unchanged files to.
  static func newest(in names: Set<String>, before info: Info) -> String? {
    names.map { Info(name: $0, directory: FilePath("")) }.filter { $0.time <= info.time && $0.name != info.name }
      .max { ($0.time, $0.name) < ($1.time, $1.name) }?.name
  }

  /// Copies the snapshot directory `source` to `target`: every file but the manifest and the
  /// summary first, then those two, so the copy counts only once it is whole. `base` (a sibling
  /// snapshot of `target`) gives hard links for unchanged files. Regular files and directories
  /// only (`-rtp`: no symbolic links, devices or owners), with times and modes kept. The keep
  /// mark is not copied here: `pushMarks` and `bringMark` carry it, a damaged one included.
  static func copy(_ source: String, to target: String, linkingTo base: String?, _ place: Place) throws(StoreError) {
    let link = base.map { ["--link-dest=../" + $0] } ?? []
    _ = try rsync(
      ["-rtp", "-H"] + link
        + ["--exclude=/manifest.json", "--exclude=/" + SnapshotSummary.fileName, "--exclude=/" + keepFileName]
        + [source + "/", target + "/"], place: place)
    _ = try rsync(
      ["-rtp", "--include=/manifest.json", "--include=/" + SnapshotSummary.fileName, "--exclude=*"]
        + [source + "/", target + "/"], place: place)
  }

  /// Runs rsync; its standard output. Not installed, or failing: an error naming the place.
  static func rsync(_ arguments: [String], place: Place) throws(StoreError) -> String {
    guard let result = Subprocess.run(["rsync"] + arguments) else { throw StoreError.refused(.rsyncMissing) }
    guard result.status == 0 else {
      let said = result.stderr.split(separator: "\n").first.map(String.init) ?? "exit status \(result.status)"
      throw StoreError.transferFailed(place: place.text, message: said)
    }
    return String(decoding: result.stdout, as: UTF8.self)
  }

  /// A local place must be a directory outside the store (a copy inside it would be committed,
  /// snapshotted or read as documents).
  func checkPlace(_ place: Place) throws(StoreError) {
    guard !place.isRemote else { return }
    try Self.requireDirectory(place.text)
    let resolved = FileIO.realPath(FilePath(place.text)) ?? FilePath(place.text)
    let root = FileIO.realPath(layout.rootPath) ?? layout.rootPath
    if root.contains(resolved) {
      throw StoreError.refused(.copyInsideStore(path: place.text))
    }
  }

  /// A directory, not followed through a symbolic link (copies are never written through one).
  static func requireDirectory(_ path: String) throws(StoreError) {
    switch FileIO.entry(FilePath(path)) {
    case .directory: return
    case .missing: throw StoreError.fileNotFound(path)
    case .file: throw StoreError.wrongFileType(path, found: "a file", expected: "a directory")
    case .symlink, .other:
      throw StoreError.wrongFileType(path, found: FileIO.describe(FilePath(path)), expected: "a directory")
    }
  }

  /// Refuses, before anything is copied, a name among `names` that `place` holds as something
  /// else than a directory (a symbolic link would have rsync write through it, outside the place).
  static func requireNoOtherEntries(_ names: [String], at place: Place) throws(StoreError) {
    guard !names.isEmpty else { return }
    let listing = try rsync(["--list-only", place.text + "/"], place: place)
    for line in listing.split(separator: "\n") where !line.hasPrefix("d") {
      // `lrwxrwxrwx  19 2026/11/22 08:00:00 NAME -> TARGET`, `-rw-r--r--  2 2026/11/22 08:00:00 NAME`
      let fields = line.split(separator: " ", maxSplits: 4, omittingEmptySubsequences: true)
      guard fields.count == 5 else { continue }
      let rest = String(fields[4])
      let name = line.hasPrefix("l") ? String(rest.prefix { $0 != " " }) : rest
      if names.contains(name) {
        throw StoreError.wrongFileType(
          place.path(name), found: line.hasPrefix("l") ? "a symbolic link" : "not a directory",
          expected: "a directory")
      }
    }
  }

  /// `2026-11-22T03-48-14Z`, with an optional `-label` (and `-N`): a name `create` gives.
  static func isSnapshotName(_ name: String) -> Bool {
    DocumentID.isValid(name) && Instant(timeText(fromName: name)) != nil
  }
}
