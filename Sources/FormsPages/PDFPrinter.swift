import FormsCore
import FormsStore
import Foundation

/// Prints a page to PDF with a headless Chromium, when one is installed. The page goes to Chromium
/// as a `data:` URL (never as a file: it may hold opened sealed values), Chromium writes the PDF
/// beside the output under a temporary name, and the PDF replaces the output only once it is one.
/// A Chromium that has not finished within a minute is stopped.
public enum PDFPrinter {
  /// How long Chromium may take.
  public static let timeout: Duration = .seconds(60)

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
    public let named: String?
    public var kind: FailureKind { .noInput }
    public var description: String {
      let which = named.map { "FORMSCTL_CHROMIUM names \($0), which is not a program that runs" } ?? "none is on PATH"
      return "PDF needs a headless Chromium, and \(which): install it (apt-get install chromium) or name one with "
        + "FORMSCTL_CHROMIUM; --format html needs none"
    }
  }

  /// Chromium ran but made no PDF (exit 74: what a program outside formsctl failed to do).
  public struct PrintFailed: FormsError {
    public let chromium: String
    public let reason: String
    public var kind: FailureKind { .ioError }
    public var description: String { "\(chromium) made no PDF: \(reason); nothing was written" }
  }

  /// Writes `html` as a PDF at `output`.
  public static func print(html: String, to output: String) throws(any Error) {
    let named = ProcessInfo.processInfo.environment["FORMSCTL_CHROMIUM"].flatMap { $0.isEmpty ? nil : $0 }
    guard let chromium = chromium(), FileManager.default.isExecutableFile(atPath: chromium) else {
      throw NoChromium(named: named)
    }
    let target = URL(fileURLWithPath: output)
    let pdf = target.deletingLastPathComponent().appendingPathComponent(
      ".\(target.lastPathComponent).formsctl-\(getpid()).pdf")
    let profile = FileManager.default.temporaryDirectory.appendingPathComponent(
      "formsctl-chromium-\(UUID().uuidString)")
    defer {
      removeLeftover(pdf)
      removeLeftover(profile)
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: chromium)
    process.arguments = [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
      "--user-data-dir=" + profile.path, "--no-pdf-header-footer", "--print-to-pdf=" + pdf.path,
      "data:text/html;charset=utf-8;base64," + Data(html.utf8).base64EncodedString(),
    ]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    do {
      try process.run()
    } catch {
      throw NoChromium(named: named)
    }
    let deadline = ContinuousClock.now + timeout
    while process.isRunning && ContinuousClock.now < deadline { usleep(20_000) }
    if process.isRunning {
      process.terminate()
      process.waitUntilExit()
      throw PrintFailed(chromium: chromium, reason: "it had not finished after \(timeout)")
    }
    guard process.terminationStatus == 0 else {
      throw PrintFailed(chromium: chromium, reason: "it exited with status \(process.terminationStatus)")
    }
    guard let bytes = FileManager.default.contents(atPath: pdf.path), bytes.starts(with: Array("%PDF".utf8)) else {
      throw PrintFailed(chromium: chromium, reason: "what it wrote is not a PDF")
    }
    try write(Array(bytes), to: output)
  }

  /// Writes `bytes` to `path` whole: a temporary file beside it, flushed, renamed over it. The
  /// system's reason is kept in the error (no such directory, a directory, permission, disk full).
  public static func write(_ bytes: [UInt8], to path: String) throws(StoreError) {
    let url = URL(fileURLWithPath: path)
    let temporary = url.deletingLastPathComponent().appendingPathComponent(
      ".\(url.lastPathComponent).formsctl-\(getpid())"
    )
    .path
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
    guard fd >= 0 else { throw StoreError.io(path, operation: "write", errno: Errno(rawValue: errno)) }
    var written = 0
    var failure: Int32?
    bytes.withUnsafeBytes { buffer in
      guard let base = buffer.baseAddress else { return }
      while written < buffer.count {
        let n = Foundation.write(fd, base + written, buffer.count - written)
        if n < 0 {
          if errno == EINTR { continue }
          failure = errno
          return
        }
        written += n
      }
    }
    if failure == nil && fsync(fd) != 0 { failure = errno }
    if close(fd) != 0 && failure == nil { failure = errno }
    if failure == nil && rename(temporary, path) != 0 { failure = errno }
    if let failure {
      unlink(temporary)
      throw StoreError.io(path, operation: "write", errno: Errno(rawValue: failure))
    }
  }

  static func removeLeftover(_ url: URL) {
    guard FileManager.default.fileExists(atPath: url.path) else { return }
    do { try FileManager.default.removeItem(at: url) } catch {
      // A leftover costs space, not data: said, not thrown over the result.
      FileHandle.standardError.write(
        Data("formsctl: warning: cannot remove \(url.path): \(error.localizedDescription)\n".utf8))
    }
  }
}
