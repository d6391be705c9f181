extension CSVDocuments {
  /// A document of a CSV feed whose cells do not type, or whose rows disagree: left out under
  /// `--skip-invalid`, listed in the rejects file by its id and the cell at fault.
  public struct Rejected: Sendable, Equatable {
    /// The line of its first row.
    public var line: Int
    /// Its rows as CSV under the header.
    public var text: String
    /// What its id column holds (nil when the file has no id column or the cell is empty).
    public var id: String?
    /// The cell at fault.
    public var position: SourcePosition
    /// Why, without the position.
    public var message: String
  }
}

/// Which document field each CSV column fills, where the header does not already name it.
public struct CSVColumnMap: Sendable, Equatable {
  /// Header → field path (`"Order #": purchase_order_number`, `SKU: "items[].product_item_id"`).
  public var fields: [String: String]
  /// Headers whose columns are left out.
  public var ignored: Set<String>
  public init(fields: [String: String] = [:], ignored: Set<String> = []) {
    self.fields = fields
    self.ignored = ignored
  }
}

extension CSVDocuments {
  /// The feed records a CSV table holds, typed by `schema`: one record per row, or with a column
  /// under a list (`items[].quantity`) one record per document, its rows grouped by the id column
  /// and its list rebuilt from them, one element per row (a row with no element cell set adds
  /// none). Each record comes with the line of its first row. Throws the first problem, at its
  /// cell: a column that names no field (with a did-you-mean), a cell that is not of its field's
  /// type (a number with a thousands separator), two rows of one document that disagree.
  ///
  /// With `rejected`, a document whose cells do not type (or whose rows disagree) is handed to it
  /// (``Rejected``: its first line, its rows as CSV under the header, the id its id column names,
  /// the cell at fault and why) and stands in the result as that text, as an NDJSON line that
  /// does not parse does; problems of the table itself (headers, ids) still throw.
  public static func records(
    _ table: CSVTable, schema: Schema, map: CSVColumnMap = CSVColumnMap(),
    rejected: ((Rejected) -> Void)? = nil
  ) throws(CSVError) -> [(line: Int, value: JSONValue)] {
    let columns = try resolve(table.header, schema: schema, map: map)
    let shared = columns.indices.filter { columns[$0].map { $0.list == nil } ?? false }
    let listed = columns.indices.filter { columns[$0]?.list != nil }
    let list = listed.first.flatMap { columns[$0]?.list }
    let listSealed = list.map { schema.root.isSensitive(at: $0) } ?? false
    var groups: [[Int]] = table.rows.indices.map { [$0] }
    let idColumn = shared.first { columns[$0]?.members == [schema.idField] }
    var idIndex: Int?
    if list != nil {
      idIndex = idColumn
      guard let idIndex else {
        throw CSVError(
          "the rows of a document are grouped by its \(schema.idField), and no column is \(schema.idField)",
          at: SourcePosition(line: 1, column: 1))
      }
      var order: [String] = []
      var byID: [String: [Int]] = [:]
      for (index, row) in table.rows.enumerated() {
        let id = row[idIndex]
        guard !id.isAbsent else { throw CSVError("\(schema.idField): this row names no document", at: id.position) }
        if byID[id.text] == nil { order.append(id.text) }
        byID[id.text, default: []].append(index)
      }
      groups = order.compactMap { byID[$0] }
    }
    func document(_ group: [Int]) throws(CSVError) -> JSONValue {
      let first = table.rows[group[0]]
      var record = JSONValue.object(JSONObject())
      for index in shared {
        guard let column = columns[index], let value = try value(first[index], column) else { continue }
        set(value, at: column.members[...], in: &record)
      }
      for later in group.dropFirst() {
        let row = table.rows[later]
        for index in shared where row[index].text != first[index].text || row[index].isAbsent != first[index].isAbsent {
          let id = idIndex.map { first[$0].text } ?? ""
          throw CSVError(
            "\(table.header[index].text) is \(shown(row[index])) here but \(shown(first[index])) on line "
              + "\(first[index].position.line), for the same \(schema.idField) \(id); "
              + "the rows of one document repeat its fields", at: row[index].position)
        }
      }
      if let list {
        // A sealed list shown without the key is one row of «encrypted»: it stands for the list
        // as stored. Rows beside it would change a list nobody here can read.
        let carrying = group.filter { member in listed.contains { !table.rows[member][$0].isAbsent } }
        let sealedCells = carrying.flatMap { member in
          listed.map { table.rows[member][$0] }.filter { !$0.quoted && $0.text == SealedText.placeholder }
        }
        if listSealed, let cell = sealedCells.first {
          let row = table.rows[carrying[0]]
          guard carrying.count == 1, listed.allSatisfy({ row[$0].isAbsent || sealedCells.contains(row[$0]) }) else {
            throw CSVError(
              "\(list.joined(separator: ".")) is sealed and reads \(SealedText.placeholder) (no key opened it); "
                + "that one row stands for the whole list, so its cells and other rows of its elements cannot "
                + "change it: leave the row as exported, or give every element in place of it", at: cell.position)
          }
          set(.string(SealedText.placeholder), at: list[...], in: &record)
          return record
        }
        // A sensitive list with no element cells is no value (the stored list is kept), never [].
        if listSealed && carrying.isEmpty { return record }
        var elements: [JSONValue] = []
        for member in group {
          let row = table.rows[member]
          guard listed.contains(where: { !row[$0].isAbsent }) else { continue }
          var element = JSONValue.object(JSONObject())
          for index in listed {
            guard let column = columns[index], let value = try value(row[index], column) else { continue }
            set(value, at: column.element[...], in: &element)
          }
          elements.append(element)
        }
        set(.array(elements), at: list[...], in: &record)
      }
      return record
    }
    var records: [(line: Int, value: JSONValue)] = []
    for group in groups {
      let start = table.rows[group[0]].first?.position.line ?? 1
      do throws(CSVError) {
        records.append((start, try document(group)))
      } catch {
        guard let rejected else { throw error }
        let text = ([table.header] + group.map { table.rows[$0] }).map { row in
          line(row.map { ($0.text, $0.quoted) })
        }.joined()
        let id = idColumn.map { table.rows[group[0]][$0] }.flatMap { $0.isAbsent ? nil : $0.text }
        rejected(Rejected(line: start, text: text, id: id, position: error.position, message: error.message))
        records.append((start, .string(text)))
      }
    }
    return records
  }

  /// The column of each header (nil for an ignored one), checked together: known fields, each
  /// filled once, one exploded list.
  static func resolve(_ header: [CSVTable.Cell], schema: Schema, map: CSVColumnMap) throws(CSVError) -> [CSVColumn?] {
    var columns: [CSVColumn?] = []
    for cell in header {
      if map.ignored.contains(cell.text) {
        columns.append(nil)
        continue
      }
      let target = map.fields[cell.text] ?? cell.text
      let named = "column \(quoted(cell.text))" + (target == cell.text ? "" : " (mapped to \(quoted(target)))")
      guard let path = FilterExpression.Path(target) else {
        throw CSVError("\(named) is not a field of \(schema.kind)\(hint(target, schema))\(advice)", at: cell.position)
      }
      switch CSVColumn.resolve(cell.text, path: path, in: schema) {
      case .success(let column):
        for (other, earlier) in zip(header, columns) {
          guard let earlier else { continue }
          if earlier.list != nil, column.list != nil, earlier.list != column.list {
            throw CSVError(
              "\(named) is under another list than \(quoted(other.text)); a CSV explodes one list", at: cell.position)
          }
          let mine = (column.list.map { $0 + ["[]"] } ?? []) + (column.list == nil ? column.members : column.element)
          let theirs =
            (earlier.list.map { $0 + ["[]"] } ?? []) + (earlier.list == nil ? earlier.members : earlier.element)
          let exploded = (column.list ?? earlier.list).map { theirs == $0 || mine == $0 } ?? false
          if mine.starts(with: theirs) || theirs.starts(with: mine) || exploded {
            throw CSVError("\(named) fills what \(quoted(other.text)) fills (\(path))", at: cell.position)
          }
        }
        columns.append(column)
      case .failure(let problem):
        let message =
          problem.unknownPath == nil
          ? "\(named): \(problem.message)" : "\(named) is not a field of \(schema.kind)\(hint(target, schema))\(advice)"
        throw CSVError(message, at: cell.position)
      }
    }
    return columns
  }

  static let advice = " (a --columns file maps a header to a field, or to ~ to leave the column out)"

  /// `; did you mean "items[].quantity"?` for a header close to a field path, or to its last name.
  /// Only paths a column may name are offered (none inside a `one_of`, map or `any`).
  static func hint(_ text: String, _ schema: Schema) -> String {
    let paths = schema.root.fieldPaths().filter { text in
      guard let path = FilterExpression.Path(text) else { return false }
      if case .success = CSVColumn.resolve(text, path: path, in: schema) { return true }
      return false
    }
    if let near = suggestion(for: text, among: paths) { return "; did you mean \"\(near)\"?" }
    let last = paths.map { String($0.split(whereSeparator: { $0 == "." || $0 == "]" }).last ?? "") }
    guard let near = suggestion(for: text, among: last), let index = last.firstIndex(of: near) else { return "" }
    return "; did you mean \"\(paths[index])\"?"
  }

  /// The value of `cell` in `column`, or nil for no value.
  static func value(_ cell: CSVTable.Cell, _ column: CSVColumn) throws(CSVError) -> JSONValue? {
    if cell.isAbsent { return nil }
    if column.nullable && !cell.quoted && cell.text == "null" { return .null }
    // What a sealed value is shown as, in any column: the write path keeps the envelope it stands for.
    if !cell.quoted && cell.text == SealedText.placeholder { return .string(SealedText.placeholder) }
    let text = cell.text
    // Tools that quote every field write `""` for an empty cell: no value, but in a text column.
    if column.cell != .text && text.isEmpty { return nil }
    switch column.cell {
    case .text:
      if let problem = textProblem(text, column.type) {
        throw CSVError("\(column.name): \(problem)", at: cell.position)
      }
      return .string(text)
    case .number:
      if let number = JSONNumber(text) { return .number(number) }
      throw CSVError("\(column.name): \(notANumber(text))", at: cell.position)
    case .boolean:
      switch text.lowercased() {
      case "true": return .bool(true)
      case "false": return .bool(false)
      default: throw CSVError("\(column.name): \(shown(cell)) is not true or false", at: cell.position)
      }
    case .json:
      do {
        return try JSONParser().parse(text)
      } catch {
        throw CSVError(
          "\(column.name): the cell holds JSON (a list, an object) and this is not JSON: \(error.message) "
            + "at \(error.location.line):\(error.location.column) of the cell", at: cell.position)
      }
    }
  }

  /// Why `text` is no value of a date, datetime or enum field, worded for what spreadsheets do
  /// to such cells (a date reformatted as `3/1/2026`); the other checks are the validator's.
  static func textProblem(_ text: String, _ type: SchemaType?) -> String? {
    switch type?.kind {
    case .date? where CalendarDate(text) == nil:
      return "\(quoted(text)) is not a date (YYYY-MM-DD; give the column a text or ISO date format in the spreadsheet)"
    case .datetime? where Instant.parseDateTime(text) == nil:
      return "\(quoted(text)) is not an RFC 3339 datetime with an offset (2026-11-22T03:48:14Z)"
    case .enumeration? where type.map({ !$0.values.contains(text) }) ?? false:
      let values = type?.values ?? []
      return "\(quoted(text)) is not one of \(values.joined(separator: ", "))\(didYouMean(text, among: values))"
    default:
      return nil
    }
  }

  /// Why `text` is not a JSON number, worded for what spreadsheets write.
  static func notANumber(_ text: String) -> String {
    let body = text.hasPrefix("-") ? text.dropFirst() : text[...]
    let parts = body.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
    let groups = parts[0].split(separator: ",", omittingEmptySubsequences: false)
    let digits = { (s: Substring) in !s.isEmpty && s.allSatisfy { $0.isASCII && $0.isNumber } }
    if groups.count > 1, (1...3).contains(groups[0].count), groups.allSatisfy(digits),
      groups.dropFirst().allSatisfy({ $0.count == 3 }), parts.count == 1 || digits(parts[1])
    {
      let plain = text.filter { $0 != "," }
      return "\(quoted(text)) has a thousands separator; write the number without it (\(plain)), "
        + "as a spreadsheet does with a plain number format"
    }
    if groups.count == 2, parts.count == 1, groups.allSatisfy(digits) {
      return "\(quoted(text)) has a decimal comma; write a decimal point (\(text.replacing(",", with: ".")))"
    }
    if JSONNumber(text.trimmingSpaces) != nil { return "\(quoted(text)) has spaces around the number" }
    return "\(quoted(text)) is not a number (write it as JSON does: 1234.50, -3, 1e6)"
  }

  static func shown(_ cell: CSVTable.Cell) -> String { cell.isAbsent ? "empty" : quoted(cell.text) }

  /// Sets `value` at `members` below `target`, making the objects on the way.
  static func set(_ value: JSONValue, at members: ArraySlice<String>, in target: inout JSONValue) {
    guard let first = members.first else {
      target = value
      return
    }
    var child = target[first] ?? .object(JSONObject())
    set(value, at: members.dropFirst(), in: &child)
    target[first] = child
  }
}

extension String {
  fileprivate var trimmingSpaces: String {
    String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
  }
}
