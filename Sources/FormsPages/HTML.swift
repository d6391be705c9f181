/// Text that is HTML, escaped by construction: the markup comes only from string literals written
/// in this module's source (`StaticString`), and every value interpolated into it is escaped for
/// text and quoted attributes alike (`& < > " '`), unless it is itself `HTML`.
///
/// ```swift
/// let row: HTML = "<td title=\"\(title)\">\(title)</td>"   // title: a String from a document
/// ```
/// A document's value can therefore never become markup, in a text node or in an attribute; what
/// goes into a URL goes through ``Link`` (its segments percent-encoded) first. No page has an inline
/// script: the one script is a file (`/assets/app.js`), and the content security policy forbids
/// any other.
public struct HTML: Sendable, Equatable, ExpressibleByStringInterpolation, CustomStringConvertible {
  /// The markup.
  public private(set) var text: String

  private init(markup: String) { text = markup }

  public init(stringLiteral literal: StaticString) { text = literal.description }

  public init(stringInterpolation: Interpolation) { text = stringInterpolation.text }

  public var description: String { text }

  /// Nothing.
  public static let empty = HTML(markup: "")

  /// `value` as text: escaped.
  public static func text(_ value: String) -> HTML { HTML(markup: escape(value)) }

  /// The parts one after the other.
  public static func join<Parts: Sequence>(_ parts: Parts, separator: HTML = .empty) -> HTML
  where Parts.Element == HTML {
    HTML(markup: parts.map(\.text).joined(separator: separator.text))
  }

  public static func + (lhs: HTML, rhs: HTML) -> HTML { HTML(markup: lhs.text + rhs.text) }

  public static func += (lhs: inout HTML, rhs: HTML) { lhs.text += rhs.text }

  /// `value` escaped for an HTML text node or a quoted attribute value.
  public static func escape(_ value: String) -> String {
    var out = ""
    out.reserveCapacity(value.utf8.count)
    for scalar in value.unicodeScalars {
      switch scalar {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&#39;"
      // A NUL is not allowed in HTML text; a control character other than tab and newline is
      // shown as its code so it cannot hide anything.
      case "\u{0}"..."\u{8}", "\u{B}", "\u{C}", "\u{E}"..."\u{1F}", "\u{7F}":
        out += "&#xFFFD;"
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  public struct Interpolation: StringInterpolationProtocol {
    var text = ""

    public init(literalCapacity: Int, interpolationCount: Int) { text.reserveCapacity(literalCapacity * 2) }

    public mutating func appendLiteral(_ literal: StaticString) { text += literal.description }

    /// A value: escaped.
    public mutating func appendInterpolation(_ value: String) { text += HTML.escape(value) }

    /// A number: escaped like any text (it is text).
    public mutating func appendInterpolation(_ value: Int) { text += String(value) }

    /// Markup made by this module: as it is.
    public mutating func appendInterpolation(_ html: HTML) { text += html.text }

    /// A URL built from checked parts: escaped for the attribute it goes into.
    public mutating func appendInterpolation(_ link: Link) { text += HTML.escape(link.url) }
  }
}

extension Sequence where Element == HTML {
  /// The markups one after the other.
  public func joined(separator: HTML = .empty) -> HTML { HTML.join(self, separator: separator) }
}

/// A URL of the application, from path segments (each percent-encoded, so a `/`, `?` or `..` in
/// an id stays inside its segment) and query items; always a path on this server, never a
/// scheme (`javascript:` cannot be written).
public struct Link: Sendable, Equatable, CustomStringConvertible {
  public let url: String

  public init(_ segments: [String], query: [(String, String)] = []) {
    var url = "/" + segments.map(Link.encode).joined(separator: "/")
    let items = query.filter { !$0.1.isEmpty }
    if !items.isEmpty { url += "?" + items.map { Link.encode($0.0) + "=" + Link.encode($0.1) }.joined(separator: "&") }
    self.url = url
  }

  public var description: String { url }

  /// `text` with everything but RFC 3986's unreserved characters percent-encoded (UTF-8).
  public static func encode(_ text: String) -> String {
    var out = ""
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
        UInt8(ascii: "~"):
        out.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        let hex = Array("0123456789ABCDEF".utf8)
        out += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
      }
    }
    return out
  }

  /// `text` percent-decoded (and `+` as a space, with `plus`); nil when it is not UTF-8 or an
  /// escape is broken.
  public static func decode<Text: StringProtocol>(_ text: Text, plus: Bool = false) -> String? {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count)
    var iterator = text.utf8.makeIterator()
    while let byte = iterator.next() {
      if byte == UInt8(ascii: "%") {
        guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
          return nil
        }
        bytes.append(high << 4 | low)
      } else if plus && byte == UInt8(ascii: "+") {
        bytes.append(UInt8(ascii: " "))
      } else {
        bytes.append(byte)
      }
    }
    return String(validating: bytes, as: UTF8.self)
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
