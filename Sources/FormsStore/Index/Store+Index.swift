import FormsCore
import Foundation

extension Store {
  /// Where the index of `kind` lives (`.formsctl/index/KIND.idx`, ignored by git with the rest of
  /// `.formsctl/` but the audit log).
  func indexPath(_ kind: String) -> String { layout.stateDirectory + "/index/" + kind + ".idx" }

  /// What an index of `kind` must have been built with to be trusted: the format, and the members
  /// kept out of it (every version's sensitive fields).
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
      guard path.steps.count == 1, case .member(let name) = path.steps[0], !sensitive.contains(name) else { return nil }
      names.insert(name)
    }
    return names
  }

  /// The index of `kind`, brought up to date with the files in `directory`: each file is
  /// `stat`ed; one whose entry is missing, differs or is racily clean is read again. The index is
  /// saved when anything was read or removed. Returns the entries by path, and the names that
  /// are not regular files.
  func refreshedIndex(kind: String, directory: String) throws(StoreError) -> (
    entries: [(path: String, entry: KindIndex.Entry)], irregular: [String]
  ) {
    let started = Int64(Date().timeIntervalSince1970 * 1e9)
    let fingerprint = indexFingerprint(kind)
    let path = indexPath(kind)
    let index = try KindIndex.load(path, fingerprint: fingerprint) ?? KindIndex()
    let (files, irregular) = try FileIO.walk(directory, suffix: StoreLayout.documentSuffix, sorted: false)
    let sensitive = sensitiveMembers(kind)
    let prefix = directory.count + 1
    let racy = Int64(configuration.indexRacyWindow.components.seconds) * 1_000_000_000
      + configuration.indexRacyWindow.components.attoseconds / 1_000_000_000
    let opened = FileIO.Directory(directory)
    let looked = try parallelMap(files, chunkSize: 64) {
      file -> Result<(String, KindIndex.Entry, Bool)?, StoreError> in
      Result { () throws(StoreError) in
        // Gone since the listing (a concurrent rm): not a document any more.
        guard let stamp = FileStamp(file, in: opened) else { return nil }
        let name = String(file.dropFirst(prefix))
        if let entry = index.entries[name], index.trusts(entry, for: stamp, racyWindow: racy) {
          return (file, entry, false)
        }
        let bytes: [UInt8]
        if let opened { bytes = try FileIO.readListed(file, in: opened) } else { bytes = try FileIO.read(file) }
        return (file, KindIndex.entry(bytes, stamp: stamp, sensitive: sensitive), true)
      }
    }.map { result throws(StoreError) in try result.get() }.compactMap { $0 }
    if looked.contains(where: \.2) || looked.count != index.entries.count {
      var updated = KindIndex()
      updated.writtenAt = started
      for (file, entry, _) in looked { updated.entries[String(file.dropFirst(prefix))] = entry }
      saveIndex(updated, to: path, fingerprint: fingerprint)
    }
    return (looked.map { ($0.0, $0.1) }, irregular)
  }

  /// Writes the index atomically. A cache: a read never fails because its cache could not be
  /// saved (a read-only checkout, a full disk); the next read builds it again.
  private func saveIndex(_ index: KindIndex, to path: String, fingerprint: String) {
    do throws(StoreError) {
      try FileIO.makeDirectories(parentDirectory(path))
      try AtomicWriter(boundary: layout.stateDirectory).write(index.encoded(fingerprint: fingerprint), to: path)
    } catch {
      // Deliberately not an error: see above.
      return
    }
  }

  /// The documents of `kind` matching `filters`, with their `sort` keys, from the index; nil
  /// when the query reads something the index does not hold (a nested path, a sensitive field).
  func indexedMatches(
    kind: String, directory: String, filters: [FormsCore.Expression], sort: [(path: FormsCore.Expression.Path, descending: Bool)]
  ) throws(StoreError) -> (results: [(Match?, String?)], irregular: [String])? {
    guard configuration.useIndex,
      let members = indexedMembers(kind, paths: filters.flatMap(\.paths) + sort.map(\.path))
    else { return nil }
    let (entries, irregular) = try refreshedIndex(kind: kind, directory: directory)
    let results = try parallelMap(entries, chunkSize: 256) { item -> Result<(Match?, String?), StoreError> in
      Result { () throws(StoreError) in
        guard item.entry.parses else { return (nil, item.path) }
        // A member the query reads holds an object or array here: judged from the file itself.
        let value: JSONValue
        if item.entry.nonScalar.contains(where: members.contains) {
          let bytes = try FileIO.read(item.path)
          guard let whole = try? JSONParser().parse(bytes) else { return (nil, item.path) }
          value = whole
        } else {
          guard let projection = try? JSONParser().parse(item.entry.projection) else { return (nil, item.path) }
          value = projection
        }
        guard filters.allSatisfy({ $0.evaluate(value) }) else { return (nil, nil) }
        return (Match(path: item.path, keys: sort.map { $0.path.values(in: value).first }), nil)
      }
    }.map { result throws(StoreError) in try result.get() }
    return (results, irregular)
  }
}
