import Foundation

extension FilterExpression {
  /// What the compact JSON text of a document's top level (``JSONWriter/compact(_:)`` of its
  /// scalar members) must contain for the expression to hold there: a list of groups, each of
  /// which needs one of its fragments in the text. A document whose text lacks every fragment of
  /// a group does not satisfy the expression, so it need not be parsed to be turned away; one
  /// that has them is judged as usual (the fragments are necessary, never sufficient).
  ///
  /// Only equality of a top-level member with a string gives fragments (`status == "open"` needs
  /// `"status":"open"`; `status in ["open", "closed"]` needs one of two), joined by `and` and
  /// `or`. Such a comparison is the equality of UTF-8 bytes (``order(_:_:)``) unless the string
  /// is a date or datetime, which compares by instant (`…T00:00:00Z` equals `…T00:00:00+00:00`):
  /// those give none. The writer's text of equal strings is the same bytes, so a document
  /// holding the member with that value holds the fragment. A member holding an object or array
  /// is not in that text and never equals a string.
  public var compactFragments: [[TextFragment]] {
    switch self {
    case .and(let a, let b):
      return a.compactFragments + b.compactFragments
    case .or(let a, let b):
      // Either side holding: the text has a fragment of one of them. A side without fragments
      // could hold anywhere.
      let (x, y) = (a.compactFragments, b.compactFragments)
      guard let left = x.min(by: { $0.count < $1.count }), let right = y.min(by: { $0.count < $1.count }) else {
        return []
      }
      return [left + right]
    case .compare(.path(let path), .equal, .literal(let value)), .compare(.literal(let value), .equal, .path(let path)):
      return Self.fragment(path, value).map { [[$0]] } ?? []
    case .isIn(.path(let path), let values):
      let fragments = values.compactMap { Self.fragment(path, $0) }
      // A value without a fragment could match without any of them in the text.
      return fragments.count == values.count && !fragments.isEmpty ? [fragments] : []
    case .not, .exists, .compare, .matches, .isIn:
      return []
    }
  }

  /// `"name":"value"` as the compact writer puts it, when `path` is one member and `value` a
  /// string that is neither a date nor a datetime.
  private static func fragment(_ path: Path, _ value: JSONValue) -> TextFragment? {
    guard path.steps.count == 1, case .member(let name) = path.steps[0], case .string(let text) = value,
      CalendarDate(text) == nil, Instant.parseDateTime(text) == nil
    else { return nil }
    // `{"name":"value"}` without its braces.
    let object = JSONObject(sortedUniqueMembers: [JSONObject.Member(key: name, value: value)])
    return TextFragment(Array(JSONWriter.compact(.object(object)).utf8.dropFirst().dropLast()))
  }
}

/// Bytes to look for in a text, found by memchr at each place their rarest byte (by how often
/// bytes occur in JSON text) occurs, then compared whole there.
public struct TextFragment: Sendable, Equatable {
  public let bytes: [UInt8]
  /// The offset of the rarest byte.
  let anchor: Int

  public init(_ bytes: [UInt8]) {
    self.bytes = bytes
    anchor = bytes.indices.min { Self.commonness(bytes[$0]) < Self.commonness(bytes[$1]) } ?? 0
  }

  /// True when the fragment occurs in `text`.
  public func occurs(in text: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = text.baseAddress, !bytes.isEmpty, text.count >= bytes.count else { return bytes.isEmpty }
    return bytes.withUnsafeBufferPointer { needle in
      guard let first = needle.baseAddress else { return true }
      // The anchor byte's possible places: from `anchor` to `text.count - needle.count + anchor`.
      var at = base + anchor
      let end = base + (text.count - needle.count + anchor + 1)
      while at < end, let found = memchr(at, Int32(needle[anchor]), end - at) {
        let start = found.assumingMemoryBound(to: UInt8.self) - anchor
        if memcmp(start, first, needle.count) == 0 { return true }
        at = UnsafePointer(start + anchor + 1)
      }
      return false
    }
  }

  /// How common `byte` is in JSON text, roughly: its place from the end of a list of the most
  /// common ones (quotes and punctuation first, then digits and frequent letters), or 0.
  private static func commonness(_ byte: UInt8) -> Int {
    let common = Array(#"":,0123456789-_ etaoinsrdlcu.TZpm"#.utf8)
    return common.firstIndex(of: byte).map { common.count - $0 } ?? 0
  }
}
