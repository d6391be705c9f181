import FormsTestSupport
import Foundation
import Testing

/// Output that cannot be written, through the binary: a full device is an I/O error (exit 74, one
/// line naming standard output); a closed pipe ends the command quietly, as it ends `cat`.
struct IOErrorCommandTests {
  @Test func aFullStdoutIsAnIOErrorNotSuccess() throws {
    guard FileManager.default.fileExists(atPath: "/dev/full") else {
      print("skipped: no /dev/full here")
      return
    }
    try withTemporaryDirectory { dir in
      _ = try Formsctl.run(["init", "."], in: dir)
      _ = try Formsctl.run(
        ["new", "acquisition", "--set", "id=ACQ-2026-001", "--set", "title=T", "--set", "agency=A"], in: dir)
      let result = try runShell("formsctl get acquisition ACQ-2026-001 > /dev/full", in: dir)
      #expect(result.status == 74)
      #expect(result.stderr == "formsctl: error: standard output: write failed: No space left on device\n")
    }
  }

  @Test func aClosedPipeEndsTheCommandQuietly() throws {
    try withTemporaryDirectory { dir in
      try copyExampleStore(to: dir + "/store")
      // Enough output to outrun the pipe's buffer once `head` has gone; the shell sees SIGPIPE.
      let result = try runShell(
        "for i in 1 2 3 4 5 6 7 8; do formsctl list form --format json; done | head -c 1 >/dev/null; "
          + "formsctl list form --format ndjson | (exec 0<&-; true); exit 0",
        in: dir + "/store")
      #expect(result.status == 0)
      #expect(result.stderr.isEmpty, "\(result.stderr)")
    }
  }
}
