extension JSONParser {
  /// A document's top-level members that hold scalars (built) and the names of those that hold
  /// objects or arrays (checked as strictly as `parse` checks them, not built), leaving out
  /// `excluded` members. Nil, so the caller parses the whole document, whenever `parse` could
  /// answer differently: any error, keys out of canonical order or holding escapes (as
  /// `parse(_:keeping:)`).
  public func parseTopLevelScalars(_ bytes: [UInt8], excluding excluded: Set<String>) -> (
    scalars: JSONObject, containers: [String]
  )? {
    bytes.withUnsafeBufferPointer { buffer -> (JSONObject, [String])? in
      var reader = ByteReader(bytes: buffer, maxDepth: maxDepth, recorder: nil)
      do throws(ByteError) {
        guard reader.i < buffer.count, buffer[0] == UInt8(ascii: "{") else { return nil }
        let found = try reader.topLevelScalars(excluding: excluded)
        reader.skipWhitespace()
        return reader.i == buffer.count ? found : nil
      } catch {
        return nil
      }
    }
  }
}

extension ByteReader {
  /// The object at `i`: its scalar members built, the names of its containers (see
  /// `JSONParser.parseTopLevelScalars`).
  mutating func topLevelScalars(excluding excluded: Set<String>) throws(ByteError) -> (JSONObject, [String]) {
    try enter()
    i += 1
    guard try !closesEmpty(UInt8(ascii: "}")) else { return (JSONObject(), []) }
    var members: [JSONObject.Member] = []
    var containers: [String] = []
    var previous: Range<Int>?
    repeat {
      let key = try nextKey(after: previous)
      previous = key
      let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[key]), as: UTF8.self)
      if excluded.contains(name) {
        try skipValue()
      } else if bytes[i] == UInt8(ascii: "{") || bytes[i] == UInt8(ascii: "[") {
        containers.append(name)
        try skipValue()
      } else {
        members.append(JSONObject.Member(key: name, value: try parseValue()))
      }
    } while try another(UInt8(ascii: "}"))
    return (JSONObject(sortedUniqueMembers: members), containers)
  }
}
