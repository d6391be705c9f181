import FormsCore
import FormsYAML

extension Importer {
  /// What a feed file holds.
  public enum FeedFormat: String, Sendable, CaseIterable {
    /// A JSON array of records, or NDJSON.
    case json
    /// A spreadsheet: a header naming fields, one row per document or per element of one list.
    case csv

    /// The format a feed's name says: `.csv` (any case) is CSV, anything else JSON.
    public static func of(_ path: String) -> FeedFormat {
      path.lowercased().hasSuffix(".csv") ? .csv : .json
    }
  }

  /// A feed record that does not parse (an NDJSON line) or whose cells do not type (a CSV
  /// document): why, the id it names when that is known, and where the fault is.
  struct Unparsed: Sendable {
    var message: String
    var id: String?
    var position: SourcePosition
  }

  /// The records of `request`'s feed, read as its format says (by default, by the file's name).
  /// With `unparsed`, a record that does not parse is handed to it by its line instead of
  /// failing the feed.
  func feedRecords(_ request: Request, schema: Schema, unparsed: ((Int, Unparsed) -> Void)? = nil)
    throws(StoreError) -> [(line: Int, value: JSONValue)]
  {
    let display = store.display(request.feed)
    guard (request.format ?? FeedFormat.of(request.feed)) == .csv else {
      if let columns = request.columns {
        throw StoreError.refused(
          .badInputFile(
            path: store.display(columns), position: SourcePosition(line: 1, column: 1),
            message: "a --columns file maps the columns of a CSV feed, and \(display) is read as JSON "
              + "(name it .csv, or pass --input-format csv)"))
      }
      return try Self.records(
        request.feed, display: display, bytes: request.feedBytes,
        unparsed: unparsed.map { handle in
          { line, _, message in
            handle(line, Unparsed(message: message, id: nil, position: SourcePosition(line: line, column: 1)))
          }
        })
    }
    let map = try request.columns.map { path throws(StoreError) in
      try Self.columnMap(path, display: store.display(path))
    }
    return try Self.csvRecords(
      request.feed, display: display, bytes: request.feedBytes, schema: schema, map: map ?? CSVColumnMap(),
      rejected: unparsed.map { handle in
        { rejected in
          handle(
            rejected.line,
            Unparsed(
              message: "\(rejected.position.line):\(rejected.position.column): \(rejected.message)",
              id: rejected.id, position: rejected.position))
        }
      })
  }

  /// Reads a CSV feed into the records a JSON feed would hold (`CSVDocuments.records(_:schema:map:)` in FormsCore),
  /// so that everything `import` does to records applies unchanged; errors name line:column. With
  /// `rejected` (`--skip-invalid`), a document whose cells do not type goes to it instead.
  public static func csvRecords(
    _ path: String, display: String, bytes given: [UInt8]? = nil, schema: Schema, map: CSVColumnMap = CSVColumnMap(),
    rejected: ((CSVDocuments.Rejected) -> Void)? = nil
  ) throws(StoreError) -> [(line: Int, value: JSONValue)] {
    let bytes: [UInt8]
    if let given { bytes = given } else { bytes = try FileIO.read(FilePath(path), limit: feedLimit) }
    do {
      return try CSVDocuments.records(try CSVTable.parse(bytes), schema: schema, map: map, rejected: rejected)
    } catch {
      throw StoreError.refused(.badInputFile(path: display, position: error.position, message: error.message))
    }
  }

  /// A `--columns` file: a YAML mapping of CSV header to field path (`~` leaves the column out).
  public static func columnMap(_ path: String, display: String) throws(StoreError) -> CSVColumnMap {
    let node = try yamlFile(path, display: display)
    guard let pairs = node?.mapping else {
      throw StoreError.refused(
        .badInputFile(
          path: display, position: node?.position ?? SourcePosition(line: 1, column: 1),
          message: "a --columns file is a YAML mapping of CSV header to field path (\"Order #\": purchase_order_number)"
        ))
    }
    var map = CSVColumnMap()
    for pair in pairs {
      guard let header = pair.key.scalar.flatMap(Self.text) else {
        throw StoreError.refused(
          .badInputFile(
            path: display, position: pair.key.position, message: "a header is text, not a \(pair.key.kindName)"))
      }
      switch pair.value.scalar?.value {
      case .null?: map.ignored.insert(header)
      case .string(let field)? where FilterExpression.Path(field) != nil: map.fields[header] = field
      default:
        throw StoreError.refused(
          .badInputFile(
            path: display, position: pair.value.position,
            message: "\(header): map a header to a field path (items[].quantity), or to ~ to leave the column out"))
      }
    }
    return map
  }

  static func text(_ scalar: YAMLScalar) -> String? {
    switch scalar.value {
    case .string(let text): return text
    case .number(let number): return number.text
    default: return nil
    }
  }
}
