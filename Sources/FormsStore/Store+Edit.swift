import FormsCore
import Foundation

extension Store {
  /// How an `edit` ended.
  public enum EditOutcome: Sendable {
    case saved(Document)
    case unchanged
    case emptied
  }

  /// Edits a document in an editor: a copy under `.formsctl/edit/` (mode 0600, removed after) is opened with `runEditor`; an
  /// invalid result is reopened with the problems in a `#` comment block at the top (stripped
  /// before parsing), until it is valid, left unchanged, or emptied. The stored file is replaced
  /// only if nobody changed it meanwhile. Whenever the edit ends in an error after the person
  /// changed the text, the copy is kept and the error names it, so no work is lost.
  public func edit(kind: String, id: String, runEditor: (String) -> Int32) throws(StoreError) -> EditOutcome {
    try Journal(layout: layout).requireNone()
    let stored = try read(kind: kind, id: id)
    let directory = layout.stateDirectory + "/edit"
    try FileIO.makeDirectories(directory)
    let temp = directory + "/\(kind)-\(id).json"
    let original = JSONWriter.canonicalString(stored.value)
    let outcome: EditOutcome
    do throws(StoreError) {
      outcome = try edit(stored, kind: kind, id: id, presenting: original, in: temp, runEditor: runEditor)
    } catch {
      let text =
        FileIO.entry(temp) == .missing
        ? nil : Self.stripHeader(String(decoding: try FileIO.read(temp), as: UTF8.self))
      guard let text, text != original, !text.allSatisfy(\.isWhitespace) else {
        try FileIO.remove(temp)
        throw error
      }
      throw StoreError.editKept(error, at: display(temp))
    }
    // The copy may hold a sensitive value's plain text: failing to remove it is an error.
    try FileIO.remove(temp)
    return outcome
  }

  private func edit(
    _ stored: Document, kind: String, id: String, presenting original: String, in temp: String,
    runEditor: (String) -> Int32
  ) throws(StoreError) -> EditOutcome {
    // The copy holds the plain text of sensitive values the identity opens: only its owner reads it.
    var writer = AtomicWriter(boundary: layout.root)
    writer.newFileMode = 0o600
    var presented = original
    var header = ""
    while true {
      try writer.write(Array((header + presented).utf8), to: temp)
      let status = runEditor(temp)
      guard status == 0 else {
        throw StoreError.badRequest("the editor exited with status \(status); nothing written")
      }
      let body = Self.stripHeader(String(decoding: try FileIO.read(temp), as: UTF8.self))
      if body.allSatisfy(\.isWhitespace) { return .emptied }
      if body == presented { return .unchanged }
      presented = body
      let value: JSONValue
      do {
        value = try JSONParser().parse(body)
      } catch {
        header = Self.header(["line \(error.location.line), column \(error.location.column): \(error.message)"])
        continue
      }
      let schema: Schema
      do throws(StoreError) {
        schema = try self.schema(of: value, path: stored.path)
      } catch {
        header = Self.header([error.description])
        continue
      }
      let findings = findings(for: value, schema: schema, path: stored.path)
      if !findings.isEmpty {
        let map = try? JSONParser().parseWithSourceMap(Array(body.utf8)).1
        header = Self.header(
          findings.map { finding in
            let position = map?.position(of: finding, in: Array(body.utf8))
            let path = finding.pointer.path
            return
              "line \(position?.line ?? 1), column \(position?.column ?? 1): \(path.isEmpty ? "" : path + ": ")\(finding.message) [\(finding.rule)]"
          })
        continue
      }
      // The rules a person's change must follow (workflow, id, immutable fields), checked as the
      // write will check them, so a refusal reopens the editor instead of losing the edit.
      do throws(StoreError) {
        _ = try write("edit", summary: "edit \(kind) \(id)", dryRun: true) { session throws(StoreError) in
          try session.prepare(value, replacing: stored, kind: kind, source: .person)
        }
      } catch {
        if case .invalidDocument(_, let diagnostics) = error {
          header = Self.header(
            diagnostics.map { "\($0.pointer.path.isEmpty ? "" : $0.pointer.path + ": ")\($0.message) [\($0.rule)]" })
        } else {
          header = Self.header([error.description])
        }
        continue
      }
      return .saved(try replace(kind: kind, id: id, original: stored.bytes, with: value))
    }
  }

  static func header(_ problems: [String]) -> String {
    "# formsctl: this document is not valid; fix it, or empty the file to cancel.\n"
      + problems.map { "#   \($0)\n" }.joined()
      + "# (Lines starting with # at the top are removed; line numbers count from below them.)\n"
  }

  /// The text without the leading block of `#` comment lines that `edit` adds.
  static func stripHeader(_ text: String) -> String {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false)[...]
    while let first = lines.first, first.hasPrefix("#") { lines = lines.dropFirst() }
    return lines.joined(separator: "\n")
  }

  /// Runs `$VISUAL`, else `$EDITOR`, else `vi` on `path` through `sh`, so an editor with arguments
  /// (`code --wait`) works; returns its exit status.
  public static func runEditor(_ path: String, environment: [String: String]) -> Int32 {
    let editor = [environment["VISUAL"], environment["EDITOR"]].compactMap { $0 }.first { !$0.isEmpty } ?? "vi"
    return Subprocess.runAttached(["sh", "-c", editor + " \"$1\"", "formsctl-edit", path])
  }
}
