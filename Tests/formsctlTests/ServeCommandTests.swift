import FormsCore
import FormsTestSupport
import Foundation
import Testing

/// `formsctl serve` and `formsctl render` from the command line: the bad inputs (one line each,
/// the exit code of the exit codes table), and what the print view writes.
struct ServeCommandTests {
  @Test func serveRefusesWhatItMustNotDo() throws {
    try withTemporaryDirectory { dir in
      try copyExampleStore(to: dir + "/store")
      let remote = try Formsctl.run(["serve", "--listen", "0.0.0.0"], in: dir + "/store")
      #expect(remote.status == 64 && remote.stderr.contains("--allow-remote"), "\(remote.transcript)")
      let port = try Formsctl.run(["serve", "--port", "70000"], in: dir + "/store")
      #expect(port.status == 64, "\(port.transcript)")
      let host = try Formsctl.run(["serve", "--host-name", "http://evil"], in: dir + "/store")
      #expect(host.status == 64, "\(host.transcript)")
      let nowhere = try Formsctl.run(["serve", "--port", "0"], in: dir)
      #expect(nowhere.status == 66, "\(nowhere.transcript)")
      let identity = try Formsctl.run(
        ["serve", "--port", "0"], in: dir + "/store", environment: ["FORMSCTL_IDENTITY": dir + "/missing.id"])
      #expect(identity.status == 65 && identity.stderr.contains("keygen"), "\(identity.transcript)")
    }
  }

  @Test func renderWritesThePrintViewAndSaysWhatPDFNeeds() throws {
    try withTemporaryDirectory { dir in
      try copyExampleStore(to: dir + "/store")
      let html = try Formsctl.run(["render", "form", "1981a09e"], in: dir + "/store")
      #expect(html.status == 0, "\(html.transcript)")
      #expect(
        html.stdout.contains("SF 30") && html.stdout.contains("Amendment of Solicitation/Modification of Contract"))
      #expect(html.stdout.contains("FAR 53.105") && !html.stdout.contains("<script"))
      let file = try Formsctl.run(["render", "form", "1981a09e", "--output", dir + "/sf30.html"], in: dir + "/store")
      #expect(file.status == 0, "\(file.transcript)")
      #expect(try readFile(dir + "/sf30.html").contains("SF 30"))
      let noOutput = try Formsctl.run(["render", "form", "1981a09e", "--format", "pdf"], in: dir + "/store")
      #expect(noOutput.status == 64, "\(noOutput.transcript)")
      let noChromium = try Formsctl.run(
        ["render", "form", "1981a09e", "--format", "pdf", "--output", dir + "/x.pdf"], in: dir + "/store",
        environment: ["FORMSCTL_CHROMIUM": dir + "/no-chromium"])
      #expect(
        noChromium.status == 66 && noChromium.stderr.contains("apt-get install chromium"), "\(noChromium.transcript)")
      #expect(!FileManager.default.fileExists(atPath: dir + "/x.pdf"))
      // A Chromium that fails, or makes no PDF, is not a bug in formsctl: 74, and nothing written.
      try writeFile("#!/bin/sh\nexit 0\n", to: dir + "/silent-chromium")
      chmod(dir + "/silent-chromium", 0o755)
      for broken in ["/bin/false", dir + "/silent-chromium"] {
        let failed = try Formsctl.run(
          ["render", "form", "1981a09e", "--format", "pdf", "--output", dir + "/x.pdf"], in: dir + "/store",
          environment: ["FORMSCTL_CHROMIUM": broken])
        #expect(failed.status == 74 && failed.stderr.contains("made no PDF"), "\(failed.transcript)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.contains("x.pdf") } == [])
      }
      let unknown = try Formsctl.run(["render", "form", "nope"], in: dir + "/store")
      #expect(unknown.status == 66, "\(unknown.transcript)")
      let badKind = try Formsctl.run(["render", "forms", "1981a09e"], in: dir + "/store")
      #expect(badKind.status == 65, "\(badKind.transcript)")
      let dots = try Formsctl.run(["render", "form", "../acquisitions/ACQ-2026-001"], in: dir + "/store")
      #expect(dots.status == 65, "\(dots.transcript)")
      let unwritable = try Formsctl.run(
        ["render", "form", "1981a09e", "--output", dir + "/no/such/dir/x.html"], in: dir + "/store")
      #expect(
        unwritable.status == 74 && unwritable.stderr.contains("No such file or directory"), "\(unwritable.transcript)")
    }
  }
}
