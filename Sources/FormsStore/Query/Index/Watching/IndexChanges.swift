import FormsCore
import Foundation

/// A watcher's answer to "what changed in this kind's directory since token T": the names
/// (relative to the directory) of the files changed since, or that everything may have changed
/// (and why); with the token that names this moment, to ask with next time.
package struct IndexChanges: Sendable, Equatable {
  package var token: String
  /// Why everything may have changed; nil when `changed` is the whole list.
  package var everything: String?
  package var changed: [String]

  package init(token: String, everything: String? = nil, changed: [String] = []) {
    self.token = token
    self.everything = everything
    self.changed = changed
  }

  /// The answer as one line of the socket's protocol (compact JSON).
  var json: JSONValue {
    var object = JSONObject(["token": .string(token)])
    if let everything {
      object["everything"] = .string(everything)
    } else {
      object["changed"] = .array(changed.map { .string($0) })
    }
    return .object(object)
  }

  /// The answer in `value`; nil when it is not one.
  init?(_ value: JSONValue) {
    guard let token = value["token"]?.stringValue else { return nil }
    self.token = token
    if let everything = value["everything"]?.stringValue {
      self.everything = everything
      changed = []
    } else {
      guard let names = value["changed"]?.arrayValue else { return nil }
      var changed: [String] = []
      for name in names {
        guard let name = name.stringValue, ChangedName.isPlausible(name) else { return nil }
        changed.append(name)
      }
      self.changed = changed
      everything = nil
    }
  }
}

/// Where a query learns what changed in a kind's directory since it last looked (a watcher in
/// this process, or the store's watcher over its socket), and keeps what it may trust of the
/// index until then (``WatchRecord``).
package protocol IndexChangeSource: Sendable {
  /// What changed in `kind`'s directory (`directory`, as the asking store's descriptors place
  /// it) since `token` (nil: no earlier answer), each write made before the call included; nil
  /// when there is no answer (no watcher, or none within the bound): the query checks every file.
  func changes(kind: String, directory: String, since token: String?) -> IndexChanges?
  /// What the last query of `kind` through this source left: the token and the index it vouched for.
  func record(kind: String) -> WatchRecord?
  func save(_ record: WatchRecord, kind: String)
}

/// How the last query of a kind used the index: what tests and `FORMSCTL_INDEX_TRACE` show.
package enum IndexRoute: Sendable, Equatable, CustomStringConvertible {
  /// No watcher: every file was `stat`ed (or read).
  case unwatched
  /// A watcher answered, but everything was checked, for this reason.
  case everything(String)
  /// A watcher answered: only these files were `stat`ed.
  case watched(checked: Int)

  package var description: String {
    switch self {
    case .unwatched: "no watcher: every file checked"
    case .everything(let why): "watcher: every file checked (\(why))"
    case .watched(let checked): "watcher: \(checked) file\(checked == 1 ? "" : "s") checked"
    }
  }
}

/// A changed file's name as a watcher reports it: relative, not empty, no `..`, no NUL.
enum ChangedName {
  static func isPlausible(_ name: String) -> Bool {
    !name.isEmpty && name.utf8.count <= 4096 && !name.hasPrefix("/") && !name.contains("\0")
      && !name.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0 == ".." || $0.isEmpty })
  }
}
