import FormsCore
import FormsStore
import Foundation
import Synchronization

/// Unbuffered writes to stdout or stderr, for data and messages respectively.
package struct FileHandleOutput {
  package let fd: Int32

  package static let standardOutput = FileHandleOutput(fd: 1)
  package static let standardError = FileHandleOutput(fd: 2)

  /// True when this stream is a terminal (progress bars and tables only then).
  package var isTerminal: Bool { isatty(fd) == 1 }

  /// Writes `text`, clearing a progress line first, so output never lands on the line's end.
  package func write(_ text: String) {
    ProgressLine.active.withLock { $0 }?.finish()
    writeRaw(text)
  }

  /// Writes `text` as it is (what the progress line itself draws with). A write to stdout that
  /// fails ends the command: a closed pipe (`| head`) quietly, as SIGPIPE would, anything else
  /// (`> /dev/full`, EIO) with an error and exit 74. On stderr there is nowhere left to say it.
  package func writeRaw(_ text: String) {
    var text = text
    text.withUTF8 { writeRaw($0) }
  }

  /// Writes `bytes` as they are (an attachment's content), as `writeRaw` does.
  package func write(bytes: [UInt8]) {
    ProgressLine.active.withLock { $0 }?.finish()
    bytes.withUnsafeBufferPointer { writeRaw($0) }
  }

  private func writeRaw(_ bytes: UnsafeBufferPointer<UInt8>) {
    let failure: Int32? = {
      var done = 0
      while done < bytes.count {
        let n = Platform.write(fd, bytes.baseAddress.map { $0 + done }, bytes.count - done)
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return n < 0 ? errno : EIO }
        done += n
      }
      return nil
    }()
    guard let failure, fd == 1 else { return }
    if failure == EPIPE {
      signal(SIGPIPE, SIG_DFL)
      raise(SIGPIPE)
    }
    printError("standard output: write failed: \(String(cString: strerror(failure)))")
    Platform.exit(ExitStatus.code(for: .ioError))
  }
}

/// Prints data to stdout.
package func printOut(_ text: String) {
  FileHandleOutput.standardOutput.write(text + "\n")
}

/// The terminal's width in columns (stdout), else COLUMNS, else 100.
package func terminalWidth() -> Int {
  var size = winsize()
  if ioctl(1, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 { return Int(size.ws_col) }
  return getenv("COLUMNS").flatMap { Int(String(cString: $0)) } ?? 100
}

/// Standard input, up to `limit` bytes (the document size limit unless told; read no further: it may be endless).
package func readStandardInput(limit: Int = FileIO.maxFileSize) throws -> [UInt8] {
  var bytes: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 65536)
  while true {
    let n = buffer.withUnsafeMutableBytes { Platform.read(0, $0.baseAddress, $0.count) }
    if n < 0 && errno == EINTR { continue }
    if n < 0 { throw StoreError.io("standard input", operation: "read", errno: Errno(errno)) }
    if n == 0 { break }
    bytes += buffer[0..<n]
    if bytes.count > limit {
      throw CommandError.badInput(
        "standard input holds more than \(limit) bytes (\(Storage.format(Int64(limit)))), the most formsctl reads there"
      )
    }
  }
  return bytes
}

/// Prints `formsctl: warning: message` on stderr, on one line (control characters escaped).
package func printWarning(_ message: String) {
  FileHandleOutput.standardError.write("formsctl: warning: \(message.escapingControlCharacters)\n")
}

/// Prints `formsctl: message` on stderr, on one line (control characters escaped): what a
/// long-running command says of itself.
package func printNote(_ message: String) {
  FileHandleOutput.standardError.write("formsctl: \(message.escapingControlCharacters)\n")
}

/// Prints `formsctl: error: message` on stderr, on one line (control characters escaped).
package func printError(_ message: String) {
  FileHandleOutput.standardError.write("formsctl: error: \(message.escapingControlCharacters)\n")
}
