extension JSONValue {
  /// The JSON Pointers at which `other` differs from this value, shallowest first within each
  /// branch: a member added, removed or changed is named at its own pointer; objects and lists
  /// are compared member by member and index by index (a list that grew or shrank names each
  /// index past the shorter one). Equal values give none; a change of type gives the pointer itself.
  public func changedPointers(to other: JSONValue, at pointer: JSONPointer = .root) -> [JSONPointer] {
    var out: [JSONPointer] = []
    Self.diff(self, other, at: pointer, into: &out)
    return out
  }

  static func diff(_ a: JSONValue, _ b: JSONValue, at pointer: JSONPointer, into out: inout [JSONPointer]) {
    switch (a, b) {
    case (.object(let x), .object(let y)):
      var keys = x.keys
      for key in y.keys where x[key] == nil { keys.append(key) }
      for key in keys.sorted(by: codePointLess) {
        switch (x[key], y[key]) {
        case (let p?, let q?): diff(p, q, at: pointer.appending(key), into: &out)
        default: out.append(pointer.appending(key))
        }
      }
    case (.array(let x), .array(let y)):
      for index in 0..<Swift.max(x.count, y.count) {
        if index < x.count && index < y.count {
          diff(x[index], y[index], at: pointer.appending(index: index), into: &out)
        } else {
          out.append(pointer.appending(index: index))
        }
      }
    default:
      if a != b { out.append(pointer) }
    }
  }
}
