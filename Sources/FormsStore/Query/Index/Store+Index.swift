import FormsCore
import Foundation
import Synchronization

extension Store {
  /// Where the index of `kind` lives (`.formsctl/index/KIND.idx`, ignored by git with the rest of
  /// `.formsctl/` but the audit log).
  func indexPath(_ kind: String) -> FilePath { layout.indexDirectory / (kind + ".idx") }

  /// Where the stamp of the directory of `kind` lives (`.formsctl/index/KIND.dir`, see ``ListingStamp``).
  func listingStampPath(_ kind: String) -> FilePath { layout.indexDirectory / (kind + ".dir") }

  /// Where the index's log of `kind` lives (`.formsctl/index/KIND.log`, see ``IndexLog``).
  func indexLogPath(_ kind: String) -> FilePath { layout.indexDirectory / (kind + ".log") }

  /// What an index of `kind` must have been built with to be trusted: the members kept out of it
  /// (every version's sensitive fields).
  func indexFingerprint(_ kind: String) -> String {
    "\(kind) sensitive:" + sensitiveMembers(kind).sorted().joined(separator: ",")
  }

  /// Every version's sensitive top-level fields: never copied into the index.
  func sensitiveMembers(_ kind: String) -> Set<String> {
    Set(registry.schemas(of: kind).flatMap(\.sensitiveFieldNames))
  }

  /// The members a query reads when each of its paths is one top-level member that is not
  /// sensitive (what the index can answer); nil otherwise.
  func indexedMembers(_ kind: String, paths: [FilterExpression.Path]) -> Set<String>? {
    let sensitive = sensitiveMembers(kind)
    var names = Set<String>()
    for path in paths {
      guard path.steps.count == 1, case .member(let name) = path.steps[0], !sensitive.contains(name),
        !Self.computedMemberNames.contains(name)
      else { return nil }
      names.insert(name)
    }
    return names
  }

  /// How the last query of each kind used the index, by kind.
  package var indexRouteReport: [(kind: String, route: IndexRoute)] {
    indexRoutes.withLock { $0 }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
  }

  /// Where each listed document's entry came from in ``indexedMatches``: its position in the index
  /// as loaded (0 or more), or one of these.
  enum Source {
    static let logged: Int32 = -1
    static let read: Int32 = -2
    static let gone: Int32 = -3
  }

  /// Notes in the index logs what a commit wrote (`written`, read back) and removed: called
  /// under the lock once the commit is durable, so the next query trusts these entries without
  /// reading the files, and no write rewrites a whole index. Past the fold threshold it notes
  /// nothing (a migration rewrites every file: the next query reads them and writes the index).
  func noteCommitted(_ commit: WriteSession.Commit) {
    let (written, deleted) = (commit.written, commit.deleted)
    guard configuration.useIndex, written.count + deleted.count <= IndexLog.foldThreshold(documents: 0) else {
      return
    }
    let kinds = Dictionary(
      registry.latestByKind.map { (layout.documents(in: $0.schema.directory), $0.kind) },
      uniquingKeysWith: { a, _ in a })
    var lines: [String: [IndexLog.Line]] = [:]
    for (path, exists) in written.map({ ($0, true) }) + deleted.map({ ($0, false) }) {
      let directory = FilePath(path).parent
      guard let kind = kinds[directory.string], let name = directory.relative(FilePath(path)) else { continue }
      let at = Int64(Date().timeIntervalSince1970 * 1e9)
      guard exists else {
        lines[kind, default: []].append(IndexLog.Line(name: name, entry: nil, at: at))
        continue
      }
      let stamp = FileStamp(FilePath(path))
      let bytes: [UInt8]
      do throws(StoreError) { bytes = try FileIO.read(FilePath(path), followLinks: false) } catch {
        continue  // A cache: the next query reads the file itself.
      }
      guard let stamp else { continue }
      lines[kind, default: []].append(
        IndexLog.Line(
          name: name, entry: KindIndex.entry(bytes, stamp: stamp, sensitive: sensitiveMembers(kind)), at: at))
    }
    for (kind, kindLines) in lines {
      saveIndexLog(kindLines, fingerprint: indexFingerprint(kind), to: indexLogPath(kind))
    }
  }

  /// Appends to an index log. A cache, as ``saveIndex(_:to:)``: a line that cannot be written
  /// costs one file read later, never the operation.
  @discardableResult
  func saveIndexLog(_ lines: [IndexLog.Line], fingerprint: String, to path: FilePath) -> Bool {
    do throws(StoreError) { try IndexLog.append(lines, fingerprint: fingerprint, to: path) } catch {
      // Deliberately not an error: see above.
      return false
    }
    return true
  }

  /// Notes that the directory of `kind`, whose stat was `stamp` at `at` (before it was listed),
  /// lists exactly the files of the index named `identity`, in its order (see ``ListingStamp``):
  /// when nothing else was listed, the stamp is settled, and `known` does not say so already. A
  /// cache, as ``saveIndex(_:to:)``.
  private func noteListing(
    _ kind: String, _ identity: UInt64, count: Int, stamp: FileStamp?, at: Int64, irregular: [String],
    known: ListingStamp?, racyWindow: Int64
  ) {
    guard let stamp, irregular.isEmpty, stamp.isSettled(at: at, racyWindow: racyWindow),
      known.map({ $0.index != identity || $0.count != count || $0.stamp != stamp }) ?? true
    else { return }
    saveIndex(ListingStamp(index: identity, count: count, stamp: stamp, at: at).encoded, to: listingStampPath(kind))
  }

  /// Removes a log folded into its index, unless lines were appended meanwhile (they stay, to be
  /// checked by stat as every line is).
  func dropIndexLog(_ path: FilePath, folded size: Int) {
    guard FileStamp(path)?.size == size else { return }
    do throws(StoreError) { try FileIO.remove(path) } catch {
      // Deliberately not an error: a log left behind is checked line by line as before.
      return
    }
  }

  /// Writes the index atomically; true when it was. A cache: a read never fails because its
  /// cache could not be saved (a read-only checkout, a full disk); the next read builds it again.
  @discardableResult
  func saveIndex(_ bytes: [UInt8], to path: FilePath) -> Bool {
    do throws(StoreError) {
      try FileIO.makeDirectories(path.parent)
      try AtomicWriter(boundary: layout.state).write(bytes, to: path)
      return true
    } catch {
      // Deliberately not an error: see above.
      return false
    }
  }

  /// The documents of `kind` matching `filters`, with their `sort` keys, from the index; nil
  /// when the query reads something the index does not hold (a nested path, a sensitive field).
  /// Only matches and files that do not parse are returned.
  ///
  /// With a watcher (``Configuration/indexWatching``) that vouches for what changed since the
  /// last query, only those files are `stat`ed (``watchedMatches``); otherwise every file is
  /// (``checkedMatches``), and the watcher's token is kept for the next query when the pass
  /// left the index files exact.
  func indexedMatches(
    kind: String, directory: FilePath, filters: [FilterExpression],
    sort: [(path: FilterExpression.Path, descending: Bool)],
    keeping: (count: Int, by: @Sendable (Match, Match) -> Bool)?
  ) throws(StoreError) -> (results: [(Match?, String?)], irregular: [String])? {
    let paths = filters.flatMap(\.paths) + sort.map(\.path)
    guard configuration.useIndex, let members = indexedMembers(kind, paths: paths) else { return nil }
    let judge = IndexJudge(
      filters: filters, sort: sort, projection: JSONProjection(paths: paths), wanted: members.map { Array($0.utf8) },
      fragments: filters.flatMap(\.compactFragments))
    let record = indexSource?.record(kind: kind)
    guard let source = indexSource,
      let answer = source.changes(kind: kind, directory: directory.string, since: record?.token)
    else {
      indexRoutes.withLock { $0[kind] = .unwatched }
      return try checkedMatches(kind: kind, directory: directory, judge: judge, keeping: keeping).found
    }
    if answer.everything == nil, let record,
      let found = try watchedMatches(
        kind: kind, directory: directory, judge: judge, keeping: keeping, record: record, answer: answer,
        source: source)
    {
      return found
    }
    let why = answer.everything ?? "the index's files changed since the last query"
    indexRoutes.withLock { $0[kind] = .everything(why) }
    let checked = try checkedMatches(kind: kind, directory: directory, judge: judge, keeping: keeping)
    if var exact = checked.exact {
      exact.token = answer.token
      exact.directory = directory.string
      source.save(exact, kind: kind)
    }
    return checked.found
  }

  /// Every file of `kind` checked, in one pass, in parallel: each is `stat`ed, and its entry taken
  /// from the log, else the index, when the stat vouches for it (the same stamp, modified before
  /// the racy window); else the file is read now. The entry's projection is judged where it lies
  /// (the index is mapped, not copied). What was read again is appended to the log; the index is
  /// written whole (the log folded into it) when files came or went or the log grew long. With
  /// `keeping`, each part of the pass keeps only its first `count` matches in that order (the
  /// query's window). `exact` (its token left empty) says what a watcher's next query may trust:
  /// nil when a cache could not be written, a file went during the pass, or the log names a file
  /// the pass did not find.
  func checkedMatches(
    kind: String, directory: FilePath, judge: IndexJudge, keeping: (count: Int, by: @Sendable (Match, Match) -> Bool)?
  ) throws(StoreError) -> (found: (results: [(Match?, String?)], irregular: [String])?, exact: WatchRecord?) {
    let started = Int64(Date().timeIntervalSince1970 * 1e9)
    let fingerprint = indexFingerprint(kind)
    let path = indexPath(kind)
    let indexStamp = FileStamp(notFollowing: path)
    let index = try KindIndex.load(path, fingerprint: fingerprint) ?? KindIndex()
    let logPath = indexLogPath(kind)
    let logBytes = try IndexLog.read(logPath)
    let (logged, logSize) = (IndexLog.lines(logBytes[...], fingerprint: fingerprint), logBytes.count)
    let racy = configuration.indexRacyWindow.nanoseconds
    // The directory is listed unless its stat vouches that it still lists the index's files
    // (not followed: a directory replaced by a link to it is listed, and refused there).
    let directoryStamp = FileStamp(notFollowing: directory)
    let listing = try ListingStamp.load(listingStampPath(kind))
    let vouched =
      if let now = directoryStamp, let listing, index.namesAreFlat {
        listing.vouches(for: index, now: now, racyWindow: racy)
      } else {
        false
      }
    // The files to visit: the index's names (read in place, on every core) when it stands for
    // the listing, else the listing's.
    let (listed, irregular) =
      vouched ? ([String](), [String]()) : try FileIO.walkNames(directory, suffix: StoreLayout.documentSuffix)
    let count = vouched ? index.count : listed.count
    @Sendable func name(_ k: Int) -> String { vouched ? index.name(k) : listed[k] }
    guard let opened = FileIO.Directory(directory) else {
      // Not listable as a directory now: read the long way.
      return (count == 0 ? ([], irregular) : nil, nil)
    }
    let sensitive = sensitiveMembers(kind)
    struct Chunk: Sendable {
      var matches: [Match] = []
      var unparsable: [String] = []
      var sources: [Int32] = []
      var read: [(Int, KindIndex.Entry)] = []
      /// Files whose entry is not at their own position in the index (files came or went).
      var misplaced: [Int] = []
      /// Files visited that the log has an entry for.
      var linesSeen = 0
    }
    // The index is written in the order the directory lists its files, which stays the same
    // while the directory does: then entry k is file k. A file found elsewhere is looked up by
    // name after the pass.
    @Sendable func visit(_ k: Int, position: Int?, into chunk: inout Chunk) throws(StoreError) {
      let name = name(k)
      // Gone since the listing (a concurrent rm): not a document any more.
      guard let stamp = FileStamp(name: name, in: opened) else {
        chunk.sources.append(Source.gone)
        return
      }
      let line = logged.isEmpty ? nil : logged[name]
      if line?.entry != nil { chunk.linesSeen += 1 }
      let judged: IndexJudge.Verdict
      if let entry = line?.trusted(for: stamp, racyWindow: racy) {
        chunk.sources.append(Source.logged)
        judged = try judge.judge(entry, name: name, in: directory)
      } else if line == nil, let position, index.trusts(position, for: stamp, racyWindow: racy) {
        chunk.sources.append(Int32(position))
        judged = try judge.judge(
          parses: index.parses(position), nonScalar: index.nonScalar(position),
          projection: index.projection(position), name: name, in: directory)
      } else {
        let bytes = try FileIO.readListed(directory / name, in: opened)
        let entry = KindIndex.entry(bytes, stamp: stamp, sensitive: sensitive)
        chunk.sources.append(Source.read)
        chunk.read.append((k, entry))
        judged = try judge.judge(entry, name: name, in: directory)
      }
      switch judged {
      case .match(let match): chunk.matches.append(match)
      case .unparsable: chunk.unparsable.append((directory / name).string)
      case .no: break
      }
    }
    // The projections judged point into the mapped index: it stays until the function returns.
    defer { withExtendedLifetime(index) {} }
    let sameCount = count == index.count
    func positions() -> [String: Int] {
      Dictionary((0..<index.count).map { (index.name($0), $0) }, uniquingKeysWith: { a, _ in a })
    }
    // Files came or went: every entry is looked up by name.
    let byName = sameCount ? nil : positions()
    // Parts of 512 files or more, some 64 on a large store: enough for every core to stay busy,
    // few enough that what they keep of a window is small.
    var chunks = try parallelChunks(count: count, chunkSize: max(512, count / 64)) {
      range -> [Result<Chunk, StoreError>] in
      [
        Result { () throws(StoreError) in
          var chunk = Chunk()
          chunk.sources.reserveCapacity(range.count)
          for k in range {
            if let byName {
              try visit(k, position: byName[listed[k]], into: &chunk)
            } else if vouched || index.isNamed(k, listed[k]) {
              try visit(k, position: k, into: &chunk)
            } else {
              chunk.misplaced.append(k)
              chunk.sources.append(Source.gone)  // for now: visited after the pass
            }
          }
          if let keeping, chunk.matches.count > keeping.count {
            chunk.matches = smallest(keeping.count, of: chunk.matches, by: keeping.by)
          }
          return chunk
        }
      ]
    }.map { result throws(StoreError) in try result.get() }
    var sources = chunks.flatMap(\.sources)
    let misplaced = chunks.flatMap(\.misplaced)
    if !misplaced.isEmpty {
      let positions = positions()
      var late = Chunk()
      for k in misplaced {
        try visit(k, position: positions[listed[k]], into: &late)
        sources[k] = late.sources.removeLast()
      }
      chunks.append(late)
    }
    let read = chunks.flatMap(\.read)
    let documents = sources.count { $0 != Source.gone }
    let found: (results: [(Match?, String?)], irregular: [String]) = (
      chunks.flatMap(\.matches).map { ($0, nil) } + chunks.flatMap(\.unparsable).map { (nil, $0) }, irregular
    )
    if !misplaced.isEmpty || !sameCount || logged.count + read.count > IndexLog.foldThreshold(documents: documents) {
      let fresh = Dictionary(uniqueKeysWithValues: read)
      let entries = (0..<count).compactMap { k -> (name: String, entry: KindIndex.Entry)? in
        switch sources[k] {
        case Source.gone: return nil
        case Source.read: return fresh[k].map { (name(k), $0) }
        case Source.logged: return logged[name(k)]?.entry.map { (name(k), $0) }
        case let position: return (name(k), index.entry(Int(position)))
        }
      }
      let encoded = KindIndex.encode(entries, writtenAt: started, fingerprint: fingerprint)
      guard saveIndex(encoded, to: path) else { return (found, nil) }
      if logSize > 0 { dropIndexLog(logPath, folded: logSize) }
      // The new index is the files visited, in order, unless some are gone.
      guard entries.count == count else { return (found, nil) }
      noteListing(
        kind, KindIndex.identity(of: encoded), count: count,
        stamp: directoryStamp, at: started, irregular: irregular, known: listing, racyWindow: racy)
      // Every entry is in the new index; whatever the log still holds was appended meanwhile.
      return (
        found,
        exact(
          index: KindIndex.identity(of: encoded), indexStamp: FileStamp(notFollowing: path), log: [],
          irregular: irregular, at: started)
      )
    }
    let saved =
      read.isEmpty
      || saveIndexLog(
        read.map { IndexLog.Line(name: name($0.0), entry: $0.1, at: started) }, fingerprint: fingerprint,
        to: logPath)
    // The index stands, and the listing named its files in its order.
    noteListing(
      kind, index.identity, count: index.count, stamp: directoryStamp, at: started, irregular: irregular,
      known: listing, racyWindow: racy)
    // Exact when every entry the next query may trust was vouched for by this pass: no file
    // gone, every file the log names found, the lines read again written after the log's end.
    guard saved, documents == count,
      chunks.map(\.linesSeen).reduce(0, +) == logged.values.count(where: { $0.entry != nil })
    else { return (found, nil) }
    return (
      found,
      exact(
        index: index.identity, indexStamp: index.count > 0 ? indexStamp : nil, log: logBytes, irregular: irregular,
        at: started)
    )
  }

  /// The record a watcher's next query may trust: the index named, and the whole lines of `log`.
  /// Its token and directory are left empty for the caller.
  func exact(index: UInt64, indexStamp: FileStamp?, log: [UInt8], irregular: [String], at: Int64) -> WatchRecord? {
    guard irregular.count <= WatchRecord.irregularLimit else { return nil }
    let prefix = IndexLog.wholeLines(log)
    return WatchRecord(
      token: "", directory: "", index: index, indexStamp: indexStamp, logSize: prefix,
      logChecksum: KindIndex.checksum(log, count: prefix), irregular: irregular, at: at)
  }
}

/// How ``Store/indexedMatches`` judges one document from its entry: the filters over its
/// projection, and the sort keys of a match.
struct IndexJudge: Sendable {
  let filters: [FilterExpression]
  let sort: [(path: FilterExpression.Path, descending: Bool)]
  let projection: JSONProjection?
  /// The top-level members the query reads.
  let wanted: [[UInt8]]
  /// Groups of which a projection must hold one fragment each to match (``Expression/compactFragments``):
  /// most documents are turned away by a byte search instead of a parse.
  let fragments: [[TextFragment]]

  enum Verdict {
    case match(Store.Match)
    case unparsable
    case no
  }

  func judge(_ entry: KindIndex.Entry, name: @autoclosure () -> String, in directory: FilePath) throws(StoreError)
    -> Verdict
  {
    try entry.nonScalar.withUnsafeBufferPointer { nonScalar throws(StoreError) in
      try entry.projection.withUnsafeBufferPointer { projection throws(StoreError) in
        try judge(parses: entry.parses, nonScalar: nonScalar, projection: projection, name: name(), in: directory)
      }
    }
  }

  func judge(
    parses: Bool, nonScalar: UnsafeBufferPointer<UInt8>, projection stored: UnsafeBufferPointer<UInt8>,
    name: @autoclosure () -> String, in directory: FilePath
  ) throws(StoreError) -> Verdict {
    guard parses else { return .unparsable }
    // The projection is the compact writer's text of the top-level scalars.
    for group in fragments where !group.contains(where: { $0.occurs(in: stored) }) { return .no }
    let value: JSONValue
    if readsContainer(nonScalar) {
      // A member the query reads holds an object or array here: judged from the file itself.
      let bytes = try FileIO.read(directory / name())
      guard let whole = try? JSONParser().parse(bytes) else { return .unparsable }
      value = whole
    } else {
      guard
        let parsed = projection.flatMap({
          JSONParser().parseCompactScalars(stored, keeping: $0) ?? JSONParser().parse(stored, keeping: $0)
        }) ?? (try? JSONParser().parse(stored))
      else { return .unparsable }
      value = parsed
    }
    guard filters.allSatisfy({ $0.evaluate(value) }) else { return .no }
    return .match(Store.Match(name: name(), keys: sort.map { $0.path.values(in: value).first }))
  }

  /// True when one of the comma-separated names in `nonScalar` is a member the query reads.
  private func readsContainer(_ nonScalar: UnsafeBufferPointer<UInt8>) -> Bool {
    var start = 0
    while start < nonScalar.count {
      var end = start
      while end < nonScalar.count && nonScalar[end] != UInt8(ascii: ",") { end += 1 }
      let name = nonScalar[start..<end]
      if wanted.contains(where: { name.elementsEqual($0) }) { return true }
      start = end + 1
    }
    return false
  }
}
