import FormsCore

/// `manifest.json` of a snapshot: when, why, and every file's path, size and SHA-256.
public struct SnapshotManifest: Sendable, Equatable {
  /// One file of the snapshot, by its path inside it (`data/forms/x.json`, `schemas/...`, `formsctl.yaml`).
  public struct Entry: Sendable, Equatable {
    public var path: String
    public var size: Int
    public var sha256: String
    /// The document's `_schema` (for counts), when it is a document.
    public var schema: String?

    /// True for a path a snapshot can hold: `formsctl.yaml`, or under `data/`, `schemas/` or `attachments/` with
    /// no empty, `.`, `..` or hidden component. A manifest comes from a file a checkout may carry:
    /// any other path would lead a restore out of the store or over formsctl's own files.
    public static func isSafe(_ path: String) -> Bool {
      if path == StoreLayout.manifestName { return true }
      let parts = path.split(separator: "/", omittingEmptySubsequences: false)
      return parts.count >= 2 && (parts[0] == "data" || parts[0] == "schemas" || parts[0] == "attachments")
        && parts.allSatisfy { !$0.isEmpty && !$0.hasPrefix(".") }
    }
  }

  public var name: String
  public var time: String
  /// `manual`, `pre-migrate`, `pre-import` or `pre-restore`.
  public var reason: String
  public var message: String?
  public var label: String?
  public var formsctlVersion: String
  public var files: [Entry]
  /// For a partial snapshot (taken before an operation that changes a few documents), every path
  /// it speaks for: those in `files`, and those that did not exist then. Nil: the whole store.
  public var covers: [String]?

  /// The paths the snapshot covered that did not exist when it was taken.
  public var absent: [String] {
    guard let covers else { return [] }
    let present = Set(files.map(\.path))
    return covers.filter { !present.contains($0) }
  }

  /// Documents per kind and version.
  public var counts: [String: [String: Int]] {
    var counts: [String: [String: Int]] = [:]
    for entry in files {
      guard let schema = entry.schema, let at = schema.lastIndex(of: "@") else { continue }
      counts[String(schema[..<at]), default: [:]][String(schema[schema.index(after: at)...]), default: 0] += 1
    }
    return counts
  }

  var json: JSONValue {
    var object = head
    object["files"] = .array(
      files.map { entry in
        var file = JSONObject()
        file["path"] = .string(entry.path)
        file["size"] = .number(JSONNumber(entry.size))
        file["sha256"] = .string(entry.sha256)
        if let schema = entry.schema { file["schema"] = .string(schema) }
        return .object(file)
      })
    return .object(object)
  }

  /// Every member but `files`.
  private var head: JSONObject {
    Self.head(
      name: name, time: time, reason: reason, message: message, label: label, version: formsctlVersion,
      covers: covers, counts: counts)
  }

  /// Every member but `files`, from its parts (a snapshot being streamed has no `files` to count).
  static func head(
    name: String, time: String, reason: String, message: String?, label: String?,
    version: String = FormsStore.formsctlVersion, covers: [String]? = nil, counts: [String: [String: Int]]
  ) -> JSONObject {
    var object = JSONObject()
    object["name"] = .string(name)
    object["time"] = .string(time)
    object["reason"] = .string(reason)
    object["message"] = message.map(JSONValue.string) ?? .null
    object["label"] = label.map(JSONValue.string) ?? .null
    object["formsctl_version"] = .string(version)
    if let covers { object["covers"] = .array(covers.map(JSONValue.string)) }
    object["counts"] = .object(
      JSONObject(
        counts.map { kind, versions in
          JSONObject.Member(
            key: kind,
            value: .object(
              JSONObject(versions.map { JSONObject.Member(key: $0.key, value: .number(JSONNumber($0.value))) })))
        }))
    return object
  }

  /// The canonical bytes of `json`, written straight from the entries (a manifest of a large
  /// store has a hundred thousand of them).
  func serialized() -> [UInt8] {
    let (before, after) = Self.frame(head)
    var out = before
    out.reserveCapacity(before.count + after.count + files.count * 160 + 8)
    out += Self.openFiles(empty: files.isEmpty)
    for (k, entry) in files.enumerated() {
      var (path, sha, schema) = (entry.path, entry.sha256, entry.schema ?? "")
      path.withUTF8 { path in
        sha.withUTF8 { sha in
          schema.withUTF8 { schema in
            Self.appendEntry(
              path: path, schema: entry.schema == nil ? nil : schema, sha: sha, size: entry.size, first: k == 0,
              into: &out)
          }
        }
      }
    }
    out += Self.closeFiles(empty: files.isEmpty)
    out += after
    return out
  }

  /// The canonical bytes of a manifest with `head` before its entries (through `"files": `) and
  /// after them (from the member that follows `files` to the end).
  static func frame(_ head: JSONObject) -> (before: [UInt8], after: [UInt8]) {
    var before: [UInt8] = [UInt8(ascii: "{")]
    var after: [UInt8] = []
    var wroteFiles = false
    var first = true
    for member in head.members {
      if !wroteFiles && codePointLess("files", member.key) {
        before += (first ? "\n  " : ",\n  ").utf8
        JSONWriter.writeString("files", into: &before)
        before += ": ".utf8
        (wroteFiles, first) = (true, false)
      }
      let separator = first ? "\n  " : ",\n  "
      first = false
      if wroteFiles {
        after += separator.utf8
        JSONWriter.writeString(member.key, into: &after)
        after += ": ".utf8
        JSONWriter.writeValue(member.value, indent: 2, into: &after)
      } else {
        before += separator.utf8
        JSONWriter.writeString(member.key, into: &before)
        before += ": ".utf8
        JSONWriter.writeValue(member.value, indent: 2, into: &before)
      }
    }
    if !wroteFiles {
      before += (first ? "\n  " : ",\n  ").utf8
      JSONWriter.writeString("files", into: &before)
      before += ": ".utf8
    }
    after += "\n}\n".utf8
    return (before, after)
  }

  /// What opens and closes the `files` array (`[]` when it is empty).
  static func openFiles(empty: Bool) -> [UInt8] { empty ? Array("[]".utf8) : [UInt8(ascii: "[")] }
  static func closeFiles(empty: Bool) -> [UInt8] { empty ? [] : Array("\n  ]".utf8) }

  /// One entry of the `files` array in its canonical form, from its fields' UTF-8 bytes.
  static func appendEntry(
    path: UnsafeBufferPointer<UInt8>, schema: UnsafeBufferPointer<UInt8>?, sha: UnsafeBufferPointer<UInt8>,
    size: Int, first: Bool, into out: inout [UInt8]
  ) {
    out += (first ? "\n    {\n      \"path\": " : ",\n    {\n      \"path\": ").utf8
    JSONWriter.writeString(utf8: path, into: &out)
    if let schema {
      out += ",\n      \"schema\": ".utf8
      JSONWriter.writeString(utf8: schema, into: &out)
    }
    out += ",\n      \"sha256\": ".utf8
    JSONWriter.writeString(utf8: sha, into: &out)
    out += ",\n      \"size\": ".utf8
    out += String(size).utf8
    out += "\n    }".utf8
  }

  init(
    name: String, time: String, reason: String, message: String?, label: String?, files: [Entry],
    covers: [String]? = nil
  ) {
    self.name = name
    self.time = time
    self.reason = reason
    self.message = message
    self.label = label
    // The module's version constant (this type has a property of the same name).
    self.formsctlVersion = FormsStore.formsctlVersion
    self.files = files
    self.covers = covers
  }

  init?(json: JSONValue) {
    guard let name = json["name"]?.stringValue, let time = json["time"]?.stringValue,
      let reason = json["reason"]?.stringValue, let files = json["files"]?.arrayValue
    else { return nil }
    var entries: [Entry] = []
    for file in files {
      guard let path = file["path"]?.stringValue, let size = file["size"]?.numberValue?.intValue,
        let sha = file["sha256"]?.stringValue
      else { return nil }
      entries.append(Entry(path: path, size: size, sha256: sha, schema: file["schema"]?.stringValue))
    }
    self.name = name
    self.time = time
    self.reason = reason
    self.message = json["message"]?.stringValue
    self.label = json["label"]?.stringValue
    self.formsctlVersion = json["formsctl_version"]?.stringValue ?? "?"
    self.files = entries
    self.covers = json["covers"]?.arrayValue.map { $0.compactMap(\.stringValue) }
  }
}
