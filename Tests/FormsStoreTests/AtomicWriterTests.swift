import FormsCore
import FormsTestSupport
import Foundation
import Testing

@testable import FormsStore

struct AtomicWriterTests {
  @Test func writesAndLeavesNoTemporaryFile() throws {
    try withTemporaryDirectory { dir in
      let writer = AtomicWriter(boundary: FilePath(dir))
      try writer.write(Array("one\n".utf8), to: FilePath(dir + "/a.json"))
      try writer.write(Array("two\n".utf8), to: FilePath(dir + "/a.json"))
      #expect(try readFile(dir + "/a.json") == "two\n")
      #expect(try directoryListing(dir) == ["a.json"])
    }
  }

  @Test func failureBeforeRenameKeepsTheOldBytes() throws {
    try withTemporaryDirectory { dir in
      try writeFile("old\n", to: dir + "/a.json")
      var writer = AtomicWriter(boundary: FilePath(dir))
      writer.beforeRename = { temp throws(StoreError) in
        throw StoreError.io(temp.string, operation: "simulated crash", errno: Errno(EIO))
      }
      #expect(throws: StoreError.self) { try writer.write(Array("new\n".utf8), to: FilePath(dir + "/a.json")) }
      #expect(try readFile(dir + "/a.json") == "old\n")
      #expect(try directoryListing(dir) == ["a.json"])
    }
  }

  @Test func keepsTheFileMode() throws {
    try withTemporaryDirectory { dir in
      try writeFile("old\n", to: dir + "/a.json")
      chmod(dir + "/a.json", 0o600)
      try AtomicWriter(boundary: FilePath(dir)).write(Array("new\n".utf8), to: FilePath(dir + "/a.json"))
      let attributes = try FileManager.default.attributesOfItem(atPath: dir + "/a.json")
      #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }
  }

  @Test func refusesASymlinkOutOfTheStore() throws {
    try withTemporaryDirectory { dir in
      try writeFile("outside\n", to: dir + "/outside/secret.json")
      try FileManager.default.createDirectory(atPath: dir + "/store", withIntermediateDirectories: true)
      try FileManager.default.createSymbolicLink(
        atPath: dir + "/store/a.json", withDestinationPath: dir + "/outside/secret.json")
      let writer = AtomicWriter(boundary: FilePath(dir + "/store"))
      #expect(throws: StoreError.symlinkOutsideStore(dir + "/store/a.json")) {
        try writer.write(Array("new\n".utf8), to: FilePath(dir + "/store/a.json"))
      }
      #expect(try readFile(dir + "/outside/secret.json") == "outside\n")
      // A directory symlink out of the store is refused too.
      try FileManager.default.createSymbolicLink(atPath: dir + "/store/out", withDestinationPath: dir + "/outside")
      #expect(throws: StoreError.pathOutsideStore(dir + "/store/out/secret.json")) {
        try writer.write(Array("new\n".utf8), to: FilePath(dir + "/store/out/secret.json"))
      }
    }
  }

  @Test func writesThroughASymlinkInsideTheStore() throws {
    try withTemporaryDirectory { dir in
      try writeFile("old\n", to: dir + "/real.json")
      try FileManager.default.createSymbolicLink(atPath: dir + "/link.json", withDestinationPath: dir + "/real.json")
      try AtomicWriter(boundary: FilePath(dir)).write(Array("new\n".utf8), to: FilePath(dir + "/link.json"))
      #expect(try readFile(dir + "/real.json") == "new\n")
      #expect(FileIO.entry(FilePath(dir + "/link.json")) == .symlink)
    }
  }
}

struct FileIOTests {
  @Test func refusesFilesOver64MiB() throws {
    try withTemporaryDirectory { dir in
      let path = dir + "/big.json"
      try writeBytes([], to: path)
      let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
      try handle.truncate(atOffset: UInt64(FileIO.maxFileSize + 1))
      try handle.close()
      #expect(throws: StoreError.fileTooLarge(path, size: FileIO.maxFileSize + 1, limit: FileIO.maxFileSize)) {
        try FileIO.read(FilePath(path))
      }
    }
  }

  @Test func listsJSONFilesSkippingHiddenDirectories() throws {
    try withTemporaryDirectory { dir in
      for file in ["b/2.json", "a.json", ".formsctl/x.json", ".build/y.json", "c.txt", "b/.hidden/z.json"] {
        try writeFile("{}", to: dir + "/" + file)
      }
      #expect(try FileIO.files(under: FilePath(dir), suffix: ".json") == [dir + "/a.json", dir + "/b/2.json"])
    }
  }

  @Test func walkNamesGivesNamesRelativeToTheTopAndPathsOfWhatIsIrregular() throws {
    try withTemporaryDirectory { dir in
      for file in ["b/2.json", "b/c/3.json", "a.json", ".hidden.json", "x.txt", "d.json/4.json"] {
        try writeFile("{}", to: dir + "/" + file)
      }
      try FileManager.default.createSymbolicLink(atPath: dir + "/link.json", withDestinationPath: dir + "/a.json")
      let (names, irregular) = try FileIO.walkNames(FilePath(dir), suffix: ".json")
      #expect(names.sorted() == ["a.json", "b/2.json", "b/c/3.json"])
      #expect(irregular.sorted() == [dir + "/d.json", dir + "/link.json"])
      // The same files as walk, which gives their paths.
      #expect(try FileIO.walk(FilePath(dir), suffix: ".json").files == names.sorted().map { dir + "/" + $0 })
    }
  }
}

struct StoreLockTests {
  @Test func secondWriterWaitsThenFailsNamingTheHolder() throws {
    try withTemporaryDirectory { dir in
      try writeFile("formsctl: 1\n", to: dir + "/formsctl.yaml")
      try FileManager.default.createDirectory(atPath: dir + "/schemas", withIntermediateDirectories: true)
      let store = try StoreLayout(root: dir)
      let first = try StoreLock(store: store, command: "migrate", wait: 0)
      // flock locks belong to the open file description, so a second open in this process conflicts.
      do {
        _ = try StoreLock(store: store, command: "fmt", wait: 0.2)
        Issue.record("second lock was granted")
      } catch let error as StoreError {
        #expect(error.kind == .tryAgain)
        #expect(error.description.contains("pid \(getpid()) (formsctl migrate)"))
      }
      withExtendedLifetime(first) {}
    }
  }
}

struct FormatterTests {
  @Test func rewritesChecksAndReportsParseErrors() throws {
    try withTemporaryDirectory { dir in
      try writeFile("{\"b\": 1, \"a\": 12.50}", to: dir + "/messy.json")
      try writeFile("{\n  \"a\": 1\n}\n", to: dir + "/clean.json")
      try writeFile("{\"a\": 1,}", to: dir + "/broken.json")
      let files = try DocumentFormatter.expand([dir]).files
      let check = DocumentFormatter(check: true, writer: AtomicWriter(boundary: FilePath(dir))).run(files)
      #expect(check.changed == [dir + "/messy.json"])
      #expect(
        check.failures.map(\.compilerStyle) == [dir + "/broken.json:1:9: error: trailing comma before '}' [parse]"])
      #expect(try readFile(dir + "/messy.json") == "{\"b\": 1, \"a\": 12.50}")
      let fix = DocumentFormatter(check: false, writer: AtomicWriter(boundary: FilePath(dir))).run(files)
      #expect(fix.changed == [dir + "/messy.json"])
      #expect(try readFile(dir + "/messy.json") == "{\n  \"a\": 12.50,\n  \"b\": 1\n}\n")
      #expect(try readFile(dir + "/broken.json") == "{\"a\": 1,}")
    }
  }

  @Test func missingPathIsNoInput() {
    #expect(throws: StoreError.fileNotFound("/nonexistent/x.json")) {
      try DocumentFormatter.expand(["/nonexistent/x.json"])
    }
  }
}
