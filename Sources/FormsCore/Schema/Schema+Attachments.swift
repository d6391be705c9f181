extension Schema {
  /// A file a document of this kind may carry (descriptor `attachments:`): a vendor's quote, the
  /// signed PDF, a receipt scan. The document names it in its `_attachments` member with its
  /// SHA-256, size and media type; the file itself lives in the store beside the data
  /// (`attachments/<directory>/<id>/<name>.<extension>`).
  public struct Attachment: Sendable, Equatable {
    /// The attachment's name in `_attachments` and in `formsctl attach KIND ID NAME FILE`.
    public let name: String
    /// The media types it may have (`application/pdf`), each one ``MediaType/known``.
    public let types: [String]
    /// Its largest size in bytes.
    public let maxSize: Int
    /// The workflow states in which a document must carry it.
    public let requiredIn: [String]

    /// The largest attachment a store keeps: the largest file its readers take (64 MiB).
    public static let largestSize = 64 << 20

    public init(name: String, types: [String], maxSize: Int, requiredIn: [String]) {
      self.name = name
      self.types = types
      self.maxSize = maxSize
      self.requiredIn = requiredIn
    }

    /// The stored file's name: the attachment's name and the extension of its media type.
    public func fileName(type: String) -> String {
      MediaType.known[type].map { "\(name).\($0.extensions[0])" } ?? name
    }

    /// True for a name an attachment may have: a lowercase letter, then up to 63 lowercase
    /// letters, digits, `_` and `-` (it becomes a file name and a JSON member).
    public static func isValidName(_ name: String) -> Bool {
      let scalars = Array(name.unicodeScalars)
      guard let first = scalars.first, ("a"..."z").contains(first), scalars.count <= 64 else { return false }
      return scalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" }
    }
  }

  /// The attachment declared as `name`, if any.
  public func attachment(_ name: String) -> Attachment? { attachments.first { $0.name == name } }
}

/// What a document's `_attachments` member says of one file: `{"sha256": …, "size": …, "type": …}`.
public struct AttachmentRecord: Sendable, Equatable {
  /// The file's SHA-256, 64 lowercase hexadecimal digits.
  public var sha256: String
  public var size: Int
  /// Its media type.
  public var type: String

  public init(sha256: String, size: Int, type: String) {
    self.sha256 = sha256
    self.size = size
    self.type = type
  }

  /// The record a JSON value holds: exactly the three members, well formed; nil otherwise.
  public init?(_ value: JSONValue) {
    guard case .object(let object) = value, object.members.count == 3,
      let sha256 = object["sha256"]?.stringValue, Self.isHash(sha256),
      case .number(let number)? = object["size"], let size = Int(number.text), size >= 0,
      String(size) == number.text, let type = object["type"]?.stringValue
    else { return nil }
    self.init(sha256: sha256, size: size, type: type)
  }

  public var json: JSONValue {
    .object(
      JSONObject([
        "sha256": .string(sha256), "size": .number(JSONNumber(size)), "type": .string(type),
      ]))
  }

  static func isHash(_ text: String) -> Bool {
    text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
  }

  /// The records of a document's `_attachments`, by name (well-formed ones only).
  public static func all(in document: JSONValue) -> [String: AttachmentRecord] {
    guard case .object(let object)? = document["_attachments"] else { return [:] }
    var records: [String: AttachmentRecord] = [:]
    for member in object.members { records[member.key] = AttachmentRecord(member.value) }
    return records
  }
}

extension Validator {
  /// The findings of a document's `_attachments`: each member one the kind declares, a
  /// well-formed record of a type it allows and a size within its bound; and every attachment the
  /// document's workflow state requires. Whether the files match is the store's check.
  func attachmentFindings(_ document: JSONValue) -> [Finding] {
    guard !schema.attachments.isEmpty else { return [] }
    var findings: [Finding] = []
    let member = document["_attachments"]
    let base = JSONPointer.root.appending("_attachments")
    if let member, member.objectValue == nil {
      return [Finding(pointer: base, rule: "attachments", message: "_attachments must be an object")]
    }
    for (name, value) in member?.objectValue?.members.map({ ($0.key, $0.value) }) ?? [] {
      let pointer = base.appending(name)
      guard let declared = schema.attachment(name) else {
        let hint = didYouMean(name, among: schema.attachments.map(\.name))
        findings.append(
          Finding(
            pointer: pointer, rule: "attachments", message: "\(schema.kind) declares no attachment \"\(name)\"\(hint)",
            atKey: true))
        continue
      }
      guard let record = AttachmentRecord(value) else {
        findings.append(
          Finding(
            pointer: pointer, rule: "attachments",
            message: "an attachment record is {\"sha256\": 64 hex digits, \"size\": bytes, \"type\": media type}"))
        continue
      }
      if !declared.types.contains(record.type) {
        findings.append(
          Finding(
            pointer: pointer.appending("type"), rule: "attachments",
            message: "\(name) may be \(list(declared.types)), not \(record.type)"))
      }
      if record.size > declared.maxSize {
        findings.append(
          Finding(
            pointer: pointer.appending("size"), rule: "attachments",
            message: "\(name) may be at most \(ByteSize.describe(declared.maxSize)), not \(record.size) bytes"))
      }
    }
    if let state = schema.workflowState(of: document) {
      for declared in schema.attachments where declared.requiredIn.contains(state) && member?[declared.name] == nil {
        findings.append(
          Finding(
            pointer: member == nil ? .root : base, rule: "attachment-required",
            message: "the \(declared.name) attachment is required in \(state) (formsctl attach \(schema.kind) ID "
              + "\(declared.name) FILE)"))
      }
    }
    return findings
  }
}

/// Sizes in descriptors and messages: `20MB` (1000-based: B, KB, MB, GB) or `20MiB` (1024-based).
public enum ByteSize {
  static let units: [(String, Int)] = [
    ("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("KB", 1_000), ("MB", 1_000_000), ("GB", 1_000_000_000),
    ("B", 1),
  ]

  /// The bytes `text` says (`20MB`, `512 KiB`, `1000`); nil when it is not a size.
  public static func parse(_ text: String) -> Int? {
    var number = Substring(text)
    var factor = 1
    if let unit = units.first(where: { text.hasSuffix($0.0) }) {
      number = text.dropLast(unit.0.count)
      factor = unit.1
    }
    number = number.drop { $0 == " " }
    while number.last == " " { number = number.dropLast() }
    guard !number.isEmpty, number.allSatisfy(\.isASCII), let value = Int(number), value > 0,
      value <= Int.max / factor
    else { return nil }
    return value * factor
  }

  /// `20 MB`, `64 MiB`, `1500 bytes`: the largest unit that divides `bytes`.
  public static func describe(_ bytes: Int) -> String {
    for (unit, factor) in units.sorted(by: { $0.1 > $1.1 }) where factor > 1 && bytes % factor == 0 && bytes > 0 {
      return "\(bytes / factor) \(unit)"
    }
    return "\(bytes) bytes"
  }
}

/// The media types an attachment may declare, and how a file's is told: by its first bytes where
/// the format has a signature, by its extension where it has none (text) or where one signature
/// serves several formats (a `.docx` and a `.xlsx` are both ZIP archives).
public enum MediaType {
  public struct Known: Sendable {
    /// Extensions, the stored file's first.
    public let extensions: [String]
    /// The signatures its first bytes may start with (empty: told by extension, and text).
    let magic: [[UInt8]]
    /// True when the content must be UTF-8 text without NUL.
    let text: Bool
  }

  private static let zip: [[UInt8]] = [[0x50, 0x4B, 0x03, 0x04], [0x50, 0x4B, 0x05, 0x06]]

  public static let known: [String: Known] = [
    "application/pdf": Known(extensions: ["pdf"], magic: [Array("%PDF-".utf8)], text: false),
    "image/png": Known(extensions: ["png"], magic: [[0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]], text: false),
    "image/jpeg": Known(extensions: ["jpg", "jpeg"], magic: [[0xFF, 0xD8, 0xFF]], text: false),
    "image/gif": Known(extensions: ["gif"], magic: [Array("GIF87a".utf8), Array("GIF89a".utf8)], text: false),
    "image/tiff": Known(
      extensions: ["tif", "tiff"], magic: [[0x49, 0x49, 0x2A, 0x00], [0x4D, 0x4D, 0x00, 0x2A]], text: false),
    "application/zip": Known(extensions: ["zip"], magic: zip, text: false),
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": Known(
      extensions: ["docx"], magic: zip, text: false),
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": Known(
      extensions: ["xlsx"], magic: zip, text: false),
    "text/plain": Known(extensions: ["txt"], magic: [], text: true),
    "text/csv": Known(extensions: ["csv"], magic: [], text: true),
    "text/markdown": Known(extensions: ["md"], magic: [], text: true),
    "application/json": Known(extensions: ["json"], magic: [], text: true),
  ]

  /// The known type whose extensions include `name`'s (case-insensitive), if any.
  public static func byExtension(_ name: String) -> String? {
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
    let ext = name[name.index(after: dot)...].lowercased()
    return known.first { $0.value.extensions.contains(ext) }?.key
  }

  /// The media type of `bytes`, a file named `name`, or why it has none: the extension names
  /// the type when the bytes agree (a `.pdf` that starts `%PDF-`); without a known extension, the
  /// signature alone does (`application/zip` for any ZIP archive, `text/plain` for UTF-8 text).
  public static func detect(_ bytes: [UInt8], name: String) -> Result<String, Mismatch> {
    func matches(_ type: Known) -> Bool {
      type.text ? isText(bytes) : type.magic.contains { bytes.starts(with: $0) }
    }
    let signed = known.filter { !$0.value.magic.isEmpty && $0.value.magic.contains { bytes.starts(with: $0) } }
    if let claimed = byExtension(name) {
      if let type = known[claimed], matches(type) { return .success(claimed) }
      let found = signed.keys.sorted().first ?? (isText(bytes) ? "text" : "unrecognised data")
      return .failure(Mismatch(claimed: claimed, found: found))
    }
    if signed.keys.contains("application/zip") { return .success("application/zip") }
    if let type = signed.keys.sorted().first { return .success(type) }
    if isText(bytes) { return .success("text/plain") }
    return .failure(Mismatch(claimed: nil, found: "unrecognised data"))
  }

  /// A file whose content is not the type its name says, or is no type formsctl knows.
  public struct Mismatch: Error, Sendable, Equatable {
    public let claimed: String?
    public let found: String

    public init(claimed: String?, found: String) {
      self.claimed = claimed
      self.found = found
    }
  }

  /// UTF-8 text without NUL (or an empty file).
  static func isText(_ bytes: [UInt8]) -> Bool {
    !bytes.contains(0) && String(validating: bytes, as: UTF8.self) != nil
  }
}
