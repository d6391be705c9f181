/// Where each value of a parsed document starts in its file, by JSON Pointer.
///
/// Built by `JSONParser.parseWithSourceMap` on demand (for documents with findings only), so the
/// fast path of validation records nothing. Positions come from a `SourcePositionIndex` of the
/// text, so each costs a lookup, however many findings a document has.
public struct JSONSourceMap: Sendable {
  let index: SourcePositionIndex
  private let values: [String: Int]
  private let keys: [String: Int]

  init(bytes: [UInt8], values: [String: Int], keys: [String: Int]) {
    index = SourcePositionIndex(bytes)
    self.values = values
    self.keys = keys
  }

  /// Where the value at `pointer` starts; for a pointer that does not exist, its nearest existing parent.
  public func valuePosition(_ pointer: JSONPointer) -> SourcePosition {
    index.position(of: nearestValueOffset(pointer))
  }

  /// Where the key of the member at `pointer` starts (its value's position for array elements and the root).
  public func keyPosition(_ pointer: JSONPointer) -> SourcePosition {
    index.position(of: nearestKeyOffset(pointer))
  }

  /// The byte offset of `valuePosition`.
  func nearestValueOffset(_ pointer: JSONPointer) -> Int { nearest(pointer, in: values) }

  /// The byte offset of `keyPosition`.
  func nearestKeyOffset(_ pointer: JSONPointer) -> Int { keys[pointer.description] ?? nearestValueOffset(pointer) }

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
}
