import Crypto
import FormsCore
import Foundation

/// A key holder's public key, as `formsctl.yaml` lists it: `x25519:` and the base64 of the 32
/// bytes of an X25519 public key.
public struct Recipient: Sendable, Hashable, CustomStringConvertible {
  public static let prefix = "x25519:"
  let raw: Data

  /// Parses `x25519:BASE64`; nil when it is not one.
  public init?(_ text: String) {
    guard text.hasPrefix(Self.prefix), let raw = Data(base64Encoded: String(text.dropFirst(Self.prefix.count))),
      raw.count == 32
    else { return nil }
    self.raw = raw
  }

  init(_ key: Curve25519.KeyAgreement.PublicKey) { raw = key.rawRepresentation }

  public var description: String { Self.prefix + raw.base64EncodedString() }

  /// The first 8 bytes of the key's SHA-256: names the recipient's stanza in an envelope.
  var keyID: Data { Data(SHA256.hash(data: raw).prefix(8)) }

  var publicKey: Curve25519.KeyAgreement.PublicKey? { try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: raw) }

  /// What a recipient string that does not parse is told.
  public static func problem(_ text: String) -> String {
    "\"\(text)\" is not a recipient; a recipient is a public encryption key: x25519: and 44 characters of base64"
  }
}

/// A key holder's private identity: the file named by FORMSCTL_IDENTITY (default
/// `~/.config/formsctl/identity`), mode 0600, never inside a store.
public struct Identity: Sendable {
  static let keyPrefix = "FORMSCTL-X25519-IDENTITY:"
  let key: Curve25519.KeyAgreement.PrivateKey

  /// A new random identity.
  public static func generate() -> Identity { Identity(key: Curve25519.KeyAgreement.PrivateKey()) }

  public var recipient: Recipient { Recipient(key.publicKey) }

  /// The identity file's text: comments saying what it is, then the key line.
  public func fileText(created: String) -> String {
    """
    # formsctl identity: the private key that opens sensitive values sealed for its recipient.
    # Keep it private (mode 0600) and outside every store; anyone holding it reads those values.
    # created: \(created)
    # recipient: \(recipient)
    \(Self.keyPrefix)\(key.rawRepresentation.base64EncodedString())

    """
  }

  /// Parses an identity file's text (comments and blank lines are skipped).
  public init(fileText text: String, path: String) throws(StoreError) {
    let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    guard lines.count == 1, lines[0].hasPrefix(Self.keyPrefix),
      let raw = Data(base64Encoded: String(lines[0].dropFirst(Self.keyPrefix.count))),
      let key = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: raw)
    else {
      throw StoreError.refused(.notAnIdentity(path: path))
    }
    self.key = key
  }

  init(key: Curve25519.KeyAgreement.PrivateKey) { self.key = key }
}

/// One sealed value: `enc:v1:` + base64 of
///
///     count (1 byte) | ephemeral X25519 public key (32) | count × stanza | sealed value
///     stanza = recipient key id (8) | the data key sealed for the recipient (12 nonce + 32 + 16 tag)
///     sealed value = 12 nonce | ChaCha20-Poly1305 of the value's compact JSON | 16 tag
///
/// The data key is fresh for each value; each recipient's wrapping key is HKDF-SHA256 of the X25519
/// secret of the ephemeral key and the recipient's key, salted with both public keys. The sealed
/// value authenticates the header (count, ephemeral key, stanzas), so no stanza can be swapped.
enum Envelope {
  static let info = Data("formsctl enc:v1 data key".utf8)
  static let stanzaSize = 8 + 12 + 32 + 16

  enum Failure: Error, Equatable {
    /// Not `enc:v1:` with a payload of the layout above.
    case malformed
    /// No stanza is for this identity.
    case notARecipient
    /// A stanza or the value does not authenticate: the text was changed.
    case tampered
  }

  /// The parts of a well-formed envelope.
  struct Parts {
    let header: Data
    let ephemeral: Data
    let stanzas: [(keyID: Data, sealedKey: Data)]
    let sealedValue: Data
  }

  static func seal(_ plaintext: Data, to recipients: [Recipient]) throws -> String {
    let dataKey = SymmetricKey(size: .bits256)
    let ephemeral = Curve25519.KeyAgreement.PrivateKey()
    var header = Data([UInt8(recipients.count)])
    header += ephemeral.publicKey.rawRepresentation
    for recipient in recipients {
      guard let publicKey = recipient.publicKey else { throw Failure.malformed }
      let wrapping = try wrappingKey(
        ephemeral.sharedSecretFromKeyAgreement(with: publicKey),
        ephemeral: ephemeral.publicKey.rawRepresentation, recipient: recipient.raw)
      let sealedKey = try ChaChaPoly.seal(dataKey.withUnsafeBytes { Data($0) }, using: wrapping).combined
      header += recipient.keyID + sealedKey
    }
    let sealed = try ChaChaPoly.seal(plaintext, using: dataKey, authenticating: header).combined
    return SealedText.prefix + (header + sealed).base64EncodedString()
  }

  static func wrappingKey(_ secret: SharedSecret, ephemeral: Data, recipient: Data) -> SymmetricKey {
    secret.hkdfDerivedSymmetricKey(
      using: SHA256.self, salt: ephemeral + recipient, sharedInfo: info, outputByteCount: 32)
  }

  static func parse(_ text: String) -> Parts? {
    guard text.hasPrefix(SealedText.prefix),
      let bytes = Data(base64Encoded: String(text.dropFirst(SealedText.prefix.count))),
      let count = bytes.first.map(Int.init), count > 0
    else { return nil }
    let headerSize = 1 + 32 + count * stanzaSize
    guard bytes.count >= headerSize + 12 + 16 else { return nil }
    var stanzas: [(Data, Data)] = []
    for index in 0..<count {
      let start = 33 + index * stanzaSize
      stanzas.append((bytes[start..<start + 8], bytes[start + 8..<start + stanzaSize]))
    }
    return Parts(
      header: bytes[0..<headerSize], ephemeral: bytes[1..<33], stanzas: stanzas,
      sealedValue: bytes[headerSize...])
  }

  /// The key ids of the recipients a well-formed envelope is sealed for.
  static func keyIDs(_ text: String) -> [Data]? { parse(text)?.stanzas.map(\.keyID) }

  static func open(_ text: String, with identity: Identity) throws(Failure) -> Data {
    guard let parts = parse(text) else { throw .malformed }
    let recipient = identity.recipient
    guard let stanza = parts.stanzas.first(where: { $0.keyID == recipient.keyID }) else { throw .notARecipient }
    do {
      let ephemeral = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: parts.ephemeral)
      let wrapping = wrappingKey(
        try identity.key.sharedSecretFromKeyAgreement(with: ephemeral),
        ephemeral: parts.ephemeral, recipient: recipient.raw)
      let dataKey = SymmetricKey(
        data: try ChaChaPoly.open(ChaChaPoly.SealedBox(combined: stanza.sealedKey), using: wrapping))
      return try ChaChaPoly.open(
        ChaChaPoly.SealedBox(combined: parts.sealedValue), using: dataKey, authenticating: parts.header)
    } catch {
      throw .tampered
    }
  }
}

extension Identity {
  /// Where the identity is: FORMSCTL_IDENTITY, else `~/.config/formsctl/identity`.
  public static func defaultPath(environment: [String: String]) -> String {
    environment["FORMSCTL_IDENTITY"].flatMap { $0.isEmpty ? nil : $0 }
      ?? (FilePath(environment["HOME"] ?? NSHomeDirectory()) / ".config/formsctl/identity").string
  }

  /// Writes a new identity file (mode 0600, its directory created 0700); never replaces a file
  /// and never writes into a store, where git would commit it.
  public func write(to path: String, created: String) throws(StoreError) {
    let file = FilePath(path)
    if FileIO.entry(file) != .missing {
      throw StoreError.refused(.identityExists(path: path))
    }
    let directory = file.parent
    // By the path as given, and by where it leads: a link to a store's directory leads into it.
    var existing = directory
    while FileIO.entry(existing) == .missing, existing.parent != existing { existing = existing.parent }
    for start in [directory, FileIO.realPath(existing) ?? existing] {
      if let store = StoreLayout.nearest(holding: StoreLayout.manifestName, from: start.string) {
        throw StoreError.refused(.identityInStore(path: path, store: store))
      }
    }
    try FileIO.makeDirectories(directory, mode: 0o700)
    var writer = AtomicWriter(boundary: directory)
    writer.newFileMode = 0o600
    try writer.write(Array(fileText(created: created).utf8), to: file)
  }
}
