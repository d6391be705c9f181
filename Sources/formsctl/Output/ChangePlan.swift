import FormsCore
import FormsStore

/// Prints what a delete or a cascade does (or would do): a line per document, or one JSON object.
func printPlan(_ plan: Store.ChangePlan, store: Store, dryRun: Bool, format: TextOrJSON) {
  if format == .json {
    var object = planJSON(plan, store: store).objectValue ?? JSONObject()
    object["dry_run"] = .bool(dryRun)
    return FileHandleOutput.standardOutput.write(JSONWriter.canonicalString(.object(object)))
  }
  let prefix = dryRun ? "would " : ""
  for entry in plan.deletes { printOut("\(prefix)delete \(store.display(entry.path))  (\(entry.reason))") }
  for entry in plan.rewrites { printOut("\(prefix)write  \(store.display(entry.path))  (\(entry.reason))") }
  for entry in plan.blockers { printOut("blocked by \(store.display(entry.path))  (\(entry.reason))") }
}

/// `{deleted, written, blocked_by}`, each a list of `{kind, id, path, reason}`.
func planJSON(_ plan: Store.ChangePlan, store: Store) -> JSONValue {
  func entries(_ list: [Store.ChangePlan.Entry]) -> JSONValue {
    .array(
      list.map {
        .object(
          JSONObject([
            "kind": .string($0.kind), "id": .string($0.id), "path": .string(store.display($0.path)),
            "reason": .string($0.reason),
          ]))
      })
  }
  return .object(
    JSONObject([
      "deleted": entries(plan.deletes), "written": entries(plan.rewrites), "blocked_by": entries(plan.blockers),
    ]))
}
