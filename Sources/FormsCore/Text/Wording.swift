/// How counts and suggestions are worded in messages, in one place.

/// `1 document`, `3 documents`: the count and the noun, plural unless the count is one (English
/// nouns that take an `s`; the noun may have words before it: `changed file`).
public func plural(_ count: Int, _ noun: String) -> String {
  "\(count) \(noun)\(count == 1 ? "" : "s")"
}

/// `; did you mean "status"?` for the candidate nearest `word` (see `suggestion`), with `prefix`
/// before it inside the quotes; empty when none is near.
public func didYouMean(_ word: String, among candidates: [String], prefix: String = "") -> String {
  suggestion(for: word, among: candidates).map { "; did you mean \"\(prefix)\($0)\"?" } ?? ""
}

/// `text` in double quotes for a message, cut to its first `limit` characters (with `…` and its
/// length) when longer: a value from a file or a feed never makes a message megabytes long.
public func quoted(_ text: String, limit: Int = 80) -> String {
  guard text.unicodeScalars.count > limit else { return "\"\(text)\"" }
  let head = String(String.UnicodeScalarView(text.unicodeScalars.prefix(limit)))
  return "\"\(head)…\" (\(plural(text.unicodeScalars.count, "character")))"
}
