/// What a command found, as a value: built by the library, printed by the command line in the
/// format a person or a script asks for. The same findings have two shapes, each complete:
/// records (what `--format json` prints as an array and `ndjson` one per line) and a table of
/// text cells under named columns (what `table` and `csv` print), which may flatten the records.
public struct TableReport: Sendable, Equatable {
  /// One JSON value per finding.
  public var records: [JSONValue]
  /// The table's column names, and its rows of cells (each as many as the columns).
  public var columns: [String]
  public var rows: [[String]]
  /// Sentences printed after the table (never in JSON, which carries the same in its records).
  public var notes: [String]
  /// Next steps the report points at, printed after the notes in the words of whoever renders it.
  public var remedies: [Remedy]

  public init(
    records: [JSONValue], columns: [String], rows: [[String]], notes: [String] = [], remedies: [Remedy] = []
  ) {
    self.remedies = remedies
    self.records = records
    self.columns = columns
    self.rows = rows
    self.notes = notes
  }

  /// A value as a table cell: strings and numbers as their text, null as nothing, the rest as compact JSON.
  public static func cell(_ value: JSONValue) -> String {
    switch value {
    case .string(let text): return text
    case .number(let number): return number.text
    case .null: return ""
    default: return JSONWriter.compact(value)
    }
  }
}
