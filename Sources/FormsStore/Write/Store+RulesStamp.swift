extension Store {
  /// Refuses a write when a file the rules come from (the manifest's roles and recipients, the
  /// schemas directory, a kind's folder, a descriptor) changed since they were loaded, as the
  /// write begins and again before it commits: a long-lived door (serve, mcp, watch, lsp), or a
  /// long run, judges each write by the rules on disk, never by rules a `git pull` replaced
  /// (docs/design.md §15).
  func checkRulesUnchanged() throws(StoreError) {
    for (path, stamp) in rulesStamps {
      let now =
        path.hasSuffix(StoreLayout.manifestName) ? FileStamp(notFollowing: FilePath(path)) : FileStamp(FilePath(path))
      if now != stamp { throw StoreError.refused(.rulesChanged(path: display(path))) }
    }
  }
}
