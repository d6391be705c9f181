import FormsCore
import FormsStore

extension Pages {
  /// What deleting `kind` `id` would do, as `rm --dry-run` prints it, and the button that does it
  /// (none while something blocks it).
  public func deletePlan(kind: String, id: String, changed: Bool = false) throws(StoreError) -> Page {
    let read = try store.read(kind: kind, id: id)
    let plan = try store.planDelete(kind: kind, id: read.id)
    let confirm: HTML =
      plan.blockers.isEmpty
      ? """
      <form method="post" action="\(Link(["k", kind, read.id, "delete"]))">\(context.csrfField)\
      <input type="hidden" name="_plan" value="\(Self.fingerprint(plan))">\
      <button type="submit" class="danger">Delete \(plan.deletes.count) document(s)</button> \
      <a href="\(Link(["k", kind, read.id]))">Cancel</a></form>
      """
      : "<p class=\"error\">Nothing can be deleted while the documents above refer to it (on_delete: restrict).</p>"
    return Page(
      title: "Delete \(kind) \(read.id)",
      body: """
        <h1>Delete \(kind) \(read.id)?</h1>
        \(changed ? Self.changedPlan : "")\(planTable(plan))
        \(confirm)
        """)
  }

  /// The form that renames `kind` `id`, and with `to`, what the rename would do and its button.
  public func renamePlan(kind: String, id: String, to newID: String?, changed: Bool = false) throws(StoreError)
    -> Page
  {
    let read = try store.read(kind: kind, id: id)
    var body: HTML = """
      <h1>Rename \(kind) \(read.id)</h1>
      <form method="get" action="\(Link(["k", kind, read.id, "rename"]))"><label for="to">New id</label> \
      <input type="text" id="to" name="to" value="\(newID ?? "")"> <button type="submit">Show what it changes</button></form>
      """
    if let newID, !newID.isEmpty {
      let plan = try store.planMove(kind: kind, from: read.id, to: newID)
      body += (changed ? Self.changedPlan : "") + planTable(plan)
      if plan.blockers.isEmpty {
        body += """
          <form method="post" action="\(Link(["k", kind, read.id, "rename"]))">\(context.csrfField)\
          <input type="hidden" name="to" value="\(newID)">\
          <input type="hidden" name="_plan" value="\(Self.fingerprint(plan))">\
          <button type="submit" class="primary">Rename to \(newID)</button> <a href="\(Link(["k", kind, read.id]))">Cancel</a></form>
          """
      }
    }
    return Page(title: "Rename \(kind) \(read.id)", body: body)
  }

  /// What a plan does, in a few characters (FNV-1a of its entries): the confirm button carries
  /// it, and the change is refused (409, the new plan shown) when the plan is no longer the one
  /// the person saw (a form added to the acquisition meanwhile would be cascaded too).
  public static func fingerprint(_ plan: Store.ChangePlan) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for (action, list) in [("delete", plan.deletes), ("rewrite", plan.rewrites), ("block", plan.blockers)] {
      for entry in list {
        for byte in "\(action) \(entry.kind) \(entry.id)\n".utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
      }
    }
    return String(hash, radix: 16)
  }

  static let changedPlan: HTML =
    "<p class=\"error\" role=\"alert\">The store changed since this plan was shown: nothing was done. This is the plan now.</p>"

  func planTable(_ plan: Store.ChangePlan) -> HTML {
    func rows(_ entries: [Store.ChangePlan.Entry], _ action: String) -> [HTML] {
      entries.map { entry in
        "<tr><td>\(action)</td><td>\(entry.kind)</td><td><a href=\"\(Link(["k", entry.kind, entry.id]))\">\(entry.id)</a></td><td>\(entry.reason)</td></tr>"
      }
    }
    let all = rows(plan.deletes, "delete") + rows(plan.rewrites, "rewrite") + rows(plan.blockers, "blocks")
    return """
      <table class="plan"><thead><tr><th>Action</th><th>Kind</th><th>Id</th><th>Why</th></tr></thead>\
      <tbody>\(all.joined())</tbody></table>
      """
  }
}
