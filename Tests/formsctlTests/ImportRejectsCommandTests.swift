import FormsTestSupport
import Foundation
import Testing

/// `import --skip-invalid --rejects FILE`: the night's feed goes in but for the records that
/// cannot, which are listed, one JSON line each, and the exit code says so.
struct ImportRejectsCommandTests {
  /// One good new record, one without an id, a line that does not parse, one the schema refuses,
  /// and an id sent twice.
  static let feed = """
    {"purchase_order_number": "PO-9001", "last_updated": "2026-11-01T00:00:00Z", "items": []}
    {"last_updated": "2026-11-01T00:00:00Z", "items": []}
    not json
    {"purchase_order_number": "PO-9002", "last_updated": "2026-11-01T00:00:00Z", "status": "lost", "items": []}
    {"purchase_order_number": "PO-9003", "last_updated": "2026-11-01T00:00:00Z", "items": []}
    {"purchase_order_number": "PO-9003", "last_updated": "2026-11-02T00:00:00Z", "items": []}

    """

  static func lines(_ path: String) throws -> [[String: Any]] {
    try readFile(path).split(separator: "\n").map {
      try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
    }
  }

  @Test func theRestIsImportedAndEachRefusedRecordIsListed() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      try writeFile(Self.feed, to: dir + "/feed.ndjson")
      let result = try Formsctl.run(
        ["import", "purchase-order", dir + "/feed.ndjson", "--skip-invalid", "--rejects", dir + "/rejects.ndjson"],
        in: store, environment: env)
      #expect(result.status == 1, "\(result.stderr)")
      #expect(
        result.stderr.hasSuffix(
          "formsctl: warning: 5 feed records refused; they are listed in \(dir)/rejects.ndjson\n"),
        "\(result.stderr)")
      #expect(result.stdout.contains("created 1, replaced 0"), "\(result.stdout)")
      #expect(result.stdout.contains(", refused 5;"), "\(result.stdout)")
      #expect(FileManager.default.fileExists(atPath: store + "/data/purchase-orders/PO-9001.json"))
      for absent in ["PO-9002", "PO-9003"] {
        #expect(!FileManager.default.fileExists(atPath: store + "/data/purchase-orders/\(absent).json"))
      }
      let rejects = try Self.lines(dir + "/rejects.ndjson")
      #expect(rejects.map { $0["index"] as? Int } == [2, 3, 4, 5, 6])
      #expect(rejects.map { $0["line"] as? Int } == [2, 3, 4, 5, 6])
      #expect(rejects.map { $0["id"] as? String } == [nil, nil, "PO-9002", "PO-9003", "PO-9003"])
      #expect(rejects.allSatisfy { $0["kind"] as? String == "purchase-order" })
      #expect(rejects[1]["text"] as? String == "not json" && rejects[1]["record"] is NSNull)
      #expect((rejects[2]["record"] as? [String: Any])?["status"] as? String == "lost", "the record as given")
      let invalid = rejects[2]["diagnostics"] as? [[String: Any]] ?? []
      #expect(invalid.first?["pointer"] as? String == "/status", "\(invalid)")
      #expect(invalid.first?["line"] as? Int == 4)
      #expect(
        (rejects[0]["diagnostics"] as? [[String: Any]])?.first?["message"] as? String
          == "record 2 has no purchase_order_number")
      #expect(try Formsctl.run(["validate"], in: store).status == 0)
      #expect(try readFile(store + "/.formsctl/history.jsonl").contains("PO-9001"))
      // A night with nothing refused leaves an empty file, never the last night's list.
      try writeFile(String(Self.feed.split(separator: "\n")[0]) + "\n", to: dir + "/good.ndjson")
      let clean = try Formsctl.run(
        ["import", "purchase-order", dir + "/good.ndjson", "--skip-invalid", "--rejects", dir + "/rejects.ndjson"],
        in: store, environment: env)
      #expect(clean.status == 0, "\(clean.stderr)")
      #expect(try readFile(dir + "/rejects.ndjson") == "")
    }
  }

  @Test func aDryRunListsTheRefusedAndWritesNoFile() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      try writeFile(Self.feed, to: dir + "/feed.ndjson")
      let before = try treeContents(store)
      let result = try Formsctl.run(
        ["import", "purchase-order", dir + "/feed.ndjson", "--skip-invalid", "--dry-run", "--format", "json"],
        in: store, environment: env)
      #expect(result.status == 1, "\(result.stderr)")
      #expect(result.stderr.contains("5 feed records refused; dry run: no rejects file written"), "\(result.stderr)")
      let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
      #expect((report?["rejected"] as? [Any])?.count == 5)
      #expect(report?["rejects_file"] is NSNull)
      #expect(try treeContents(store) == before)
      let text = try Formsctl.run(
        [
          "import", "purchase-order", dir + "/feed.ndjson", "--skip-invalid", "--dry-run",
          "--rejects", dir + "/r.ndjson",
        ], in: store, environment: env)
      #expect(text.stdout.contains("rejected: "), "\(text.stdout)")
      #expect(text.stdout.contains("feed.ndjson:4:1: error: status: "), "\(text.stdout)")
      #expect(!FileManager.default.fileExists(atPath: dir + "/r.ndjson"))
    }
  }

  @Test func aRejectsFileThatCannotBeWrittenStopsTheImportWithNothingWritten() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      try writeFile(Self.feed, to: dir + "/feed.ndjson")
      try FileManager.default.createDirectory(atPath: dir + "/a-directory", withIntermediateDirectories: true)
      try writeFile("last night\n", to: dir + "/target")
      try FileManager.default.createSymbolicLink(atPath: dir + "/link.ndjson", withDestinationPath: dir + "/target")
      let before = try treeContents(store)
      let cases: [(String, String)] = [
        (dir + "/a-directory", "it is a directory"),
        (dir + "/link.ndjson", "it is a symbolic link, and formsctl never writes through one"),
        (dir + "/missing/rejects.ndjson", dir + "/missing is not a directory"),
        ("/dev/full", "it is not a regular file"),
      ]
      for (path, why) in cases {
        let result = try Formsctl.run(
          ["import", "purchase-order", dir + "/feed.ndjson", "--skip-invalid", "--rejects", path], in: store,
          environment: env)
        #expect(result.status == 74, "\(path): \(result.stderr)")
        #expect(
          result.stderr.contains("\(path): cannot write the rejects file: \(why)"), "\(path): \(result.stderr)")
        #expect(result.stderr.contains("nothing imported"))
        #expect(try treeContents(store) == before, "\(path)")
      }
      // Places formsctl never writes a file for a person: a bad argument (64), one line, the
      // store's own files, its schemas wherever they are, git's files and the feed itself.
      let places: [(String, String)] = [
        (store + "/data/purchase-orders/rejects.ndjson", "it is inside the store's data directory"),
        (store + "/data/purchase-orders/PO-000201.json", "it is inside the store's data directory"),
        (store + "/.formsctl/rejects.ndjson", "it is inside the store's .formsctl directory"),
        (store + "/formsctl.yaml", "it is the store's manifest"),
        (store + "/.git/rejects.ndjson", "it is inside the store's .git directory"),
        (dir + "/schemas/rejects.ndjson", "it is inside the store's schemas directory"),
        (dir + "/feed.ndjson", "it is a file this run reads"),
      ]
      for (path, why) in places {
        let result = try Formsctl.run(
          ["import", "purchase-order", dir + "/feed.ndjson", "--skip-invalid", "--rejects", path], in: store,
          environment: env)
        #expect(result.status == 64, "\(path): \(result.stderr)")
        #expect(
          result.stderr.contains("\(path): formsctl does not write a file there: \(why)"),
          "\(path): \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(path): one line: \(result.stderr)")
        #expect(try treeContents(store) == before, "\(path)")
      }
      #expect(try readFile(dir + "/target") == "last night\n", "never written through the link")
    }
  }

  @Test func badArgumentsAndWholeFeedProblems() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      try writeFile(Self.feed, to: dir + "/feed.ndjson")
      try writeFile("[{\"a\": 1,]", to: dir + "/broken.json")
      let noFile = try Formsctl.run(
        ["import", "purchase-order", dir + "/feed.ndjson", "--skip-invalid"], in: store, environment: env)
      #expect(noFile.status == 64 && noFile.stderr.contains("--skip-invalid needs --rejects FILE"))
      let noSkip = try Formsctl.run(
        ["import", "purchase-order", dir + "/feed.ndjson", "--rejects", dir + "/r.ndjson"], in: store,
        environment: env)
      #expect(noSkip.status == 64 && noSkip.stderr.contains("pass --skip-invalid too"))
      // An empty name or `-` is a bad argument, never a file named `-` or "is a directory".
      for (name, why) in [("", "--rejects needs a file name"), ("-", "--rejects - is not standard output")] {
        let bad = try Formsctl.run(
          ["import", "purchase-order", dir + "/feed.ndjson", "--skip-invalid", "--rejects", name], in: store,
          environment: env)
        #expect(bad.status == 64 && bad.stderr.contains(why), "\(name): \(bad.stderr)")
      }
      #expect(!FileManager.default.fileExists(atPath: store + "/-"))
      // A feed that does not parse at all, or an unknown kind, still fails whole.
      let broken = try Formsctl.run(
        ["import", "purchase-order", dir + "/broken.json", "--skip-invalid", "--rejects", dir + "/r.ndjson"],
        in: store, environment: env)
      #expect(broken.status == 65 && broken.stderr.contains("broken.json:1:"), "\(broken.stderr)")
      let unknown = try Formsctl.run(
        ["import", "no-such-kind", dir + "/feed.ndjson", "--skip-invalid", "--rejects", dir + "/r.ndjson"],
        in: store, environment: env)
      #expect(unknown.status == 65 || unknown.status == 66, "\(unknown.stderr)")
      #expect(!FileManager.default.fileExists(atPath: dir + "/r.ndjson"))
    }
  }

  @Test func aRefusedRecordSkipsThePrune() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      // Every stored purchase order, one of them refused: --prune must not take the refused
      // one for "not in the feed".
      let ids = try FileManager.default.contentsOfDirectory(atPath: store + "/data/purchase-orders").sorted()
        .map { String($0.dropLast(5)) }
      let records = ids.enumerated().map { index, id in
        "{\"purchase_order_number\": \"\(id)\", \"last_updated\": \"2026-11-22T07:00:00Z\", \"items\": []"
          + (index == 0 ? ", \"status\": \"lost\"}" : "}")
      }
      try writeFile(records.joined(separator: "\n") + "\n", to: dir + "/feed.ndjson")
      let result = try Formsctl.run(
        [
          "import", "purchase-order", dir + "/feed.ndjson", "--prune", "--skip-invalid", "--rejects", dir + "/r.ndjson",
        ],
        in: store, environment: env)
      #expect(result.status == 1, "\(result.stderr)")
      #expect(FileManager.default.fileExists(atPath: store + "/data/purchase-orders/\(ids[0]).json"))
      #expect(try Self.lines(dir + "/r.ndjson").map { $0["id"] as? String } == [ids[0]])
      // A refused record without an id could have been any: nothing is pruned, and it says so.
      try writeFile("not json\n", to: dir + "/blind.ndjson")
      let blind = try Formsctl.run(
        [
          "import", "purchase-order", dir + "/blind.ndjson", "--prune", "--max-prune", "100%", "--skip-invalid",
          "--rejects", dir + "/r.ndjson",
        ], in: store, environment: env)
      #expect(blind.status == 1, "\(blind.stderr)")
      #expect(
        blind.stderr.contains(
          "--prune skipped: 1 feed record was refused; the prune waits for a feed with none refused"),
        "\(blind.stderr)")
      #expect(try FileManager.default.contentsOfDirectory(atPath: store + "/data/purchase-orders").count == ids.count)
    }
  }

  /// `import --dry-run` estimates as `migrate --dry-run` does, in its words and from its estimator.
  @Test func aDryRunEstimatesSpaceAndTimeAsMigrateDoes() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      let text = try Formsctl.run(
        ["import", "purchase-order", ImportCommandTests.feed, "--map", ImportCommandTests.map, "--dry-run"],
        in: store, environment: env)
      #expect(text.status == 0, "\(text.stderr)")
      let line = text.stdout.split(separator: "\n").first { $0.hasPrefix("would write ") }.map(String.init) ?? ""
      #expect(
        line.range(
          of:
            #"^would write 6 documents \([0-9.]+ kB\): needs about [0-9.]+ [kM]B free, .+ free here; about [0-9]+ s$"#,
          options: .regularExpression) != nil, "\(text.stdout)")
      let json = try Formsctl.run(
        [
          "import", "purchase-order", ImportCommandTests.feed, "--map", ImportCommandTests.map, "--dry-run", "--format",
          "json",
        ], in: store, environment: env)
      let report = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
      let estimate = report?["estimate"] as? [String: Any]
      #expect(estimate?["documents"] as? Int == 6)
      #expect(
        (estimate?["bytes"] as? Int ?? 0) > 0 && (estimate?["needed"] as? Int ?? 0) > (estimate?["bytes"] as? Int ?? 0))
      // Nothing to write: no estimate.
      try writeFile("", to: dir + "/empty.ndjson")
      let again = try Formsctl.run(
        ["import", "purchase-order", dir + "/empty.ndjson", "--dry-run"], in: store, environment: env)
      #expect(!again.stdout.contains("would write"))
    }
  }

  /// Issue 63: a store in a subdirectory of its git repository; `--rejects ../../.git/config`
  /// overwrote the repository's configuration, and `render --output` a document's own file
  /// replaced the document with HTML. Every file written for a person passes one check.
  @Test func noOutputLandsInTheRepositorysGitOrTheStoresData() throws {
    try withTemporaryDirectory { dir in
      let repository = dir + "/repo"
      let store = repository + "/stores/acquisitions"
      try copyExampleStore(to: store)
      try FileManager.default.copyItem(
        atPath: Formsctl.packageRoot.appendingPathComponent("schemas").path, toPath: repository + "/schemas")
      try writeFile(exampleManifest(schemas: repository + "/schemas"), to: store + "/formsctl.yaml")
      try FileManager.default.createDirectory(atPath: repository + "/.git", withIntermediateDirectories: true)
      let config = "[core]\n\trepositoryformatversion = 0\n"
      try writeFile(config, to: repository + "/.git/config")
      try writeFile(Self.feed, to: dir + "/feed.ndjson")
      let before = try treeContents(store)
      let rejects = try Formsctl.run(
        ["import", "purchase-order", dir + "/feed.ndjson", "--skip-invalid", "--rejects", "../../.git/config"],
        in: store)
      #expect(rejects.status == 64, "\(rejects.stderr)")
      #expect(
        rejects.stderr.contains(
          "../../.git/config: formsctl does not write a file there: it is inside the git repository's .git directory"),
        "\(rejects.stderr)")
      #expect(rejects.stderr.split(separator: "\n").count == 1, "\(rejects.stderr)")
      #expect(try readFile(repository + "/.git/config") == config)
      // A document's own file, the store's data and git's files: render refuses each before writing.
      let document = "data/forms/1981a09e-299d-5c4d-aeb8-b556bc32bedb.json"
      let schemas = try treeContents(repository, under: "schemas")
      for output in [document, "../../.git/HEAD", "../../schemas/page.html", "./.formsctl/page.html"] {
        let render = try Formsctl.run(["render", "form", "1981a09e", "--output", output], in: store)
        #expect(render.status == 64, "\(output): \(render.stderr)")
        #expect(render.stderr.contains("formsctl does not write a file there"), "\(output): \(render.stderr)")
      }
      #expect(!FileManager.default.fileExists(atPath: repository + "/.git/HEAD"))
      #expect(try treeContents(store) == before)
      #expect(try treeContents(repository, under: "schemas") == schemas)
      // Beside the store's manifest, a page is the person's to write.
      let page = try Formsctl.run(["render", "form", "1981a09e", "--output", "sf30.html"], in: store)
      #expect(page.status == 0, "\(page.stderr)")
      #expect(try readFile(store + "/sf30.html").contains("<html"))
    }
  }
}
