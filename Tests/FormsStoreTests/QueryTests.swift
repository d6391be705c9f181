import FormsTestSupport
import Foundation
import Testing

@testable import FormsStore

struct QueryTests {
  /// The bounded heap behind `list --limit` gives the first N of a full sort, ties and all.
  @Test func theFirstNAreTheFirstNOfAFullSort() {
    var rng = SystemRandomNumberGenerator()
    for count in [0, 1, 5, 20, 99, 100, 250] {
      let items = (0..<100).map { k in (key: Int.random(in: 0..<30, using: &rng), index: k) }
      let less: ((key: Int, index: Int), (key: Int, index: Int)) -> Bool = {
        $0.key != $1.key ? $0.key > $1.key : $0.index < $1.index
      }
      #expect(
        smallest(count, of: items, by: less).map(\.index) == Array(items.sorted(by: less).prefix(count)).map(\.index))
    }
  }

  /// `readListed` (no fstat, 16 KiB reads until a short one) reads what `read` reads, at every size around its chunk.
  @Test func readingAListedFileGivesItsBytes() throws {
    try withTemporaryDirectory { dir in
      let directory = try #require(FileIO.Directory(FilePath(dir)))
      for size in [0, 1, 16383, 16384, 16385, 40000] {
        let path = dir + "/f\(size).json"
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(try FileIO.readListed(FilePath(path), in: directory) == bytes, "\(size) bytes")
      }
      #expect(throws: StoreError.self) { try FileIO.readListed(FilePath(dir + "/missing.json"), in: directory) }
    }
  }
}
