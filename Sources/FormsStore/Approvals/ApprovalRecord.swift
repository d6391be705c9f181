import Crypto
import FormsCore
import Foundation

/// One signed entry of a document's `_approvals` list: a submission, an approval or a rejection.
/// The signature covers every other member and the document's kind and id, so a record cannot
/// be moved to another document, and `content`, the hash of what was signed (`ApprovalContent`).
public struct ApprovalRecord: Sendable, Equatable {
  public enum Action: String, Sendable, CaseIterable {
    case submit, approve, reject
  }

  public var action: Action
  /// The state the chain guards (`approved`).
  public var chain: String
  /// The step approved or rejected; nil for a submission.
  public var step: String?
  /// The role the signer signed in; nil for a submission.
  public var role: String?
  public var signer: String
  public var time: String
  public var comment: String?
  /// `sha256:` and the hex hash of the signed content.
  public var content: String
  /// An approval's or rejection's round: the signature of the submission that started it, so a
  /// copy of the record in a later round does not count (nil in records made before rounds were named).
  public var round: String?
  /// A submission's random nonce, so no two submissions are the same record and a copy of one is
  /// seen as a replay (nil in records made before).
  public var nonce: String?
  public var signature: String

  /// Every member a record may hold: the signature covers exactly these, so a member beyond them
  /// (an unsigned "conditions" added by hand) makes the value no record at all.
  static let members: Set<String> = [
    "action", "chain", "step", "role", "signer", "time", "comment", "content", "round", "nonce", "signature",
  ]

  /// The record a JSON value holds; nil when a member is missing, of the wrong type, or not one
  /// of `members`.
  public init?(_ value: JSONValue) {
    guard case .object(let object) = value, object.keys.allSatisfy(Self.members.contains),
      object.members.allSatisfy({ $0.value.stringValue != nil }),
      let action = object["action"]?.stringValue.flatMap(Action.init),
      let chain = object["chain"]?.stringValue, let signer = object["signer"]?.stringValue,
      let time = object["time"]?.stringValue, let content = object["content"]?.stringValue,
      let signature = object["signature"]?.stringValue
    else { return nil }
    self.init(
      action: action, chain: chain, step: object["step"]?.stringValue, role: object["role"]?.stringValue,
      signer: signer, time: time, comment: object["comment"]?.stringValue, content: content,
      round: object["round"]?.stringValue, nonce: object["nonce"]?.stringValue, signature: signature)
  }

  init(
    action: Action, chain: String, step: String?, role: String?, signer: String, time: String, comment: String?,
    content: String, round: String? = nil, nonce: String? = nil, signature: String
  ) {
    self.action = action
    self.chain = chain
    self.step = step
    self.role = role
    self.signer = signer
    self.time = time
    self.comment = comment
    self.content = content
    self.round = round
    self.nonce = nonce
    self.signature = signature
  }

  /// The record as the document stores it.
  public var json: JSONValue {
    var object = JSONObject(["action": .string(action.rawValue), "chain": .string(chain)])
    if let step { object["step"] = .string(step) }
    if let role { object["role"] = .string(role) }
    object["signer"] = .string(signer)
    object["time"] = .string(time)
    if let comment { object["comment"] = .string(comment) }
    object["content"] = .string(content)
    if let round { object["round"] = .string(round) }
    if let nonce { object["nonce"] = .string(nonce) }
    object["signature"] = .string(signature)
    return .object(object)
  }

  /// What the signature signs: the record without its signature, with the document's kind and id.
  func message(kind: String, id: String) -> [UInt8] {
    var object = json.objectValue ?? JSONObject()
    object["signature"] = nil
    object["document"] = .string("\(kind)/\(id)")
    return Array(JSONWriter.compact(.object(object)).utf8)  // keys in canonical order
  }

  /// A record signed by `identity`.
  static func signed(
    _ action: Action, chain: String, step: String?, role: String?, by identity: Identity, time: String,
    comment: String?, content: String, round: String? = nil, kind: String, id: String
  ) throws(StoreError) -> ApprovalRecord {
    let nonce = action == .submit ? Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString() : nil
    var record = ApprovalRecord(
      action: action, chain: chain, step: step, role: role, signer: identity.signer.description, time: time,
      comment: comment, content: content, round: round, nonce: nonce, signature: "")
    record.signature = try identity.sign(record.message(kind: kind, id: id))
    return record
  }

  /// True when the signature is the named signer's, over this record for `kind` `id`.
  func isSigned(kind: String, id: String) -> Bool {
    guard let signer = Signer(signer) else { return false }
    return signer.verifies(signature, of: message(kind: kind, id: id))
  }
}

extension ApprovalRecord {
  /// The record that ends a chain's round when a write changes signed content (`reopen`): the
  /// submission and the approvals before it no longer count, even if the content comes back to
  /// what they signed; the document is submitted again. It is not signed, since it only takes
  /// away (removing it by hand gives back the file as it was before the change, as a revert would).
  public struct Reopen: Sendable, Equatable {
    /// The state the chain guards.
    public var chain: String
    public var time: String
    /// The hash of the content the change made (what was not submitted).
    public var content: String

    public init(chain: String, time: String, content: String) {
      self.chain = chain
      self.time = time
      self.content = content
    }

    /// The record a JSON value holds: exactly `action: "reopen"`, `chain`, `time` and `content`.
    public init?(_ value: JSONValue) {
      guard case .object(let object) = value, object["action"]?.stringValue == "reopen",
        object.members.count == 4, let chain = object["chain"]?.stringValue,
        let time = object["time"]?.stringValue, let content = object["content"]?.stringValue
      else { return nil }
      self.init(chain: chain, time: time, content: content)
    }

    /// The record as the document stores it.
    public var json: JSONValue {
      .object(
        JSONObject([
          "action": .string("reopen"), "chain": .string(chain), "content": .string(content), "time": .string(time),
        ]))
    }
  }
}

/// The content an approval signs: the canonical document as stored (sealed values as their
/// envelopes) without `_schema` (a change of version alone changes no signed content), `_approvals`,
/// the workflow's field (approvals move it), its own timestamp fields and the fields the
/// descriptor marks approval-free.
///
/// Records signed before the fifth release hashed the document with its `_schema`; such a record
/// still covers the content when its hash is the content's with `_schema` naming one of the
/// kind's versions (`ApprovalReview.covers`), so a migration that
/// changes nothing but the version leaves it counting (decision 0140).
public enum ApprovalContent {
  public static func hash(_ document: JSONValue, schema: Schema) -> String {
    hash(document, schema: schema, version: nil)
  }

  /// The hash with `_schema` set to `version` (nil: left out), the rest as ``hash(_:schema:)``.
  static func hash(_ document: JSONValue, schema: Schema, version: String?) -> String {
    guard case .object(var object) = document else { return "" }
    object["_approvals"] = nil
    object["_schema"] = version.map { .string($0) }
    for field in [schema.timestamps.created, schema.timestamps.updated].compactMap({ $0 }) { object[field] = nil }
    for field in schema.approvals?.free ?? [] { object[field] = nil }
    if let workflow = schema.workflow { object[workflow.field] = nil }
    let digest = SHA256.hash(data: JSONWriter.canonical(.object(object)))
    return "sha256:" + digest.map { String(format: "%02x", $0) }.joined()
  }

  /// The hashes an earlier record of `document` may carry for the same signed content: the
  /// content with `_schema` as each of `references` (the kind's versions) and as the document's own.
  static func earlierHashes(_ document: JSONValue, schema: Schema, references: [String]) -> Set<String> {
    let own = document["_schema"]?.stringValue.map { [$0] } ?? []
    return Set(Set(own + references).map { hash(document, schema: schema, version: $0) })
  }
}
