import FormsCore
import FormsStore
import Foundation

/// Prints a page to PDF with a headless Chromium, when one is installed. The page goes to Chromium
/// as a file in a private directory (mode 0700, made by the caller's choice of place: the store's
/// `.formsctl`), never on its command line: a long form's page is longer than the system lets one
/// argument be (128 KiB on Linux). The page may hold opened sealed values: its file is 0600 in that
/// directory, with Chromium's profile, and the directory is removed once Chromium is done. Chromium
/// writes the PDF beside the output under a temporary name, and the PDF replaces the output only
/// once it is one. A Chromium that has not finished within a minute is stopped.
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

  /// Chromium ran, or could not be started, and made no PDF (exit 74: what a program outside
  /// formsctl failed to do); the reason is the system's or Chromium's own.
  public struct PrintFailed: FormsError {
    public let chromium: String
    public let reason: String
    public var kind: FailureKind { .ioError }
    public var description: String { "\(chromium) made no PDF: \(reason); nothing was written" }
  }

  /// Writes `html` as a PDF at `output`, the page and Chromium's profile in a private directory
  /// made in `workingDirectory` (and removed after).
  public static func print(html: String, to output: String, workingIn workingDirectory: String) throws(any Error) {
    let named = ProcessInfo.processInfo.environment["FORMSCTL_CHROMIUM"].flatMap { $0.isEmpty ? nil : $0 }
    guard let chromium = chromium(), FileManager.default.isExecutableFile(atPath: chromium) else {
      throw NoChromium(named: named)
    }
    let target = URL(fileURLWithPath: output)
    let pdf = target.deletingLastPathComponent().appendingPathComponent(
      ".\(target.lastPathComponent).formsctl-\(getpid()).pdf")
    let work = try privateDirectory(in: workingDirectory)
    defer {
      removeLeftover(pdf)
      removeLeftover(URL(fileURLWithPath: work))
    }
    let page = work + "/page.html"
    try create(Array(html.utf8), at: page)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: chromium)
    process.arguments = [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
      "--user-data-dir=" + work + "/profile", "--no-pdf-header-footer", "--print-to-pdf=" + pdf.path,
      URL(fileURLWithPath: page).absoluteString,
    ]
    process.standardOutput = FileHandle.nullDevice
    // What Chromium says goes to a file of the private directory, for its reason when it fails.
    let log = work + "/chromium.log"
    let logFD = open(log, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard logFD >= 0 else { throw StoreError.io(log, operation: "write", errno: Errno(rawValue: errno)) }
    process.standardError = FileHandle(fileDescriptor: logFD, closeOnDealloc: true)
    do {
      try process.run()
    } catch {
      // It is a program (checked above): what stopped it is the system's reason, not its absence.
      throw PrintFailed(chromium: chromium, reason: "it could not be started (\(error.localizedDescription))")
    }
    let deadline = ContinuousClock.now + timeout
    while process.isRunning && ContinuousClock.now < deadline { usleep(20_000) }
    if process.isRunning {
      process.terminate()
      process.waitUntilExit()
      throw PrintFailed(chromium: chromium, reason: "it had not finished after \(timeout)")
    }
    guard process.terminationStatus == 0 else {
      throw PrintFailed(
        chromium: chromium,
        reason: "it exited with status \(process.terminationStatus)" + lastWords(log).map { " (\($0))" }.joined())
    }
    guard let bytes = FileManager.default.contents(atPath: pdf.path), bytes.starts(with: Array("%PDF".utf8)) else {
      throw PrintFailed(
        chromium: chromium, reason: "what it wrote is not a PDF" + lastWords(log).map { " (\($0))" }.joined())
    }
    try write(Array(bytes), to: output)
  }

  /// A new directory only this user may enter (0700), in `parent`: its path.
  static func privateDirectory(in parent: String) throws(StoreError) -> String {
    var template = Array((parent + "/render-XXXXXX").utf8CString)
    let made = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }
    guard made != nil else {
      throw StoreError.io(parent, operation: "make a directory in", errno: Errno(rawValue: errno))
    }
    return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// Creates `path` (it must not exist; never through a link), mode 0600, holding `bytes`.
  static func create(_ bytes: [UInt8], at path: String) throws(StoreError) {
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard fd >= 0 else { throw StoreError.io(path, operation: "write", errno: Errno(rawValue: errno)) }
    var failure = writeAll(bytes, to: fd)
    if close(fd) != 0 && failure == nil { failure = errno }
    if let failure { throw StoreError.io(path, operation: "write", errno: Errno(rawValue: failure)) }
  }

  /// Writes all of `bytes` to `fd` (again after an interruption); the errno of a failure, if any.
  static func writeAll(_ bytes: [UInt8], to fd: Int32) -> Int32? {
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
    return failure
  }

  /// The last line Chromium wrote to its standard error (at most 300 characters), if any.
  static func lastWords(_ log: String) -> [String] {
    guard let data = FileManager.default.contents(atPath: log) else { return [] }
    let lines = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
    guard let last = lines.last(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) else { return [] }
    return [String(last.trimmingCharacters(in: .whitespaces).prefix(300))]
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
    var failure = writeAll(bytes, to: fd)
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
