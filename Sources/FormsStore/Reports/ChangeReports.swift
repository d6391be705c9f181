import FormsCore

extension Store.Change {
  /// `{kind, id, operation, pointers, previous_id?, problem?}`.
  public var json: JSONObject {
    var object = JSONObject([
      "kind": .string(kind), "id": .string(id), "operation": .string(operation.rawValue),
      "pointers": .array(pointers.map { .string($0.description) }),
    ])
    if let previousID { object["previous_id"] = .string(previousID) }
    if let problem { object["problem"] = .string(problem) }
    return object
  }
}

extension Store.ChangeBatch {
  /// `{time, operation, user, command, changes}`: the audit record's operation, user and command
  /// line, null for changes made outside formsctl.
  public var json: JSONValue {
    .object(
      JSONObject([
        "time": .string(Instant(seen).rfc3339), "operation": operation.map(JSONValue.string) ?? .null,
        "user": user.map(JSONValue.string) ?? .null,
        "command": audit?["command"] ?? .null, "changes": .array(changes.map { .object($0.json) }),
      ]))
  }

  /// One record per change, each with the batch's time, operation and user (what `watch`
  /// prints one line of): `{time, operation, kind, id, pointers, user, command, batch_operation…}`.
  public var records: [JSONValue] {
    changes.map { change in
      var object = change.json
      object["time"] = .string(Instant(seen).rfc3339)
      object["user"] = user.map(JSONValue.string) ?? .null
      object["command"] = operation.map(JSONValue.string) ?? .null
      return .object(object)
    }
  }
}

extension Store.QueryResult {
  /// `{documents, inserted, updated, removed, moved: [{id, from, to}], skipped: [{path, reason}]}`.
  public func json(_ records: [JSONValue], display: (String) -> String) -> JSONValue {
    func strings(_ list: [String]) -> JSONValue { .array(list.map(JSONValue.string)) }
    return .object(
      JSONObject([
        "documents": .array(records), "inserted": strings(inserted), "updated": strings(updated),
        "removed": strings(removed),
        "moved": .array(
          moved.map {
            .object(
              JSONObject([
                "id": .string($0.id), "from": .number(JSONNumber($0.from)), "to": .number(JSONNumber($0.to)),
              ]))
          }),
        "skipped": .array(
          skipped.map { .object(JSONObject(["path": .string(display($0.path)), "reason": .string($0.reason)])) }),
      ]))
  }
}
