/// The line and column of any byte offset of one text, found by binary search in tables built
/// in one pass, so that placing N diagnostics costs N lookups rather than N scans from the start
/// (`SourcePosition.of(offset:in:)` scans, which is fine for the one position of a parse error).
/// Lines and columns are counted as `SourcePosition.of` counts them: a line after each `\n`,
/// a column per UTF-8 lead byte.
public struct SourcePositionIndex: Sendable {
  /// The text (a copy-on-write reference, not a copy).
  let bytes: [UInt8]
  /// The byte offset where each line starts.
  let lineStarts: [Int]
  /// How many scalars (UTF-8 lead bytes) come before each block of `blockSize` bytes.
  let scalarsBeforeBlock: [Int]

  static let blockSize = 64

  /// Indexes `bytes` (one pass).
  public init(_ bytes: [UInt8]) {
    self.bytes = bytes
    var lineStarts = [0]
    var scalarsBeforeBlock: [Int] = []
    scalarsBeforeBlock.reserveCapacity(bytes.count / Self.blockSize + 1)
    var scalars = 0
    bytes.withUnsafeBufferPointer { buffer in
      for (offset, byte) in buffer.enumerated() {
        if offset % Self.blockSize == 0 { scalarsBeforeBlock.append(scalars) }
        if byte & 0xC0 != 0x80 { scalars += 1 }
        if byte == UInt8(ascii: "\n") { lineStarts.append(offset + 1) }
      }
    }
    scalarsBeforeBlock.append(scalars)
    self.lineStarts = lineStarts
    self.scalarsBeforeBlock = scalarsBeforeBlock
  }

  /// The 1-based line and column (in Unicode scalars) of byte `offset` (clamped to the text).
  public func position(of offset: Int) -> SourcePosition {
    let offset = max(0, min(offset, bytes.count))
    // The last line start at or before `offset`.
    var low = 0
    var high = lineStarts.count - 1
    while low < high {
      let middle = (low + high + 1) / 2
      if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
    }
    return SourcePosition(line: low + 1, column: scalarIndex(of: offset) - scalarIndex(of: lineStarts[low]) + 1)
  }

  /// How many Unicode scalars (UTF-8 lead bytes) come before byte `offset` (clamped to the text).
  public func scalarIndex(of offset: Int) -> Int {
    let offset = max(0, min(offset, bytes.count))
    let block = offset / Self.blockSize
    guard block < scalarsBeforeBlock.count - 1 else { return scalarsBeforeBlock[scalarsBeforeBlock.count - 1] }
    var count = scalarsBeforeBlock[block]
    for k in (block * Self.blockSize)..<offset where bytes[k] & 0xC0 != 0x80 { count += 1 }
    return count
  }
}
