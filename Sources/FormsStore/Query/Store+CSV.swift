import FormsCore

extension Store {
  /// A spreadsheet of what `query` finds: the CSV `list --format csv --explode` prints, and what
  /// `import` reads back (``Importer/csvRecords(_:display:bytes:schema:map:rejected:)``).
  public struct Spreadsheet: Sendable {
    /// The CSV text: a header of field paths, then the rows, LF line ends (`CSVDocuments`, FormsCore).
    public var text: String
    /// The listing it shows (documents, files skipped, an operation awaiting recovery).
    public var listing: Listing
  }

  /// The documents of `kind` that `query` finds as CSV, one row per element of the list
  /// `explode` names (`items`, `outputs.projections`; nil: one row per document), the document's
  /// fields repeated on each. Without `columns`, every field the documents hold, objects
  /// flattened (`metadata.agency`), the list's elements as `items[].quantity`; with them, those
  /// paths. Numbers keep their exact text. Shown sealed values are recorded as `list` records them.
  /// Throws ``StoreError/usage(_:)`` when `explode` or a column names no field of `kind`.
  public func spreadsheet(kind: String, query: Query, explode: String?, columns: [Column]? = nil) throws(StoreError)
    -> Spreadsheet
  {
    let schema = try schema(kind)
    var list: [String]?
    if let explode {
      switch CSVDocuments.explodedList(explode, in: schema) {
      case .success(let members): list = members
      case .failure(let problem): throw StoreError.usage("--explode \(explode): \(problem.message)")
      }
    }
    let listing = try self.listing(kind: kind, query: query, columns: columns)
    // A whole export names the file each row comes from, so that edits made in the sheet apply
    // on import while the document is still that file (and are refused, naming both, when not).
    let values = listing.documents.map { document in
      var value = document.value
      if columns == nil { value[CSVDocuments.baseColumn] = .string(document.contentHash) }
      return value
    }
    let shown: [CSVColumn]
    if let columns {
      shown = try columns.map { column throws(StoreError) in
        switch CSVColumn.resolve(column.name, path: column.path, in: schema) {
        case .success(let resolved):
          if let under = resolved.list, under != list {
            throw StoreError.usage(
              "--fields \(column.name) reads every element of a list; with --explode \(under.joined(separator: ".")) "
                + "it reads one element per row")
          }
          return resolved
        case .failure(let problem): throw StoreError.usage("--fields \(column.name): \(problem.message)")
        }
      }
    } else {
      shown = CSVDocuments.columns(of: values, schema: schema, explode: list)
    }
    return Spreadsheet(text: CSVDocuments.write(values, columns: shown, explode: list), listing: listing)
  }
}
