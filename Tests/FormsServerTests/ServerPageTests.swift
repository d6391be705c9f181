import FormsCore
import FormsPages
import FormsStore
import FormsTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import FormsServer

/// Every page renders what the store holds: kinds and counts, lists (columns, order, filter,
/// sort, paging), documents (relations both ways, history), forms, plans, print, lookups.
struct ServerPageTests {
  @Test func theHomePageListsTheKindsWithTheirCounts() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try ServerFixture(dir + "/store")
      try await fixture.test { client in
        let page = try await fixture.get(client, "/")
        #expect(page.status == .ok)
        #expect(page.text.contains("<a href=\"/k/form\">Government form</a>"))
        #expect(page.text.contains("<td class=\"count\">21</td>"))
        #expect(page.text.contains("no signing identity"))
      }
    }
  }

  @Test func aListHasTheDescriptorsColumnsOrderFilterSortAndPages() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try ServerFixture(dir + "/store")
      try await fixture.test { client in
        let forms = try await fixture.get(client, "/k/form")
        #expect(forms.text.contains(">form_type</a>") && forms.text.contains(">acquisition_id</a>"))
        let filtered = try await fixture.get(client, "/k/form?where=" + Link.encode(#"form_type == "SF1449""#))
        #expect(filtered.status == .ok)
        #expect(filtered.text.components(separatedBy: "<tr data-id=").count - 1 == 3)
        #expect(!filtered.text.contains("<td>SF30</td>"))
        let typo = try await fixture.get(client, "/k/form?where=" + Link.encode(#"stauts == "draft""#))
        #expect(typo.status == .badRequest)
        #expect(typo.text.contains("did you mean &quot;status&quot;"))
        let syntax = try await fixture.get(client, "/k/form?where=" + Link.encode("status =="))
        #expect(syntax.status == .badRequest && syntax.text.contains("at column"))
        let badSort = try await fixture.get(client, "/k/form?sort=nope")
        #expect(badSort.status == .badRequest)
        // Purchase orders: newest first (the kind's order), then sorted by a click.
        let orders = try await fixture.get(client, "/k/purchase-order")
        let ids = orders.text.components(separatedBy: "<tr data-id=\"").dropFirst().map { $0.prefix { $0 != "\"" } }
        let newestFirst = try fixture.store.list(kind: "purchase-order", query: Store.Query()).documents.map(\.id)
        #expect(ids.map(String.init) == newestFirst, "\(ids)")
        #expect(orders.text.contains("last_updated</a> ↓"))
        let ascending = try await fixture.get(client, "/k/purchase-order?sort=purchase_order_number")
        let sorted = ascending.text.components(separatedBy: "<tr data-id=\"").dropFirst().map {
          String($0.prefix { $0 != "\"" })
        }
        #expect(sorted == sorted.sorted())
      }
    }
  }

  @Test func pagingShowsFiftyRowsAPage() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try ServerFixture(dir + "/store")
      for k in 0..<60 {
        try fixture.store.create(
          kind: "acquisition",
          assignments: [
            try Assignment("id=ACQ-2027-\(pad(k, 3))"), try Assignment("title=Chairs \(k)"),
            try Assignment("agency=GSA"),
          ])
      }
      try await fixture.test { client in
        let first = try await fixture.get(client, "/k/acquisition?sort=id")
        #expect(first.text.components(separatedBy: "<tr data-id=").count - 1 == Pages.pageSize)
        #expect(first.text.contains("rel=\"next\""))
        let second = try await fixture.get(client, "/k/acquisition?sort=id&page=2")
        #expect(second.text.components(separatedBy: "<tr data-id=").count - 1 == 65 - Pages.pageSize)
        #expect(second.text.contains("rel=\"prev\"") && !second.text.contains("rel=\"next\""))
      }
    }
  }

  @Test func aDocumentShowsItsFieldsRelationsBothWaysAndHistory() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try ServerFixture(dir + "/store")
      try fixture.store.update(kind: "acquisition", id: "ACQ-2026-001", assignments: [try Assignment("title=Desks")])
      try await fixture.test { client in
        let acquisition = try await fixture.get(client, "/k/acquisition/ACQ-2026-001")
        #expect(acquisition.status == .ok)
        // Its forms link back to it: the other way of the form's relation.
        #expect(acquisition.text.contains("href=\"/k/form/\(ServerFixture.draftSF1449)\""))
        #expect(acquisition.text.contains("<td>Test User</td><td>set</td><td>formsctl serve</td>"))
        let form = try await fixture.get(client, "/k/form/59cb")
        #expect(form.text.contains("href=\"/k/acquisition/ACQ-2026-001\""))
        #expect(form.text.contains("Move to in_review"))
        #expect(!form.text.contains("Move to approved"))
        #expect(!form.text.contains("data-field=\"_schema\""))
      }
    }
  }

  @Test func formsPlansPrintAndLookupsRender() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try ServerFixture(dir + "/store")
      let id = ServerFixture.draftSF1449
      try await fixture.test { client in
        let edit = try await fixture.get(client, "/k/form/\(id)/edit")
        #expect(edit.status == .ok)
        #expect(edit.text.contains("<select id=\"f/form_type\" name=\"/form_type\">"))
        #expect(edit.text.contains("name=\"/fields/naics_code\""))
        #expect(edit.text.contains("inputmode=\"decimal\" id=\"f/fields/total_amount\""))
        #expect(edit.text.contains("list=\"choices-acquisition_id\""))
        #expect(hiddenValue("_hash", in: edit.text) == (try fixture.store.read(kind: "form", id: id)).contentHash)
        // Purchase orders: only what `editable:` allows is an input.
        let order = try await fixture.get(client, "/k/purchase-order/PO-000201/edit")
        #expect(order.text.contains("name=\"/delivery_note\""))
        #expect(!order.text.contains("name=\"/currency\""))
        #expect(!order.text.contains("name=\"/items/0/quantity\""))
        #expect(order.text.contains("value=\"add /items\""))
        let new = try await fixture.get(client, "/k/form/new?template=sf30-amendment")
        #expect(new.text.contains("placeholder=\"number\""))
        #expect(new.text.contains(">Amendment of the solicitation</textarea>"))
        let unknownTemplate = try await fixture.get(client, "/k/form/new?template=nope")
        #expect(unknownTemplate.status == .unprocessableContent)
        let plan = try await fixture.get(client, "/k/acquisition/ACQ-2026-001/delete")
        #expect(plan.text.contains("<td>delete</td><td>form</td>"))
        let rename = try await fixture.get(client, "/k/acquisition/ACQ-2026-001/rename?to=ACQ-2026-901")
        #expect(rename.text.contains("<td>rewrite</td>"))
        let print = try await fixture.get(client, "/k/form/\(id)/print")
        #expect(print.text.contains("SF 1449") && print.text.contains("FAR 53.105"))
        let lookup = try await fixture.get(client, "/lookup/acquisition?q=ACQ-2026-00")
        #expect(lookup.headers[.contentType] == "application/json")
        #expect(lookup.text.contains("\"id\":\"ACQ-2026-001\""))
        let css = try await fixture.get(client, "/assets/app.css")
        #expect(css.headers[.contentType]?.hasPrefix("text/css") == true)
      }
    }
  }

  @Test func everyValueIsEscapedWhereItIsWritten() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try ServerFixture(dir + "/store")
      let hostile = #"<script>alert(1)</script>"onmouseover=alert(2) '&"#
      try fixture.store.update(
        kind: "acquisition", id: "ACQ-2026-001", assignments: [try Assignment("title=" + hostile)])
      try await fixture.test { client in
        for uri in [
          "/k/acquisition", "/k/acquisition/ACQ-2026-001", "/k/acquisition/ACQ-2026-001/edit",
          "/k/acquisition/ACQ-2026-001/print", "/k/form/\(ServerFixture.draftSF1449)/edit",
          "/k/acquisition?where=" + Link.encode("title == \"<script>\""),
        ] {
          let page = try await fixture.get(client, uri)
          #expect(!page.text.contains("<script>alert"), "\(uri)")
          #expect(!page.text.contains("\"onmouseover"), "\(uri)")
        }
        let shown = try await fixture.get(client, "/k/acquisition/ACQ-2026-001")
        #expect(shown.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot;onmouseover=alert(2) &#39;&amp;"))
      }
    }
  }
}

/// A document's History shows git's commits of its file, beside the audit log (issue 63: what a
/// pull brought is history too, as `stats --workflow` reads it).
struct ServerGitHistoryTests {
  @Test func theHistoryShowsTheCommitsOfTheDocumentsFileEscaped() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let fixture = try ServerFixture(dir + "/store")
      let environment = [
        "GIT_AUTHOR_NAME": "Rae & Reviewer", "GIT_AUTHOR_EMAIL": "rae@example.gov",
        "GIT_COMMITTER_NAME": "Rae", "GIT_COMMITTER_EMAIL": "rae@example.gov",
        "GIT_AUTHOR_DATE": "2026-05-01T10:00:00Z", "GIT_CONFIG_GLOBAL": "/dev/null", "HOME": dir,
      ]
      for arguments in [
        ["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "Pull from the office: <script>x</script> updated"],
      ] {
        let git = Process()
        git.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        git.arguments = ["git", "-C", fixture.root] + arguments
        git.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        try git.run()
        git.waitUntilExit()
        #expect(git.terminationStatus == 0, "git \(arguments)")
      }
      try await fixture.test { client in
        let page = try await fixture.get(client, "/k/acquisition/ACQ-2026-001")
        #expect(page.status == .ok)
        #expect(page.text.contains("<h2>In git</h2>"), "\(page.text.suffix(800))")
        #expect(page.text.contains("Pull from the office: &lt;script&gt;x&lt;/script&gt; updated"))
        #expect(page.text.contains("Rae &amp; Reviewer") && page.text.contains("2026-05-01T10:00:00"))
        #expect(!page.text.contains("<script>x"))
      }
    }
  }
}
