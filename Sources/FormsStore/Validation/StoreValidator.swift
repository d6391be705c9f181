import FormsCore

/// `formsctl validate`: checks documents against their schemas and against each other (ids,
/// file names, relations), on every core, holding one document per worker at a time.
public struct StoreValidator: Sendable {
  /// What validation found.
  public struct Report: Sendable {
    /// Every diagnostic, sorted by file and position.
    public var diagnostics: [Diagnostic]
    public var documents: Int
    public var kinds: Int
    public var invalid: Int
    /// Documents that could not be checked at all: unreadable, not JSON, unknown `_schema`.
    public var unreadable: Int

    public var valid: Int { documents - invalid }

    /// `checked 1204 documents of 5 kinds: 1202 valid, 2 invalid`.
    public var summary: String {
      "checked \(plural(documents, "document")) of \(plural(kinds, "kind")): \(valid) valid, \(invalid) invalid"
    }
  }

  public let layout: StoreLayout
  public let registry: SchemaRegistry
  /// Ids present in the store, by kind (from file names, which validation holds equal to ids);
  /// listed only when many files are checked; a few are checked with one stat per reference.
  var ids: [String: Set<String>]?
  /// The data directory, open, when many files are checked (they are opened relative to it).
  var data: FileIO.Directory?
  let kindOfDirectory: [String: String]
  /// By reference, each schema that has a quick check (`QuickCheck`), keeping the top-level members
  /// the rules, the id and the relations read.
  let quickChecks: [String: QuickCheck]
  let display: @Sendable (String) -> String
  /// Opens sensitive values for a key holder; without an identity they are checked as envelopes.
  public var keyring: Keyring

  public init(layout: StoreLayout, registry: SchemaRegistry, display: @escaping @Sendable (String) -> String) {
    self.layout = layout
    self.registry = registry
    self.display = display
    var kindOfDirectory: [String: String] = [:]
    for (kind, versions) in registry.schemas {
      for schema in versions.values { kindOfDirectory[schema.directory] = kind }
    }
    self.ids = nil
    self.kindOfDirectory = kindOfDirectory
    var quickChecks: [String: QuickCheck] = [:]
    for versions in registry.schemas.values {
      for schema in versions.values
      where !schema.hasSensitiveFields && schema.approvals == nil && schema.attachments.isEmpty {
        let read = [schema.idField] + schema.relations.map(\.field)
        guard read.allSatisfy({ schema.root.fields[$0]?.type.isScalar ?? false }),
          let quick = QuickCheck(schema: schema, capturing: read)
        else { continue }
        quickChecks[schema.reference] = quick
      }
    }
    self.quickChecks = quickChecks
    self.keyring = Keyring(recipients: layout.recipients, identity: nil)
  }

  /// Every id of the kinds relations point at, by kind (the others are never looked up).
  func listIDs() throws(StoreError) -> [String: Set<String>] {
    var ids: [String: Set<String>] = [:]
    let targets = Set(registry.schemas.values.flatMap { $0.values.flatMap { $0.relations.map(\.kind) } })
    for (directory, kind) in kindOfDirectory where targets.contains(kind) {
      ids[kind, default: []].formUnion(try layout.ids(in: directory))
    }
    return ids
  }

  /// Every document file of the store, including names that are not regular files (symbolic
  /// links, FIFOs...): `check` reports those with a warning instead of opening them.
  public func allFiles() throws(StoreError) -> [String] {
    let (files, irregular) = try FileIO.walk(layout.dataPath, suffix: ".json")
    return irregular.isEmpty ? files : (files + irregular).sorted()  // each list comes sorted
  }

  /// The document files named by `paths` (files, or directories walked); each must be in the data directory.
  public func files(named paths: [String], workingDirectory: String) throws(StoreError) -> [String] {
    var out: [String] = []
    for given in paths {
      let absolute = FilePath(given).absolute(from: workingDirectory).string
      guard FileIO.exists(FilePath(absolute)) else { throw StoreError.fileNotFound(given) }
      let real = FileIO.realPath(FilePath(absolute)) ?? FilePath(absolute)
      let data = FileIO.realPath(layout.dataPath) ?? layout.dataPath
      guard data.contains(real) else {
        throw StoreError.pathOutsideStore("\(given) (documents live under \(display(layout.dataDirectory)))")
      }
      if FileIO.entry(FilePath(absolute)) == .directory {
        let (files, irregular) = try FileIO.walk(FilePath(absolute), suffix: ".json")
        out += files + irregular
      } else {
        out.append(absolute)
      }
    }
    return Array(Set(out)).sorted()
  }

  /// Files checked per batch: the outcomes of one batch are held at a time, so memory stays flat
  /// however many documents there are.
  static let batchSize = 16_384

  /// Validates `files`, in parallel, a batch at a time.
  public func validate(_ files: [String], progress: ProgressHandler? = nil) throws(StoreError) -> Report {
    try validate(many: files.count > 256, total: files.count, progress: progress) { body throws(StoreError) in
      for start in stride(from: 0, to: files.count, by: Self.batchSize) {
        try body(Array(files[start..<min(start + Self.batchSize, files.count)]))
      }
    }
  }

  /// Validates every document file of the store (as `allFiles()` names them), walking one
  /// directory at a time: the store's paths are never held at once, so memory stays flat
  /// however many documents there are. Diagnostics come in the walk's order (each directory's
  /// names sorted, a subdirectory where its name falls).
  public func validateStore(progress: ProgressHandler? = nil) throws(StoreError) -> Report {
    // The total is counted first only for someone watching the progress (one more listing).
    let total = try progress == nil ? 0 : FileIO.countFiles(under: layout.dataPath, suffix: ".json")
    return try validate(many: true, total: total, progress: progress) { body throws(StoreError) in
      try FileIO.walkBatches(layout.dataPath, suffix: ".json", size: Self.batchSize, body)
    }
  }

  /// Validates the batches `batches` gives, each in parallel; `many`: list the ids relations
  /// point at and open the data directory once (instead of a stat per reference).
  private func validate(
    many: Bool, total: Int, progress: ProgressHandler?,
    _ batches: (([String]) throws(StoreError) -> Void) throws(StoreError) -> Void
  ) throws(StoreError) -> Report {
    var prepared = self
    if many {
      prepared.ids = try listIDs()
      prepared.data = FileIO.Directory(layout.dataPath)
    }
    let this = prepared
    let counter = ProgressCounter("checking", total: total, progress)
    var report = Report(diagnostics: [], documents: 0, kinds: 0, invalid: 0, unreadable: 0)
    var kinds = Set<String>()
    try batches { batch throws(StoreError) in
      report.documents += batch.count
      for outcome in parallelMap(batch, chunkSize: 32, progress: counter, { this.check($0) }) {
        report.diagnostics += outcome.diagnostics
        if let kind = outcome.kind { kinds.insert(kind) }
        if !outcome.diagnostics.isEmpty { report.invalid += 1 }
        if outcome.unreadable { report.unreadable += 1 }
      }
    }
    report.kinds = kinds.count
    return report
  }

  package struct Outcome {
    package var diagnostics: [Diagnostic] = []
    var kind: String?
    var unreadable = false

    /// A file that could not be checked at all, and why.
    static func failed(
      _ file: String, _ rule: String, _ message: String,
      at position: SourcePosition? = SourcePosition(line: 1, column: 1),
      remedy: Remedy? = nil
    ) -> Outcome {
      Outcome(
        diagnostics: [Diagnostic(file: file, position: position, rule: rule, message: message, remedy: remedy)],
        unreadable: true)
    }
  }

  func check(_ path: String) -> Outcome {
    // The path as shown is made only for a diagnostic: nearly every document has none.
    let bytes: [UInt8]
    do {
      bytes = try FileIO.read(FilePath(path), followLinks: false, in: data)
    } catch {
      if case .fileTooLarge(_, let size, let limit) = error {
        return .failed(display(path), "read", "the file is \(size) bytes, more than the limit of \(limit)")
      }
      if case .wrongFileType(_, let what, _) = error {
        // Not opened (a FIFO would block): reported, and the store is not "all valid".
        let diagnostic = Diagnostic(
          file: display(path), position: nil, rule: "not-a-file",
          message: "\(what), not a regular file; not read (formsctl keeps each document in a regular file)",
          severity: .warning)
        return Outcome(diagnostics: [diagnostic])
      }
      return .failed(display(path), "read", error.description, at: nil)
    }
    return check(path, bytes: bytes)
  }

  /// Checks the text `bytes` as the document at `path` (a file's, or an editor's unsaved buffer).
  package func check(_ path: String, bytes: [UInt8]) -> Outcome {
    var outcome = Outcome()
    func fail(
      _ rule: String, _ message: String, at position: SourcePosition? = SourcePosition(line: 1, column: 1),
      remedy: Remedy? = nil
    ) -> Outcome { .failed(display(path), rule, message, at: position, remedy: remedy) }
    // Nearly every document is valid: checked from its bytes, it needs no tree. Anything found or
    // undecided there is checked again below, by the path that finds and places every problem.
    if let reference = Self.leadingSchema(bytes), let quick = quickChecks[reference],
      let document = quick.check(bytes),
      quick.withSchema({ crossDocumentFindings(document, schema: $0, path: path).isEmpty })
    {
      outcome.kind = quick.schema.kind
      return outcome
    }
    let document: JSONValue
    do {
      document = try JSONParser().parse(bytes)
    } catch {
      let markers = Self.conflictMarkerLines(bytes)
      if let first = markers.first {
        return fail(
          "conflict",
          "unresolved merge conflict (markers at lines \(markers.map(String.init).joined(separator: ", "))); "
            + "keep one side of each", at: SourcePosition(line: first, column: 1), remedy: .format)
      }
      return fail("parse", error.message, at: error.location)
    }
    guard case .object = document else {
      return fail("type", "a document must be a JSON object, not \(document.typeName)")
    }
    guard let reference = document["_schema"]?.stringValue else {
      return fail("schema", "missing \"_schema\"; every document says what it is, e.g. \"_schema\": \"form@2.0.0\"")
    }
    guard let schema = registry.schema(reference: reference) else {
      let map = try? JSONParser().parseWithSourceMap(bytes).1
      return fail("schema", unknownSchemaMessage(reference), at: map?.valuePosition(JSONPointer(tokens: ["_schema"])))
    }
    outcome.kind = schema.kind
    // Value rules (pattern, max_length, enum, rules) judge the sealed form, as without an
    // identity: judged on opened values they would tell, document by document, which sealed
    // values match, with no access record (a hostile pass found it). Opening only reports envelopes that do not open.
    let opened = keyring.open(document, schema: schema)
    var findings =
      opened.findings
      + Validator(schema: schema).validate(document).aboutSensitive(in: document, schema: schema)
    findings += crossDocumentFindings(document, schema: schema, path: path)
    findings += AttachmentChecks.findings(document, schema: schema, layout: layout)
    if schema.approvals != nil, let id = document[schema.idField].flatMap(DocumentID.text) {
      findings +=
        ApprovalReview(
          document, schema: schema, kind: schema.kind, id: id, roles: layout.roles,
          references: registry.references(schema.kind)
        ).findings
    }
    guard !findings.isEmpty else { return outcome }
    outcome.diagnostics = Diagnostic.placed(findings, in: bytes, file: display(path))
    if outcome.diagnostics.contains(where: { $0.rule == "schema" }) { outcome.unreadable = true }
    return outcome
  }

  func crossDocumentFindings(_ document: JSONValue, schema: Schema, path: String) -> [Finding] {
    // The ids alone, so that the closure does not take a copy of the validator.
    let ids = ids
    return DocumentChecks.crossDocumentFindings(
      document, schema: schema, path: path, layout: layout, registry: registry, display: display
    ) { kind, id, path in
      if let ids { return ids[kind]?.contains(id) ?? false }
      return FileIO.exists(FilePath(path()))
    }
  }

  /// The `_schema` a file opens with, as formsctl writes files (`{`, then `"_schema": "kind@1.0.0"`
  /// first, plain ASCII); nil for anything else (the full path reads such files).
  package static func leadingSchema(_ bytes: [UInt8]) -> String? {
    var i = 0
    func skipWhitespace() {
      while i < bytes.count && (bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09) { i += 1 }
    }
    guard bytes.first == UInt8(ascii: "{") else { return nil }
    i = 1
    skipWhitespace()
    let key = Array("\"_schema\"".utf8)
    guard i + key.count <= bytes.count, bytes[i..<(i + key.count)].elementsEqual(key) else { return nil }
    i += key.count
    skipWhitespace()
    guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { return nil }
    i += 1
    skipWhitespace()
    guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { return nil }
    let start = i + 1
    i = start
    while i < bytes.count && bytes[i] != UInt8(ascii: "\"") {
      guard bytes[i] >= 0x20 && bytes[i] < 0x7F && bytes[i] != UInt8(ascii: "\\") else { return nil }
      i += 1
    }
    guard i < bytes.count else { return nil }
    return String(decoding: bytes[start..<i], as: UTF8.self)
  }

  /// The 1-based lines that start with a git conflict marker.
  static func conflictMarkerLines(_ bytes: [UInt8]) -> [Int] {
    var lines: [Int] = []
    for (index, line) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
      let text = String(decoding: line.prefix(8), as: UTF8.self)
      if text.hasPrefix("<<<<<<< ") || text == "=======" || text.hasPrefix(">>>>>>> ") { lines.append(index + 1) }
    }
    return lines
  }

  /// Documents whose relations point at one of `targets` (kind, id): for `--changed-since`. Only
  /// kinds with such relations are searched, and a file is parsed only when its bytes hold the id.
  public func referrers(of targets: [(kind: String, id: String)]) throws(StoreError) -> [String] {
    var out = Set<String>()
    for (kind, versions) in registry.schemas {
      let fields = Set(
        versions.values.flatMap { $0.relations.filter { r in targets.contains { $0.kind == r.kind } }.map(\.field) })
      guard !fields.isEmpty, let directory = registry.latest(kind)?.directory else { continue }
      let needles = targets.map { Array("\"\($0.id)\"".utf8) }
      // A file that cannot be read is an error; one that does not parse refers to nothing.
      let hits = parallelMap(try layout.documentFiles(in: directory), chunkSize: 64) {
        path -> Result<String?, StoreError> in
        Result { () throws(StoreError) in
          let bytes = try FileIO.read(FilePath(path))
          guard needles.contains(where: { Self.contains(bytes, $0) }), let document = try? JSONParser().parse(bytes)
          else { return nil }
          let points = fields.contains { field in
            targets.contains { document[field].flatMap(DocumentID.text) == $0.id }
          }
          return points ? path : nil
        }
      }
      for hit in hits { if let path = try hit.get() { out.insert(path) } }
    }
    return out.sorted()
  }

  static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty, haystack.count >= needle.count else { return false }
    return haystack.firstRange(of: needle) != nil
  }

  /// The kind and id a document path stands for (from its directory and file name).
  public func identify(_ path: String) -> (kind: String, id: String)? {
    guard let (directory, id) = layout.identify(path), let kind = kindOfDirectory[directory] else { return nil }
    return (kind, id)
  }

  func unknownSchemaMessage(_ reference: String) -> String {
    guard let at = reference.lastIndex(of: "@") else {
      return "_schema \"\(reference)\" is not KIND@VERSION, e.g. \"form@2.0.0\""
    }
    let kind = String(reference[..<at])
    guard registry.schemas[kind] != nil else {
      let hint = didYouMean(kind, among: registry.kinds)
      return "unknown kind \"\(kind)\"\(hint) (known: \(registry.kinds.joined(separator: ", ")))"
    }
    return
      "\(kind) has no version \(reference[reference.index(after: at)...]) (known: \(registry.versions(kind).map(\.description).joined(separator: ", ")))"
  }
}
