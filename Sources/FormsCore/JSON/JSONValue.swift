/// A JSON value that keeps everything a file said: numbers as their exact text, strings by code point.
///
/// Equality and hashing compare strings by Unicode scalar, not by canonical equivalence, so the
/// precomposed and decomposed spellings of "é" are different keys and different values, as in JSON.
public enum JSONValue: Sendable {
  case null
  case bool(Bool)
  case number(JSONNumber)
  case string(String)
  case array([JSONValue])
  case object(JSONObject)

  /// The member `key` of an object, or nil for a missing key or a value that is not an object.
  /// Setting works on objects (nil removes the member) and does nothing to other values.
  public subscript(key: String) -> JSONValue? {
    get {
      guard case .object(let object) = self else { return nil }
      return object[key]
    }
    set {
      guard case .object(var object) = self else { return }
      object[key] = newValue
      self = .object(object)
    }
  }

  /// The object, when this is one.
  public var objectValue: JSONObject? {
    if case .object(let object) = self { return object }
    return nil
  }

  /// The elements, when this is an array.
  public var arrayValue: [JSONValue]? {
    if case .array(let elements) = self { return elements }
    return nil
  }

  /// The string, when this is one.
  public var stringValue: String? {
    if case .string(let string) = self { return string }
    return nil
  }

  /// The number, when this is one.
  public var numberValue: JSONNumber? {
    if case .number(let number) = self { return number }
    return nil
  }

  /// The boolean, when this is one.
  public var boolValue: Bool? {
    if case .bool(let bool) = self { return bool }
    return nil
  }

  /// True for `null`.
  public var isNull: Bool {
    if case .null = self { return true }
    return false
  }

  /// The JSON type name a person reads in a message: `string`, `number`, `object`...
  public var typeName: String {
    switch self {
    case .null: return "null"
    case .bool: return "boolean"
    case .number: return "number"
    case .string: return "string"
    case .array: return "list"
    case .object: return "object"
    }
  }
}

extension JSONValue: Hashable {
  public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
    switch (lhs, rhs) {
    case (.null, .null): return true
    case (.bool(let a), .bool(let b)): return a == b
    case (.number(let a), .number(let b)): return a == b
    case (.string(let a), .string(let b)): return codePointCompare(a, b) == 0
    case (.array(let a), .array(let b)): return a == b
    case (.object(let a), .object(let b)): return a == b
    default: return false
    }
  }

  public func hash(into hasher: inout Hasher) {
    switch self {
    case .null: hasher.combine(0)
    case .bool(let b): hasher.combine(b)
    case .number(let n): hasher.combine(n)
    case .string(let s): hashUTF8(s, into: &hasher)
    case .array(let a): hasher.combine(a)
    case .object(let o): hasher.combine(o)
    }
  }
}

func hashUTF8(_ string: String, into hasher: inout Hasher) {
  hasher.combine(string.utf8.count)
  for byte in string.utf8 { hasher.combine(byte) }
}

/// Orders two strings by Unicode code point, which is the order of their UTF-8 bytes.
@inlinable
public func codePointLess(_ a: String, _ b: String) -> Bool { codePointCompare(a, b) < 0 }

/// -1, 0 or 1 as `a` sorts before, equal to, or after `b` by code point (UTF-8 bytes).
@inlinable
public func codePointCompare(_ a: String, _ b: String) -> Int {
  var a = a
  var b = b
  return a.withUTF8 { pa in
    b.withUTF8 { pb in
      let n = min(pa.count, pb.count)
      if n > 0, let ba = pa.baseAddress, let bb = pb.baseAddress {
        let c = memcmpBytes(ba, bb, n)
        if c != 0 { return c }
      }
      return pa.count == pb.count ? 0 : (pa.count < pb.count ? -1 : 1)
    }
  }
}

@usableFromInline
func memcmpBytes(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Int {
  var i = 0
  while i < n {
    let x = a[i]
    let y = b[i]
    if x != y { return x < y ? -1 : 1 }
    i += 1
  }
  return 0
}
