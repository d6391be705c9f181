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
  /// only if nobody changed it meanwhile.
  ///
  /// Whenever the edit ends in an error after the person changed the text (a reopened invalid
  /// text saved unchanged included), the copy is kept under a name no earlier kept copy has, and
  /// the error names it, so no work is lost; `resuming` such a copy presents it again instead of
  /// the stored document (and removes it once the edit ends without keeping a newer one). A kept
  /// copy never holds a sensitive value in plain text: a text that parses is kept with those
  /// values sealed again, one that does not is kept sealed whole (`<name>.json.sealed`).
  ///
  /// With `voidingApprovals` false, an edit of signed content that would make approvals stale is
  /// refused before it is written (``Refusal/wouldVoidApprovals(_:)``), its text kept as any
  /// refused edit's: resumed with `voidingApprovals`, it is written.
  public func edit(
    kind: String, id: String, resuming kept: String? = nil, voidingApprovals: Bool = false,
    runEditor: (String) -> Int32
  ) throws(StoreError) -> EditOutcome {
    try Journal(layout: layout).requireNone()
    let stored = try read(kind: kind, id: id)
    // The editor shows every opened value: recorded before the copy is written.
    try recordAccess([access(stored, kind: kind)].compactMap { $0 })
    let directory = layout.editDirectory
    try FileIO.makeDirectories(directory)
    let temp = try Self.freeName(in: directory, for: "\(kind)-\(id)")
    let original = JSONWriter.canonicalString(stored.value)
    let presented = try kept.map { path throws(StoreError) in try keptText(path, stored: stored) } ?? original
    let outcome: EditOutcome
    do throws(StoreError) {
      outcome = try edit(
        stored, kind: kind, id: id, presenting: presented, original: original, in: temp,
        voidingApprovals: voidingApprovals, runEditor: runEditor)
    } catch {
      let text =
        FileIO.entry(FilePath(temp)) == .missing
        ? nil : Self.stripHeader(String(decoding: try FileIO.read(FilePath(temp)), as: UTF8.self))
      guard let text, text != original, !text.allSatisfy(\.isWhitespace) else {
        try FileIO.remove(FilePath(temp))
        throw error
      }
      let keptAt = try keep(text, at: temp, stored: stored)
      if let kept, kept != keptAt { try FileIO.remove(FilePath(kept)) }
      throw StoreError.editKept(error, at: display(keptAt), kind: kind, id: id)
    }
    // The copy may hold a sensitive value's plain text: failing to remove it is an error.
    try FileIO.remove(FilePath(temp))
    if let kept { try FileIO.remove(FilePath(kept)) }
    return outcome
  }

  /// `directory/<base>.json`, or `<base>-2.json`, `<base>-3.json`...: the first name that neither
  /// a copy nor a sealed copy has, so an edit never overwrites the text an earlier one kept.
  static func freeName(in directory: FilePath, for base: String) throws(StoreError) -> String {
    for n in 1...1000 {
      let path = directory / (base + (n == 1 ? "" : "-\(n)") + ".json")
      if FileIO.entry(path) == .missing && FileIO.entry(FilePath(path.string + ".sealed")) == .missing {
        return path.string
      }
    }
    throw StoreError.refused(.tooManyKeptCopies(directory: directory.string, name: base))
  }

  /// Keeps the person's `text` at `temp`, or beside it sealed: returns where it is.
  func keep(_ text: String, at temp: String, stored: Document) throws(StoreError) -> String {
    var writer = AtomicWriter(boundary: layout.rootPath)
    writer.newFileMode = 0o600
    guard let schema = try? rules.schema(of: stored.value, path: stored.path), schema.hasSensitiveFields,
      !keyring.recipients.isEmpty
    else {
      try writer.write(Array(text.utf8), to: FilePath(temp))
      return temp
    }
    let previous = try? JSONParser().parse(stored.bytes)
    if let value = try? JSONParser().parse(Array(text.utf8)), case .object = value,
      let sealed = try? keyring.seal(value, schema: schema, previous: previous, what: FilePath(temp).name)
    {
      try writer.write(JSONWriter.canonical(sealed), to: FilePath(temp))
      return temp
    }
    // Not JSON (or not sealable where it should be): no sensitive value can be found in it, so
    // the whole text is sealed for the store's recipients.
    let envelope: String
    do {
      envelope = try Envelope.seal(Data(text.utf8), to: keyring.recipients)
    } catch {
      throw StoreError.internalError("sealing the kept copy failed: \(error)")
    }
    try writer.write(Array((envelope + "\n").utf8), to: FilePath(temp + ".sealed"))
    try FileIO.remove(FilePath(temp))
    return temp + ".sealed"
  }

  /// The text of a kept copy, as the editor is to show it: a sealed copy opened, the sealed values
  /// of a copy that parses opened.
  func keptText(_ path: String, stored: Document) throws(StoreError) -> String {
    let bytes = try FileIO.read(FilePath(path), followLinks: false)
    guard path.hasSuffix(".sealed") else {
      guard let value = try? JSONParser().parse(bytes), let schema = try? rules.schema(of: value, path: stored.path)
      else {
        return String(decoding: bytes, as: UTF8.self)
      }
      return JSONWriter.canonicalString(keyring.open(value, schema: schema).value)
    }
    guard let identity = keyring.identity else {
      throw StoreError.refused(.keptCopyNeedsIdentity(path: display(path)))
    }
    let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    do throws(Envelope.Failure) {
      return String(decoding: try Envelope.open(text, with: identity), as: UTF8.self)
    } catch {
      throw StoreError.refused(.keptCopyUnopenable(path: display(path), reason: "\(error)"))
    }
  }

  private func edit(
    _ stored: Document, kind: String, id: String, presenting text: String, original: String, in temp: String,
    voidingApprovals: Bool, runEditor: (String) -> Int32
  ) throws(StoreError) -> EditOutcome {
    // The copy holds the plain text of sensitive values the identity opens: only its owner reads it.
    var writer = AtomicWriter(boundary: layout.rootPath)
    writer.newFileMode = 0o600
    var presented = text
    var header = ""
    while true {
      try writer.write(Array((header + presented).utf8), to: FilePath(temp))
      let status = runEditor(temp)
      guard status == 0 else {
        throw StoreError.refused(.editorFailed(status: status))
      }
      let body = Self.stripHeader(String(decoding: try FileIO.read(FilePath(temp)), as: UTF8.self))
      if body.allSatisfy(\.isWhitespace) { return .emptied }
      if body == presented {
        // The stored text, untouched: nothing to do. The person's own text, saved unchanged after
        // it was refused: it is not written, and it is kept (the caller keeps it and says where).
        // A resumed copy saved as it was is the text they came back to write: it goes on.
        guard presented != original else { return .unchanged }
        if !header.isEmpty { throw StoreError.refused(.editUnchanged(stillInvalid: true)) }
      }
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
        schema = try rules.schema(of: value, path: stored.path)
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
      let stale: StaleApprovals?
      do throws(StoreError) {
        stale = try write("edit", summary: "edit \(kind) \(id)", dryRun: true, voidingApprovals: true) {
          session throws(StoreError) in
          try session.prepare(value, replacing: stored, kind: kind, source: .person).staleApprovals
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
      if !voidingApprovals, let stale { throw StoreError.refused(.wouldVoidApprovals(stale)) }
      return .saved(
        try replace(kind: kind, id: id, original: stored.bytes, with: value, voidingApprovals: voidingApprovals))
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
