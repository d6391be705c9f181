import FormsCore
import Foundation
import Synchronization

extension Store {
  /// The documents of `kind` matching the judge, when a watcher vouched for what changed since
  /// `record` (decision 0120): the entries of the index and of the log's first `record.logSize`
  /// bytes are trusted without a `stat` for every file the watcher did not name, and the files
  /// it named, with those the log gained since, are checked as ``checkedMatches`` checks every
  /// file (the same stamp, modified before the racy window, else read again). A file gone or no
  /// longer regular is noted in the log as gone, so the next query does not trust its old entry.
  /// Nil when the record does not match the index files, or was made for another directory of
  /// the kind (the caller checks every file).
  func watchedMatches(
    kind: String, directory: FilePath, judge: IndexJudge, keeping: (count: Int, by: @Sendable (Match, Match) -> Bool)?,
    record: WatchRecord, answer: IndexChanges, source: any IndexChangeSource
  ) throws(StoreError) -> (results: [(Match?, String?)], irregular: [String])? {
    // The index holds the files of the directory the record's pass read; the watcher answers for
    // the one it watches, which may be this one again since (a descriptor changed and back).
    guard record.directory == directory.string else { return nil }
    let started = Int64(Date().timeIntervalSince1970 * 1e9)
    let racy = configuration.indexRacyWindow.nanoseconds
    let fingerprint = indexFingerprint(kind)
    let path = indexPath(kind)
    // The index: the file the record named. Its checksum is not computed again while its stat is
    // the one recorded (and settled): it was checked when the record was made.
    let indexStamp = FileStamp(notFollowing: path)
    let known =
      indexStamp != nil && indexStamp == record.indexStamp
      && indexStamp?.isSettled(at: record.at, racyWindow: racy) == true
    let index: KindIndex
    if record.index == 0 {
      index = KindIndex()
    } else {
      guard let loaded = try KindIndex.load(path, fingerprint: fingerprint, verify: !known),
        loaded.identity == record.index
      else { return nil }
      index = loaded
    }
    // The log: its first bytes as recorded; what follows was appended since.
    let logPath = indexLogPath(kind)
    let log = try IndexLog.read(logPath)
    guard log.count >= record.logSize, KindIndex.checksum(log, count: record.logSize) == record.logChecksum,
      let opened = FileIO.Directory(directory)
    else { return nil }
    let trusted = IndexLog.lines(log[..<record.logSize], fingerprint: fingerprint)
    let appended = IndexLog.lines(log[record.logSize...], fingerprint: fingerprint)
    guard trusted.count + appended.count <= IndexLog.foldThreshold(documents: index.count) else { return nil }
    let check = Set(answer.changed).union(appended.keys)
    // The names the pass over the index must stop at, found by a hash of the name in place.
    var wanted: [UInt64: [String]] = [:]
    for name in check.union(trusted.keys) { wanted[KindIndex.nameHash(name), default: []].append(name) }
    struct Chunk: Sendable {
      var matches: [Match] = []
      var unparsable: [String] = []
      /// Names the watcher or the log's new lines name, with their place in the index.
      var checked: [(String, Int)] = []
      /// Names whose trusted log line was used.
      var used: [String] = []
    }
    let wantedNames = wanted
    // A bit per hash's low 16 bits: most names are passed over without a dictionary lookup.
    var bits = [UInt64](repeating: 0, count: 1 << 10)
    for hash in wanted.keys { bits[Int(hash & 0xFFFF) >> 6] |= 1 << (hash & 63) }
    let filter = bits
    defer { withExtendedLifetime(index) {} }
    let reader = index.reader
    var chunks = try parallelChunks(count: index.count, chunkSize: max(512, index.count / 64)) {
      range -> [Result<Chunk, StoreError>] in
      [
        Result { () throws(StoreError) in
          var chunk = Chunk()
          for k in range {
            if !wantedNames.isEmpty, case let hash = reader.nameHash(k),
              filter[Int(hash & 0xFFFF) >> 6] & (1 << (hash & 63)) != 0, let names = wantedNames[hash]
            {
              let name = reader.name(k)
              if names.contains(name) {
                if check.contains(name) {
                  chunk.checked.append((name, k))
                  continue
                }
                if let line = trusted[name] {
                  chunk.used.append(name)
                  if let entry = line.entry {
                    Self.keep(
                      try judge.judge(entry, name: name, in: directory), name, directory, &chunk.matches,
                      &chunk.unparsable)
                  }
                  continue
                }
              }
            }
            let verdict = try judge.judge(
              parses: reader.parses(k), nonScalar: reader.nonScalar(k), projection: reader.projection(k),
              name: reader.name(k), in: directory)
            if case .unparsable = verdict {
              chunk.unparsable.append((directory / reader.name(k)).string)
            } else {
              Self.keep(verdict, "", directory, &chunk.matches, &chunk.unparsable)
            }
          }
          if let keeping, chunk.matches.count > keeping.count {
            chunk.matches = smallest(keeping.count, of: chunk.matches, by: keeping.by)
          }
          return chunk
        }
      ]
    }.map { result throws(StoreError) in try result.get() }
    // The files only the trusted lines know (made since the index was written), then the
    // files to check.
    var late = Chunk()
    let used = Set(chunks.flatMap(\.used))
    for (name, line) in trusted.sorted(by: { $0.key < $1.key }) where !used.contains(name) && !check.contains(name) {
      if let entry = line.entry {
        Self.keep(try judge.judge(entry, name: name, in: directory), name, directory, &late.matches, &late.unparsable)
      }
    }
    let positions = Dictionary(chunks.flatMap(\.checked), uniquingKeysWith: { a, _ in a })
    var irregular = record.irregular.filter { path in !check.contains { (directory / $0).string == path } }
    var lines: [IndexLog.Line] = []
    /// What each checked name holds now: its entry, or nil when it is no document.
    var checkedEntries: [String: KindIndex.Entry?] = [:]
    let sensitive = sensitiveMembers(kind)
    for name in check.sorted() {
      guard name.hasSuffix(StoreLayout.documentSuffix) else {
        // As a listing does: a link to a directory is not a document, whatever its name.
        if FileIO.entry(directory / name) == .symlink && FileIO.isDirectory(directory / name) {
          irregular.append((directory / name).string)
        }
        continue
      }
      let line = appended[name] ?? trusted[name]
      let position = positions[name]
      let present = line.map { $0.entry != nil } ?? (position != nil)
      checkedEntries[name] = .some(nil)
      switch FileStamp.lookUp(name, in: opened) {
      case .missing:
        if present { lines.append(IndexLog.Line(name: name, entry: nil, at: started)) }
      case .other:
        if present { lines.append(IndexLog.Line(name: name, entry: nil, at: started)) }
        irregular.append((directory / name).string)
      case .file(let stamp):
        let entry: KindIndex.Entry
        if let trusted = line?.trusted(for: stamp, racyWindow: racy) {
          entry = trusted
        } else if line == nil, let position, index.trusts(position, for: stamp, racyWindow: racy) {
          entry = index.entry(position)
        } else {
          let bytes = try FileIO.read(directory / name, followLinks: false)
          entry = KindIndex.entry(bytes, stamp: stamp, sensitive: sensitive)
          lines.append(IndexLog.Line(name: name, entry: entry, at: started))
        }
        checkedEntries[name] = entry
        Self.keep(try judge.judge(entry, name: name, in: directory), name, directory, &late.matches, &late.unparsable)
      }
    }
    chunks.append(late)
    indexRoutes.withLock { $0[kind] = .watched(checked: check.count) }
    // Past a few thousand lines the log costs each query its parse: it is folded into a new
    // index made from what this pass trusted and checked (no file looked at again).
    if irregular.count <= WatchRecord.irregularLimit,
      trusted.count + appended.count + lines.count > Self.watchedFoldLines
    {
      var overriding = trusted.mapValues(\.entry)
      overriding.merge(checkedEntries) { _, checked in checked }
      let encoded = KindIndex.encode(
        Self.entries(index, overriding: overriding, wanted: wantedNames), writtenAt: started, fingerprint: fingerprint)
      if saveIndex(encoded, to: path) {
        dropIndexLog(logPath, folded: log.count)
        source.save(
          WatchRecord(
            token: answer.token, directory: directory.string, index: KindIndex.identity(of: encoded),
            indexStamp: FileStamp(notFollowing: path),
            logSize: 0, logChecksum: KindIndex.checksum([], count: 0), irregular: irregular, at: started),
          kind: kind)
        return (
          chunks.flatMap(\.matches).map { ($0, nil) } + chunks.flatMap(\.unparsable).map { (nil, $0) },
          irregular.sorted()
        )
      }
    }
    // The next query trusts the log as it was read: each line appended since was checked now,
    // and what this pass learnt is appended after it.
    if irregular.count <= WatchRecord.irregularLimit,
      lines.isEmpty || saveIndexLog(lines, fingerprint: fingerprint, to: logPath)
    {
      let prefix = IndexLog.wholeLines(log)
      source.save(
        WatchRecord(
          token: answer.token, directory: directory.string, index: record.index, indexStamp: indexStamp,
          logSize: prefix,
          logChecksum: KindIndex.checksum(log, count: prefix), irregular: irregular,
          at: known ? record.at : started),
        kind: kind)
    }
    return (
      chunks.flatMap(\.matches).map { ($0, nil) } + chunks.flatMap(\.unparsable).map { (nil, $0) },
      irregular.sorted()
    )
  }

  /// A watched query folds the log into the index past this many lines.
  static let watchedFoldLines = 4_096

  /// The entries of a new index: `index`'s, in its order, each name in `overriding` (all of them
  /// among `wanted`'s hashes) replaced by its entry there or left out when that is nil; then the
  /// names of `overriding` the index does not hold.
  private static func entries(
    _ index: KindIndex, overriding: [String: KindIndex.Entry?], wanted: [UInt64: [String]]
  ) -> [(name: String, entry: KindIndex.Entry)] {
    var overriding = overriding
    var entries: [(name: String, entry: KindIndex.Entry)] = []
    entries.reserveCapacity(index.count + overriding.count)
    for k in 0..<index.count {
      if let names = wanted[index.nameHash(k)] {
        let name = index.name(k)
        if names.contains(name), let entry = overriding.removeValue(forKey: name) {
          if let entry { entries.append((name, entry)) }
          continue
        }
      }
      entries.append((index.name(k), index.entry(k)))
    }
    for (name, entry) in overriding.sorted(by: { $0.key < $1.key }) {
      if let entry { entries.append((name, entry)) }
    }
    return entries
  }

  /// Keeps a verdict: a match, or the path of a file that does not parse.
  private static func keep(
    _ verdict: IndexJudge.Verdict, _ name: String, _ directory: FilePath, _ matches: inout [Match],
    _ unparsable: inout [String]
  ) {
    switch verdict {
    case .match(let match): matches.append(match)
    case .unparsable: unparsable.append((directory / name).string)
    case .no: break
    }
  }
}
