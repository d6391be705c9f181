import FormsCore
import FormsStore

/// The application's pages over one open store: each a pure rendering of what the store says now.
/// Reads go through the store's public API (sealed values opened only where its identity can,
/// with the access record a `get` writes); nothing here writes.
public struct Pages: Sendable {
  public let store: Store
  public let context: PageContext
  /// The identity the server signs approvals with, when it has one.
  public let identity: Identity?
  /// Rows of a list page.
  public static let pageSize = 50
  /// The last page a list may be asked for: its rows skipped (`(page - 1) * pageSize`) stay far
  /// from overflowing, whatever number a request names.
  public static let maximumPage = 10_000_000

  public init(store: Store, context: PageContext, identity: Identity?) {
    self.store = store
    self.context = context
    self.identity = identity
  }

  /// A page that says what went wrong, in one line (never a sealed value: messages of the
  /// store never hold one).
  public static func problem(_ title: String, _ message: String) -> Page {
    Page(
      title: title,
      body:
        "<h1>\(title)</h1><p class=\"error\" role=\"alert\">\(message)</p><p><a href=\"/\">Back to the store</a></p>")
  }

  /// The kinds with their counts, and what waits for the server's signature.
  public func home() throws(StoreError) -> Page {
    var rows: HTML = ""
    for kind in store.registry.kinds {
      let schema = try store.schema(kind)
      let count = try store.layout.ids(in: schema.directory, sorted: false).count
      rows += """
        <tr><td><a href="\(Link(["k", kind]))">\(schema.title ?? kind)</a></td><td class="kind">\(kind)</td>\
        <td class="count">\(count)</td><td><a href="\(Link(["k", kind, "new"]))">New</a></td></tr>
        """
    }
    return Page(
      title: "Store",
      body: """
        <h1>Store</h1>
        <table class="kinds"><thead><tr><th>Kind</th><th>Name</th><th>Documents</th><th></th></tr></thead>\
        <tbody>\(rows)</tbody></table>
        \(try awaiting())
        """,
      live: "*")
  }

  /// What waits for the server's identity to sign, from the inbox `formsctl inbox` shows.
  func awaiting() throws(StoreError) -> HTML {
    guard let identity else {
      return """
        <section class="awaiting"><h2>Waiting for your signature</h2>\
        <p>This server has no signing identity (FORMSCTL_IDENTITY), so nothing can wait for it.</p></section>
        """
    }
    let inbox = try store.inbox(for: identity)
    if inbox.roles.isEmpty {
      return """
        <section class="awaiting"><h2>Waiting for your signature</h2>\
        <p>Your identity holds no role in this store's manifest.</p></section>
        """
    }
    let items = inbox.items.map { item -> HTML in
      """
      <li><a href="\(Link(["k", item.kind, item.id]))">\(item.kind) \(item.id)</a> \
      <span class="state">\(item.state)</span>: step \(item.step) as \(item.role), \
      submitted by \(store.layout.signerName(item.submittedBy)) on \(item.since)</li>
      """
    }
    let list: HTML = items.isEmpty ? "<p>Nothing waits for you.</p>" : "<ul>\(items.joined())</ul>"
    return """
      <section class="awaiting"><h2>Waiting for your signature (\(inbox.roles.joined(separator: ", ")))</h2>\(list)</section>
      """
  }

  /// What a list page was asked for: a filter, sort keys and a page number, as the URL holds them.
  public struct ListRequest: Sendable {
    public var filter: String = ""
    public var sort: String = ""
    public var page: Int = 1
    public init(filter: String = "", sort: String = "", page: Int = 1) {
      self.filter = filter
      self.sort = sort
      self.page = page
    }
  }

  /// A kind's documents: the descriptor's columns, its order (or the one clicked), the filter,
  /// one page. A filter or sort key that is wrong is said above the table (with the "did you
  /// mean" of `--where`), and the page lists nothing (status 400).
  public func list(kind: String, _ request: ListRequest) throws(StoreError) -> (page: Page, status: Int) {
    let schema = try store.schema(kind)
    let versions = store.registry.schemas(of: kind)
    var problem: String?
    var filters: [FilterExpression] = []
    if !request.filter.trimmingSpaces.isEmpty {
      do throws(ExpressionError) {
        let expression = try ExpressionParser.parse(request.filter)
        if let found = expression.pathProblem(in: versions) { problem = found } else { filters = [expression] }
      } catch {
        problem = "at column \(error.column): \(error.message)"
      }
    }
    var sort: [(path: FilterExpression.Path, descending: Bool)] = []
    for key in request.sort.split(separator: ",").map(String.init) where problem == nil {
      let descending = key.hasPrefix("-")
      guard let path = FilterExpression.Path(descending ? String(key.dropFirst()) : key) else {
        problem = "sort \(key): not a field path"
        break
      }
      if let found = Schema.pathProblem(path, in: versions) { problem = "sort \(key): \(found)" }
      sort.append((path, descending))
    }
    let columns = Store.defaultColumns(schema)
    var rows: HTML = ""
    var more = false
    var skipped: [Store.Skipped] = []
    let page = min(max(1, request.page), Self.maximumPage)
    if problem == nil {
      let query = Store.Query(
        filters: filters, sort: sort, offset: (page - 1) * Self.pageSize, limit: Self.pageSize + 1)
      let listing = try store.listing(kind: kind, query: query, columns: columns)
      skipped = listing.skipped
      more = listing.documents.count > Self.pageSize
      for (document, cells) in zip(listing.documents, listing.report.rows).prefix(Self.pageSize) {
        let link = Link(["k", kind, document.id])
        let tds = cells.enumerated().map { index, cell -> HTML in
          index == 0 ? "<td><a href=\"\(link)\">\(cell)</a></td>" : "<td>\(cell)</td>"
        }
        rows += "<tr data-id=\"\(document.id)\">\(tds.joined())</tr>"
      }
    }
    let current = sort.isEmpty ? schema.order.first : sort.first
    let headers = columns.map { column -> HTML in
      let ascending = current.map { $0.path == column.path && !$0.descending } ?? false
      let key = ascending ? "-" + column.path.description : column.path.description
      let arrow: HTML = current.map { $0.path == column.path ? ($0.descending ? " ↓" : " ↑") : "" } ?? ""
      return
        "<th><a href=\"\(Link(["k", kind], query: [("where", request.filter), ("sort", key)]))\">\(column.name)</a>\(arrow)</th>"
    }
    let problemHTML: HTML = problem.map { "<p class=\"error\" role=\"alert\" id=\"filter-problem\">\($0)</p>" } ?? ""
    let skippedHTML: HTML =
      skipped.isEmpty
      ? ""
      : "<p class=\"warning\">\(skipped.count) file(s) could not be read and are not listed (formsctl validate says why).</p>"
    let previous: HTML =
      page > 1
      ? "<a rel=\"prev\" href=\"\(Link(["k", kind], query: [("where", request.filter), ("sort", request.sort), ("page", String(page - 1))]))\">Previous</a>"
      : ""
    let next: HTML =
      more
      ? "<a rel=\"next\" href=\"\(Link(["k", kind], query: [("where", request.filter), ("sort", request.sort), ("page", String(page + 1))]))\">Next</a>"
      : ""
    let body: HTML = """
      <h1>\(schema.title ?? kind)</h1>
      <p class="actions"><a href="\(Link(["k", kind, "new"]))">New \(kind)</a></p>
      <form method="get" action="\(Link(["k", kind]))" class="filter" role="search">\
      <label for="where">Filter</label> <input type="search" id="where" name="where" value="\(request.filter)" \
      placeholder="status == &quot;open&quot;" size="50"> <input type="hidden" name="sort" value="\(request.sort)">\
      <button type="submit">Filter</button></form>
      \(problemHTML)\(skippedHTML)
      <table class="list" id="list"><thead><tr>\(headers.joined())</tr></thead><tbody>\(rows)</tbody></table>
      <nav class="paging">\(previous) <span>page \(page)</span> \(next)</nav>
      """
    return (Page(title: schema.title ?? kind, body: body, live: kind), problem == nil ? 200 : 400)
  }

  /// Ids (and titles) of `kind` for a relation picker: those whose id starts with `text` or
  /// whose title holds it, at most `limit`.
  public func lookup(kind: String, text: String, limit: Int = 20) throws(StoreError) -> [(id: String, title: String)] {
    let schema = try store.schema(kind)
    let titleField = Self.titleField(schema)
    var filters: [FilterExpression] = []
    if !text.isEmpty {
      let pattern = JSONWriter.compact(.string(Self.regexEscaped(text)))
      let idMatch = "\(schema.idField) ~ \(JSONWriter.compact(.string("^" + Self.regexEscaped(text))))"
      let source = titleField.map { "\(idMatch) or \($0) ~ \(pattern)" } ?? idMatch
      do throws(ExpressionError) {
        filters = [try ExpressionParser.parse(source)]
      } catch {
        throw StoreError.usage("cannot look up \(kind): \(error.message)")
      }
    }
    let found = try store.list(kind: kind, query: Store.Query(filters: filters, limit: limit))
    return found.documents.map { document in
      (document.id, titleField.flatMap { document.value[$0]?.stringValue } ?? "")
    }
  }

  /// The field that names a document to a person: `title`, else `name`, else none.
  static func titleField(_ schema: Schema) -> String? {
    ["title", "name"].first { schema.root.fields[$0]?.type.kind == .string }
  }

  static func regexEscaped(_ text: String) -> String {
    var out = ""
    for character in text {
      if "\\^$.|?*+()[]{}/".contains(character) { out.append("\\") }
      out.append(character)
    }
    return out
  }
}
