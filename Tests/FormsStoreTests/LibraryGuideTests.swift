import FormsCore
import FormsStore
import FormsTestSupport
import Foundation
import Testing

/// The code of the library's guide (`Sources/FormsStore/FormsStore.docc/GettingStarted.md`),
/// compiled and run here: each `// guide: NAME` region below is, line for line, the article's
/// Swift block of that name, and a test holds the two equal, so the article never shows code that
/// does not build.
struct LibraryGuideTests {
  static let article = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Sources/FormsStore/FormsStore.docc/GettingStarted.md").path

  @Test func theGuideRunsAsWritten() throws {
    try withTemporaryDirectory { dir in
      let root = dir + "/store"
      _ = try Store.initialize(at: root)
      var opened: [String] = []

      // guide: open
      var configuration = Store.Configuration()
      configuration.user = "Orders app <orders@example.com>"  // who the audit log names
      configuration.lockWait = 2  // seconds to wait for another writer
      let store = try Store.open(at: root, configuration: configuration)
      // guide: end

      // guide: create
      let form = try store.create(kind: "form", base: try JSONParser().parse(#"{"form_type": "SF30"}"#))
      let id = form.value["id"]!.stringValue!  // a new UUID: the form's id and file name
      try store.update(kind: "form", id: id, assignments: [try Assignment("form_number=SF30-0001")])
      // guide: end

      // guide: query
      let query = Store.Query(
        filters: [try ExpressionParser.parse(#"status == "draft""#)],
        sort: [(path: FilterExpression.Path("last_modified_date")!, descending: true)], limit: 20)
      let listing = try store.list(kind: "form", query: query)
      let (documents, skipped) = (listing.documents, listing.skipped)
      for document in documents {
        opened.append(document.value["form_number"]?.stringValue ?? "?")
      }
      for file in skipped { print("not read: \(file.path): \(file.reason)") }
      // guide: end
      #expect(opened == ["SF30-0001"])

      var said = ""
      // guide: errors
      do throws(StoreError) {
        try store.transition(kind: "form", id: id, to: "approved")
      } catch .refused(.transition(_, _, _, let from, let to, let allowed, _)) {
        said = "\(from) cannot move to \(to); it may move to \(allowed.joined(separator: " or "))"
      } catch .locked {
        said = "another writer holds the store; try again later"
      } catch {
        said = error.description  // a sentence: what failed, on which file or document
      }
      // guide: end
      #expect(said == "draft cannot move to approved; it may move to in_review")
    }
  }

  @Test func theObserveSectionRunsAsWritten() async throws {
    try await withTemporaryDirectoryAsync { dir in
      let root = dir + "/store"
      _ = try Store.initialize(at: root)
      let store = try Store.open(at: root)
      let form = try store.create(kind: "form", base: try JSONParser().parse(#"{"form_type": "SF30"}"#))
      let id = form.value["id"]!.stringValue!
      var updated: [String] = []

      // guide: observe
      let sf30 = Store.Query(filters: [try ExpressionParser.parse(#"form_type == "SF30""#)])
      for try await result in store.observe(kind: "form", query: sf30) {
        updated += result.updated  // first the result as it is, then after each change that alters it
        if let batch = result.cause {
          print("\(batch.operation ?? "outside formsctl"): \(result.documents.count) SF30 forms")
          break  // leaving the loop cancels the watch, which releases every kernel watch
        }
        try store.update(kind: "form", id: id, assignments: [try Assignment("form_number=SF30-0002")])
      }
      // guide: end
      #expect(updated == [id])
    }
  }

  /// The article's Swift blocks, by the name in the line before each (`<!-- guide: NAME -->`),
  /// are the regions of the test above.
  @Test func theArticleShowsTheCodeThatRuns() throws {
    let article = try readFile(Self.article)
    let source = try readFile(#filePath)
    let shown = Self.blocks(in: article)
    let run = Self.regions(in: source)
    #expect(!shown.isEmpty && Set(shown.keys) == Set(run.keys), "\(shown.keys.sorted()) vs \(run.keys.sorted())")
    for (name, code) in run { #expect(shown[name] == code, "the guide's \(name) block differs from the test's") }
  }

  /// `<!-- guide: NAME -->` then a ```swift block: its lines.
  static func blocks(in article: String) -> [String: [String]] {
    var out: [String: [String]] = [:]
    var name: String?
    var lines: [String]?
    for line in article.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
      if line.hasPrefix("<!-- guide: ") { name = String(line.dropFirst(12).dropLast(4)) }
      if line == "```swift", name != nil {
        lines = []
      } else if line == "```", let name, let collected = lines {
        out[name] = collected
        lines = nil
      } else if lines != nil {
        lines!.append(line)
      }
      if line == "```" { name = nil }
    }
    return out
  }

  /// `// guide: NAME` to `// guide: end`: the lines between, with the region's indentation removed.
  static func regions(in source: String) -> [String: [String]] {
    var out: [String: [String]] = [:]
    var current: (name: String, indent: Int, lines: [String])?
    for line in source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
      let trimmed = line.drop { $0 == " " }
      if trimmed.hasPrefix("// guide: ") && !trimmed.contains("NAME") {
        let name = String(trimmed.dropFirst("// guide: ".count))
        if name == "end", let region = current {
          out[region.name] = region.lines
          current = nil
        } else if name != "end" {
          current = (name, line.count - trimmed.count, [])
        }
      } else if current != nil {
        current!.lines.append(String(line.dropFirst(min(current!.indent, line.count - trimmed.count))))
      }
    }
    return out
  }
}
