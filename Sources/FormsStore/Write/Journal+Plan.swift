import FormsCore
import Foundation

extension Journal {
  /// One line of `plan.ndjson` after the header: a file to replace, a file to delete, or the audit
  /// record to append. Each names the SHA-256 of what it puts in place and of what it replaces, so
  /// that `recover` applies only what the operation staged, to the files it found.
  struct PlannedStep: Sendable, Equatable {
    enum Action: String, Sendable { case write, delete, append }

    let action: Action
    /// The file changed (absolute); for `append`, always the audit log.
    let path: FilePath
    /// Where a `write` stages the new content: `.NAME.formsctl-journal` beside `path`.
    let staged: FilePath?
    /// SHA-256 of the new content (`write`) or of the record (`append`); nil in a plan written
    /// before plans carried hashes.
    let sha256: String?
    /// SHA-256 of the file a `write` or `delete` replaces; nil when there was none.
    let replaces: String?
    /// Where `append` writes the record: the log's size when the plan was made, and the record's length.
    let offset: Int?
    let length: Int?

    /// Where a `write` stages its content (the plan's record of it, else where formsctl puts it).
    var stagedPath: FilePath { staged ?? Journal.stagedPath(for: path) }

    static func write(_ path: FilePath, bytes: [UInt8], replaces: String?) -> PlannedStep {
      PlannedStep(
        action: .write, path: path, staged: Journal.stagedPath(for: path), sha256: sha256Hex(bytes),
        replaces: replaces, offset: nil, length: nil)
    }

    static func delete(_ path: FilePath, replaces: String?) -> PlannedStep {
      PlannedStep(action: .delete, path: path, staged: nil, sha256: nil, replaces: replaces, offset: nil, length: nil)
    }

    static func append(_ record: [UInt8], to log: FilePath, at offset: Int) -> PlannedStep {
      PlannedStep(
        action: .append, path: log, staged: nil, sha256: sha256Hex(record), replaces: nil, offset: offset,
        length: record.count)
    }

    /// The plan line, paths relative to the store's root.
    func line(_ layout: StoreLayout) -> [UInt8] {
      var object = JSONObject(["action": .string(action.rawValue), "path": .string(layout.relative(path.string))])
      if let staged { object["staged"] = .string(layout.relative(staged.string)) }
      if let sha256 { object["sha256"] = .string(sha256) }
      if action != .append { object["replaces"] = replaces.map(JSONValue.string) ?? .null }
      if let offset { object["offset"] = .number(JSONNumber(offset)) }
      if let length { object["length"] = .number(JSONNumber(length)) }
      return Array((JSONWriter.compact(.object(object)) + "\n").utf8)
    }

    /// A plan line read back; nil when it is not one formsctl writes. A plan comes from a file a
    /// checkout may carry, so only a relative path inside the store, outside `.formsctl/`, without
    /// `..`, staged (if at all) as its own `.NAME.formsctl-journal` beside it, is trusted; from a
    /// plan of `hashed` format, only with its hashes.
    init?(_ step: JSONValue, layout: StoreLayout, hashed: Bool) {
      guard let action = step["action"]?.stringValue.flatMap(Action.init), let relative = step["path"]?.stringValue
      else { return nil }
      let sha256 = step["sha256"]?.stringValue
      if hashed, sha256 == nil && action != .delete { return nil }
      if hashed, action != .append, step["replaces"] == nil { return nil }
      self.action = action
      self.sha256 = sha256
      self.replaces = step["replaces"]?.stringValue
      if action == .append {
        // Its source and target are fixed (the staged record, the history); the plan gives the place.
        guard let offset = step["offset"]?.numberValue?.intValue, offset >= 0 else { return nil }
        let length = step["length"]?.numberValue?.intValue
        if hashed && length == nil { return nil }
        (path, staged, self.offset, self.length) = (layout.historyPath, nil, offset, length)
        return
      }
      let parts = relative.split(separator: "/", omittingEmptySubsequences: false)
      let path = layout.rootPath / relative
      let staged = step["staged"]?.stringValue.map { layout.rootPath / $0 }
      guard !relative.hasPrefix("/"), !parts.contains(".."), !parts.contains(""), parts.first != ".formsctl",
        staged == nil || staged == Journal.stagedPath(for: path), (action == .write) == (staged != nil)
      else { return nil }
      (self.path, self.staged, offset, length) = (path, staged, nil, nil)
    }

    private init(
      action: Action, path: FilePath, staged: FilePath?, sha256: String?, replaces: String?, offset: Int?, length: Int?
    ) {
      (self.action, self.path, self.staged, self.sha256) = (action, path, staged, sha256)
      (self.replaces, self.offset, self.length) = (replaces, offset, length)
    }
  }

  /// A plan read back: its operation, its steps, and the lines no formsctl journal writes.
  struct Plan: Sendable {
    let operation: String
    let steps: [PlannedStep]
    let untrusted: [String]
  }

  /// Reads the plan (an error when it cannot be read: never "no steps"). A torn last line (a crash
  /// while appending, before the commit record) is ignored; any other line that is not a step
  /// formsctl writes comes back as untrusted.
  func readPlan() throws(StoreError) -> Plan {
    let bytes = try FileIO.read(planPath, limit: Int.max, followLinks: false)
    let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
    let header = lines.first.flatMap(Self.parsedLine)
    let hashed = (header?["format"]?.numberValue?.intValue ?? 1) >= 2
    var steps: [PlannedStep] = []
    var untrusted: [String] = []
    for (index, line) in lines.enumerated().dropFirst() where !line.isEmpty {
      let value = Self.parsedLine(line)
      if value == nil && index == lines.count - 1 { continue }  // torn: never followed by a commit record
      guard let value, let step = PlannedStep(value, layout: layout, hashed: hashed) else {
        untrusted.append(value?["path"]?.stringValue ?? String(decoding: line.prefix(80), as: UTF8.self))
        continue
      }
      steps.append(step)
    }
    return Plan(operation: header?["operation"]?.stringValue ?? "operation", steps: steps, untrusted: untrusted)
  }

  /// One line of a plan already read, as JSON; nil when it does not parse. That is no I/O error
  /// swallowed: such a line is torn (the last) or untrusted, and `readPlan` reports it so.
  static func parsedLine(_ line: ArraySlice<UInt8>) -> JSONValue? {
    do {
      return try JSONParser().parse(Array(line))
    } catch {
      return nil
    }
  }

  /// SHA-256 of the file at `path`, or nil when there is none.
  static func hash(ofFileAt path: FilePath) throws(StoreError) -> String? {
    guard FileIO.entry(path) != .missing else { return nil }
    return sha256Hex(try FileIO.read(path, limit: Int.max))
  }
}
