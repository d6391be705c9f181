import Crypto
import FormsCore
import Foundation

/// A person who signs approvals: `ed25519:` and the base64 of the 32 bytes of an Ed25519 public
/// key, as `formsctl keygen` prints it and `roles:` in `formsctl.yaml` lists it.
public struct Signer: Sendable, Hashable, CustomStringConvertible {
  public static let prefix = "ed25519:"
  let raw: Data

  /// Parses `ed25519:BASE64`; nil when it is not one.
  public init?(_ text: String) {
    guard text.hasPrefix(Self.prefix), let raw = Data(base64Encoded: String(text.dropFirst(Self.prefix.count))),
      raw.count == 32, (try? Curve25519.Signing.PublicKey(rawRepresentation: raw)) != nil
    else { return nil }
    self.raw = raw
  }

  init(_ key: Curve25519.Signing.PublicKey) { raw = key.rawRepresentation }

  public var description: String { Self.prefix + raw.base64EncodedString() }

  /// The first 12 characters of the key, for messages and logs.
  public var short: String { String(description.dropFirst(Self.prefix.count).prefix(12)) }

  /// True when `signature` (base64) is this signer's signature of `message`.
  func verifies(_ signature: String, of message: [UInt8]) -> Bool {
    guard let bytes = Data(base64Encoded: signature),
      let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw)
    else { return false }
    return key.isValidSignature(bytes, for: Data(message))
  }

  /// What a signer string that does not parse is told.
  public static func problem(_ text: String) -> String {
    "\"\(text)\" is not a signer; a signer is a public signing key: ed25519: and 44 characters of base64"
  }
}

extension Identity {
  /// The identity's signing key, derived from its private key (HKDF-SHA256), so every identity,
  /// old ones included, signs with one key of its own.
  var signingKey: Curve25519.Signing.PrivateKey? {
    let seed = HKDF<SHA256>.deriveKey(
      inputKeyMaterial: SymmetricKey(data: key.rawRepresentation), info: Data("formsctl signing key v1".utf8),
      outputByteCount: 32)
    return seed.withUnsafeBytes { try? Curve25519.Signing.PrivateKey(rawRepresentation: Data($0)) }
  }

  /// Who this identity signs as (32 derived bytes are always an Ed25519 seed).
  public var signer: Signer { Signer(signingKey?.publicKey ?? Curve25519.Signing.PrivateKey().publicKey) }

  /// The identity's signature of `message`, base64.
  func sign(_ message: [UInt8]) throws(StoreError) -> String {
    do {
      guard let key = signingKey else { throw StoreError.internalError("the identity has no signing key") }
      return try key.signature(for: Data(message)).base64EncodedString()
    } catch let error as StoreError {
      throw error
    } catch {
      throw StoreError.internalError("signing failed: \(error)")
    }
  }
}
