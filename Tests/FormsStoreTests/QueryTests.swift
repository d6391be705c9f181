import Testing

@testable import FormsStore

struct QueryTests {
  /// The bounded heap behind `list --limit` gives the first N of a full sort, ties and all.
  @Test func theFirstNAreTheFirstNOfAFullSort() {
    var rng = SystemRandomNumberGenerator()
    for count in [0, 1, 5, 20, 99, 100, 250] {
      let items = (0..<100).map { k in (key: Int.random(in: 0..<30, using: &rng), index: k) }
      let less: ((key: Int, index: Int), (key: Int, index: Int)) -> Bool = { $0.key != $1.key ? $0.key > $1.key : $0.index < $1.index }
      #expect(smallest(count, of: items, by: less).map(\.index) == Array(items.sorted(by: less).prefix(count)).map(\.index))
    }
  }
}
