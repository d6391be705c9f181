import FormsCore
import FormsTestSupport
import Foundation
import Testing

@testable import FormsStore

/// `StoreLayout` spells document paths both ways; everything else asks it.
struct StoreLayoutTests {
  @Test func locatesByWalkingUp() throws {
    try withTemporaryDirectory { dir in
      try writeFile("formsctl: 1\nschemas: ../schemas\n", to: dir + "/store/formsctl.yaml")
      try FileManager.default.createDirectory(atPath: dir + "/store/data/forms", withIntermediateDirectories: true)
      try FileManager.default.createDirectory(atPath: dir + "/schemas", withIntermediateDirectories: true)
      let store = try StoreLayout.locate(explicit: nil, environment: [:], workingDirectory: dir + "/store/data/forms")
      #expect(store.root == dir + "/store")
      #expect(store.schemasDirectory == dir + "/schemas")
      #expect(store.dataDirectory == dir + "/store/data")
      let viaEnvironment = try StoreLayout.locate(
        explicit: nil, environment: ["FORMSCTL_STORE": "store"], workingDirectory: dir)
      #expect(viaEnvironment.root == dir + "/store")
      #expect(throws: StoreError.notAStore(searchedFrom: dir)) {
        try StoreLayout.locate(explicit: nil, environment: [:], workingDirectory: dir)
      }
    }
  }

  @Test func badManifestNamesTheLine() throws {
    try withTemporaryDirectory { dir in
      try writeFile("formsctl: 1\nsnapshots:\n  keep_within: soon\n", to: dir + "/formsctl.yaml")
      #expect(
        throws: StoreError.manifest(
          file: dir + "/formsctl.yaml", position: .init(line: 3, column: 16),
          message: "expected a duration such as 7d, 12h or 2w")
      ) {
        try StoreLayout(root: dir)
      }
    }
  }

  @Test func autoPruneIsTrueOrFalse() throws {
    try withTemporaryDirectory { dir in
      try writeFile("formsctl: 1\nsnapshots:\n  auto_prune: false\n", to: dir + "/formsctl.yaml")
      try FileManager.default.createDirectory(atPath: dir + "/schemas", withIntermediateDirectories: true)
      #expect(try StoreLayout(root: dir).retention.autoPrune == false)
      try writeFile("formsctl: 1\nsnapshots:\n  auto_prune: sometimes\n", to: dir + "/formsctl.yaml")
      #expect(
        throws: StoreError.manifest(
          file: dir + "/formsctl.yaml", position: .init(line: 3, column: 15), message: "auto_prune is true or false")
      ) {
        try StoreLayout(root: dir)
      }
    }
  }

  @Test func documentPathsReadBackToTheirDirectoryAndID() throws {
    try withTemporaryDirectory { root in
      try writeFile("formsctl: 1\ndata: records/../data\n", to: root + "/formsctl.yaml")
      try FileManager.default.createDirectory(atPath: root + "/schemas", withIntermediateDirectories: true)
      let layout = try StoreLayout(root: root)
      #expect(layout.dataDirectory == root + "/data")
      let path = layout.path(directory: "forms", id: "F-1")
      #expect(path == root + "/data/forms/F-1.json")
      #expect(layout.identify(path)! == ("forms", "F-1"))
      #expect(layout.snapshotPath(path) == "data/forms/F-1.json")
      for outside in [
        root + "/data/forms/nested/F-1.json", root + "/data/F-1.json", root + "/data/forms/F-1.yaml",
        root + "/data/forms/.json", "/elsewhere/forms/F-1.json",
      ] {
        #expect(layout.identify(outside) == nil, "\(outside)")
      }
      #expect(layout.snapshotPath("/elsewhere/F-1.json") == nil)
    }
  }

  @Test func idsAreTheRegularDocumentFilesOfOneDirectory() throws {
    try withTemporaryDirectory { root in
      try writeFile("formsctl: 1\n", to: root + "/formsctl.yaml")
      try FileManager.default.createDirectory(atPath: root + "/schemas", withIntermediateDirectories: true)
      let layout = try StoreLayout(root: root)
      for name in ["PO-2.json", "PO-1.json", "PO-10.json", ".hidden.json", "notes.txt", "sub/PO-3.json"] {
        try writeFile("{}", to: layout.documents(in: "orders") + "/" + name)
      }
      #expect(try layout.ids(in: "orders") == ["PO-1", "PO-10", "PO-2"])
      #expect(try layout.ids(in: "orders", prefix: "PO-1") == ["PO-1", "PO-10"])
      #expect(try layout.ids(in: "missing").isEmpty)
      #expect(
        try layout.documentFiles(in: "orders").map { layout.relative($0) } == [
          "data/orders/PO-1.json", "data/orders/PO-10.json", "data/orders/PO-2.json", "data/orders/sub/PO-3.json",
        ])
    }
  }

  @Test(arguments: [
    ("a/b/../c", "/base", "/base/a/c"), ("/x//y/./z/", "/base", "/x/y/z"), ("../..", "/base/one", "/"),
    ("", "/base", "/base"), (".", "/", "/"),
  ])
  func onePathNormaliser(path: String, base: String, expected: String) {
    #expect(FilePath(path).absolute(from: base).string == expected)
  }

  @Test func pathsAreBuiltAndTakenApartByOneType() {
    let root = FilePath("/s")
    #expect((root / "data" / "forms/F-1.json").string == "/s/data/forms/F-1.json")
    #expect((FilePath("/") / "x").string == "/x" && (FilePath(".") / "x").string == "x")
    #expect((root / "/elsewhere").string == "/elsewhere", "an absolute component replaces")
    #expect((root / "data/forms/F-1.json").parent == FilePath("/s/data/forms"))
    #expect(FilePath("F-1.json").parent == FilePath(".") && FilePath("/x").parent == FilePath("/"))
    #expect((root / "data/forms/F-1.json").name == "F-1.json")
    #expect(root.relative(FilePath("/s/data/x.json")) == "data/x.json")
    #expect(root.relative(FilePath("/s")) == nil && root.relative(FilePath("/sx/data")) == nil)
    #expect(root.contains(FilePath("/s")) && root.contains(FilePath("/s/a")) && !root.contains(FilePath("/sx")))
    #expect(FilePath("/").relative(FilePath("/a/b")) == "a/b")
  }

  @Test func theStoresPlacesAreNamedInTheLayout() throws {
    try withTemporaryDirectory { dir in
      _ = try Store.initialize(at: dir + "/s")
      let layout = try StoreLayout(root: dir + "/s")
      #expect(layout.stateDirectory == dir + "/s/.formsctl")
      #expect(layout.historyPath.string == dir + "/s/.formsctl/history.jsonl")
      #expect(layout.journalDirectory.string == dir + "/s/.formsctl/journal")
      #expect(layout.snapshotsDirectory.string == dir + "/s/.formsctl/snapshots")
      #expect(layout.lockPath.string == dir + "/s/.formsctl/lock")
      #expect(layout.path(directory: "forms", id: "F-1") == dir + "/s/data/forms/F-1.json")
      #expect(layout.livePath("data/forms/F-1.json") == dir + "/s/data/forms/F-1.json")
      #expect(layout.snapshotPath(dir + "/s/data/forms/F-1.json") == "data/forms/F-1.json")
      #expect(layout.snapshotPath(dir + "/s/datax/F-1.json") == nil)
    }
  }
}
