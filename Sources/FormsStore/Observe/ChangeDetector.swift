import FormsCore
import Foundation

/// What the documents of some kinds were when last looked at, and what changed since: the change
/// detection a watch is built on. A file is judged by its `stat` signature (size, mtime and ctime
/// in nanoseconds, inode), and read only when that changed; what it held is kept as one hash per
/// top-level member, so an update made behind formsctl's back is named by the members it changed.
struct ChangeDetector {
  /// One document as last seen.
  struct Known {
    var stamp: FileStamp
    /// The hash of each top-level member's canonical text when it last parsed (nil: never).
    var members: [String: Int]?
    /// The file does not parse now.
    var broken = false
  }

  /// The kinds watched, by the directory that holds their documents.
  let kinds: [String: String]
  private(set) var known: [String: Known] = [:]

  init(kinds: [String: String]) { self.kinds = kinds }

  /// The document files of the watched kinds, each with its kind.
  func files(in directories: [String]) throws(StoreError) -> [(path: String, kind: String)] {
    var out: [(String, String)] = []
    for directory in directories {
      guard let kind = kinds[directory], FileIO.entry(directory) == .directory else { continue }
      for (name, entry) in try FileIO.entries(of: directory) where Self.isDocumentName(name) && entry == .file {
        out.append((directory + "/" + name, kind))
      }
    }
    return out
  }

  /// A document's file name: `ID.json`, not hidden (the journal stages `.NAME.formsctl-journal`,
  /// editors write hidden swap files).
  static func isDocumentName(_ name: String) -> Bool { name.hasSuffix(".json") && !name.hasPrefix(".") }

  /// Looks at `paths` (nil: every file of every watched kind) and returns what changed since the
  /// last look, with the state that results; `adopt` makes it the detector's.
  func scan(_ paths: Set<String>?) throws(StoreError) -> (changes: [Store.Change], state: [String: Known]) {
    var state = known
    var candidates: [(path: String, kind: String)]
    if let paths {
      candidates = paths.compactMap { path in kinds[parentDirectory(path)].map { (path, $0) } }
    } else {
      candidates = try files(in: Array(kinds.keys))
      let present = Set(candidates.map(\.path))
      for path in known.keys where !present.contains(path) {
        candidates.append((path, kinds[parentDirectory(path)] ?? ""))
      }
    }
    let looked = try parallelMap(candidates.sorted { $0.path < $1.path }, chunkSize: 32) {
      candidate -> Result<(String, String, Known?), StoreError> in
      Result { () throws(StoreError) in
        guard let stamp = FileStamp(candidate.path) else { return (candidate.path, candidate.kind, nil) }
        if let before = self.known[candidate.path], before.stamp == stamp {
          return (candidate.path, candidate.kind, before)
        }
        let members = try Self.members(candidate.path)
        return (candidate.path, candidate.kind, Known(stamp: stamp, members: members, broken: members == nil))
      }
    }
    var changes: [Store.Change] = []
    for result in looked {
      let (path, kind, now) = try result.get()
      let before = known[path]
      let id = StoreLayout.id(fromFile: path) ?? fileName(path)
      switch (before, now) {
      case (nil, nil): continue
      case (_?, nil):
        state[path] = nil
        changes.append(Store.Change(kind: kind, id: id, operation: .delete, pointers: [.root]))
      case (nil, let now?):
        state[path] = now
        changes.append(
          Store.Change(
            kind: kind, id: id, operation: .create, pointers: [.root],
            problem: now.members == nil ? "does not parse" : nil))
      case (let before?, let now?):
        guard before.stamp != now.stamp else { continue }
        state[path] = Known(stamp: now.stamp, members: now.members ?? before.members, broken: now.broken)
        guard let members = now.members else {
          changes.append(Store.Change(kind: kind, id: id, operation: .update, pointers: [], problem: "does not parse"))
          continue
        }
        let pointers = Self.changedMembers(before.members, members)
        // Touched but not changed (`touch`, a checkout that rewrote the same bytes): nothing to say.
        if pointers.isEmpty && before.members != nil && !before.broken { continue }
        changes.append(Store.Change(kind: kind, id: id, operation: .update, pointers: pointers))
      }
    }
    return (changes, state)
  }

  /// Makes `state` (from `scan`) what the detector knows.
  mutating func adopt(_ state: [String: Known]) { known = state }

  /// The top-level members of the document at `path`, each as a hash of its canonical text; nil
  /// when it does not parse (a merge conflict, a half-saved file) or is gone.
  static func members(_ path: String) throws(StoreError) -> [String: Int]? {
    let bytes: [UInt8]
    do throws(StoreError) {
      bytes = try FileIO.read(path)
    } catch {
      // Gone between the stat and the read: the next look sees it missing.
      if case .fileNotFound = error { return nil }
      throw error
    }
    guard case .object(let object)? = try? JSONParser().parse(bytes) else { return nil }
    var out: [String: Int] = [:]
    for member in object.members { out[member.key] = JSONWriter.compact(member.value).hashValue }
    return out
  }

  /// The members added, removed or changed between two versions, as pointers, sorted.
  static func changedMembers(_ before: [String: Int]?, _ after: [String: Int]) -> [JSONPointer] {
    guard let before else { return [.root] }
    let names = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }
    return names.sorted().map { JSONPointer(tokens: [$0]) }
  }
}
