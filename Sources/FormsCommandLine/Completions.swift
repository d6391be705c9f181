import ArgumentParser
import FormsCore
import FormsStore
import Foundation

/// Shell completion from the store in the working directory (or --store / FORMSCTL_STORE):
/// kinds, the ids of the kind already typed, and the field paths of that kind. The shell calls
/// formsctl back for these (`formsctl --generate-completion-script bash` writes the script).
package enum Completions {
  package static let kinds = CompletionKind.custom { words, _, prefix in
    (store(words)?.registry.kinds ?? []).filter { $0.hasPrefix(prefix) }
  }

  package static let ids = CompletionKind.custom { words, _, prefix in
    guard let store = store(words), let kind = kind(in: words, store: store), let schema = store.registry.latest(kind)
    else { return [] }
    // Completion offers what it can read; an unreadable directory offers nothing.
    return (try? store.layout.ids(in: schema.directory, prefix: prefix)) ?? []
  }

  /// The states the document already typed may move to next (`status KIND ID STATE`).
  package static let nextStates = CompletionKind.custom { words, _, prefix in
    guard let store = store(words), let kind = kind(in: words, store: store), let schema = store.registry.latest(kind),
      let workflow = schema.workflow, let index = words.firstIndex(of: kind), index + 1 < words.count
    else { return [] }
    // Completion offers what it can read: a document it cannot read offers every state.
    let id = (try? store.expand(kind: kind, id: words[index + 1])) ?? words[index + 1]
    let current = (try? store.read(kind: kind, id: id)).flatMap { schema.workflowState(of: $0.value) }
    let states = current.map { workflow.next(from: $0) } ?? Array(Set(workflow.transitions.values.joined())).sorted()
    return states.filter { $0.hasPrefix(prefix) }
  }

  /// Snapshots by label (newest first), then by id, and `latest`.
  package static let snapshots = CompletionKind.custom { words, _, prefix in
    guard let store = store(words), let all = try? Snapshots(layout: store.layout).list() else { return [] }
    let labels = all.reversed().compactMap { $0.manifest?.label }
    var seen = Set<String>()
    return (["latest"] + labels + all.reversed().map(\.name)).filter {
      seen.insert($0).inserted && $0.hasPrefix(prefix)
    }
  }

  /// Field paths, for --where, --sort (also `-path`) and --fields (after the last comma).
  package static let paths = CompletionKind.custom { words, _, prefix in
    let head = prefix.lastIndex(of: ",").map { String(prefix[...$0]) } ?? (prefix.hasPrefix("-") ? "-" : "")
    return fieldPaths(words).map { head + $0 }.filter { $0.hasPrefix(prefix) }
  }

  /// `PATH=` for `set`'s assignments: only paths `set` accepts. A list's elements are `[+]` (a
  /// new element) and, for the document the command line names, the indices it has (`items[0]`);
  /// never `[]`, which `set` refuses.
  package static let assignments = CompletionKind.custom { words, _, prefix in
    assignmentPaths(words).map { $0 + "=" }.filter { $0.hasPrefix(prefix) }
  }

  /// At most this many indexed paths per field path, so a long list does not flood the shell.
  package static let indexedPathLimit = 100

  package static func assignmentPaths(_ words: [String]) -> [String] {
    var document: JSONValue?
    if let store = store(words), let kind = kind(in: words, store: store), let index = words.firstIndex(of: kind),
      index + 1 < words.count
    {
      // Completion offers what it can read: a document it cannot read offers `[+]` only.
      let id = (try? store.expand(kind: kind, id: words[index + 1])) ?? words[index + 1]
      document = (try? store.read(kind: kind, id: id))?.value
    }
    var seen = Set<String>()
    return fieldPaths(words).flatMap { path -> [String] in
      guard path.contains("[]") else { return [path] }
      var out = [path.replacingOccurrences(of: "[]", with: "[+]")]
      if let document { out += indexed(path, in: document) }
      return out
    }.filter { seen.insert($0).inserted }
  }

  /// `path`'s `[]` steps made the indices `document` has there (each later `[]` also `[+]`).
  package static func indexed(_ path: String, in document: JSONValue) -> [String] {
    var out: [String] = []
    func expand(_ head: String, _ rest: Substring) {
      guard out.count < indexedPathLimit else { return }
      guard let range = rest.range(of: "[]") else { return out.append(head + rest) }
      let list = head + rest[..<range.lowerBound]
      let tail = rest[range.upperBound...]
      out.append(list + "[+]" + tail.replacingOccurrences(of: "[]", with: "[+]"))
      let count = FilterExpression.Path(list)?.values(in: document).first?.arrayValue?.count ?? 0
      for index in 0..<count { expand(list + "[\(index)]", tail) }
    }
    expand("", Substring(path))
    // The first entry is the all-`[+]` path, which the caller already offers.
    return Array(out.dropFirst())
  }

  package static func fieldPaths(_ words: [String]) -> [String] {
    guard let store = store(words), let kind = kind(in: words, store: store),
      let versions = store.registry.schemas[kind]
    else { return [] }
    var seen = Set<String>()
    return versions.sorted { $0.key > $1.key }.flatMap { $0.value.root.fieldPaths() }.filter {
      seen.insert($0).inserted
    }
  }

  /// The store the command line names, or the one around the working directory.
  package static func store(_ words: [String]) -> Store? {
    let explicit = words.firstIndex(of: "--store").flatMap { $0 + 1 < words.count ? words[$0 + 1] : nil }
    guard
      let layout = try? StoreLayout.locate(
        explicit: explicit, environment: ProcessInfo.processInfo.environment,
        workingDirectory: FileIO.currentDirectory)
    else { return nil }
    return try? Store.open(layout)
  }

  /// The first word that names a kind of the store.
  package static func kind(in words: [String], store: Store) -> String? {
    let kinds = Set(store.registry.kinds)
    return words.first { kinds.contains($0) }
  }
}
