import Foundation

/// Runs `body` with a fresh directory (symbolic links resolved), removed afterwards.
public func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
  let path = FileManager.default.temporaryDirectory.appendingPathComponent("formsctl-test-\(UUID().uuidString)").path
  try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: path) }
  return try body(URL(fileURLWithPath: path).resolvingSymlinksInPath().path)
}

/// ``withTemporaryDirectory(_:)`` for an async `body`.
public func withTemporaryDirectoryAsync<T>(_ body: (String) async throws -> T) async throws -> T {
  let path = FileManager.default.temporaryDirectory.appendingPathComponent("formsctl-test-\(UUID().uuidString)").path
  try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: path) }
  return try await body(URL(fileURLWithPath: path).resolvingSymlinksInPath().path)
}

/// Writes `text` to `path`, creating its directories.
public func writeFile(_ text: String, to path: String) throws {
  try writeBytes(Array(text.utf8), to: path)
}

/// Writes `bytes` to `path`, creating its directories.
public func writeBytes(_ bytes: [UInt8], to path: String) throws {
  try FileManager.default.createDirectory(
    atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
  try Data(bytes).write(to: URL(fileURLWithPath: path))
}

public func readFile(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

/// The names in a directory, sorted.
public func directoryListing(_ path: String) throws -> [String] {
  try FileManager.default.contentsOfDirectory(atPath: path).sorted()
}
