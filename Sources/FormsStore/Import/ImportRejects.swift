import FormsCore

/// The records `import --skip-invalid` leaves out: each with where it was in the feed, its id when
/// known, the record as the feed gave it, and its diagnostics, as one NDJSON line per record in the
/// rejects file (docs/decisions/0090-rejects-reports.md).
public enum ImportRejects {
  /// One refused feed record.
  public struct Record: Sendable, Hashable {
    /// The kind imported.
    public var kind: String
    /// The record's number in the feed, from 1.
    public var index: Int
    /// The line of the feed it starts on.
    public var line: Int
    /// Its id after `--map`, when the mapping succeeded and the id is valid for the kind (nil
    /// when unknown or invalid).
    public var id: String?
    /// The record as the feed gave it (before `--map`), with the values of sensitive fields
    /// withheld (`ImportRejects.withheld`); nil when it does not parse, or when a `--map` ran on
    /// a kind with sensitive fields (`withheld` says so).
    public var record: JSONValue?
    /// Why `record` is withheld whole: a `--map` may move any member onto a sensitive field.
    public var withheld: String?
    /// The line as the feed gave it, when it does not parse as JSON (withheld for a kind with
    /// sensitive fields: which part is one cannot be told).
    public var text: String?
    /// Why it was refused: validate's diagnostics (pointer, rule, message), positioned in the feed.
    public var diagnostics: [Diagnostic]

    /// `{kind, index, line, id, record, text?, diagnostics: [{file, line, column, pointer, rule,
    /// message, severity}]}`: one line of the rejects file.
    public var json: JSONValue {
      var object = JSONObject([
        "kind": .string(kind), "index": .number(JSONNumber(index)), "line": .number(JSONNumber(line)),
        "id": id.map(JSONValue.string) ?? .null, "record": record ?? .null,
        "diagnostics": .array(diagnostics.map(DiagnosticPrinter.json)),
      ])
      if let text { object["text"] = .string(text) }
      if let withheld { object["withheld"] = .string(withheld) }
      return .object(object)
    }
  }

  /// The problems of each record, in the order they were found; `failures` for an import that
  /// refuses the whole feed, `records` for one that skips the records.
  struct Collector {
    let feed: [(line: Int, value: JSONValue)]
    let file: String
    let kind: String
    let schema: Schema
    /// The lines that do not parse (they stand in `feed` as their text), each with where its
    /// fault is (a CSV document's cell; column 1 for an NDJSON line).
    let unparsed: [Int: SourcePosition]
    /// Whether a `--map` ran: then a record's id is only what the mapped record names (passed to
    /// `add`), and for a kind with sensitive fields the record is withheld whole.
    let mapped: Bool
    private(set) var failures: [Diagnostic] = []
    private var order: [Int] = []
    private var byNumber: [Int: Record] = [:]

    init(
      feed: [(line: Int, value: JSONValue)], file: String, kind: String, schema: Schema,
      unparsed: [Int: SourcePosition],
      mapped: Bool = false
    ) {
      self.feed = feed
      self.mapped = mapped
      self.unparsed = unparsed
      self.file = file
      self.kind = kind
      self.schema = schema
    }

    /// Refuses record `number` (0-based) with `message` (the import's one-line form) and, when the
    /// write path found it, the diagnostic itself.
    mutating func add(
      _ number: Int, _ message: String, id: String? = nil, detail: Diagnostic? = nil, rule: String = "import"
    ) {
      let line = feed[number].line
      let position = unparsed[line] ?? SourcePosition(line: line, column: 1)
      failures.append(Diagnostic(file: file, position: position, rule: "import", message: message))
      let diagnostic =
        detail.map {
          Diagnostic(file: file, position: position, pointer: $0.pointer, rule: $0.rule, message: $0.message)
        }
        ?? Diagnostic(file: file, position: position, rule: rule, message: message)
      if var known = byNumber[number] {
        known.diagnostics.append(diagnostic)
        if known.id == nil { known.id = id }
        byNumber[number] = known
        return
      }
      order.append(number)
      let given = feed[number].value
      let parsed = unparsed[line] == nil
      // After a --map, a member of any name may have become a sensitive field: withhold it all.
      let whole = parsed && mapped && schema.hasSensitiveFields
      byNumber[number] = Record(
        kind: kind, index: number + 1, line: line,
        id: id
          ?? (mapped
            ? nil : given[schema.idField].flatMap(DocumentID.text).flatMap { DocumentID.isValid($0) ? $0 : nil }),
        record: parsed && !whole ? ImportRejects.withheld(given, schema: schema) : nil,
        withheld: whole
          ? "the record is withheld: --map may move any member onto a sensitive field; see the feed's line" : nil,
        text: parsed ? nil : schema.hasSensitiveFields ? ImportRejects.withheldValue.stringValue : given.stringValue,
        diagnostics: [diagnostic])
    }

    var isEmpty: Bool { order.isEmpty }
    /// How many records were refused.
    var count: Int { order.count }
    /// The refused records, in feed order.
    var records: [Record] { order.sorted().compactMap { byNumber[$0] } }
  }

  /// What stands for a sensitive value in a rejects file.
  public static let withheldValue = JSONValue.string("(withheld: a sensitive value; see the feed's line)")

  /// `record` with each value of a sensitive field replaced by `withheldValue`: formsctl never
  /// writes a sensitive value in plain text (design §12), and the line names where it is.
  public static func withheld(_ record: JSONValue, schema: Schema) -> JSONValue {
    guard schema.hasSensitiveFields else { return record }
    var out = record
    for pointer in schema.root.sensitiveLocations(in: record) { out = replacing(out, at: pointer.tokens[...]) }
    return out
  }

  /// `value` with what is at `tokens` replaced by `withheldValue`.
  static func replacing(_ value: JSONValue, at tokens: ArraySlice<String>) -> JSONValue {
    guard let first = tokens.first else { return withheldValue }
    switch value {
    case .object(var object):
      guard let inner = object[first] else { return value }
      object[first] = replacing(inner, at: tokens.dropFirst())
      return .object(object)
    case .array(var elements):
      guard let index = Int(first), elements.indices.contains(index) else { return value }
      elements[index] = replacing(elements[index], at: tokens.dropFirst())
      return .array(elements)
    default:
      return value
    }
  }

  /// Checks, before any work, that `path` may take the rejects file: not a place formsctl never
  /// writes a file for a person (``StoreLayout/checkOutput(_:reading:)``: the repository's `.git`,
  /// the store's data, `.formsctl`, schemas and manifest, the feed itself; a bad argument), then
  /// that its directory exists and it is not a symbolic link (never written through), a
  /// directory or another non-regular file.
  public static func check(_ path: String, layout: StoreLayout, feed: String? = nil) throws(StoreError) {
    try layout.checkOutput(path, reading: feed.map { [$0] } ?? [])
    let target = FilePath(path).absolute(from: FileIO.currentDirectory)
    guard let directory = FileIO.realPath(target.parent), FileIO.entry(directory) == .directory else {
      throw StoreError.reportNotWritten(path: path, cause: "\(target.parent.string) is not a directory")
    }
    switch FileIO.entry(directory / target.name) {
    case .file, .missing: break
    case .symlink:
      throw StoreError.reportNotWritten(
        path: path, cause: "it is a symbolic link, and formsctl never writes through one")
    case .directory: throw StoreError.reportNotWritten(path: path, cause: "it is a directory")
    case .other: throw StoreError.reportNotWritten(path: path, cause: "it is not a regular file")
    }
  }

  /// Writes `records` to `path` as NDJSON, atomically and durably (an empty file when none was
  /// refused, so last night's rejects never read as tonight's). Every failure is
  /// `StoreError.reportNotWritten` (exit 74).
  public static func write(_ records: [Record], to path: String, layout: StoreLayout) throws(StoreError) {
    try writeNDJSON(records.map(\.json), to: path, layout: layout)
  }

  /// Writes `lines` as NDJSON to `path` with `write`'s checks and guarantees (`sync --rejects`).
  /// `afterRun`: the run already changed the store, so a failure is
  /// `StoreError.reportNotWrittenAfterRun` (it never says nothing was imported).
  public static func write(
    lines: [JSONValue], to path: String, layout: StoreLayout, afterRun: Bool = false
  ) throws(StoreError) {
    do throws(StoreError) {
      try writeNDJSON(lines, to: path, layout: layout)
    } catch .reportNotWritten(let path, let cause) where afterRun {
      throw .reportNotWrittenAfterRun(path: path, cause: cause)
    }
  }

  static func writeNDJSON(_ lines: [JSONValue], to path: String, layout: StoreLayout) throws(StoreError) {
    try check(path, layout: layout)
    let target = FilePath(path).absolute(from: FileIO.currentDirectory)
    // Feed records may carry values the store would seal: readable by the owner only.
    var writer = AtomicWriter(boundary: target.parent)
    writer.newFileMode = 0o600
    let bytes = Array(lines.map { JSONWriter.compact($0) + "\n" }.joined().utf8)
    do throws(StoreError) {
      try writer.write(bytes, to: target)
    } catch {
      throw StoreError.reportNotWritten(path: path, cause: error.description)
    }
  }
}
