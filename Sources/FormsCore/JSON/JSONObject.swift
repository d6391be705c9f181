/// The members of a JSON object, kept sorted by key in code-point order (the canonical order).
///
/// Keys are unique: the parser refuses duplicates, and `subscript(key:)` replaces in place.
public struct JSONObject: Sendable, Hashable {
  /// One key and its value.
  public struct Member: Sendable, Hashable {
    public var key: String
    public var value: JSONValue

    public init(key: String, value: JSONValue) {
      self.key = key
      self.value = value
    }

    public static func == (lhs: Member, rhs: Member) -> Bool {
      codePointCompare(lhs.key, rhs.key) == 0 && lhs.value == rhs.value
    }

    public func hash(into hasher: inout Hasher) {
      hashUTF8(key, into: &hasher)
      hasher.combine(value)
    }
  }

  /// The members in canonical (code-point) key order.
  public private(set) var members: [Member]

  /// An empty object.
  public init() { members = [] }

  /// An object from members with unique keys, in any order.
  public init(_ members: [Member]) {
    self.members = members
    if !isSorted(members) { self.members.sort { codePointLess($0.key, $1.key) } }
  }

  /// An object from key-value pairs with unique keys, in any order.
  public init(_ pairs: KeyValuePairs<String, JSONValue>) {
    self.init(pairs.map { Member(key: $0.key, value: $0.value) })
  }

  /// Members already sorted and unique; the parser's fast path.
  init(sortedUniqueMembers: [Member]) { members = sortedUniqueMembers }

  /// The number of members.
  public var count: Int { members.count }

  /// True when there are no members.
  public var isEmpty: Bool { members.isEmpty }

  /// The keys in canonical order.
  public var keys: [String] { members.map(\.key) }

  /// The value of `key`; setting nil removes the member.
  public subscript(key: String) -> JSONValue? {
    get {
      switch search(key) {
      case .found(let i): return members[i].value
      case .insertAt: return nil
      }
    }
    set {
      switch (search(key), newValue) {
      case (.found(let i), let value?): members[i].value = value
      case (.found(let i), nil): members.remove(at: i)
      case (.insertAt(let i), let value?): members.insert(Member(key: key, value: value), at: i)
      case (.insertAt, nil): break
      }
    }
  }

  private enum SearchResult {
    case found(Int)
    case insertAt(Int)
  }

  private func search(_ key: String) -> SearchResult {
    var low = 0
    var high = members.count
    while low < high {
      let mid = (low + high) / 2
      let order = codePointCompare(members[mid].key, key)
      if order == 0 { return .found(mid) }
      if order < 0 { low = mid + 1 } else { high = mid }
    }
    return .insertAt(low)
  }
}

private func isSorted(_ members: [JSONObject.Member]) -> Bool {
  var i = 1
  while i < members.count {
    if !codePointLess(members[i - 1].key, members[i].key) { return false }
    i += 1
  }
  return true
}
