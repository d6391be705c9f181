import Foundation

/// Runs `body` with a fresh directory, removed afterwards; the only place these tests touch disk.
func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
  let path = FileManager.default.temporaryDirectory.appendingPathComponent("formsctl-test-\(UUID().uuidString)").path
  try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: path) }
  return try body(URL(fileURLWithPath: path).resolvingSymlinksInPath().path)
}

func writeText(_ text: String, to path: String) throws {
  try FileManager.default.createDirectory(
    atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
  try Data(text.utf8).write(to: URL(fileURLWithPath: path))
}

func readText(_ path: String) throws -> String {
  try String(contentsOfFile: path, encoding: .utf8)
}

func directoryListing(_ path: String) throws -> [String] {
  try FileManager.default.contentsOfDirectory(atPath: path).sorted()
}
