import FormsCore
import Foundation

extension Store {
  /// Where the index of `kind` lives (`.formsctl/index/KIND.idx`, ignored by git with the rest of
  /// `.formsctl/` but the audit log).
  func indexPath(_ kind: String) -> String { (FilePath(layout.indexDirectory) / (kind + ".idx")).string }

  /// Where the index's log of `kind` lives (`.formsctl/index/KIND.log`, see ``IndexLog``).
  func indexLogPath(_ kind: String) -> String { (FilePath(layout.indexDirectory) / (kind + ".log")).string }

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
  func indexedMembers(_ kind: String, paths: [FormsCore.Expression.Path]) -> Set<String>? {
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

  /// Where a document's entry comes from: the index as it was (trusted), its log (trusted), or
  /// its file read now.
  enum IndexedEntry: Sendable {
    case stored(Int)
    case logged(KindIndex.Entry)
    case read(KindIndex.Entry)
  }

  /// The index of `kind`, brought up to date with the files in `directory`: each file is
  /// `stat`ed; one whose entry (in the log, else in the index) is missing, differs or is racily
  /// clean is read again. What was read again is appended to the log; the index is written whole
  /// (the log folded into it) when files came or went or the log grew long. Returns the index as
  /// loaded, each document's entry, and the names that are not regular files.
  func refreshedIndex(kind: String, directory: String) throws(StoreError) -> (
    index: KindIndex, documents: [(path: String, entry: IndexedEntry)], irregular: [String]
  ) {
    let started = Int64(Date().timeIntervalSince1970 * 1e9)
    let fingerprint = indexFingerprint(kind)
    let path = indexPath(kind)
    let index = try KindIndex.load(path, fingerprint: fingerprint) ?? KindIndex()
    let logPath = indexLogPath(kind)
    let (lines, logSize) = try IndexLog.load(logPath, fingerprint: fingerprint)
    // Looked up by a slice of each file's path: no string is made per file.
    let logged = Dictionary(uniqueKeysWithValues: lines.map { (Substring($0.key), $0.value) })
    let (files, irregular) = try FileIO.walk(directory, suffix: StoreLayout.documentSuffix, sorted: false)
    let prefix = directory.utf8.count + 1
    // The index is written in the order the directory lists its files, which stays the same
    // while the directory does: then entry k is file k, and no table of names is needed.
    let inOrder =
      files.count == index.count && files.indices.allSatisfy { index.isNamed($0, files[$0].utf8.dropFirst(prefix)) }
    let positions =
      inOrder ? [:] : Dictionary((0..<index.count).map { (index.name($0), $0) }, uniquingKeysWith: { a, _ in a })
    let sensitive = sensitiveMembers(kind)
    let racy =
      Int64(configuration.indexRacyWindow.components.seconds) * 1_000_000_000
      + configuration.indexRacyWindow.components.attoseconds / 1_000_000_000
    let opened = FileIO.Directory(directory)
    let documents = try parallelMap(Array(files.indices), chunkSize: 128) {
      k -> Result<(path: String, entry: IndexedEntry)?, StoreError> in
      Result { () throws(StoreError) in
        let file = files[k]
        // Gone since the listing (a concurrent rm): not a document any more.
        guard let stamp = FileStamp(file, in: opened) else { return nil }
        let line = logged.isEmpty ? nil : logged[Substring(file.utf8.dropFirst(prefix))]
        if let entry = line?.trusted(for: stamp, racyWindow: racy) { return (file, .logged(entry)) }
        if line == nil,
          let position = inOrder ? k : positions[String(decoding: file.utf8.dropFirst(prefix), as: UTF8.self)],
          index.trusts(position, for: stamp, racyWindow: racy)
        {
          return (file, .stored(position))
        }
        let bytes: [UInt8]
        if let opened { bytes = try FileIO.readListed(file, in: opened) } else { bytes = try FileIO.read(file) }
        return (file, .read(KindIndex.entry(bytes, stamp: stamp, sensitive: sensitive)))
      }
    }.map { result throws(StoreError) in try result.get() }.compactMap { $0 }
    let read = documents.compactMap { document -> IndexLog.Line? in
      guard case .read(let entry) = document.entry else { return nil }
      return IndexLog.Line(
        name: String(decoding: document.path.utf8.dropFirst(prefix), as: UTF8.self), entry: entry, at: started)
    }
    if !inOrder || logged.count + read.count > IndexLog.foldThreshold(documents: documents.count) {
      let entries = documents.map { document -> (name: String, entry: KindIndex.Entry) in
        let name = String(decoding: document.path.utf8.dropFirst(prefix), as: UTF8.self)
        switch document.entry {
        case .stored(let position): return (name, index.entry(position))
        case .logged(let entry), .read(let entry): return (name, entry)
        }
      }
      if saveIndex(KindIndex.encode(entries, writtenAt: started, fingerprint: fingerprint), to: path), logSize > 0 {
        dropIndexLog(logPath, folded: logSize)
      }
    } else if !read.isEmpty {
      saveIndexLog(read, fingerprint: fingerprint, to: logPath)
    }
    return (index, documents, irregular)
  }

  /// Notes in the index logs what a commit wrote (`written`, read back) and removed: called
  /// under the lock once the commit is durable, so the next query trusts these entries without
  /// reading the files, and no write rewrites a whole index. Past the fold threshold it notes
  /// nothing (a migration rewrites every file: the next query reads them and writes the index).
  func noteCommitted(written: [String], deleted: [String]) {
    guard configuration.useIndex, written.count + deleted.count <= IndexLog.foldThreshold(documents: 0) else {
      return
    }
    let kinds = Dictionary(
      registry.latestByKind.map { (layout.documents(in: $0.schema.directory), $0.kind) },
      uniquingKeysWith: { a, _ in a })
    var lines: [String: [IndexLog.Line]] = [:]
    for (path, exists) in written.map({ ($0, true) }) + deleted.map({ ($0, false) }) {
      let directory = FilePath(path).parent.string
      guard let kind = kinds[directory], let name = FilePath(directory).relative(FilePath(path)) else { continue }
      let at = Int64(Date().timeIntervalSince1970 * 1e9)
      guard exists else {
        lines[kind, default: []].append(IndexLog.Line(name: name, entry: nil, at: at))
        continue
      }
      let stamp = FileStamp(path)
      let bytes: [UInt8]
      do throws(StoreError) { bytes = try FileIO.read(path, followLinks: false) } catch {
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
  private func saveIndexLog(_ lines: [IndexLog.Line], fingerprint: String, to path: String) {
    do throws(StoreError) { try IndexLog.append(lines, fingerprint: fingerprint, to: path) } catch {
      // Deliberately not an error: see above.
      return
    }
  }

  /// Removes a log folded into its index, unless lines were appended meanwhile (they stay, to be
  /// checked by stat as every line is).
  private func dropIndexLog(_ path: String, folded size: Int) {
    guard FileStamp(path)?.size == size else { return }
    do throws(StoreError) { try FileIO.remove(path) } catch {
      // Deliberately not an error: a log left behind is checked line by line as before.
      return
    }
  }

  /// Writes the index atomically; true when it was. A cache: a read never fails because its
  /// cache could not be saved (a read-only checkout, a full disk); the next read builds it again.
  @discardableResult
  private func saveIndex(_ bytes: [UInt8], to path: String) -> Bool {
    do throws(StoreError) {
      try FileIO.makeDirectories(FilePath(path).parent.string)
      try AtomicWriter(boundary: layout.stateDirectory).write(bytes, to: path)
      return true
    } catch {
      // Deliberately not an error: see above.
      return false
    }
  }

  /// The documents of `kind` matching `filters`, with their `sort` keys, from the index; nil
  /// when the query reads something the index does not hold (a nested path, a sensitive field).
  func indexedMatches(
    kind: String, directory: String, filters: [FormsCore.Expression],
    sort: [(path: FormsCore.Expression.Path, descending: Bool)]
  ) throws(StoreError) -> (results: [(Match?, String?)], irregular: [String])? {
    let paths = filters.flatMap(\.paths) + sort.map(\.path)
    guard configuration.useIndex, let members = indexedMembers(kind, paths: paths) else { return nil }
    let (index, documents, irregular) = try refreshedIndex(kind: kind, directory: directory)
    let projection = JSONProjection(paths: paths)
    let wanted = members.map { Array($0.utf8) }
    let results = try parallelMap(documents, chunkSize: 256) { document -> Result<(Match?, String?), StoreError> in
      Result { () throws(StoreError) in
        let parses: Bool
        let nonScalar: ArraySlice<UInt8>
        let stored: ArraySlice<UInt8>
        switch document.entry {
        case .stored(let position):
          (parses, nonScalar, stored) = (index.parses(position), index.nonScalar(position), index.projection(position))
        case .logged(let entry), .read(let entry):
          (parses, nonScalar, stored) = (entry.parses, entry.nonScalar[...], entry.projection[...])
        }
        guard parses else { return (nil, document.path) }
        let value: JSONValue
        if nonScalar.split(separator: UInt8(ascii: ",")).contains(where: { name in
          wanted.contains { name.elementsEqual($0) }
        }) {
          // A member the query reads holds an object or array here: judged from the file itself.
          let bytes = try FileIO.read(document.path)
          guard let whole = try? JSONParser().parse(bytes) else { return (nil, document.path) }
          value = whole
        } else {
          let parsed = stored.withUnsafeBufferPointer { buffer in
            projection.flatMap { JSONParser().parse(buffer, keeping: $0) } ?? (try? JSONParser().parse(buffer))
          }
          guard let parsed else { return (nil, document.path) }
          value = parsed
        }
        guard filters.allSatisfy({ $0.evaluate(value) }) else { return (nil, nil) }
        return (Match(path: document.path, keys: sort.map { $0.path.values(in: value).first }), nil)
      }
    }.map { result throws(StoreError) in try result.get() }
    return (results, irregular)
  }
}
