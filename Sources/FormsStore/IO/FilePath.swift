/// A path on disk as a value. formsctl builds paths by appending components (`directory / name`),
/// takes them apart (`parent`, `name`) and compares them (`contains`, `relative(_:)`) through this
/// type alone, so "is this inside the store" and "what is its path below the root" have one answer
/// each. The system calls and the messages receive ``string``.
///
/// Lexical only: links are not followed (`FileIO.realPath` resolves them).
package struct FilePath: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// The path as the system takes it.
  package let string: String

  package init(_ string: String) { self.string = string }

  package var description: String { string }

  package static func < (lhs: FilePath, rhs: FilePath) -> Bool { lhs.string < rhs.string }

  /// `base/relative`, or `relative` alone when it is absolute (or `base` is empty or `.`).
  /// `relative` may hold several components (`a/b.json`).
  package static func / (base: FilePath, relative: String) -> FilePath {
    if relative.hasPrefix("/") || base.string.isEmpty || base.string == "." { return FilePath(relative) }
    return FilePath(base.string.hasSuffix("/") ? base.string + relative : base.string + "/" + relative)
  }

  /// The directory part (`a/b/c.json` → `a/b`, `c.json` → `.`, `/x` → `/`).
  package var parent: FilePath {
    // By UTF-8 code unit: `/` is never part of another character, and this runs once per file.
    guard let slash = string.utf8.lastIndex(of: UInt8(ascii: "/")) else { return FilePath(".") }
    if slash == string.utf8.startIndex { return FilePath("/") }
    return FilePath(String(decoding: string.utf8[..<slash], as: UTF8.self))
  }

  /// The last component.
  package var name: String {
    guard let slash = string.utf8.lastIndex(of: UInt8(ascii: "/")) else { return string }
    return String(decoding: string.utf8[string.utf8.index(after: slash)...], as: UTF8.self)
  }

  /// Absolute, without `.` and `..` components or duplicate slashes.
  package var normalized: FilePath {
    var parts: [Substring] = []
    for part in string.split(separator: "/") {
      switch part {
      case ".": continue
      case "..": if !parts.isEmpty { parts.removeLast() }
      default: parts.append(part)
      }
    }
    return FilePath("/" + parts.joined(separator: "/"))
  }

  /// This path made absolute from `base` (when relative) and normalized: the one way a path a
  /// person typed becomes one formsctl compares.
  package func absolute(from base: String) -> FilePath { (FilePath(base) / string).normalized }

  /// True when `other` is this path or below it, by their spelling.
  package func contains(_ other: FilePath) -> Bool { other == self || relative(other) != nil }

  /// `other`'s path below this one (`/s` and `/s/data/x.json` → `data/x.json`); nil when `other`
  /// is not below it.
  package func relative(_ other: FilePath) -> String? {
    let prefix = string.hasSuffix("/") ? string : string + "/"
    guard other.string.hasPrefix(prefix) else { return nil }
    return String(other.string.dropFirst(prefix.count))
  }
}
