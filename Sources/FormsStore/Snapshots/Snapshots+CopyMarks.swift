import FormsCore

// Keep marks travel with the copies (docs/decisions/0130): a push makes the copy's marks the
// store's (a mark set or taken off since a snapshot was pushed included), a pull brings the marks
// the copy has into the store (never taking one off: a mark errs toward keeping). A snapshot's
// files are copied without `keep.json`; its mark is sent, fetched or taken off on its own, so a
// snapshot already at the other end gets its mark too.
extension Snapshots {
  /// What a mark is at one end: absent, a regular file, or anything else at its name (a symbolic
  /// link, a directory), which still keeps the snapshot (decision 0091) but is never read or followed.
  enum MarkState: Equatable {
    case file
    case damaged
  }

  /// The snapshot's mark in the store, by lstat; nil when there is none.
  static func markState(_ info: Info) -> MarkState? {
    switch FileIO.entry(info.directory / keepFileName) {
    case .missing: return nil
    case .file: return .file
    default: return .damaged
    }
  }

  /// The marks of the snapshots at `place`, by snapshot name, from one rsync listing.
  static func marks(at place: Place) throws(StoreError) -> [String: MarkState] {
    let listing = try rsync(
      ["-r", "--list-only", "--include=/*/", "--include=/*/" + keepFileName, "--exclude=*", place.text + "/"],
      place: place)
    var marks: [String: MarkState] = [:]
    for line in listing.split(separator: "\n") {
      // `-rw-r--r--  30 2026/11/22 08:00:00 NAME/keep.json`, `lrwxrwxrwx  7 … NAME/keep.json -> TARGET`
      let fields = line.split(separator: " ", maxSplits: 4, omittingEmptySubsequences: true)
      guard fields.count == 5 else { continue }
      let path = fields[4].prefix { $0 != " " }
      guard path.hasSuffix("/" + keepFileName) else { continue }
      let name = String(path.dropLast(keepFileName.count + 1))
      guard isSnapshotName(name) else { continue }
      marks[name] = line.hasPrefix("-") ? .file : .damaged
    }
    return marks
  }

  /// Makes the marks of `local`'s copies at `place` the store's: a mark the copy lacks is sent
  /// (a damaged one as a new regular mark, the damaged one never read), a mark the store lacks is
  /// taken off the copy. Fills `marked`, `unmarked` and `damagedMarks` of `transfer`. The caller
  /// holds the lock.
  func pushMarks(_ local: [Info], to place: Place, _ transfer: inout Transfer) throws(StoreError) {
    let there = try Self.marks(at: place)
    for info in local {
      let here = Self.markState(info)
      if here == .damaged { transfer.damagedMarks.append(info.name) }
      switch (here, there[info.name]) {
      case (nil, nil), (.file?, .file?), (.damaged?, .file?):
        continue
      case (nil, _?):
        // From the store's snapshot, which has no mark: rsync deletes the copy's, and only it.
        try Self.sendMark(from: info.path, to: place.path(info.name), delete: true, place)
        transfer.unmarked.append(info.name)
      case (.file?, _):
        try Self.sendMark(from: info.path, to: place.path(info.name), delete: false, place)
        transfer.marked.append(info.name)
      case (.damaged?, _):
        let staging = directory / (".marking-" + info.name)
        try Self.removeTree(staging)
        try FileIO.makeDirectories(staging)
        try AtomicWriter(boundary: layout.rootPath).write(keepMark(), to: staging / Self.keepFileName)
        try Self.sendMark(from: staging.string, to: place.path(info.name), delete: false, place)
        try Self.removeTree(staging)
        transfer.marked.append(info.name)
      }
    }
  }

  /// Brings the marks `place` has (`there`) for the snapshots `names` into the store (a snapshot there kept
  /// is kept here): a regular mark is fetched, a damaged one (a link, a directory) is never read
  /// or followed: a new mark is written here instead, and it is named in `damagedMarks`. A mark
  /// the store has is left as it is. The caller holds the lock.
  func pullMarks(
    _ names: [String], from place: Place, there: [String: MarkState], _ transfer: inout Transfer
  ) throws(StoreError) {
    for name in names {
      guard let state = there[name] else { continue }
      let target = info(name)
      guard FileIO.entry(target.directory) == .directory, Self.markState(target) == nil else { continue }
      if state == .damaged { transfer.damagedMarks.append(name) }
      try bringMark(state, of: name, into: target.directory, from: place)
      transfer.marked.append(name)
    }
  }

  /// Puts the mark `place` has for `name` (`state`) into the snapshot directory `target`, which
  /// has none, durably.
  func bringMark(_ state: MarkState, of name: String, into target: FilePath, from place: Place) throws(StoreError) {
    if state == .file {
      // A regular file only (no -l, no -L: nothing is followed); a mark is a few bytes.
      _ = try Self.rsync(
        ["-rtO", "--max-size=64k", "--include=/" + Self.keepFileName, "--exclude=*"]
          + [place.path(name) + "/", target.string + "/"], place: place)
    }
    if FileIO.entry(target / Self.keepFileName) == .file {
      try FileIO.sync([target / Self.keepFileName])
      try AtomicWriter.syncDirectory(target)
    } else {
      // Damaged there, larger than a mark, or changed since it was listed: kept all the same.
      try AtomicWriter(boundary: layout.rootPath).write(keepMark(), to: target / Self.keepFileName)
    }
  }

  /// Sends the mark of the snapshot directory `source` (a regular file, or none with `delete`:
  /// the copy's is taken off) to the copy `target`; nothing else of either is touched.
  static func sendMark(from source: String, to target: String, delete: Bool, _ place: Place) throws(StoreError) {
    _ = try rsync(
      ["-rtO"] + (delete ? ["--delete"] : []) + ["--include=/" + keepFileName, "--exclude=*"]
        + [source + "/", target + "/"], place: place)
  }
}
