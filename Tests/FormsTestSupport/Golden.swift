import Foundation

/// Golden files: `actual` compared with the file at `url`. With `RECORD_SNAPSHOTS=1` the file is
/// written instead and the check fails anyway, so a re-recording run can never pass by accident:
/// review the diff, then run again without it.
public enum Golden {
  public static var recording: Bool { ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" }

  /// The file's text (nil when it matches `actual`); when recording, writes `actual` and throws.
  public static func difference(_ actual: String, at url: URL) throws -> String? {
    if recording {
      try Data(actual.utf8).write(to: url)
      throw FixtureError("re-recorded \(url.lastPathComponent); review the diff and run again without RECORD_SNAPSHOTS")
    }
    let expected = try String(contentsOf: url, encoding: .utf8)
    return expected == actual ? nil : expected
  }
}
