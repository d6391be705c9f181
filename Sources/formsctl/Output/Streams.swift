#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Unbuffered writes to stdout or stderr, for data and messages respectively.
struct FileHandleOutput {
  let fd: Int32

  static let standardOutput = FileHandleOutput(fd: 1)
  static let standardError = FileHandleOutput(fd: 2)

  /// True when this stream is a terminal (progress bars and tables only then).
  var isTerminal: Bool { isatty(fd) == 1 }

  /// Writes `text`, clearing a progress line first, so output never lands on the line's end.
  func write(_ text: String) {
    ProgressLine.active?.finish()
    writeRaw(text)
  }

  /// Writes `text` as it is (what the progress line itself draws with).
  func writeRaw(_ text: String) {
    var text = text
    text.withUTF8 { bytes in
      var done = 0
      while done < bytes.count {
        let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
        if n <= 0 { return }
        done += n
      }
    }
  }
}

/// Prints data to stdout.
func printOut(_ text: String) {
  FileHandleOutput.standardOutput.write(text + "\n")
}
