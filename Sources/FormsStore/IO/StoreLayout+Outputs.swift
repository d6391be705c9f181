/// Where a file formsctl writes for a person may go: the one check every such output makes (a
/// rejects list, a rendered page, exported schemas), before any work
/// (docs/decisions/0131-outputs-never-land-in-the-store-or-git.md).
extension StoreLayout {
  /// Why `path` (as the person typed it, relative to the working directory) may not take a file
  /// formsctl writes for a person, or nil when it may. Refused: the repository's `.git` (the
  /// nearest one above the store, and the store's own), the store's data, `.formsctl`,
  /// attachments and templates directories, its schemas directory wherever it is, its manifest,
  /// and each of `reading` (the files the run reads, such as an import's feed). Links in the
  /// directories on the way are followed first, so `../../.git/config` and a link to `data/` are
  /// caught as what they name.
  package func outputRefusal(_ path: String, reading: [String] = []) -> String? {
    let target = FilePath(path).absolute(from: FileIO.currentDirectory)
    let real = (FileIO.realPath(target.parent) ?? target.parent) / target.name
    func resolved(_ place: FilePath) -> FilePath {
      FileIO.realPath(place) ?? place.absolute(from: FileIO.currentDirectory)
    }
    var places: [(FilePath, String)] = [
      (dataPath, "the store's data directory"), (state, "the store's .formsctl directory"),
      (schemasPath, "the store's schemas directory"), (attachmentsPath, "the store's attachments directory"),
      (templatesPath, "the store's templates directory"), (rootPath / ".git", "the store's .git directory"),
    ]
    let root = resolved(rootPath)
    if let top = Self.nearest(holding: ".git", from: root.string) {
      places.append((FilePath(top) / ".git", "the git repository's .git directory"))
    }
    for (place, name) in places where resolved(place).contains(real) { return "it is inside \(name)" }
    if resolved(Self.manifestPath(root: root.string)) == real { return "it is the store's manifest" }
    for file in reading {
      let given = FilePath(file).absolute(from: FileIO.currentDirectory)
      if resolved(given) == real { return "it is a file this run reads (\(file))" }
    }
    return nil
  }

  /// Refuses `path` for a file written for a person (`outputRefusal(_:reading:)` says where
  /// not): ``StoreError/outputRefused(path:reason:)``, a bad argument, before anything is written.
  public func checkOutput(_ path: String, reading: [String] = []) throws(StoreError) {
    if let reason = outputRefusal(path, reading: reading) {
      throw StoreError.outputRefused(path: path, reason: reason)
    }
  }
}
