import FormsCore
import FormsPages
import FormsStore
import FormsTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

@testable import FormsServer

/// List pages kept in memory between changes: only while the store's watch vouches for them,
/// made again after every change it hears and after every write of the server's own.
struct ServerMemoryTests {
  @Test func aKeptListPageIsMadeAgainAfterAnyChange() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try ServerFixture(dir + "/store")
      #expect(fixture.server.live.generation == nil, "nothing is kept before the watch has looked")
      let ready = AsyncStream<Void>.makeStream()
      let watch = Task {
        try await fixture.server.live.run(
          store: fixture.store, options: Store.ObserveOptions(ready: { ready.1.yield() }))
      }
      defer { watch.cancel() }
      for await _ in ready.0 { break }
      let heard = try #require(fixture.server.live.generation)
      try await fixture.test { client in
        let first = try await fixture.get(client, "/k/purchase-order")
        #expect(first.text.contains("PO-000201"))
        // Another program changes an order: the page shows it once the watch hears it.
        let other = try ServerFixture.open(fixture.root)
        try other.update(kind: "purchase-order", id: "PO-000201", assignments: [try Assignment("delivery_note=Dock Z")])
        var waited = 0
        while fixture.server.live.generation == heard && waited < 500 {
          try await Task.sleep(for: .milliseconds(10))
          waited += 1
        }
        #expect(fixture.server.live.generation != heard, "the watch heard the change")
        let second = try await fixture.get(client, "/k/purchase-order")
        #expect(second.text.contains("Dock Z"))
        // The server's own write: the next page is made again at once, whatever the watch has heard.
        let hash = try fixture.store.read(kind: "purchase-order", id: "PO-000202").contentHash
        let saved = try await fixture.post(
          client, "/k/purchase-order/PO-000202/edit",
          [("_hash", hash), ("/delivery_note", "Dock Y"), ("_action", "save")])
        #expect(saved.status == .seeOther, "\(saved.text)")
        let third = try await fixture.get(client, "/k/purchase-order")
        #expect(third.text.contains("Dock Y"))
      }
      watch.cancel()
      _ = await watch.result
      #expect(fixture.server.live.generation == nil, "nothing is kept once the watch has ended")
    }
  }
}
