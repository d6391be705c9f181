import FormsCore

extension Importer {
  /// A row of an exported sheet, carrying the hash of the file it was exported from: a person's
  /// edit of that version. Its edits apply (as a person's change: the workflow, `editable:` and
  /// the stamps of the write path) while the stored file is still that one; when it changed
  /// since, a row that differs from it is refused, naming both, and one that does not is unchanged.
  static func edit(
    _ record: JSONValue, base: String, stored: Store.Document?, kind: String, merger: FeedMerger,
    session: WriteSession
  ) -> (FeedMerger.Merge, Result<WriteSession.Prepared?, StoreError>) {
    guard let stored else {
      return (
        FeedMerger.Merge(result: nil, action: .unchanged),
        .failure(
          .refused(
            .changedMeanwhile(
              path: "\(kind) \(record[merger.schema.idField].flatMap(DocumentID.text) ?? "")",
              during: "since the sheet was exported (it was removed; the row names the file "
                + "\(base.prefix(12))…); to create it again, leave out the \(CSVDocuments.baseColumn) column")))
      )
    }
    var kept: [String: Int] = [:]
    var edited = merger.overlay(record, onto: stored.value, type: merger.schema.root, parent: nil, kept: &kept)
    edited["_schema"] = stored.value["_schema"]
    guard edited != stored.value else { return (FeedMerger.Merge(result: nil, action: .unchanged), .success(nil)) }
    let merge = FeedMerger.Merge(result: edited, action: .replace, kept: kept)
    guard stored.contentHash == base else {
      return (
        merge,
        .failure(
          .refused(
            .changedMeanwhile(
              path: "\(kind) \(record[merger.schema.idField].flatMap(DocumentID.text) ?? "")",
              during: "since the sheet was exported (the row was made from the file \(base.prefix(12))…, "
                + "the store now holds \(stored.contentHash.prefix(12))…); the row's edits are not applied: "
                + "export it again and make them there")))
      )
    }
    do throws(StoreError) {
      return (merge, .success(try session.prepare(edited, replacing: stored, kind: kind, source: .person)))
    } catch {
      return (merge, .failure(error))
    }
  }
}
