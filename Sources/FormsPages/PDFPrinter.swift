import FormsCore
import FormsStore
import Foundation

/// Prints a page to PDF with a headless Chromium, when one is installed: the page is written to
/// a private temporary directory, Chromium prints it (no network: the page fetches nothing), and
/// the PDF is moved into place only when Chromium made one.
public enum PDFPrinter {
  /// The Chromium to run: `FORMSCTL_CHROMIUM`, else the first of chromium, chromium-browser,
  /// google-chrome on PATH; nil when there is none.
  public static func chromium(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
    if let named = environment["FORMSCTL_CHROMIUM"], !named.isEmpty { return named }
    let directories = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
    for name in ["chromium", "chromium-browser", "google-chrome"] {
      for directory in directories where FileManager.default.isExecutableFile(atPath: directory + "/" + name) {
        return directory + "/" + name
      }
    }
    return nil
  }

  /// No Chromium to print with (exit 66, as a missing program is).
  public struct NoChromium: FormsError {
    public var kind: FailureKind { .noInput }
    public var description: String {
      "PDF needs a headless Chromium, and none is on PATH: install it (apt-get install chromium) or name one with FORMSCTL_CHROMIUM; --format html needs none"
    }
  }

  /// Writes `html` as a PDF at `output`.
  public static func print(html: String, to output: String) throws(any Error) {
    guard let chromium = chromium(), FileManager.default.isExecutableFile(atPath: chromium) else { throw NoChromium() }
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("formsctl-render-\(UUID().uuidString)")
    do {
      try FileManager.default.createDirectory(
        at: scratch, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    } catch {
      throw StoreError.io(scratch.path, operation: "create", errno: Errno(rawValue: EIO))
    }
    defer { removeScratch(scratch) }
    let page = scratch.appendingPathComponent("page.html")
    let pdf = scratch.appendingPathComponent("page.pdf")
    try write(Array(html.utf8), to: page.path)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: chromium)
    process.arguments = [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
      "--user-data-dir=" + scratch.appendingPathComponent("profile").path, "--no-pdf-header-footer",
      "--print-to-pdf=" + pdf.path, page.absoluteString,
    ]
    process.standardOutput = FileHandle.nullDevice
    let errors = Pipe()
    process.standardError = errors
    do {
      try process.run()
    } catch {
      throw NoChromium()
    }
    let said = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0, let bytes = FileManager.default.contents(atPath: pdf.path),
      bytes.starts(with: Array("%PDF".utf8))
    else {
      let last = String(decoding: said, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
      throw StoreError.internalError("\(chromium) made no PDF (status \(process.terminationStatus)): \(last)")
    }
    try write(Array(bytes), to: output)
  }

  /// Writes `bytes` to `path` whole (a temporary file renamed over it).
  public static func write(_ bytes: [UInt8], to path: String) throws(StoreError) {
    do {
      try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
    } catch {
      let code = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError)?.code ?? Int(EIO)
      throw StoreError.io(path, operation: "write", errno: Errno(rawValue: Int32(code)))
    }
  }

  static func removeScratch(_ url: URL) {
    do { try FileManager.default.removeItem(at: url) } catch {
      // A temporary directory left behind costs space, not data: said, not thrown over the result.
      FileHandle.standardError.write(
        Data("formsctl: warning: cannot remove \(url.path): \(error.localizedDescription)\n".utf8))
    }
  }
}
