import FormsCore

extension Store {
  /// A query of `list`: filters (all must hold), sort keys, and a window.
  public struct Query: Sendable {
    public var filters: [FilterExpression] = []
    /// Paths to sort by, each ascending or descending; missing values sort last.
    public var sort: [(path: FilterExpression.Path, descending: Bool)] = []
    public var offset = 0
    public var limit: Int?

    public init(
      filters: [FilterExpression] = [], sort: [(path: FilterExpression.Path, descending: Bool)] = [], offset: Int = 0,
      limit: Int? = nil
    ) {
      self.filters = filters
      self.sort = sort
      self.offset = offset
      self.limit = limit
    }
  }

  /// Refuses a filter or sort key that reads a sensitive field when no identity opens sealed
  /// values: every document would compare its envelope, so `--where` would silently match nothing.
  func refuseSealedReads(kind: String, _ paths: [FilterExpression.Path]) throws(StoreError) {
    guard keyring.identity == nil else { return }
    let sensitive = Set((registry.schemas[kind]?.values).map { $0.flatMap(\.sensitiveFieldNames) } ?? [])
    for path in paths {
      for case .member(let name) in path.steps where sensitive.contains(name) {
        throw StoreError.refused(.sealedQuery(expression: path.description, field: name))
      }
    }
  }

  /// The documents of `kind` that match `query`, sorted (by the kind's `order:` when the query
  /// names no sort) and windowed, read in parallel. Only the sort keys of the matches are kept
  /// while sorting; the page returned is read again at the end.
  /// Files that do not parse, and names that are not regular files (never opened), are skipped
  /// and named in `skipped` with the reason.
  ///
  /// A filter or sort key that reads opened sealed values tells what they are (one question at a
  /// time: which documents match, in which order), so the query records them first
  /// (``recordAccess(_:)``): every document whose sealed values its paths reached. When that
  /// record cannot be written (a read-only store, an operation awaiting `recover`) the query
  /// fails. The documents returned are opened without a record, as ``read(kind:id:)`` returns them.
  public func list(kind: String, query: Query) throws(StoreError) -> Matches {
    let found = try listed(kind: kind, query: query)
    try recordAccess(found.read)
    return Matches(documents: found.documents, skipped: found.skipped)
  }

  /// What ``list(kind:query:)`` found.
  public struct Matches: Sendable {
    /// The documents that match, in the query's order, within its offset and limit.
    public var documents: [Document]
    /// The files of the kind that could not be read or parsed: named, not listed.
    public var skipped: [Skipped]
  }

  /// A file a listing could not read or parse, and why.
  public struct Skipped: Sendable, Equatable {
    public var path: String
    public var reason: String
  }

  /// ``list(kind:query:)`` without its record: also the sealed values the filters and sort keys
  /// read (`read`), for a caller that records them with what it shows, in one record.
  func listed(kind: String, query: Query) throws(StoreError) -> (
    documents: [Document], skipped: [Skipped], read: [AccessEntry]
  ) {
    let schema = try schema(kind)
    let directory = layout.dataPath / schema.directory
    let filters = query.filters
    try refuseSealedReads(kind: kind, filters.flatMap(\.paths) + query.sort.map(\.path))
    let sort = query.sort.isEmpty ? schema.order : query.sort
    let ordered: @Sendable (Match, Match) -> Bool = { a, b in
      for (index, key) in sort.enumerated() {
        switch (a.keys[index], b.keys[index]) {
        case (nil, nil): continue
        case (nil, _): return false
        case (_, nil): return true
        case (let x?, let y?):
          guard let order = FilterExpression.order(x, y), order != 0 else { continue }
          return key.descending ? order > 0 : order < 0
        }
      }
      return a.name < b.name
    }
    // With --limit, only the first offset + limit in order are kept and sorted (a bounded heap),
    // by each part of the pass over the index and then of what they kept.
    let wanted = query.limit.map { limit in
      let (wanted, overflow) = max(0, query.offset).addingReportingOverflow(max(0, limit))
      return overflow ? Int.max : wanted
    }
    let found: (results: [(Match?, String?)], irregular: [String], read: [AccessEntry])
    // The index never holds a sensitive member (nor answers a path reaching one): what it answers
    // read no sealed value.
    if let indexed = try indexedMatches(
      kind: kind, directory: directory, filters: filters, sort: sort, keeping: wanted.map { ($0, ordered) })
    {
      found = (indexed.results, indexed.irregular, [])
    } else {
      found = try scannedMatches(kind: kind, directory: directory, filters: filters, sort: sort)
    }
    let (results, irregular, read) = found
    let all = results.compactMap(\.0)
    let matches = wanted.map { smallest($0, of: all, by: ordered) } ?? all.sorted(by: ordered)
    let start = min(max(0, query.offset), matches.count)
    let end = query.limit.map { start + min(max(0, $0), matches.count - start) } ?? matches.count
    let page = try parallelMap(Array(matches[start..<end]), chunkSize: 32) { match -> Result<Document?, StoreError> in
      Result { () throws(StoreError) in
        let path = directory / match.name
        let bytes = try FileIO.read(path)
        return try? self.openedDocument(JSONParser().parse(bytes), path: path.string, bytes: bytes)
      }
    }.map { result throws(StoreError) in try result.get() }
    let skipped =
      results.compactMap(\.1).map { Skipped(path: $0, reason: "does not parse") }
      + irregular.map { Skipped(path: $0, reason: "\(FileIO.describe(FilePath($0))), not a regular file") }
    return (page.compactMap { $0 }, skipped.sorted { $0.path < $1.path }, read)
  }

  /// The full id of the `kind` document that `id` names: itself when that document exists, else
  /// the one id starting with it (at least 4 characters, like git's short hashes). Several
  /// matches are a usage error listing them; none leaves `id` as it is (the caller's read says
  /// it is not there).
  public func expand(kind: String, id: String) throws(StoreError) -> String {
    let exact = try path(kind: kind, id: id)
    guard id.count >= 4, !FileIO.exists(FilePath(exact)) else { return id }
    let matches = try layout.ids(in: try schema(kind).directory, prefix: id)
    if matches.count > 1 { throw StoreError.ambiguousID(kind: kind, prefix: id, candidates: matches) }
    return matches.first ?? id
  }

  /// The documents of `kind` matching `filters`, with their `sort` keys, each file read; and the
  /// opened sealed values the filters and sort keys reached, per document (matching or not: a
  /// filter that rejects a document has read its value too).
  func scannedMatches(
    kind: String, directory: FilePath, filters: [FilterExpression],
    sort: [(path: FilterExpression.Path, descending: Bool)]
  ) throws(StoreError) -> (results: [(Match?, String?)], irregular: [String], read: [AccessEntry]) {
    // Unsorted: matches are ordered by their keys, then by path, by the caller.
    let (names, irregular) = try FileIO.walkNames(directory, suffix: StoreLayout.documentSuffix)
    // Only what the filters and sort keys read is built (the rest of each file is checked, not
    // kept), unless a version of the kind seals fields: opening needs the whole document.
    let sealed = registry.schemas[kind]?.values.contains { $0.hasSensitiveFields } ?? false
    let paths = filters.flatMap(\.paths) + sort.map(\.path)
    let computed = Self.computedMembers(paths)
    let projection = sealed || !computed.isEmpty ? nil : JSONProjection(paths: paths)
    let sync = computed.contains("_sync") ? try SyncState.latest(layout)?.records(kind: kind) ?? [:] : nil
    let opened = FileIO.Directory(directory)
    // A file that cannot be read is an error (never "not there"); one that does not parse is skipped, named.
    let scanned = try parallelMap(names, chunkSize: 32) {
      name -> Result<(Match?, String?, AccessEntry?), StoreError> in
      Result { () throws(StoreError) in
        let file = directory / name
        let path = file.string
        let bytes: [UInt8]
        if let opened {
          bytes = try FileIO.readListed(file, in: opened)
        } else {
          bytes = try FileIO.read(file)
        }
        // Not parsing (or a broken envelope) skips the file, named; reading sync state may fail.
        let stored = projection == nil ? try? JSONParser().parse(bytes) : nil
        let document = stored.flatMap { try? self.openedDocument($0, path: path, bytes: bytes) }
        guard var value = projection.flatMap({ JSONParser().parse(bytes, keeping: $0) }) ?? document?.value
        else { return (nil, path, nil) }
        let read = document.flatMap { document in
          document.opened.isEmpty
            ? nil
            : self.access(
              document, kind: kind, shown: paths.flatMap { $0.located(in: document.value).map(\.pointer) })
        }
        if let stored, !computed.isEmpty {
          try self.compute(computed, into: &value, stored: stored, kind: kind, path: path, bytes: bytes, sync: sync)
        }
        guard filters.allSatisfy({ $0.evaluate(value) }) else { return (nil, nil, read) }
        return (Match(name: name, keys: sort.map { $0.path.values(in: value).first }), nil, read)
      }
    }.map { result throws(StoreError) in try result.get() }
    return (scanned.map { ($0.0, $0.1) }, irregular, scanned.compactMap(\.2))
  }

  /// `entries` with one entry per document (its pointers in the order first named), for one
  /// record of what a query read and what it then showed.
  static func merged(_ entries: [AccessEntry]) -> [AccessEntry] {
    var merged: [AccessEntry] = []
    var at: [String: Int] = [:]
    for entry in entries {
      let key = entry.kind + "\u{0}" + entry.id
      guard let index = at[key] else {
        at[key] = merged.count
        merged.append(entry)
        continue
      }
      merged[index].pointers += entry.pointers.filter { !merged[index].pointers.contains($0) }
    }
    return merged
  }

  /// A matching document while sorting: its sort-key values, and its file's name in the kind's
  /// directory (which orders matches as their paths would; a path is made for the page alone).
  struct Match: Sendable {
    let name: String
    let keys: [JSONValue?]
  }
}

/// The `count` first of `items` in the order `less` gives, sorted: a max-heap of `count`, so
/// O(n log count) time and O(count) space.
func smallest<T>(_ count: Int, of items: [T], by less: (T, T) -> Bool) -> [T] {
  guard count > 0 else { return [] }
  guard count < items.count else { return items.sorted(by: less) }
  var heap: [T] = []
  heap.reserveCapacity(count)
  func siftDown(_ start: Int) {
    var parent = start
    while true {
      let left = 2 * parent + 1
      let right = left + 1
      var largest = parent
      if left < heap.count && less(heap[largest], heap[left]) { largest = left }
      if right < heap.count && less(heap[largest], heap[right]) { largest = right }
      if largest == parent { return }
      heap.swapAt(parent, largest)
      parent = largest
    }
  }
  for item in items {
    if heap.count < count {
      heap.append(item)
      var child = heap.count - 1
      while child > 0 {
        let parent = (child - 1) / 2
        guard less(heap[parent], heap[child]) else { break }
        heap.swapAt(parent, child)
        child = parent
      }
    } else if less(item, heap[0]) {
      heap[0] = item
      siftDown(0)
    }
  }
  return heap.sorted(by: less)
}

extension Store {
  /// Members a query may read that no file stores (`Schema.computedMemberNames` in FormsCore), computed for
  /// each document as it is read. `_awaiting` lists the roles whose approval the document waits
  /// for now (the steps of the chain reviewing its state that a holder of the role may sign next).
  public static var computedMemberNames: Set<String> { Schema.computedMemberNames }

  /// The computed members `paths` read.
  static func computedMembers(_ paths: [FilterExpression.Path]) -> Set<String> {
    var names = Set<String>()
    for path in paths {
      if case .member(let name)? = path.steps.first, computedMemberNames.contains(name) { names.insert(name) }
    }
    return names
  }

  /// Adds the `computing` members to `value`, the document `stored` (parsed from `bytes` at
  /// `path`) as a query reads it.
  func compute(
    _ computing: Set<String>, into value: inout JSONValue, stored: JSONValue, kind: String, path: String,
    bytes: [UInt8], sync: [String: SyncState.Record]?
  ) throws(StoreError) {
    if computing.contains("_sync") {
      let record = sync?[StoreLayout.id(fromFile: path) ?? FilePath(path).name]
      value["_sync"] = SyncState.status(of: record, sha256: SyncState.hash(bytes)).map { .string($0.rawValue) } ?? .null
    }
    if computing.contains("_awaiting"), let schema = registry.schema(of: stored) {
      value["_awaiting"] = .array(awaitedRoles(stored, schema: schema, kind: kind, path: path).map { .string($0) })
    }
  }

  /// The roles whose approval `stored` (as on disk) waits for now.
  func awaitedRoles(_ stored: JSONValue, schema: Schema, kind: String, path: String) -> [String] {
    guard let state = schema.workflowState(of: stored), let chain = schema.approvals?.reviewing(state) else {
      return []
    }
    let id = StoreLayout.id(fromFile: path) ?? FilePath(path).name
    let review = ApprovalReview(
      stored, schema: schema, kind: kind, id: id, roles: layout.roles, references: registry.references(kind))
    guard let round = review.rounds[chain.to], round.isLive else { return [] }
    return Array(Set(chain.steps.map(\.role).filter { round.nextStep(for: $0) != nil })).sorted()
  }
}
