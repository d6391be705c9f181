import FormsCore

/// One page of the application: its title, its main content, and what its live updates follow.
public struct Page: Sendable {
  public var title: String
  public var body: HTML
  /// What changes refresh it: `KIND` for a list, `KIND/ID` for a document, `*` for every kind;
  /// nil: none (a form being filled is never replaced under the person's hands).
  public var live: String?
  /// A page holding a form warns, rather than refreshes, when its document changes.
  public var editing: String?

  public init(title: String, body: HTML, live: String? = nil, editing: String? = nil) {
    self.title = title
    self.body = body
    self.live = live
    self.editing = editing
  }
}

/// What every page of one server needs to write its forms and links.
public struct PageContext: Sendable {
  /// The token every state-changing form carries back (`_csrf`).
  public var csrf: String
  /// The server's name for the person (shown in the header): the audit log's user.
  public var user: String
  /// The roles the server's identity holds, for what waits for its signature.
  public var roles: [String]

  public init(csrf: String, user: String, roles: [String]) {
    self.csrf = csrf
    self.user = user
    self.roles = roles
  }

  /// The hidden field that proves a form came from a page this server wrote.
  public var csrfField: HTML { "<input type=\"hidden\" name=\"_csrf\" value=\"\(csrf)\">" }

  /// The whole HTML document of `page`.
  public func document(_ page: Page) -> String {
    let live = page.live.map { HTML(" data-live=\"\($0)\"") } ?? .empty
    let editing = page.editing.map { HTML(" data-editing=\"\($0)\"") } ?? .empty
    let html: HTML = """
      <!doctype html>
      <html lang="en">
      <head>
      <meta charset="utf-8">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <title>\(page.title) · formsctl</title>
      <link rel="stylesheet" href="/assets/app.css">
      <script src="/assets/app.js" defer></script>
      </head>
      <body\(live)\(editing)>
      <header><nav><a href="/" class="home">formsctl</a> <span class="who">\(user)</span></nav>
      <p id="live-note" class="live-note" hidden></p></header>
      <main id="main">
      \(page.body)
      </main>
      </body>
      </html>
      """
    return html.text
  }
}

extension HTML {
  /// A JSON value as text: strings as they are, everything else as its canonical JSON.
  public static func value(_ value: JSONValue) -> HTML {
    switch value {
    case .string(let text): return .text(text)
    case .null: return "<span class=\"null\">null</span>"
    default: return .text(JSONWriter.compact(value))
    }
  }
}
