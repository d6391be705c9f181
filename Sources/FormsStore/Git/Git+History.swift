import FormsCore
import Foundation

extension GitRepository {
  /// One commit's change to one file: its blob before and after (nil where the file did not exist).
  struct FileChange: Sendable {
    /// The file's name (`PO-000201.json`).
    let name: String
    /// The commit's author time, in seconds since 1970.
    let time: Int64
    let before: String?
    let after: String?
  }

  /// Settings that keep a repository's own configuration (`i18n.logOutputEncoding`,
  /// `log.showSignature`, `color.ui`, `core.quotePath`...) from changing what is parsed.
  static let fixedConfig = [
    "-c", "i18n.logOutputEncoding=UTF-8", "-c", "log.showSignature=false", "-c", "color.ui=false",
    "-c", "core.quotePath=false", "-c", "diff.noprefix=false", "-c", "log.showRoot=true",
    "-c", "log.follow=false", "-c", "core.fsmonitor=false",
  ]

  /// True when the repository is a shallow clone: its history starts later than the store's.
  func isShallow() throws(StoreError) -> Bool {
    guard
      let result = Subprocess.run(["git"] + Self.fixedConfig + ["-C", root, "rev-parse", "--is-shallow-repository"])
    else { throw StoreError.refused(.gitMissing) }
    return result.status == 0 && String(decoding: result.stdout, as: UTF8.self).hasPrefix("true")
  }

  /// Every change a commit made to a `.json` file directly in `directory`, in history order, from one
  /// `git log --topo-order` over the directory (parents before children, whatever the author dates
  /// say): a rename is a deletion and an addition, a merge commit's own
  /// resolution is not a change (the commits it merges are), and the time is the author's (kept
  /// by rebase, cherry-pick and amend). None when the repository has no commit yet.
  func fileChanges(in directory: String) throws(StoreError) -> [FileChange] {
    guard
      let head = Subprocess.run(
        ["git"] + Self.fixedConfig + ["-C", root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"])
    else {
      throw StoreError.refused(.gitMissing)
    }
    guard head.status == 0 else { return [] }
    // Paths relative to `directory` (--relative), so a store reached through a link is no matter.
    guard
      let log = Subprocess.run(
        ["git"] + Self.fixedConfig + [
          "-C", directory, "log", "--topo-order", "--relative", "--no-renames", "--raw", "--no-abbrev", "-z",
          "--no-color", "--no-ext-diff", "--no-textconv", "--format=%x01%at", "--", ".",
        ])
    else { throw StoreError.refused(.gitMissing) }
    guard log.status == 0 else { throw StoreError.refused(.gitFailed(subcommand: "log", stderr: log.stderr)) }
    let output = log.stdout
    var changes: [FileChange] = []
    var time: Int64 = 0
    var tokens = output.split(separator: 0, omittingEmptySubsequences: false)[...]
    while let raw = tokens.popFirst() {
      let token = raw.drop { $0 == UInt8(ascii: "\n") }
      if token.first == 1 {
        time = Int64(String(decoding: token.dropFirst(), as: UTF8.self)) ?? 0
      } else if token.first == UInt8(ascii: ":"), let path = tokens.popFirst() {
        // `:100644 100644 OLD NEW M`: the blobs before and after, all zeros where there was none.
        let fields = token.split(separator: UInt8(ascii: " ")).map { String(decoding: $0, as: UTF8.self) }
        guard fields.count >= 5 else { continue }
        let name = String(decoding: path, as: UTF8.self)
        guard name.hasSuffix(".json"), !name.contains("/") else { continue }
        func blob(_ id: String) -> String? { id.allSatisfy { $0 == "0" } ? nil : id }
        changes.append(FileChange(name: name, time: time, before: blob(fields[2]), after: blob(fields[3])))
      }
    }
    return changes.reversed()
  }

  /// The contents of the blobs `ids`, from one `git cat-file --batch`; a blob git does not have is
  /// left out.
  func blobs(_ ids: [String]) throws(StoreError) -> [String: [UInt8]] {
    guard !ids.isEmpty else { return [:] }
    guard
      let result = Subprocess.run(
        ["git"] + Self.fixedConfig + ["-C", root, "cat-file", "--batch"],
        input: Array(ids.joined(separator: "\n").utf8) + [10])
    else { throw StoreError.refused(.gitMissing) }
    guard result.status == 0 else {
      throw StoreError.refused(.gitFailed(subcommand: "cat-file", stderr: result.stderr))
    }
    var blobs: [String: [UInt8]] = [:]
    let out = result.stdout
    var index = out.startIndex
    while index < out.endIndex, let end = out[index...].firstIndex(of: 10) {
      // `ID blob SIZE`, then SIZE bytes and a newline; `ID missing` alone.
      let header = out[index..<end].split(separator: UInt8(ascii: " ")).map { String(decoding: $0, as: UTF8.self) }
      index = end + 1
      guard header.count == 3, let size = Int(header[2]), size >= 0, index + size <= out.endIndex else { continue }
      if header[1] == "blob" { blobs[header[0]] = Array(out[index..<index + size]) }
      index += size + 1
    }
    return blobs
  }
}

/// A commit that changed a document's file, as `git log` tells it.
public struct DocumentCommit: Sendable, Equatable {
  /// The commit's full hash.
  public let commit: String
  /// The author time (ISO 8601, as git prints `%aI`).
  public let time: String
  public let author: String
  /// The first line of its message.
  public let subject: String
}

extension GitRepository {
  /// The newest `limit` commits that changed `path` (a file in the work tree), newest first,
  /// following no rename: one `git log` over that path.
  func commits(touching path: String, limit: Int) throws(StoreError) -> [DocumentCommit] {
    guard
      let log = Subprocess.run(
        ["git"] + Self.fixedConfig + [
          "-C", root, "log", "-n", String(max(1, limit)), "--no-color", "-z", "--format=%H%x00%aI%x00%an%x00%s",
          "--", path,
        ])
    else { throw StoreError.refused(.gitMissing) }
    // A repository with no commit yet has no history of the file.
    guard log.status == 0 else { return [] }
    let fields = log.stdout.split(separator: 0, omittingEmptySubsequences: false).map {
      String(decoding: $0.drop { $0 == UInt8(ascii: "\n") }, as: UTF8.self)
    }
    return stride(from: 0, to: fields.count - 3, by: 4).map { index in
      DocumentCommit(
        commit: fields[index], time: fields[index + 1], author: fields[index + 2], subject: fields[index + 3])
    }
  }
}

extension Store {
  /// The newest `limit` commits of git's history that changed the document `kind` `id`'s file
  /// (changes a pull, a merge or a commit made outside formsctl brought, which the audit log of
  /// this clone may not hold), newest first; none when the store is not in a git repository or
  /// git is not installed.
  public func commits(kind: String, id: String, limit: Int = 20) throws(StoreError) -> [DocumentCommit] {
    let path = try path(kind: kind, id: id)
    let repository: GitRepository
    do {
      repository = try GitRepository(around: layout.root)
    } catch {
      if case .refused(.gitMissing) = error { return [] }
      if case .refused(.notARepository) = error { return [] }
      throw error
    }
    return try repository.commits(touching: path, limit: limit)
  }
}
