import FormsTestSupport
import Foundation
import Testing

/// `formsctl attach`, `detach` and `get --attachment` as a person runs them: one-line errors and
/// the exit codes of the README's table for each bad input, nothing written.
struct AttachCommandTests {
  static let quote = Formsctl.packageRoot.appendingPathComponent("examples/papers/quote-PO-000201.pdf").path

  @Test func attachGetValidateDetach() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      let attached = try Formsctl.run(
        ["attach", "purchase-order", "PO-000201", "quote", Self.quote], in: store, environment: env)
      #expect(attached.status == 0, "\(attached.stderr)")
      #expect(attached.stdout.hasPrefix("attached quote to purchase-order PO-000201: application/pdf, 636 bytes"))
      let got = try Formsctl.run(["get", "purchase-order", "PO-000201", "--attachment", "quote"], in: store)
      let expected = try readFile(Self.quote)
      #expect(got.status == 0 && got.stdout == expected)
      #expect(try Formsctl.run(["validate"], in: store).status == 0)
      // A swapped file: validate fails (1) at the record's line, get refuses it (65).
      try writeFile("%PDF-1.4 forged\n", to: store + "/attachments/purchase-orders/PO-000201/quote.pdf")
      let invalid = try Formsctl.run(["validate"], in: store)
      #expect(invalid.status == 1)
      #expect(
        invalid.stdout.contains("data/purchase-orders/PO-000201.json:3:")
          && invalid.stdout.contains("[attachment-file]"))
      let refused = try Formsctl.run(["get", "purchase-order", "PO-000201", "--attachment", "quote"], in: store)
      #expect(refused.status == 65 && refused.stdout.isEmpty && refused.stderr.contains("is not the file attached"))
      // Attaching again accepts the file; detaching removes it.
      #expect(try Formsctl.run(["attach", "purchase-order", "PO-000201", "quote", Self.quote], in: store).status == 0)
      let detached = try Formsctl.run(["detach", "purchase-order", "PO-000201", "quote"], in: store)
      #expect(detached.status == 0 && detached.stdout == "detached quote from purchase-order PO-000201\n")
      #expect(try Formsctl.run(["validate"], in: store).status == 0)
      let log = try Formsctl.run(["log", "--limit", "2"], in: store)
      #expect(log.stdout.contains("detach") && log.stdout.contains("attach"))
    }
  }

  @Test func eachBadInputIsOneLineAndWritesNothing() throws {
    try withTemporaryDirectory { dir in
      let (store, env) = try SnapshotCommandTests.exampleStore(dir)
      let before = try treeContents(store)
      try writeFile("just text\n", to: dir + "/notes.pdf")
      try writeFile(String(repeating: "x", count: 100), to: dir + "/big.txt")
      try FileManager.default.createSymbolicLink(atPath: dir + "/link.pdf", withDestinationPath: Self.quote)
      let cases: [([String], Int32, String)] = [
        (["attach", "purchase-order", "PO-000201", "quote", dir + "/notes.pdf"], 65, "its name says application/pdf"),
        (
          ["attach", "purchase-order", "PO-000201", "quote", dir + "/big.txt"], 65,
          "text/plain; quote may be application/pdf"
        ),
        (
          ["attach", "purchase-order", "PO-000201", "quote", dir + "/link.pdf"], 65,
          "a symbolic link, not a regular file"
        ),
        (["attach", "purchase-order", "PO-000201", "quote", dir + "/missing.pdf"], 66, "missing.pdf"),
        (["attach", "purchase-order", "PO-000201", "../quote", Self.quote], 65, "declares no attachment \"../quote\""),
        (["attach", "purchase-order", "../PO-000201", "quote", Self.quote], 65, "id"),
        (["attach", "acquisition", "ACQ-2026-001", "quote", Self.quote], 65, "acquisition declares no attachments"),
        (["detach", "purchase-order", "PO-000201", "quote"], 65, "has no quote attachment"),
        (["get", "purchase-order", "PO-000201", "--attachment", "receipt"], 65, "has no receipt attachment"),
        (["get", "purchase-order", "PO-000201", "--attachment", "quote", "--field", "status"], 64, "choose one"),
      ]
      for (arguments, status, message) in cases {
        let result = try Formsctl.run(arguments, in: store, environment: env)
        #expect(result.status == status, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        #expect(result.stderr.hasPrefix("formsctl: error: "), "\(arguments): \(result.stderr)")
        #expect(result.stdout.isEmpty, "\(arguments)")
      }
      #expect(try treeContents(store) == before)
      #expect(!FileManager.default.fileExists(atPath: store + "/attachments"))
    }
  }
}
