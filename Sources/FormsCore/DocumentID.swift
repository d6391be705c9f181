/// The rules for document ids (docs/design.md §4), which also keep paths inside the store.
public enum DocumentID {
  /// 1–128 characters of `A–Z a–z 0–9 . _ -`, not starting with `.` or `-`.
  public static func isValid(_ id: String) -> Bool {
    let bytes = Array(id.utf8)
    guard (1...128).contains(bytes.count), bytes[0] != UInt8(ascii: "."), bytes[0] != UInt8(ascii: "-") else {
      return false
    }
    return bytes.allSatisfy { isPlainPathByte($0) || $0 == UInt8(ascii: ".") }
  }

  /// Why `id` is not valid, in words.
  public static func problem(_ id: String) -> String {
    "\"\(id)\" is not a valid id: use 1–128 characters of A–Z a–z 0–9 . _ -, not starting with . or -"
  }

  /// The id in a field: a string, or an integer's text.
  public static func text(_ value: JSONValue) -> String? {
    switch value {
    case .string(let s): return s
    case .number(let n) where n.isInteger: return n.text
    default: return nil
    }
  }
}
