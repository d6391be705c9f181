import FormsCore

/// `summary.json` of a snapshot: what `snapshot list` and references by label read, so neither
/// parses a manifest (13 MB at 100,000 documents). Written with the manifest, inside the snapshot
/// before it is renamed into place; `snapshot verify` checks that it agrees with the manifest. A
/// snapshot taken before summaries existed is summarized from its manifest.
public struct SnapshotSummary: Sendable, Equatable {
  public var time: String
  public var reason: String
  public var message: String?
  public var label: String?
  public var files: Int
  /// `whole store`, or for a partial snapshot how many documents it covers.
  public var scope: String

  public init(_ manifest: SnapshotManifest) {
    time = manifest.time
    reason = manifest.reason
    message = manifest.message
    label = manifest.label
    files = manifest.files.count
    scope = manifest.scope
  }

  init(time: String, reason: String, message: String?, label: String?, files: Int, scope: String) {
    self.time = time
    self.reason = reason
    self.message = message
    self.label = label
    self.files = files
    self.scope = scope
  }

  /// The file's name inside a snapshot.
  static let fileName = "summary.json"

  public var json: JSONValue {
    .object(
      JSONObject([
        "time": .string(time), "reason": .string(reason), "message": message.map(JSONValue.string) ?? .null,
        "label": label.map(JSONValue.string) ?? .null, "files": .number(JSONNumber(files)), "scope": .string(scope),
      ]))
  }

  init?(json: JSONValue) {
    guard let time = json["time"]?.stringValue, let reason = json["reason"]?.stringValue,
      case .number(let count)? = json["files"], let files = count.intValue, let scope = json["scope"]?.stringValue
    else { return nil }
    self.time = time
    self.reason = reason
    message = json["message"]?.stringValue
    label = json["label"]?.stringValue
    self.files = files
    self.scope = scope
  }
}

extension Snapshots.Info {
  /// The summary (read once): `summary.json`, or for a snapshot without one (older, or damaged)
  /// its manifest's; nil when neither can be read (listed as having no manifest).
  public var summary: SnapshotSummary? { summarized.value(readSummary) }

  /// The summary as it is on disk now (what `verify` checks; `summary` reads it once).
  func readSummary() -> SnapshotSummary? {
    let path = directory / SnapshotSummary.fileName
    var bytes: [UInt8]?
    if FileIO.entry(path) == .file {
      do throws(StoreError) {
        bytes = try FileIO.read(path, limit: 1 << 20)
      } catch {
        // Only shows or ranks snapshots: a summary that cannot be read falls back to the manifest.
        bytes = nil
      }
    }
    if let bytes, let json = try? JSONParser().parse(bytes), let summary = SnapshotSummary(json: json) {
      return summary
    }
    return manifest.map(SnapshotSummary.init)
  }
}
