import FormsCore

extension Store {
  /// A query of `list`: filters (all must hold), sort keys, and a window.
  public struct Query: Sendable {
    public var filters: [Expression] = []
    /// Paths to sort by, each ascending or descending; missing values sort last.
    public var sort: [(path: Expression.Path, descending: Bool)] = []
    public var offset = 0
    public var limit: Int?

    public init(filters: [Expression] = [], sort: [(path: Expression.Path, descending: Bool)] = [], offset: Int = 0, limit: Int? = nil) {
      self.filters = filters
      self.sort = sort
      self.offset = offset
      self.limit = limit
    }
  }

  /// The documents of `kind` that match `query`, sorted and windowed (read in parallel; only the
  /// matches are kept). Files that do not parse are skipped and named in `skipped`.
  public func list(kind: String, query: Query) throws(StoreError) -> (documents: [Document], skipped: [String]) {
    let directory = layout.dataDirectory + "/" + (try schema(kind)).directory
    let filters = query.filters
    let results = parallelMap(FileIO.files(under: directory, suffix: ".json"), chunkSize: 32) { path -> (Document?, String?) in
      guard let bytes = try? FileIO.read(path), let value = try? JSONParser().parse(bytes) else { return (nil, path) }
      guard filters.allSatisfy({ $0.evaluate(value) }) else { return (nil, nil) }
      return (Document(path: path, value: value, bytes: bytes), nil)
    }
    var documents = results.compactMap(\.0)
    let sort = query.sort
    if !sort.isEmpty {
      documents.sort { a, b in
        for key in sort {
          let x = key.path.values(in: a.value).first
          let y = key.path.values(in: b.value).first
          switch (x, y) {
          case (nil, nil): continue
          case (nil, _): return false
          case (_, nil): return true
          case (let x?, let y?):
            guard let order = Expression.order(x, y), order != 0 else { continue }
            return key.descending ? order > 0 : order < 0
          }
        }
        return a.path < b.path
      }
    }
    let start = min(query.offset, documents.count)
    let end = query.limit.map { min(documents.count, start + $0) } ?? documents.count
    return (Array(documents[start..<end]), results.compactMap(\.1))
  }
}
