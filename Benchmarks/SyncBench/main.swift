import Foundation

// SyncBench [COUNT]: first push against COPY, and incremental syncs (default 100,000). A program
// of its own, beside FormsBench, so that the regression check's release build never compiles
// sync's PostgreSQL client.
let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count <= 1, let count = arguments.first.map({ Int($0) }) ?? 100_000, count > 0 else {
  FileHandle.standardError.write(Data("usage: SyncBench [COUNT]\n".utf8))
  exit(64)
}
try SyncBenchmark.run(count: count, repository: FileManager.default.currentDirectoryPath)
