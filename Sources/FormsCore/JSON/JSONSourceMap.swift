/// Where each value of a parsed document starts in its file, by JSON Pointer.
///
/// Built by `JSONParser.parseWithSourceMap` on demand (for documents with findings only), so the
/// fast path of validation records nothing.
public struct JSONSourceMap: Sendable {
  private let bytes: [UInt8]
  private let values: [String: Int]
  private let keys: [String: Int]

  init(bytes: [UInt8], values: [String: Int], keys: [String: Int]) {
    self.bytes = bytes
    self.values = values
    self.keys = keys
  }

  /// Where the value at `pointer` starts; for a pointer that does not exist, its nearest existing parent.
  public func valuePosition(_ pointer: JSONPointer) -> SourcePosition {
    position(of: nearest(pointer, in: values))
  }

  /// Where the key of the member at `pointer` starts (its value's position for array elements and the root).
  public func keyPosition(_ pointer: JSONPointer) -> SourcePosition {
    if let offset = keys[pointer.description] { return position(of: offset) }
    return valuePosition(pointer)
  }

  /// The byte offset where the value at `pointer` starts, if it exists.
  public func valueOffset(_ pointer: JSONPointer) -> Int? { values[pointer.description] }

  /// The byte offset where the key of the member at `pointer` starts, if it is a member.
  public func keyOffset(_ pointer: JSONPointer) -> Int? { keys[pointer.description] }

  private func nearest(_ pointer: JSONPointer, in table: [String: Int]) -> Int {
    var current = pointer
    while true {
      if let offset = table[current.description] { return offset }
      guard let parent = current.parent else { return 0 }
      current = parent
    }
  }

  private func position(of offset: Int) -> SourcePosition {
    bytes.withUnsafeBufferPointer { SourcePosition.of(offset: offset, in: $0) }
  }
}
