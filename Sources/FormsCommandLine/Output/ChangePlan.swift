import FormsCore
import FormsStore

/// Prints what a delete or a cascade does (or would do): a line per document, or one JSON object.
package func printPlan(_ plan: Store.ChangePlan, store: Store, dryRun: Bool, format: TextOrJSON) {
  if format == .json {
    var object = plan.json(display: store.display).objectValue ?? JSONObject()
    object["dry_run"] = .bool(dryRun)
    return FileHandleOutput.standardOutput.write(JSONWriter.canonicalString(.object(object)))
  }
  let prefix = dryRun ? "would " : ""
  for entry in plan.deletes { printOut("\(prefix)delete \(store.display(entry.path))  (\(entry.reason))") }
  for entry in plan.rewrites { printOut("\(prefix)write  \(store.display(entry.path))  (\(entry.reason))") }
  for entry in plan.blockers { printOut("blocked by \(store.display(entry.path))  (\(entry.reason))") }
  for stale in plan.voids {
    printOut((dryRun ? "would void signatures: " : "voided signatures: ") + stale.description)
  }
  if dryRun, !plan.voids.isEmpty { printOut("(refused unless --void-approvals)") }
}
