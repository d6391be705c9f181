import Foundation

/// A regular expression compiled once (ICU syntax via NSRegularExpression; patterns in descriptors
/// should stay in the subset that JSON Schema's ECMA 262 dialect shares). Unanchored, as in JSON Schema.
public final class CompiledPattern: @unchecked Sendable {
  public let source: String
  private let regex: NSRegularExpression

  public init?(_ source: String) {
    guard let regex = try? NSRegularExpression(pattern: source) else { return nil }
    self.source = source
    self.regex = regex
  }

  /// True when the pattern matches somewhere in `string`.
  public func matches(_ string: String) -> Bool {
    let range = NSRange(string.startIndex..<string.endIndex, in: string)
    return regex.firstMatch(in: string, options: [], range: range) != nil
  }
}
