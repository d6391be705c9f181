import FormsCore
import FormsStore

/// The resources' URIs: `formsctl://KIND/ID` for a document, `formsctl://KIND` for the kind's
/// newest descriptor.
public enum ResourceURI {
  public static let scheme = "formsctl://"

  public static func document(kind: String, id: String) -> String { scheme + kind + "/" + id }
  public static func descriptor(kind: String) -> String { scheme + kind }

  /// What `uri` names: a kind's descriptor (id nil) or a document; nil when it is not one of these.
  public static func parse(_ uri: String) -> (kind: String, id: String?)? {
    guard uri.hasPrefix(scheme) else { return nil }
    let parts = uri.dropFirst(scheme.count).split(separator: "/", omittingEmptySubsequences: false)
    switch parts.count {
    case 1 where !parts[0].isEmpty: return (String(parts[0]), nil)
    case 2 where !parts[0].isEmpty: return (String(parts[0]), String(parts[1]))
    default: return nil
    }
  }
}

extension Assistant {
  /// A resource as listed: its URI, name, title and media type.
  public struct Resource: Sendable, Equatable {
    public var uri: String
    public var name: String
    public var title: String?
    public var mimeType: String
  }

  /// A resource's content, as text.
  public struct Content: Sendable, Equatable {
    public var uri: String
    public var mimeType: String
    public var text: String
  }

  /// Every descriptor, then every document of every kind (sorted by kind, then id).
  public func resources() throws(StoreError) -> [Resource] {
    var listed: [Resource] = []
    for kind in store.registry.kinds {
      guard let schema = store.registry.latest(kind) else { continue }
      listed.append(
        Resource(
          uri: ResourceURI.descriptor(kind: kind), name: kind, title: "The descriptor of \(schema.reference)",
          mimeType: "application/yaml"))
    }
    for kind in store.registry.kinds {
      let schema = try store.schema(kind)
      for id in try store.layout.ids(in: schema.directory) {
        listed.append(
          Resource(uri: ResourceURI.document(kind: kind, id: id), name: "\(kind) \(id)", mimeType: "application/json"))
      }
    }
    return listed
  }

  /// The resource `uri` names: a document as `get` shows it (sealed values «encrypted» unless
  /// --allow-sealed, which records the read), or a descriptor's YAML.
  public func read(_ uri: String) throws(AssistantError) -> Content {
    guard let (kind, id) = ResourceURI.parse(uri) else {
      throw .badArguments("\(uri): not a formsctl resource (formsctl://KIND or formsctl://KIND/ID)")
    }
    let schema = try self.schema(kind)
    guard let id else {
      guard let file = store.registry.files[schema.reference] else {
        throw .badArguments("\(kind) has no descriptor file")
      }
      let bytes = try storeCall { () throws(StoreError) in try FileIO.read(FilePath(file), followLinks: false) }
      return Content(uri: uri, mimeType: "application/yaml", text: String(decoding: bytes, as: UTF8.self))
    }
    let full = try self.id(id, kind: kind)
    let values = try storeCall { () throws(StoreError) in try store.shownValues(kind: kind, id: full, field: nil) }
    return Content(
      uri: uri, mimeType: "application/json", text: values.first.map(JSONWriter.canonicalString) ?? "null")
  }

  /// The URIs one batch of committed changes touches, and whether the list of resources changed
  /// (a document created, deleted or renamed).
  public static func touched(_ batch: Store.ChangeBatch) -> (uris: [String], listChanged: Bool) {
    var uris: [String] = []
    var listChanged = false
    for change in batch.changes {
      uris.append(ResourceURI.document(kind: change.kind, id: change.id))
      if let previous = change.previousID { uris.append(ResourceURI.document(kind: change.kind, id: previous)) }
      if change.operation != .update { listChanged = true }
    }
    return (uris, listChanged)
  }
}
