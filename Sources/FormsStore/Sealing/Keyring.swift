import FormsCore
import Foundation
import Synchronization

/// What a store needs for its sensitive fields: the recipients values are sealed for (from
/// `formsctl.yaml`) and, for a key holder, the identity that opens them.
///
/// Documents are read in two forms. On disk a sensitive value is an `enc:v1:` envelope; `open`
/// turns every envelope this identity can open into its value, and leaves the others as they
/// are. The write path seals what it writes (`seal`): a value still sealed is kept as it is (so
/// a person without the identity can change the rest of a document), a value equal to what the
/// stored envelope holds keeps that envelope (no change in git), anything else is sealed afresh.
public final class Keyring: Sendable {
  /// An envelope counts its stanzas in one byte.
  public static let maxRecipients = 255
  public let recipients: [Recipient]
  public let identity: Identity?
  /// Where the identity was looked for (for messages).
  public let identityPath: String
  /// The envelopes not opened (a set: `list` reads a page twice), and those not for this identity.
  private let noted = Mutex<(unopened: Set<String>, notForMe: Set<String>)>(([], []))

  public init(recipients: [Recipient], identity: Identity?, identityPath: String = "FORMSCTL_IDENTITY") {
    self.recipients = recipients
    self.identity = identity
    self.identityPath = identityPath
  }

  /// The store's recipients and the identity named by `FORMSCTL_IDENTITY` (default
  /// `~/.config/formsctl/identity`). The identity is read only when some kind has sensitive
  /// fields; a missing default file means no identity, while a named file that is missing, open
  /// to others, inside the store, or not an identity is refused (as ssh refuses such a key).
  public static func load(_ layout: StoreLayout, registry: SchemaRegistry, environment: [String: String])
    throws(StoreError)
    -> Keyring
  {
    let named = environment["FORMSCTL_IDENTITY"].flatMap { $0.isEmpty ? nil : $0 }
    let path = Identity.defaultPath(environment: environment)
    let sensitive = registry.schemas.values.contains { $0.values.contains(where: \.hasSensitiveFields) }
    guard sensitive else { return Keyring(recipients: layout.recipients, identity: nil, identityPath: path) }
    guard named != nil || FileIO.exists(FilePath(path)) else {
      return Keyring(recipients: layout.recipients, identity: nil, identityPath: path)
    }
    return Keyring(
      recipients: layout.recipients, identity: try readIdentity(path, store: layout.root), identityPath: path)
  }

  /// Reads an identity file, refusing one others may read or one inside the store.
  public static func readIdentity(_ path: String, store root: String?) throws(StoreError) -> Identity {
    var info = stat()
    guard stat(path, &info) == 0 else {
      throw StoreError.refused(.identityMissing(path: path))
    }
    if info.st_mode & 0o077 != 0 {
      throw StoreError.refused(.identityReadableByOthers(path: path, mode: UInt16(info.st_mode & 0o777)))
    }
    if let root, let real = FileIO.realPath(FilePath(path)), let store = FileIO.realPath(FilePath(root)),
      store.relative(real) != nil
    {
      throw StoreError.refused(.identityInStore(path: path, store: nil))
    }
    let bytes = try FileIO.read(FilePath(path))
    return try Identity(fileText: String(decoding: bytes, as: UTF8.self), path: path)
  }

  /// A document with the envelopes this identity opens replaced by their values.
  public struct Opened: Sendable {
    public var value: JSONValue
    /// Every sensitive value's place (opened, still sealed, or in plain text).
    public var locations: [JSONPointer]
    /// Envelopes that stay sealed (no identity, not a recipient, or broken).
    public var sealed: [JSONPointer]
    /// `[sensitive]` findings about envelopes that are not well-formed or do not authenticate.
    public var broken: [Finding] = []
    /// `[sensitive]` findings about values in plain text on disk.
    public var plaintext: [Finding] = []
    public var findings: [Finding] { broken + plaintext }
    /// The sensitive values that were sealed on disk and are open in `value`.
    public var opened: [JSONPointer] {
      let kept = Set(sealed + plaintext.map(\.pointer) + broken.map(\.pointer))
      return locations.filter { !kept.contains($0) }
    }
  }

  /// Opens the sensitive values of a stored document (see the type's comment).
  public func open(_ document: JSONValue, schema: Schema) -> Opened {
    guard schema.hasSensitiveFields else { return Opened(value: document, locations: [], sealed: []) }
    var opened = Opened(value: document, locations: schema.root.sensitiveLocations(in: document), sealed: [])
    var unopened: [String] = []
    var notForMe: [String] = []
    for pointer in opened.locations {
      guard let value = document[pointer: pointer] else { continue }
      guard case .string(let text) = value, text.hasPrefix(SealedText.prefix) else {
        opened.plaintext.append(
          Finding(
            pointer: pointer, rule: "sensitive",
            message: "a sensitive value is stored in plain text, so it is readable in every clone "
              + "(and git history still holds it)", remedy: .reseal))
        continue
      }
      opened.sealed.append(pointer)
      guard let identity else {
        if Envelope.parse(text) == nil { opened.broken.append(Self.malformed(pointer)) } else { unopened.append(text) }
        continue
      }
      do throws(Envelope.Failure) {
        let plaintext = try Envelope.open(text, with: identity)
        guard let inner = try? JSONParser().parse(Array(plaintext)) else { throw Envelope.Failure.tampered }
        opened.value.replace(at: pointer, with: inner)
        opened.sealed.removeLast()
      } catch .notARecipient {
        unopened.append(text)
        notForMe.append(text)
      } catch .malformed {
        opened.broken.append(Self.malformed(pointer))
      } catch {
        opened.broken.append(
          Finding(
            pointer: pointer, rule: "sensitive",
            message:
              "the envelope does not authenticate: it was changed after it was sealed; restore it from git or a snapshot"
          ))
      }
    }
    if !unopened.isEmpty {
      noted.withLock {
        $0.unopened.formUnion(unopened)
        $0.notForMe.formUnion(notForMe)
      }
    }
    return opened
  }

  static func malformed(_ pointer: JSONPointer) -> Finding {
    Finding(pointer: pointer, rule: "sensitive", message: "the envelope is not a well-formed enc:v1 envelope")
  }

  /// `document` as it is written: every sensitive value sealed for the recipients. `previous` is
  /// the stored document as on disk, whose envelopes are kept for values that did not change, and
  /// for values given as the `«encrypted»` placeholder (refused where there is none to keep).
  public func seal(_ document: JSONValue, schema: Schema, previous: JSONValue?, what: String) throws(StoreError)
    -> JSONValue
  {
    guard schema.hasSensitiveFields else { return document }
    var out = document
    let ids = recipients.map(\.keyID)
    for pointer in schema.root.sensitiveLocations(in: document) {
      guard let value = document[pointer: pointer] else { continue }
      if case .string(let text) = value, text.hasPrefix(SealedText.prefix) {
        guard Envelope.parse(text) != nil else {
          throw StoreError.refused(.malformedEnvelope(what: what, pointer: pointer.path))
        }
        continue
      }
      // «encrypted» is what reading commands show for a value they could not open, never a value:
      // a file exported without the identity and brought back keeps the value it stood for.
      if value == .string(SealedText.placeholder) {
        guard let old = previous?[pointer: pointer], SealedText.isSealed(old) else {
          throw StoreError.refused(.placeholderValue(what: what, pointer: pointer.path))
        }
        out.replace(at: pointer, with: old)
        continue
      }
      guard !recipients.isEmpty else {
        throw StoreError.refused(.noRecipients(what: what, pointer: pointer.path))
      }
      if let identity, case .string(let old)? = previous?[pointer: pointer], Envelope.keyIDs(old) == ids,
        let plaintext = try? Envelope.open(old, with: identity), (try? JSONParser().parse(Array(plaintext))) == value
      {
        out.replace(at: pointer, with: .string(old))
        continue
      }
      do {
        out.replace(at: pointer, with: .string(try Envelope.seal(Data(JSONWriter.compact(value).utf8), to: recipients)))
      } catch {
        throw StoreError.internalError("sealing \(pointer.path) failed: \(error)")
      }
    }
    return out
  }

  /// A document as reading commands show it: values that stay sealed read `«encrypted»`.
  public func shown(_ value: JSONValue, schema: Schema) -> JSONValue {
    guard schema.hasSensitiveFields else { return value }
    var out = value
    for pointer in schema.root.sensitiveLocations(in: value)
    where value[pointer: pointer].map(SealedText.isSealed) == true {
      out.replace(at: pointer, with: .string(SealedText.placeholder))
    }
    return out
  }

  /// Before a three-way merge of sealed documents: where two versions hold envelopes of the same
  /// value (sealed twice, e.g. on two branches), they are made the same text, so the merge sees
  /// no change there. Ours is kept over base and theirs; nothing is opened into the result.
  public func align(base: inout JSONValue?, ours: inout JSONValue, theirs: inout JSONValue, schema: Schema) {
    guard let identity else { return }
    func value(_ document: JSONValue?, _ pointer: JSONPointer) -> (text: String, value: JSONValue)? {
      guard case .string(let text)? = document?[pointer: pointer], let plain = try? Envelope.open(text, with: identity),
        let value = try? JSONParser().parse(Array(plain))
      else { return nil }
      return (text, value)
    }
    for pointer in schema.root.sensitiveLocations(in: ours) {
      guard let mine = value(ours, pointer) else { continue }
      let other = value(theirs, pointer)
      let original = value(base, pointer)
      if let other, other.value == mine.value { theirs.replace(at: pointer, with: .string(mine.text)) }
      if let original, original.value == mine.value {
        base?.replace(at: pointer, with: .string(mine.text))
      } else if let original, let other, original.value == other.value {
        base?.replace(at: pointer, with: .string(other.text))
      }
    }
  }

  /// The sensitive values this keyring met and could not open, for a note said once at the end
  /// of a command: how many, and how many were sealed for other recipients (the rest: no identity).
  public var unopened: (values: Int, notForMe: Int)? {
    let (unopened, notForMe) = noted.withLock { $0 }
    return unopened.isEmpty ? nil : (unopened.count, notForMe.count)
  }
}
