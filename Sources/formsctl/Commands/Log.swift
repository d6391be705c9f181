import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore

extension Formsctl {
  struct Log: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "log",
      abstract: "Who changed what: the audit log, newest first.",
      discussion: """
        Every committed change (new, set, edit, status, rm, mv, import, migrate, snapshot restore, and the library's writes) appends one record to .formsctl/history.jsonl, inside the same journaled commit: the time, the user (git's user.name <user.email> for the store's repository, else $USER), the operation, the command line, and per document its kind, id, action and the JSON Pointers that changed. The only values kept are the workflow state's, as from and to. The file is kept in git; `formsctl git install` merges it line by line.

        An approval or a rejection (`formsctl approve`, `formsctl reject`) is shown with its step, role, signer and comment. With --access, the log shows instead who read sealed values in plain text: every command that shows a sensitive value it opened (get, list, diff, edit, watch) first appends an access record naming the documents and JSON Pointers; when that record cannot be written, nothing is shown.

        With KIND (and ID), only records that touched it are shown, each narrowed to the matching documents. A line of the log that does not parse is reported with its line number (exit 65); the rest is still shown.

        Examples:
          formsctl log
          formsctl log purchase-order PO-000201
          formsctl log form --since 2026-11-01 --limit 20
          formsctl log --format ndjson | jq -r 'select(.operation == "import") | .time'
          formsctl log acquisition --access --since 2026-11-01
        """
    )
    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json, ndjson }

    @OptionGroup var options: StoreOptions
    @Argument(help: "Only changes to documents of this kind.", completion: Completions.kinds) var kind: String?
    @Argument(help: "Only changes to this document.", completion: Completions.ids) var id: String?
    @Option(help: ArgumentHelp("Only changes at or after this date or datetime.", valueName: "DATE")) var since: String?
    @Option(help: "At most this many records.") var limit: Int?
    @Option(help: "Output: text, json (one array) or ndjson (one record per line).") var format: Format = .text
    @Flag(help: "Show who read sealed values (access records) instead of changes.") var access = false

    func validate() throws {
      if let since, Instant(since) == nil {
        throw ValidationError("--since \(since): expected a date (2026-11-01) or an RFC 3339 datetime")
      }
      if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    func run() throws {
      let store = try options.open()
      if let kind { _ = try store.schema(kind) }
      if let id, !DocumentID.isValid(id) { throw CommandError.usage(DocumentID.problem(id)) }
      let (records, problems) = try AuditLog.query(
        store.layout, AuditLog.Query(kind: kind, id: id, since: since, limit: limit, access: access))
      switch format {
      case .json: FileHandleOutput.standardOutput.write(JSONWriter.canonicalString(.array(records.map(\.json))))
      case .ndjson: for record in records { printOut(JSONWriter.compact(record.json)) }
      case .text: for record in records { printOut(Self.text(record, all: kind != nil)) }
      }
      let shown = store.display(AuditLog.path(store.layout))
      for problem in problems {
        printError("\(shown):\(problem.line):\(problem.column): \(problem.message); this record is skipped")
      }
      if !problems.isEmpty { throw ExitStatus.exit(.badInput) }
    }

    /// A record for people: the time, operation and user, the command line, one line per document.
    static func text(_ record: AuditRecord, all: Bool) -> String {
      // A change an assistant made through `formsctl mcp` says so beside its user.
      let door = record.command?.hasPrefix("formsctl mcp ") == true ? "  through mcp" : ""
      var lines = ["\(record.time ?? "?")  \(record.operation ?? "?")  by \(record.user ?? "?")\(door)"]
      if let command = record.command { lines.append("  $ " + command) }
      if let approval = record.approval {
        var line =
          "  \(approval.action ?? "?") step \(approval.step ?? "?") as \(approval.role ?? "?"), signed \(approval.signer ?? "?")"
        if let comment = approval.comment { line += ": " + comment }
        lines.append(line)
      }
      func shown(_ pointers: [JSONPointer]) -> String {
        pointers.map { $0 == .root ? "(whole document)" : $0.description }.joined(separator: " ")
      }
      if let read = record.access {
        for entry in read { lines.append("  read \(entry.kind) \(entry.id): " + shown(entry.pointers)) }
      } else if let documents = record.documents {
        let limit = all ? documents.count : 20
        for entry in documents.prefix(limit) {
          var line = "  \(entry.action.rawValue) \(entry.kind) \(entry.id)"
          if let previous = entry.previousID { line += " (was \(previous))" }
          let changed = entry.pointers.filter { $0 != .root }
          if !changed.isEmpty { line += ": " + shown(changed) }
          if entry.from != nil || entry.to != nil { line += "  [\(entry.from ?? "·") → \(entry.to ?? "·")]" }
          lines.append(line)
        }
        if documents.count > limit {
          lines.append(
            "  … and \(documents.count - limit) more documents (name a kind, or use --format json, to see them)")
        }
      } else {
        var rest = record.json.objectValue ?? JSONObject()
        for name in ["time", "user", "operation", "command"] { rest[name] = nil }
        if !rest.isEmpty { lines.append("  " + JSONWriter.compact(.object(rest))) }
      }
      for element in record.unreadable { lines.append("  (not an entry) " + JSONWriter.compact(element)) }
      // Values from the log (a user name, a command line, an id) can hold anything: each line's
      // control characters are escaped, so no value forges a line or recolours the terminal.
      return lines.map(\.escapingControlCharacters).joined(separator: "\n")
    }
  }
}
