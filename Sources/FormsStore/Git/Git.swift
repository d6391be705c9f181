import FormsCore
import Foundation

/// What formsctl asks of git: the repository, files changed since a revision, a file at a revision,
/// and the merge driver's setup.
public struct GitRepository: Sendable {
  /// The work tree's root (absolute).
  public let root: String

  /// The repository around `directory`; an error when there is none (or git is missing).
  public init(around directory: String) throws(StoreError) {
    guard let result = Subprocess.run(["git", "-C", directory, "rev-parse", "--show-toplevel"]) else {
      throw StoreError.refused(.gitMissing)
    }
    guard result.status == 0 else { throw StoreError.refused(.notARepository(directory: directory)) }
    root = String(decoding: result.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
  }

  func git(_ arguments: [String]) throws(StoreError) -> [UInt8] {
    guard let result = Subprocess.run(["git", "-C", root] + arguments) else {
      throw StoreError.refused(.gitMissing)
    }
    guard result.status == 0 else {
      throw StoreError.refused(.gitFailed(subcommand: arguments.first ?? "", stderr: result.stderr))
    }
    return result.stdout
  }

  /// Checks that `revision` names a commit.
  public func verify(_ revision: String) throws(StoreError) {
    guard let result = Subprocess.run(["git", "-C", root, "rev-parse", "--verify", "--quiet", revision + "^{commit}"]),
      result.status == 0
    else {
      throw StoreError.refused(.unknownRevision(revision))
    }
  }

  /// Absolute paths under `directory` added, modified or renamed since `revision` (work tree and
  /// index, plus untracked files), and those deleted.
  public func changes(since revision: String, under directory: String) throws(StoreError) -> (
    changed: [String], deleted: [String]
  ) {
    try verify(revision)
    let top = FilePath(root)
    let relative = top.relative(FilePath(directory)) ?? "."
    var changed = Set<String>()
    var deleted = Set<String>()
    let diff = try git(["diff", "--name-status", "-z", "--find-renames", revision, "--", relative])
    var fields = diff.split(separator: 0, omittingEmptySubsequences: true).map { String(decoding: $0, as: UTF8.self) }[
      ...]
    while let status = fields.popFirst() {
      if status.hasPrefix("R") || status.hasPrefix("C") {
        if let old = fields.popFirst(), status.hasPrefix("R") { deleted.insert((top / old).string) }
        if let new = fields.popFirst() { changed.insert((top / new).string) }
      } else if let path = fields.popFirst() {
        if status.hasPrefix("D") { deleted.insert((top / path).string) } else { changed.insert((top / path).string) }
      }
    }
    let untracked = try git(["ls-files", "-z", "--others", "--exclude-standard", "--", relative])
    for path in untracked.split(separator: 0) { changed.insert((top / String(decoding: path, as: UTF8.self)).string) }
    return (changed.filter { $0.hasSuffix(".json") }.sorted(), deleted.filter { $0.hasSuffix(".json") }.sorted())
  }

  /// The bytes of `path` (absolute) at `revision`, or nil when it did not exist there.
  public func contents(of path: String, at revision: String) -> [UInt8]? {
    let relative = FilePath(root).relative(FilePath(path)) ?? path
    guard let result = Subprocess.run(["git", "-C", root, "show", "\(revision):\(relative)"]), result.status == 0 else {
      return nil
    }
    return result.stdout
  }

  /// A path as a `.gitattributes` pattern: as it is, or C-quoted when it holds a space, a quote,
  /// a backslash or a control character (git splits an unquoted line at whitespace, so a store
  /// in `my forms/` would get no attribute at all).
  static func attributesPattern(_ path: String) -> String {
    guard
      path.unicodeScalars.contains(where: { $0 == " " || $0 == "\t" || $0 == "\"" || $0 == "\\" || $0.value < 0x20 })
    else { return path }
    var out = "\""
    for scalar in path.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\t": out += "\\t"
      case "\n": out += "\\n"
      default:
        out += scalar.value < 0x20 ? String(format: "\\%03o", scalar.value) : String(scalar)
      }
    }
    return out + "\""
  }

  /// Sets git up to merge documents with `formsctl merge-file` and the audit log line by line
  /// (`merge=union`: both branches' records are kept) (idempotent), or undoes it.
  public func installMergeDriver(layout: StoreLayout, uninstall: Bool) throws(StoreError) -> [String] {
    func relative(_ path: String) -> String { FilePath(root).relative(FilePath(path)) ?? path }
    let dataPrefix = FilePath(root).relative(layout.dataPath).map { $0 + "/" } ?? ""
    let wanted = [
      Self.attributesPattern("\(dataPrefix)**/*.json") + " merge=formsctl",
      Self.attributesPattern(relative(AuditLog.path(layout))) + " merge=union",
    ]
    let attributes = FilePath(root) / ".gitattributes"
    // An attributes file that cannot be read is an error: rewriting it from nothing would lose its lines.
    let existing = FileIO.entry(attributes) == .missing ? [] : try FileIO.read(attributes)
    var lines = String(decoding: existing, as: UTF8.self)
      .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if lines.last == "" { lines.removeLast() }
    var done: [String] = []
    let writer = AtomicWriter(boundary: FilePath(root))
    if uninstall {
      let kept = lines.filter { !wanted.contains($0) }
      if kept.count != lines.count {
        if kept.allSatisfy({ $0.allSatisfy(\.isWhitespace) }) {
          try FileIO.remove(attributes)
        } else {
          try writer.write(Array((kept.joined(separator: "\n") + "\n").utf8), to: attributes)
        }
        done += wanted.filter(lines.contains).map { "removed the line `\($0)` from .gitattributes" }
      }
      if (try? git(["config", "--local", "--get", "merge.formsctl.driver"])) != nil {
        _ = try git(["config", "--local", "--remove-section", "merge.formsctl"])
        done.append("removed the merge.formsctl driver from .git/config")
      }
      return done
    }
    let missing = wanted.filter { !lines.contains($0) }
    if !missing.isEmpty {
      try writer.write(Array(((lines + missing).joined(separator: "\n") + "\n").utf8), to: attributes)
      done += missing.map { "added the line `\($0)` to .gitattributes" }
    }
    let driver = "formsctl merge-file %O %A %B %P"
    if (try? git(["config", "--local", "--get", "merge.formsctl.driver"])).map({
      String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }) != driver {
      _ = try git(["config", "--local", "merge.formsctl.name", "formsctl structural JSON merge"])
      _ = try git(["config", "--local", "merge.formsctl.driver", driver])
      done.append("set merge.formsctl.driver = \(driver) in .git/config")
    }
    return done
  }
}

/// `validate --against REV` over files: each compared with its version at REV (`ChangeRules`),
/// and its approvals judged by the roles the store's manifest gave at REV (so a change cannot
/// grant itself the role that approves it).
public enum RevisionCheck {
  public static func run(
    files: [String], revision: String, git: GitRepository, registry: SchemaRegistry, layout: StoreLayout,
    display: (String) -> String
  ) throws(StoreError) -> [Diagnostic] {
    var diagnostics: [Diagnostic] = []
    let manifest = StoreLayout.manifestPath(root: layout.root).string
    let roles = try git.contents(of: manifest, at: revision).map { bytes throws(StoreError) in
      try StoreLayout.roles(inManifest: bytes, shown: "\(display(manifest)) at \(revision)")
    }
    // New files are judged too: an approval needs no earlier version to be checked.
    // A file new since REV, not a regular file, or not parsing on either side has nothing to
    // compare (validate reports those); one that cannot be read is an error.
    for path in files where FileIO.entry(FilePath(path)) == .file {
      let bytes = try FileIO.read(FilePath(path))
      guard let (new, map) = try? JSONParser().parseWithSourceMap(bytes),
        let schema = new["_schema"]?.stringValue.flatMap({ registry.schema(reference: $0) })
      else { continue }
      if let roles, schema.approvals != nil, let id = layout.identify(path)?.id {
        let kind = schema.kind
        let now = ApprovalReview(
          new, schema: schema, kind: kind, id: id, roles: layout.roles, references: registry.references(kind)
        )
        .findings
        let then = ApprovalReview(
          new, schema: schema, kind: kind, id: id, roles: roles, references: registry.references(kind)
        )
        .findings
        for finding in then where !now.contains(where: { $0.pointer == finding.pointer && $0.rule == finding.rule }) {
          diagnostics.append(
            Diagnostic(
              file: display(path), position: map.position(of: finding, in: bytes), pointer: finding.pointer,
              rule: finding.rule, message: finding.message + " (by the roles at \(revision))"))
        }
      }
      guard let oldBytes = git.contents(of: path, at: revision), let old = try? JSONParser().parse(oldBytes) else {
        continue
      }
      for finding in ChangeRules.findings(old: old, new: new, schema: schema) {
        diagnostics.append(
          Diagnostic(
            file: display(path), position: map.position(of: finding, in: bytes), pointer: finding.pointer,
            rule: finding.rule, message: finding.message + " (compared with \(revision))"))
      }
    }
    return diagnostics
  }
}
