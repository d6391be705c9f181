import FormsCommandLine
import FormsCore
import FormsStore
import FormsSync
import Foundation
import Testing

@testable import formsctl_sync

/// The library states what failed; only the command line says what to type next.
@Suite struct ErrorTextTests {
  /// Errors whose next step is a command, a flag or a shell command, with what the command line adds.
  static let cases: [(any FormsError, String)] = [
    (SyncError.noDatabase, "give --database URL or set FORMSCTL_DATABASE_URL"),
    (SyncError.notInitialized(database: "db", schema: "formsctl"), "create it with formsctl sync init"),
    (SyncError.missingTable(schema: "formsctl", table: "claim", kind: "claim"), "run formsctl sync init"),
    (
      SyncError.deletionBeyondBound(kind: "claim", removing: 3, of: 3, inDatabase: true, reason: "all of them"),
      "--max-delete N or P% allows more"
    ),
    (SyncError.changedMeanwhile(kind: "claim", id: "c1"), "run formsctl sync, then resolve again"),
    (SyncError.nothingToResolve(kind: "claim", id: "c1"), "formsctl sync status lists them"),
    (SyncError.alreadyRunning(pid: nil, command: "", waited: 10), "pass --wait 600"),
    (
      SyncError.tlsHandshake(server: "db:5432", mode: "verify-full", detail: "CERTIFICATE_VERIFY_FAILED"),
      "check that sslrootcert names"
    ),
    (StoreError.missingDirectory("/s/schemas", key: "schemas"), "git checkout -- schemas restores it"),
    (StoreError.badFileName("/s/data", escaped: "a\\xff"), "ls -b shows the bytes"),
    (
      StoreError.manifest(file: "/s/formsctl.yaml", position: nil, message: "m", remedy: .makeKey),
      "`formsctl keygen` prints one"
    ),
    (StoreError.recoveryNeeded(operation: "set"), "run `formsctl recover` first"),
  ]

  @Test(arguments: 0..<cases.count) func theLibraryStatesTheCommandLineAdvises(_ index: Int) {
    let (error, advice) = Self.cases[index]
    #expect(!error.description.contains(advice), "the library's text speaks command line: \(error.description)")
    #expect(!error.description.contains("formsctl sync") && !error.description.contains("--"))
    #expect(ErrorText.message(for: error).hasPrefix(error.description))
    #expect(ErrorText.message(for: error).contains(advice), "\(ErrorText.message(for: error))")
  }

  @Test func anAssignmentThatNeedsJSONIsToldHowToGiveIt() throws {
    let problem = #expect(throws: Assignment.Problem.self) {
      var document = JSONValue.object(JSONObject())
      let examples = Formsctl.packageRoot.appendingPathComponent("examples/acquisitions").path
      let schema = try #require(try Store.open(at: examples).registry.latest("purchase-order"))
      try Assignment("items=x").apply(to: &document, schema: schema)
    }
    let error = StoreError.assignment(try #require(problem))
    #expect(error.description == "items is a list; it takes a JSON value")
    #expect(ErrorText.message(for: error) == "items is a list; it takes a JSON value; give it as JSON with --json")
  }
}
