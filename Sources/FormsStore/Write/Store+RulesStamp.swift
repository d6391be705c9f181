extension Store {
  /// The files the rules come from, with what `stat` says of each now: the manifest (roles,
  /// recipients), the schemas directory and each kind's folder (a descriptor added or removed),
  /// and every descriptor compiled.
  static func stampRules(layout: StoreLayout, registry: SchemaRegistry) -> [(path: String, stamp: FileStamp?)] {
    let descriptors = Set(registry.files.values)
    let folders = Set(descriptors.map { FilePath($0).parent.string })
    let paths =
      [StoreLayout.manifestPath(root: layout.root).string, layout.schemasDirectory]
      + folders.sorted() + descriptors.sorted()
    return paths.map { ($0, FileStamp(FilePath($0))) }
  }

  /// Refuses a write when a file the rules come from changed since they were loaded: a
  /// long-lived door (serve, mcp, watch, lsp) judges each write by the rules on disk, and never
  /// by rules a `git pull` replaced (docs/design.md §15).
  func checkRulesUnchanged() throws(StoreError) {
    for (path, stamp) in rulesStamps where FileStamp(FilePath(path)) != stamp {
      throw StoreError.refused(.rulesChanged(path: display(path)))
    }
  }
}
